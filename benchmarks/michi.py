"""Strength per simulation against michi-c: fuseki's ``mcts`` and the C engine of the same design (issue 25).

fuseki's MCTS follows Michi (heavy playouts with capture and 3×3 pattern
rules, Michi's priors, RAVE); michi-c is a C implementation of that design.
Played at the same number of simulations a move, the match says how much
each engine gets out of one simulation, whatever the machine's speed or
load; played at equal time, it says what the faster engine's speed buys.

    .venv/bin/python benchmarks/michi.py --games 20 --playouts 2000
    .venv/bin/python benchmarks/michi.py --games 100 --playouts 20000            # the issue's benchmark
    .venv/bin/python benchmarks/michi.py --games 100 --seconds 5                 # equal time
    .venv/bin/python benchmarks/michi.py ... --previous benchmarks/results/michi_9x9/OLD.json

What it does:

1. builds michi-c from ``--michi-src`` (default ``../shared/peers/michi-c``
   beside the repository, where the project's machines keep it) for the board
   size and simulations a move, which michi-c fixes at compile time
   (``#define N``, ``#define N_SIMS`` in ``michi.h``). The build is a copy, in
   a cache folder (``$XDG_CACHE_HOME/fuseki/michi-c/``), never in the source
   folder, and is reused while the source and settings stay the same. Then it
   checks that the binary answers GTP (``boardsize``, ``genmove``).
2. with ``--seconds S`` (equal time): times michi-c's moves at a probe budget
   and picks the simulations a move that take about S seconds here, now.
3. plays ``fuseki match``: A = ``fuseki gtp --bot mcts --playouts N --seed
   {seed}`` (or ``--seconds S``), B = ``michi -z{seed} gtp``, colours
   alternating, each game a seed of its own for both engines (the match's
   ``{seed}`` placeholder, docs/match.md). The SGF folder makes it resumable:
   run the same command again to finish or extend it.
4. writes the result JSON (``--out``, default
   ``benchmarks/results/michi_9x9/<commit>-<mode>.json``): fuseki's wins, the
   Wilson 95 % interval, distinct games, forfeits by side, the command and the
   commit; with ``--previous FILE`` also Fisher's exact p-value of the two win
   counts.

Komi is 7.5: michi-c refuses any other.

The ko rule: michi-c knows simple ko only, so under positional superko it
could forfeit by repeating a position. The match is played under the
``gnugo`` rule preset (simple ko, no suicide, area scoring, GNU Go as the
referee with Chinese rules), and fuseki's engine is told the same rules, so
both play by the rules michi-c knows. A long cycle then ends at the move cap
(three times the board's area) and is scored as it stands. Forfeits are still
counted by side in the result.

michi-c writes ``michi.log`` into its working directory; the wrapper the build
writes starts it in the build folder, so the log stays there. It reads
Pachi's large patterns (``patterns.prob``, ``patterns.spat``) from that folder
when present; they are not in ``../shared/peers/michi-c``, so michi-c plays
without them, like fuseki, whose patterns are the 3×3 ones.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fuseki.bench.common import warm_kernels
from fuseki.engines.gtp_client import GtpClient, GtpClientError
from fuseki.go.sgf import SgfError, load_sgf
from fuseki.util.stats import fisher_exact, wilson_interval

REPO = Path(__file__).resolve().parent.parent


def main_checkout(repo: Path) -> Path:
    """The repository's main checkout: ``repo`` itself, or for a git worktree the one that holds its ``.git``."""
    proc = subprocess.run(["git", "-C", str(repo), "rev-parse", "--git-common-dir"], capture_output=True, text=True)
    common = Path(proc.stdout.strip()) if proc.returncode == 0 and proc.stdout.strip() else None
    if common is None:
        return repo
    common = common if common.is_absolute() else (repo / common)
    return common.resolve().parent


#: Where the project's machines keep michi-c: beside the (main checkout of the) repository, in ``shared/peers``.
#: ``$FUSEKI_MICHI_SRC`` overrides it (as for the tests, tests/needs.py).
DEFAULT_SRC = Path(os.environ.get("FUSEKI_MICHI_SRC") or main_checkout(REPO).parent / "shared" / "peers" / "michi-c")
RESULTS = REPO / "benchmarks" / "results" / "michi_9x9"
#: The rule preset of the match and of fuseki's engine: simple ko, as michi-c plays (module docstring).
RULES = "gnugo"
WRAPPER = "michi-gtp"
#: michi-c plays with komi 7.5 and refuses any other (``komi`` answers an error), so the benchmark has no choice.
KOMI = 7.5
SOURCE_FILES = ("michi.h", "michi.c", "patterns.c", "debug.c", "main.c", "Makefile")
WHERE_TO_GET = "https://github.com/db3108/michi-c"


class MichiError(Exception):
    """michi-c cannot be used: no source, a failed build, or a binary that does not answer GTP."""


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "fuseki" / "michi-c"


def check_source(src: Path) -> Path:
    """``src`` resolved, or :class:`MichiError` saying that a clone of fuseki does not hold michi-c."""
    missing = [name for name in SOURCE_FILES if not (src / name).is_file()]
    if missing:
        raise MichiError(
            f"michi-c source not found in {src} (missing {', '.join(missing)}): it is a peer kept beside "
            f"the repository on the project's machines (../shared/peers/michi-c), not part of a clone of "
            f"fuseki; get it from {WHERE_TO_GET} and give its folder with --michi-src"
        )
    return src.resolve()


def source_digest(src: Path) -> str:
    """A hash of the files the build reads: a changed source builds afresh."""
    h = hashlib.sha256()
    for name in SOURCE_FILES:
        h.update(name.encode() + b"\0" + (src / name).read_bytes() + b"\0")
    return h.hexdigest()[:12]


def configure(header: str, size: int, sims: int) -> str:
    """``michi.h`` with ``N`` and ``N_SIMS`` set; :class:`MichiError` if either define is not there once."""
    for name, value in (("N", size), ("N_SIMS", sims)):
        header, count = re.subn(rf"^#define {name}\s+\S+", f"#define {name} {value}", header, flags=re.M)
        if count != 1:
            raise MichiError(f"michi.h: expected one '#define {name} ...', found {count}")
    return header


def build(src: Path, size: int, sims: int, cache: Path | None = None) -> Path:
    """Build michi-c for ``size`` and ``sims`` into a cache folder; return the GTP wrapper's path.

    The source folder is copied first and never written. A finished build is
    reused (same source digest, size and simulations); a new one is made in a
    temporary folder and renamed into place when it works.
    """
    src = check_source(src)
    if not 2 <= size <= 25:
        raise MichiError(f"board size must be from 2 to 25, got {size}")
    if sims < 1:
        raise MichiError(f"simulations a move must be at least 1, got {sims}")
    cache = cache or cache_root()
    folder = cache / f"{source_digest(src)}-n{size}-s{sims}"
    wrapper = folder / WRAPPER
    if wrapper.is_file() and (folder / "michi").is_file():
        return wrapper
    cache.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=cache))
    try:
        for name in SOURCE_FILES:
            shutil.copy2(src / name, tmp / name)
        (tmp / "michi.h").write_text(configure((src / "michi.h").read_text(), size, sims))
        proc = subprocess.run(["make", "-s", "-C", str(tmp), "michi"], capture_output=True, text=True)
        if proc.returncode != 0 or not (tmp / "michi").is_file():
            raise MichiError(f"building michi-c failed (make exit {proc.returncode}): {proc.stderr.strip()[-1500:]}")
        # michi-c writes michi.log (and reads patterns.*) in its working directory: start it in its folder.
        (tmp / WRAPPER).write_text('#!/bin/sh\ncd "$(dirname "$0")" && exec ./michi "$@"\n')
        (tmp / WRAPPER).chmod(0o755)
        try:
            tmp.rename(folder)
        except OSError:  # built meanwhile by another run: use that one
            if not wrapper.is_file():
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return wrapper


def check_gtp(wrapper: Path, size: int, timeout: float = 120.0) -> str:
    """Ask the built michi-c for its name and one move on an empty board; return ``"name version"``."""
    try:
        with GtpClient([str(wrapper), "-z1", "gtp"], timeout=timeout) as gtp:
            name = f"{gtp.name().strip()} {gtp.version().strip()}".strip()
            gtp.boardsize(size)
            gtp.clear_board()
            move = gtp.genmove("b")
    except (OSError, GtpClientError) as e:
        raise MichiError(f"the built michi-c ({wrapper}) does not answer GTP: {e}") from None
    if not re.fullmatch(r"[A-Z]\d+|pass|resign", move):
        raise MichiError(f"the built michi-c answered genmove with {move!r}")
    return name


def seconds_per_move(wrapper: Path, size: int, moves: int = 16, seed: int = 1) -> float:
    """Median seconds of michi-c's ``genmove`` over the first ``moves`` moves of a self-play game."""
    times = []
    with GtpClient([str(wrapper), f"-z{seed}", "gtp"], timeout=600.0) as gtp:
        gtp.boardsize(size)
        gtp.clear_board()
        for i in range(moves):
            t0 = time.perf_counter()
            move = gtp.genmove("b" if i % 2 == 0 else "w")
            times.append(time.perf_counter() - t0)
            if move in ("pass", "resign"):
                break
    return statistics.median(times)


def distinct_games(sgf_dir: Path) -> int:
    """How many finished games in ``sgf_dir`` differ in their moves (a seed that did not vary shows here)."""
    seen = set()
    for path in sorted(sgf_dir.glob("game_*.sgf")):
        try:
            record = load_sgf(path)
        except (OSError, SgfError, ValueError):
            continue
        seen.add(tuple(str(m) for m in record.moves))
    return len(seen)


def playouts_per_move(log: Path) -> dict | None:
    """Median and quartiles of fuseki's playouts a move from its ``--log`` (equal time only), or ``None``."""
    if not log.is_file():
        return None
    counts = []
    for line in log.read_text().splitlines():
        try:
            counts.append(int(json.loads(line)["playouts"]))
        except (ValueError, KeyError, TypeError):
            continue
    if len(counts) < 4:
        return None
    return {"moves": len(counts), "median": statistics.median(counts), "quartiles": statistics.quantiles(counts, n=4)}


def fuseki_commit() -> str:
    """The commit of the fuseki that plays (``+dirty`` when its tree has changes)."""
    import fuseki

    where = str(Path(fuseki.__file__).resolve().parent)
    head = subprocess.run(["git", "-C", where, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", where, "status", "--porcelain", "--", "."], capture_output=True, text=True).stdout.strip()
    return head + ("+dirty" if dirty else "")


def compare(result: dict, previous: Path) -> dict:
    """Fisher's exact test of this result's win count against a previous result file's."""
    old = json.loads(previous.read_text())
    p = fisher_exact(result["wins"], result["games"], old["wins"], old["games"])
    return {
        "file": str(previous),
        "commit": old.get("commit"),
        "wins": old["wins"],
        "games": old["games"],
        "p_value": round(p, 4),
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--playouts", type=int, default=None, help="equal simulations: both engines N a move (default 2000)")
    budget.add_argument("--seconds", type=float, default=None, help="equal time: fuseki S seconds a move, michi-c calibrated")
    parser.add_argument("--michi-sims", type=int, default=None, help="equal time: michi-c's simulations (skip the timing)")
    parser.add_argument("--probe-sims", type=int, default=5000, help="equal time: michi-c's budget when timing it")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--seed", type=int, default=0, help="root of the per-game seeds (fuseki match --seed)")
    parser.add_argument("--michi-src", type=Path, default=DEFAULT_SRC, help=f"michi-c's source folder (default {DEFAULT_SRC})")
    parser.add_argument("--sgf-dir", type=Path, default=None, help="the match's folder (default under results/michi_9x9/games/)")
    parser.add_argument("--out", type=Path, default=None, help="result JSON (default results/michi_9x9/<commit>-<mode>.json)")
    parser.add_argument("--previous", type=Path, default=None, help="a previous result file: add the p-value against it")
    parser.add_argument("--move-time", type=float, default=None, help="genmove timeout (default generous for the budget)")
    parser.add_argument("--build-only", action="store_true", help="build and check michi-c, print its wrapper's path")
    parser.add_argument(
        "--fuseki-set", action="append", default=[], metavar="KEY=VALUE", help="an option of fuseki's engine (fuseki gtp --set), repeatable"
    )
    args = parser.parse_args(argv)
    if args.playouts is None and args.seconds is None:
        args.playouts = 2000
    if args.games < 1 or (args.playouts is not None and args.playouts < 1) or (args.seconds is not None and args.seconds <= 0):
        parser.error("--games, --playouts and --seconds must be positive")
    if args.previous is not None and not args.previous.is_file():
        parser.error(f"--previous: no file {args.previous}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        check_source(args.michi_src)
    except MichiError as e:
        print(f"michi.py: {e}", file=sys.stderr)
        return 2
    try:
        return run(args)
    except MichiError as e:
        print(f"michi.py: {e}", file=sys.stderr)
        return 1


def run(args: argparse.Namespace) -> int:
    commit = fuseki_commit()
    calibration = None
    if args.seconds is None:
        mode, sims = f"sims{args.playouts}", args.playouts
        fuseki_budget = ["--playouts", str(args.playouts)]
    else:
        mode = f"time{args.seconds:g}s"
        fuseki_budget = ["--seconds", f"{args.seconds:g}"]
        if args.michi_sims is not None:
            sims = args.michi_sims
        else:
            probe = build(args.michi_src, args.size, args.probe_sims)
            per_move = seconds_per_move(probe, args.size)
            sims = max(100, int(round(args.probe_sims * args.seconds / per_move, -2)))
            calibration = {"probe_sims": args.probe_sims, "median_seconds_per_move": round(per_move, 4), "sims": sims}
            print(
                f"michi-c: {per_move:.3f} s a move at {args.probe_sims} simulations -> {sims} for {args.seconds:g} s",
                file=sys.stderr,
                flush=True,
            )
    mode += "".join(f"-{kv.replace('=', '')}" for kv in args.fuseki_set)  # e.g. sims2000-playout_ladder_nodes0
    wrapper = build(args.michi_src, args.size, sims)
    michi_name = check_gtp(wrapper, args.size)
    if args.build_only:
        print(wrapper)
        return 0
    warm_kernels()
    short = commit[:7] + ("-dirty" if commit.endswith("+dirty") else "")
    sgf_dir = args.sgf_dir or RESULTS / "games" / f"{short}-{mode}"
    out = args.out or RESULTS / f"{short}-{mode}.json"
    if args.seconds is not None:  # equal time: how many playouts fuseki's seconds bought, move by move
        fuseki_budget += ["--log", str(sgf_dir.resolve() / "fuseki_moves.jsonl")]
    options = [arg for kv in args.fuseki_set for arg in ("--set", kv)]
    fuseki_cmd = shlex.join(
        [sys.executable, "-m", "fuseki", "gtp", "--bot", "mcts", *fuseki_budget, *options, "--rules", RULES, "--seed", "{seed}"]
    )
    michi_cmd = shlex.join([str(wrapper), "-z{seed}", "gtp"])
    expected = args.seconds if args.seconds is not None else sims / 2000.0  # michi-c: about 2,000-6,000 sims/s here
    move_time = args.move_time or max(30.0, 10.0 * expected)
    cmd = [
        sys.executable,
        "-m",
        "fuseki",
        "match",
        fuseki_cmd,
        michi_cmd,
        "--games",
        str(args.games),
        "--size",
        str(args.size),
        "--komi",
        f"{KOMI:g}",
        "--rules",
        RULES,
        "--seed",
        str(args.seed),
        "--move-time",
        f"{move_time:g}",
        "--sgf-dir",
        str(sgf_dir),
        "--json",
    ]
    t0 = time.time()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)  # progress lines go straight to our stderr
    if proc.returncode != 0:
        print(f"michi.py: the match failed (exit {proc.returncode})", file=sys.stderr)
        return 1
    match = json.loads(proc.stdout.strip().splitlines()[-1])
    games, wins, draws = match["games"], match["a_wins"], match["draws"]
    lo, hi = wilson_interval(wins + 0.5 * draws, games)
    results = match.get("results", [])
    result = {
        "what": "fuseki mcts against michi-c, 9x9 style: A = fuseki, B = michi-c, colours alternating",
        "mode": "equal simulations" if args.seconds is None else "equal time",
        "fuseki": fuseki_cmd,
        "michi": michi_cmd,
        "michi_name": michi_name,
        "michi_source_digest": wrapper.parent.name.split("-")[0],
        "playouts": args.playouts,
        "seconds": args.seconds,
        "michi_sims": sims,
        "calibration": calibration,
        "size": args.size,
        "komi": KOMI,
        "rules": f"{RULES} (simple ko, no suicide, area scoring; GNU Go referee with Chinese rules)",
        "games": games,
        "wins": wins,
        "losses": match["b_wins"],
        "draws": draws,
        "win_rate": round((wins + 0.5 * draws) / games, 4) if games else None,
        "ci95": [round(lo, 4), round(hi, 4)],
        "wins_as_black": sum(1 for r in results if r.get("a_color") == "black" and r.get("winner") == "A"),
        "wins_as_white": sum(1 for r in results if r.get("a_color") == "white" and r.get("winner") == "A"),
        "distinct_games": distinct_games(sgf_dir),
        "fuseki_playouts_per_move": playouts_per_move(sgf_dir / "fuseki_moves.jsonl"),
        "forfeits": {"fuseki": match.get("a_forfeits", 0), "michi": match.get("b_forfeits", 0)},
        "forfeit_reasons": [r.get("reason") for r in results if r.get("kind") == "forfeit"],
        "seconds_this_run": round(time.time() - t0, 1),
        "sgf_dir": str(sgf_dir.resolve().relative_to(REPO)) if sgf_dir.resolve().is_relative_to(REPO) else str(sgf_dir),
        "command": shlex.join([sys.executable, *sys.argv]),
        "match_command": shlex.join(cmd),
        "commit": commit,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    if args.previous is not None:
        result["previous"] = compare(result, args.previous)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(result, indent=2) + "\n")
    os.replace(tmp, out)
    print(json.dumps({k: result[k] for k in ("mode", "games", "wins", "ci95", "distinct_games", "forfeits")}))
    print(f"written {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
