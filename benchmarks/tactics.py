"""Tactical positions with known best moves: the solve rate of ``mcts`` at a fixed playout budget (issue 25, item 3).

Each position is a text file in ``benchmarks/tactics/``: ``#`` comment lines
(what the tactic is and why the answer is right), then ``to_play: black|white``,
``komi: K``, ``best: V [V ...]`` (every move that solves it) and the board as
``GameState.from_ascii`` reads it (``X`` black, ``O`` white, ``.`` empty, GTP
labels allowed). The rest of the board is settled and the komi lies between
the two outcomes of the tactic, so the side to move wins the game exactly when
it finds the answer: a search that plays anything else has misjudged the
tactic, not the score.

    .venv/bin/python benchmarks/tactics.py --playouts 20000 --seeds 3
    .venv/bin/python benchmarks/tactics.py --playouts 2000 --out benchmarks/results/tactics_2000.json

A position counts as solved by a seed when the agent's move is one of
``best``; the solve rate is over all (position, seed) pairs.

``--gnugo`` asks GNU Go (level 10, Chinese rules, the position's komi) for its
move in every position instead, as a second opinion on the answers when
positions are added.

``--calibrate`` checks the komi of each position the same way: GNU Go plays
the position out twice from the side to move's two choices, the (first)
answer and a pass (the opponent moves first in the tactic), and scores both
ends (Chinese rules, dead stones removed by GNU Go, komi 0). The file's komi
must lie between the two counts, so that the side to move wins exactly when
it finds the answer; the tool prints both counts and the komi halfway.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

from fuseki.agents.mcts_agent import MCTSAgent
from fuseki.engines.gtp_client import GtpClient
from fuseki.go import kernels as K
from fuseki.engines.programs import resolve_command
from fuseki.go.coords import Point, to_gtp
from fuseki.go.rules import Rules
from fuseki.go.state import Color, GameState, Move

HERE = Path(__file__).resolve().parent
POSITIONS = HERE / "tactics"


@dataclasses.dataclass(frozen=True)
class Position:
    """One tactical problem: the position, who moves, and every move that solves it."""

    name: str
    about: str
    state: GameState
    best: frozenset[str]


def parse_position(path: Path) -> Position:
    """Read a position file (module docstring); ``ValueError`` naming the file when it is malformed."""
    about: list[str] = []
    fields: dict[str, str] = {}
    board: list[str] = []
    for line in path.read_text().splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            about.append(stripped.lstrip("# ").rstrip())
        elif not board and ":" in stripped:
            key, _, value = stripped.partition(":")
            fields[key.strip().lower()] = value.strip()
        elif stripped:
            board.append(line)
    missing = [k for k in ("to_play", "komi", "best") if k not in fields]
    if missing:
        raise ValueError(f"{path.name}: missing {', '.join(missing)}")
    if fields["to_play"].lower() not in ("black", "white"):
        raise ValueError(f"{path.name}: to_play must be black or white, got {fields['to_play']!r}")
    to_move = Color.BLACK if fields["to_play"].lower() == "black" else Color.WHITE
    rules = Rules.preset("chinese").replace(komi=float(fields["komi"]))
    try:
        state = GameState.from_ascii("\n".join(board), rules=rules, to_move=to_move)
    except ValueError as e:
        raise ValueError(f"{path.name}: {e}") from None
    best = frozenset(v.upper() for v in fields["best"].split())
    for vertex in best:
        if not state.is_legal(Move.from_gtp(vertex, state.size)):
            raise ValueError(f"{path.name}: best move {vertex} is not legal")
    return Position(path.stem, " ".join(about), state, best)


def load_positions(folder: Path = POSITIONS, names: list[str] | None = None) -> list[Position]:
    paths = sorted(folder.glob("*.txt"))
    if names:
        paths = [p for p in paths if p.stem in names]
    return [parse_position(p) for p in paths]


def solve(position: Position, playouts: int, seed: int) -> tuple[str, bool]:
    """The move ``mcts`` plays at ``playouts`` with ``seed``, and whether it is one of the answers."""
    agent = MCTSAgent(playouts=playouts, seed=seed, resign_below=None)
    move = agent.select_move(position.state).gtp(position.state.size).upper()
    return move, move in position.best


def gnugo_move(position: Position, command: str = "gnugo --mode gtp --level 10 --chinese-rules") -> str:
    """GNU Go's move in ``position`` (the stones sent with ``play``, then ``genmove``): a check of ``best``."""
    state = position.state
    with GtpClient(resolve_command(command), timeout=120.0) as gtp:
        _stones_to(gtp, state)
        gtp.komi(state.rules.komi)
        return gtp.genmove(state.next_player.name.lower()[0])


def _stones_to(gtp: GtpClient, state: GameState) -> None:
    """Set up ``state`` in a GTP engine by ``play`` commands (its stones; the colour to move comes with genmove)."""
    stones = state.stones()
    gtp.boardsize(state.size)
    gtp.clear_board()
    for row in range(state.size):
        for col in range(state.size):
            if stones[row][col]:
                gtp.play("b" if stones[row][col] == 1 else "w", to_gtp(Point(row, col), state.size))


def gnugo_playout(position: Position, first: str, command: str = "gnugo --mode gtp --level 10 --chinese-rules") -> float:
    """Black's margin (komi 0) after the side to move plays ``first`` (a vertex or ``pass``) and GNU Go plays both sides to the end."""
    state = position.state
    colors = ["b", "w"] if state.next_player is Color.BLACK else ["w", "b"]
    # GNU Go resigns a game it sees as lost, and the frame of a position can give one side a big
    # lead: play with a komi that evens out the board as it stands (its area count), and take it
    # back off the final count.
    even = math.floor(float(K.area_score(state.buffer))) + 0.5
    with GtpClient(resolve_command(command), timeout=300.0) as gtp:
        _stones_to(gtp, state)
        gtp.komi(even)
        gtp.play(colors[0], first)
        passes = 1 if first.lower() == "pass" else 0
        turn = 1
        for _ in range(4 * state.size * state.size):
            move = gtp.genmove(colors[turn % 2])
            if move.lower() == "resign":
                raise ValueError(f"{position.name}: GNU Go resigned the playout after {first}: the komi that evens the board is far off")
            passes = passes + 1 if move.lower() == "pass" else 0
            if passes >= 2:
                break
            turn += 1
        score = gtp.final_score().strip()
    if score in ("0", "Draw"):
        return even
    sign = 1.0 if score.upper().startswith("B") else -1.0
    return even + sign * float(score.split("+", 1)[1])


def calibrate(position: Position) -> dict:
    """GNU Go's counts after the answer and after a pass, the komi halfway, and whether the file's komi lies between."""
    best = sorted(position.best)[0]
    after_best = gnugo_playout(position, best)
    after_pass = gnugo_playout(position, "pass")
    black = position.state.next_player is Color.BLACK
    komi = position.state.rules.komi
    ok = (after_pass < komi < after_best) if black else (after_best < komi < after_pass)
    mid = (after_best + after_pass) / 2
    return {"best": best, "after_best": after_best, "after_pass": after_pass, "komi": komi, "suggested": math.floor(mid) + 0.5, "ok": ok}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--playouts", type=int, default=20000)
    parser.add_argument("--seeds", type=int, default=3, help="searches per position, seeds 1..N (default 3)")
    parser.add_argument("--positions", default=None, help="comma-separated names (default: all)")
    parser.add_argument("--out", type=Path, default=None, help="write the result JSON here")
    parser.add_argument("--gnugo", action="store_true", help="only ask GNU Go for its move in each position (a check of the answers)")
    parser.add_argument("--calibrate", action="store_true", help="only check each komi: GNU Go plays out the answer and a pass")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.positions.split(",")] if args.positions else None
    positions = load_positions(names=names)
    if args.calibrate:
        bad = 0
        for pos in positions:
            c = calibrate(pos)
            bad += not c["ok"]
            print(
                f"{pos.name:28s} after {c['best']}: B{c['after_best']:+.1f}  after pass: B{c['after_pass']:+.1f}  "
                f"komi {c['komi']:g} {'between' if c['ok'] else 'NOT between'} (halfway {c['suggested']:g})",
                flush=True,
            )
        return 0 if bad == 0 else 1
    if args.gnugo:
        agree = 0
        for pos in positions:
            move = gnugo_move(pos)
            agree += move in pos.best
            print(f"{pos.name:28s} GNU Go {move:6s} best {' '.join(sorted(pos.best))}  {'agrees' if move in pos.best else 'DIFFERS'}")
        print(f"GNU Go agrees in {agree}/{len(positions)}")
        return 0 if agree == len(positions) else 1
    rows = []
    for pos in positions:
        moves = []
        for seed in range(1, args.seeds + 1):
            move, ok = solve(pos, args.playouts, seed)
            moves.append({"seed": seed, "move": move, "solved": ok})
        solved = sum(m["solved"] for m in moves)
        rows.append({"position": pos.name, "best": sorted(pos.best), "solved": solved, "tries": len(moves), "moves": moves})
        print(
            f"{pos.name:28s} {solved}/{len(moves)}  best {' '.join(sorted(pos.best))}  played {' '.join(m['move'] for m in moves)}",
            flush=True,
        )
    tries = sum(r["tries"] for r in rows)
    solved = sum(r["solved"] for r in rows)
    print(f"solve rate {solved}/{tries} at {args.playouts} playouts")
    if args.out:
        import fuseki

        where = str(Path(fuseki.__file__).resolve().parent)
        commit = subprocess.run(["git", "-C", where, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
        result = {
            "command": shlex.join([sys.executable, *sys.argv]),
            "commit": commit,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "agent": "mcts",
            "playouts": args.playouts,
            "seeds": args.seeds,
            "positions": len(rows),
            "solved": solved,
            "tries": tries,
            "solve_rate": round(solved / tries, 4) if tries else None,
            "rows": rows,
        }
        tmp = args.out.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(result, indent=2) + "\n")
        os.replace(tmp, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
