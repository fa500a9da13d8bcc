"""Speed of AlphaZero's chess encoding: 119 planes and 4,672-move indices per second, beside a plain loop.

Positions are those of seeded random games (each a :class:`ChessState` with
its history links). For each, timed separately, best of ``--repeats``:

- ``planes``: ``ChessGame.planes`` (8 history steps, repetition counts, one
  ``np.unpackbits`` over all bitboards);
- ``planes_loop``: the same planes the plain way, a Python loop over
  ``piece_map()`` of each history board (what the vectorised code replaces);
- ``actions``: ``encode_moves`` (what ``ChessGame.legal_actions`` does once a
  state, then keeps) on moves already generated: one table gather;
- ``actions_loop``: the per-move Python arithmetic of the former encoder;
- ``decode``: ``decode_actions`` of all legal actions;
- ``movegen``: python-chess's legal move generation, for scale.

    PYTHONPATH=src .venv/bin/python benchmarks/chess_encoding.py --out benchmarks/results/chess_encoding.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time

import chess
import numpy as np

from fuseki.games.chess import ChessGame, ChessState
from fuseki.games.chess_encoding import decode_actions, encode_moves

GAME = ChessGame()
DIRS = {(1, 0): 0, (1, 1): 1, (0, 1): 2, (-1, 1): 3, (-1, 0): 4, (-1, -1): 5, (0, -1): 6, (1, -1): 7}
KNIGHT = [(2, 1), (1, 2), (-1, 2), (-2, 1), (-2, -1), (-1, -2), (1, -2), (2, -1)]
UNDER = {chess.KNIGHT: 0, chess.BISHOP: 1, chess.ROOK: 2}


def positions(seed: int, count: int) -> list[ChessState]:
    rng = random.Random(seed)
    out: list[ChessState] = []
    while len(out) < count:
        state = GAME.initial_state()
        for _ in range(200):
            out.append(state)
            moves = state.legal_moves()
            if not moves or len(out) >= count:
                break
            state = state.play(rng.choice(moves))
    return out


def actions_loop(state: ChessState) -> np.ndarray:
    turn = state.board.turn
    out = []
    for m in state.legal_moves():
        src = m.from_square if turn else chess.square_mirror(m.from_square)
        dst = m.to_square if turn else chess.square_mirror(m.to_square)
        dr, df = dst // 8 - src // 8, dst % 8 - src % 8
        if m.promotion in UNDER:
            plane = 64 + 3 * {0: 0, -1: 1, 1: 2}[df] + UNDER[m.promotion]
        elif (dr, df) in KNIGHT:
            plane = 56 + KNIGHT.index((dr, df))
        else:
            k = max(abs(dr), abs(df))
            plane = 7 * DIRS[(dr // k, df // k)] + k - 1
        out.append(plane * 64 + src)
    return np.array(out, dtype=np.int64)


def planes_loop(state: ChessState) -> np.ndarray:
    out = np.zeros((119, 8, 8), dtype=np.float32)
    board = state.board
    me = board.turn
    for t, s in enumerate(state.ancestors(8)):
        for square, piece in s.board.piece_map().items():
            r = square // 8 if me else 7 - square // 8
            out[14 * t + piece.piece_type - 1 + (0 if piece.color == me else 6), r, square % 8] = 1
        reps = s.repetitions()
        out[14 * t + 12] = reps >= 1
        out[14 * t + 13] = reps >= 2
    out[112] = me
    for plane, value in ((113, board.fullmove_number), (118, board.halfmove_clock)):
        for i in range(64):
            out[plane, i // 8, i % 8] = (value >> i) & 1
    out[114] = board.has_kingside_castling_rights(me)
    out[115] = board.has_queenside_castling_rights(me)
    out[116] = board.has_kingside_castling_rights(not me)
    out[117] = board.has_queenside_castling_rights(not me)
    return out


def fresh(states: list[ChessState]) -> None:
    for s in states:  # forget cached repetition counts, so each timing pays for them
        s._reps = None


def timed(fn, states: list[ChessState], repeats: int, reset: bool = False) -> float:
    best = float("inf")
    for _ in range(repeats):
        if reset:
            fresh(states)
        t0 = time.perf_counter()
        for s in states:
            fn(s)
        best = min(best, time.perf_counter() - t0)
    return len(states) / best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    states = positions(args.seed, args.positions)
    for s in states:
        s.legal_moves()
    actions = {id(s): GAME.legal_actions(s) for s in states}
    for s in states[:: max(1, len(states) // 200)]:  # the two ways agree
        assert np.array_equal(planes_loop(s), GAME.planes(s)) and np.array_equal(actions_loop(s), actions[id(s)])
    per_s = {
        "planes": timed(GAME.planes, states, args.repeats, reset=True),
        "planes_loop": timed(planes_loop, states, args.repeats, reset=True),
        "actions": timed(lambda s: encode_moves(s.legal_moves(), s.board.turn), states, args.repeats),
        "actions_loop": timed(actions_loop, states, args.repeats),
        "decode": timed(lambda s: decode_actions(actions[id(s)], s.board), states, args.repeats),
        "movegen": timed(lambda s: list(s.board.legal_moves), states, args.repeats),
    }
    result = {
        "command": "PYTHONPATH=src python " + " ".join(sys.argv),
        "machine": f"{platform.machine()}, {platform.python_version()}, python-chess {chess.__version__}",
        "load_average_1min": round(os.getloadavg()[0], 2),
        "positions": len(states),
        "positions_per_s": {k: round(v) for k, v in per_s.items()},
        "ratio_planes": round(per_s["planes"] / per_s["planes_loop"], 2),
        "ratio_actions": round(per_s["actions"] / per_s["actions_loop"], 2),
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
