"""Part-by-part statistics of fuseki's MCTS and michi-c on fixed positions (issue 25, item 2).

A match says *whether* one engine gets more out of a simulation than the
other; these statistics say *where*. Both engines are run on the same fixed
positions and the numbers are put side by side:

``playouts``
    N playouts from each position: the share of moves each playout rule
    chose (capture/atari, 3×3 pattern, random, pass), the mean playout
    length, and Black's share of playout wins (the playouts' judgement of the
    position). Positions: the empty board, positions from games of the
    michi-c benchmark (replayed, so the last moves are known to both), and the
    tactical positions of ``benchmarks/tactics/``.
``tree``
    a search of exactly N simulations on each tactical position (michi-c's
    early stop off): the share of the root's visits that went to the known
    answers, and the most visited move, over several seeds.

michi-c is instrumented in a copy: the source (``--michi-src``, as for
benchmarks/michi.py) is copied to ``$XDG_CACHE_HOME/fuseki/michi-c-stats/``,
its ``mcplayout`` gets counters, its ``komi`` accepts any komi, and the GTP
commands of ``benchmarks/michi_stats_ext.c`` (``setup``, ``mcstats``,
``tsstats``) are added. The source folder is never written.

    .venv/bin/python benchmarks/michi_stats.py playouts --playouts 2000 --out benchmarks/results/michi_stats/playouts.json
    .venv/bin/python benchmarks/michi_stats.py tree --sims 2000 --seeds 4 --out benchmarks/results/michi_stats/tree.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from michi import DEFAULT_SRC, SOURCE_FILES, MichiError, check_source, fuseki_commit
from tactics import load_positions

from fuseki.engines.gtp_client import GtpClient
from fuseki.go import kernels as K
from fuseki.go.coords import Point, to_gtp
from fuseki.search.go.reader import READER_DEPTH, reader_stack
from fuseki.go.rules import Rules
from fuseki.go.sgf import load_sgf
from fuseki.go.state import GameState
from fuseki.search.go import playouts as P
from fuseki.search.go.gomcts import GoMCTS, MCTSConfig

HERE = Path(__file__).resolve().parent
EXT = HERE / "michi_stats_ext.c"
GAMES = HERE / "results" / "michi_9x9" / "games" / "f2e18c7-sims2000"
KINDS = ("capture", "pat3", "random", "pass")

# (anchor in michi.c/michi.h, replacement): each must match exactly once.
PATCHES: list[tuple[str, str, str]] = [
    ("michi.h", "#define BUFLEN 256", "#define BUFLEN 4096"),
    ("michi.c", '#include "michi.h"\n', '#include "michi.h"\nlong st_count[4]; int st_no_early_stop = 0;\n'),
    (
        "michi.c",
        "Point  last_moves_neighbors[20], moves[BOARDSIZE], move;\n",
        "Point  last_moves_neighbors[20], moves[BOARDSIZE], move;\n    int st_kind = 2;\n",
    ),
    ("michi.c", '(move=choose_from(pos, moves, "capture", disp))', '(st_kind=0, move=choose_from(pos, moves, "capture", disp))'),
    ("michi.c", '(move=choose_from(pos, moves, "pat3", disp))', '(st_kind=1, move=choose_from(pos, moves, "pat3", disp))'),
    ("michi.c", 'move=choose_from(pos, moves, "random", disp);', 'st_kind=2; move=choose_from(pos, moves, "random", disp);'),
    ("michi.c", "found:\n", "found:\n        st_count[move == PASS_MOVE ? 3 : st_kind]++;\n"),
    ("michi.c", "if ( (i>n*0.05 && best_wr > FASTPLAY5_THRES)", "if (!st_no_early_stop && ((i>n*0.05 && best_wr > FASTPLAY5_THRES)"),
    ("michi.c", "(i>n*0.2 && best_wr > FASTPLAY20_THRES)) break;", "(i>n*0.2 && best_wr > FASTPLAY20_THRES))) break;"),
    ("michi.c", "if (komi != 7.5) {", "pos->komi = komi;\n            if (0) {"),
    ("michi.c", "void gtp_io(void)\n", "@EXT@\nvoid gtp_io(void)\n"),
    (
        "michi.c",
        '        else if (strcmp(command,"quit") == 0) {',
        """        else if (strcmp(command, "setup") == 0) {
            char *c = strtok(NULL, " \\t\\n"), *b = strtok(NULL, " \\t\\n");
            if (c == NULL || b == NULL || strlen(b) != N*N) ret = "Error: setup b|w BOARD";
            else { st_setup(pos, c[0], b); free_tree(tree); tree = new_tree_node(pos); ret = ""; }
        }
        else if (strcmp(command, "mcstats") == 0) {
            char *k = strtok(NULL, " \\t\\n");
            ret = st_mcstats(pos, k ? atoi(k) : 1000);
        }
        else if (strcmp(command, "tsstats") == 0) {
            char *k = strtok(NULL, " \\t\\n");
            ret = st_tsstats(pos, k ? atoi(k) : 1000);
        }
        else if (strcmp(command,"quit") == 0) {""",
    ),
]


def build_stats(src: Path, size: int) -> Path:
    """Build the instrumented michi-c for ``size`` in the cache; return the binary's folder."""
    src = check_source(src)
    h = hashlib.sha256()
    for name in SOURCE_FILES:
        h.update((src / name).read_bytes())
    h.update(EXT.read_bytes())
    h.update(repr(PATCHES).encode())
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "fuseki" / "michi-c-stats"
    folder = base / f"{h.hexdigest()[:12]}-n{size}"
    if (folder / "michi").is_file():
        return folder
    base.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=base))
    try:
        texts = {name: (src / name).read_text() for name in SOURCE_FILES}
        texts["michi.h"], count = re.subn(r"^#define N\s+\S+", f"#define N {size}", texts["michi.h"], flags=re.M)
        if count != 1:
            raise MichiError("michi.h: expected one '#define N'")
        for name, anchor, new in PATCHES:
            if texts[name].count(anchor) != 1:
                raise MichiError(f"{name}: the instrumentation anchor {anchor[:50]!r} is not there exactly once")
            texts[name] = texts[name].replace(anchor, new.replace("@EXT@", EXT.read_text()))
        for name, text in texts.items():
            (tmp / name).write_text(text)
        proc = subprocess.run(["make", "-s", "-C", str(tmp), "michi"], capture_output=True, text=True)
        if proc.returncode != 0:
            raise MichiError(f"building the instrumented michi-c failed: {proc.stderr.strip()[-1500:]}")
        tmp.rename(folder)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return folder


class Michi:
    """One instrumented michi-c process (GTP), started in its build folder."""

    def __init__(self, folder: Path, seed: int) -> None:
        self.gtp = GtpClient(["sh", "-c", f'cd "{folder}" && exec ./michi -z{seed} gtp 2>/dev/null'], timeout=3600.0)

    def __enter__(self) -> "Michi":
        self.gtp.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.gtp.__exit__(*exc)

    def load(self, state: GameState) -> None:
        """Set up ``state``: replayed move by move when it has a history (so the last moves are known), else as stones."""
        self.gtp.send("clear_board")
        self.gtp.send(f"komi {state.rules.komi:g}")
        moves = state.moves()
        if moves:
            for i, m in enumerate(moves):
                self.gtp.send(f"play {'bw'[i % 2]} {m.gtp(state.size)}")
            return
        stones = state.stones()
        board = "".join(".XO"[int(stones[r][c])] for r in range(state.size) for c in range(state.size))
        self.gtp.send(f"setup {state.next_player.name.lower()[0]} {board}")

    def playouts(self, state: GameState, k: int) -> dict:
        self.load(state)
        first, owner = self.gtp.send(f"mcstats {k}").splitlines()
        words = first.split()
        v = {words[i]: float(words[i + 1]) for i in range(0, len(words), 2)}
        moves = sum(v[kind] for kind in KINDS)
        return {
            "kinds": {kind: round(v[kind] / moves, 4) for kind in KINDS},
            "length": round(v["length"] / k, 2),
            "black_wins": round(v["black_wins"] / k, 4),
            "black_score": round(v["black_score_sum"] / k, 2),
            "owner": [round(int(x) / k, 3) for x in owner.split()[1:]],
        }

    def tree(self, state: GameState, sims: int) -> dict[str, int]:
        self.load(state)
        lines = self.gtp.send(f"tsstats {sims}").splitlines()[1:]
        return {w[0].upper(): int(w[1]) for w in (line.split() for line in lines)}


def fuseki_playouts(state: GameState, k: int, seed: int, config: MCTSConfig | None = None) -> dict:
    """``k`` heavy playouts from ``state`` by fuseki's kernel, with the same statistics as :meth:`Michi.playouts`."""
    c = config or MCTSConfig()
    K.seed_kernels(seed)
    n = state.size
    base = state.buffer
    np_ = int(base[K.M_NP])
    amaf = np.zeros(np_, dtype=np.int32)
    cand = np.zeros(8 * np_, dtype=np.int32)
    kinds = np.zeros(P.NKINDS, dtype=np.int64)
    ladder = reader_stack(n, depth=min(READER_DEPTH, 4 * n))
    prev = state.parent.last_index if state.parent is not None else None
    last2 = int(K.PAD[n, prev]) if prev is not None and prev < n * n else -1
    length = wins = 0
    score = 0.0
    owner = np.zeros(n * n)
    w = n + 2
    for _ in range(k):
        buf = base.copy()
        amaf[:] = 0
        length += P.heavy_playout(
            buf,
            c.max_game_factor * n * n,
            amaf,
            last2,
            c.p_capture,
            c.p_pat3,
            c.p_selfatari,
            c.p_selfatari_random,
            cand,
            0,
            kinds,
            *ladder,
            c.playout_ladder_nodes if c.ladders else 0,
        )
        margin = P.playout_score(buf) - state.rules.komi
        wins += margin > 0
        score += margin
        for i in range(n * n):
            q = (i // n + 1) * w + i % n + 1
            b = buf[K.META + q]
            if b == 0:
                seen = {int(buf[K.META + m]) for m in (q - w, q + w, q - 1, q + 1)} & {1, 2}
                b = seen.pop() if len(seen) == 1 else 0
            owner[i] += 1 if b == 1 else -1 if b == 2 else 0
    total = int(kinds.sum())
    return {
        "kinds": {kind: round(int(kinds[i]) / total, 4) for i, kind in enumerate(KINDS)},
        "length": round(length / k, 2),
        "black_wins": round(wins / k, 4),
        "black_score": round(score / k, 2),
        "owner": [round(x / k, 3) for x in owner],
    }


def fuseki_tree(state: GameState, sims: int, seed: int, config: MCTSConfig | None = None) -> dict[str, int]:
    cfg = config or MCTSConfig(seed=seed, reuse=False)
    info = GoMCTS(cfg).search(state, playouts=sims)
    n = state.size
    return {("PASS" if c.move == n * n else to_gtp(Point(*divmod(c.move, n)), n)): c.visits for c in info.children}


def game_positions(folder: Path, games: int, at: tuple[int, ...]) -> list[tuple[str, GameState]]:
    """Positions after ``at`` moves of the first ``games`` games in ``folder`` (replayed under michi's rules)."""
    out = []
    for path in sorted(folder.glob("game_*.sgf"))[:games]:
        record = load_sgf(path)
        for m in at:
            if len(record.moves) <= m:
                continue
            state = GameState.new(record.size, rules=Rules.preset("gnugo").replace(komi=7.5))
            for move in record.moves[:m]:
                state = state.play(move.move)
            out.append((f"{path.stem}@{m}", state))
    return out


def cmd_playouts(args: argparse.Namespace, folder: Path) -> dict:
    positions: list[tuple[str, GameState]] = [("empty", GameState.new(9, rules=Rules.preset("gnugo").replace(komi=7.5)))]
    positions += game_positions(args.games_dir, args.games, (10, 20, 40))
    positions += [(p.name, p.state) for p in load_positions()]
    rows = []
    with Michi(folder, args.seed) as michi:
        for name, state in positions:
            row = {
                "position": name,
                "michi": michi.playouts(state, args.playouts),
                "fuseki": fuseki_playouts(state, args.playouts, args.seed),
            }
            rows.append(row)
            f, m = row["fuseki"], row["michi"]
            kinds = "  ".join(f"{k} {f['kinds'][k]:.3f}/{m['kinds'][k]:.3f}" for k in KINDS)
            print(
                f"{name:26s} {kinds}  length {f['length']:.1f}/{m['length']:.1f}  Black wins {f['black_wins']:.3f}/{m['black_wins']:.3f}",
                flush=True,
            )
    return {"what": "fuseki/michi-c heavy playouts from fixed positions", "playouts": args.playouts, "rows": rows}


def cmd_tree(args: argparse.Namespace, folder: Path) -> dict:
    rows = []
    for pos in load_positions(names=args.positions.split(",") if args.positions else None):
        row: dict = {"position": pos.name, "best": sorted(pos.best), "fuseki": [], "michi": []}
        for seed in range(1, args.seeds + 1):
            with Michi(folder, seed) as michi:
                mv = michi.tree(pos.state, args.sims)
            fv = fuseki_tree(pos.state, args.sims, seed)
            for side, visits in (("fuseki", fv), ("michi", mv)):
                total = sum(visits.values())
                top = max(visits, key=visits.__getitem__)
                row[side].append(
                    {
                        "seed": seed,
                        "move": top,
                        "solved": top in pos.best,
                        "best_share": round(sum(visits.get(b, 0) for b in pos.best) / total, 4),
                    }
                )
        rows.append(row)
        summary = []
        for side in ("fuseki", "michi"):
            tries = row[side]
            summary.append(
                f"{side} {sum(t['solved'] for t in tries)}/{len(tries)} share {np.mean([t['best_share'] for t in tries]):.2f} "
                f"({' '.join(t['move'] for t in tries)})"
            )
        print(f"{pos.name:26s} best {' '.join(pos.best):8s} " + "   ".join(summary), flush=True)
    return {"what": "root visits on the tactical positions, exactly N simulations", "sims": args.sims, "seeds": args.seeds, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("playouts", "tree"))
    parser.add_argument("--playouts", type=int, default=2000, help="playouts a position (playouts)")
    parser.add_argument("--sims", type=int, default=2000, help="simulations a search (tree)")
    parser.add_argument("--seeds", type=int, default=3, help="searches a position (tree)")
    parser.add_argument("--positions", default=None, help="tactical positions, comma-separated (tree; default all)")
    parser.add_argument("--games", type=int, default=3, help="games of --games-dir to take positions from (playouts)")
    parser.add_argument("--games-dir", type=Path, default=GAMES)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--michi-src", type=Path, default=DEFAULT_SRC)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    try:
        folder = build_stats(args.michi_src, 9)
    except MichiError as e:
        print(f"michi_stats.py: {e}", file=sys.stderr)
        return 2
    t0 = time.time()
    result = cmd_playouts(args, folder) if args.what == "playouts" else cmd_tree(args, folder)
    result.update(
        command=shlex.join([sys.executable, *sys.argv]),
        commit=fuseki_commit(),
        seconds=round(time.time() - t0, 1),
        date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    )
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        tmp = args.out.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(result, indent=2) + "\n")
        os.replace(tmp, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
