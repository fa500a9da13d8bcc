"""A small UCI engine that plays random legal moves, or misbehaves on request, for testing chess matches.

Run as a script: ``python fake_uci_engine.py [--mode MODE] [--after N] [--seed S] [--reseed]``.
It plays random legal moves (python-chess follows the position), until its
``N``-th ``go`` (default 1), from which on it does what ``--mode`` says.
With ``--reseed`` its random generator starts again from ``S`` at each
``ucinewgame``, so a game's moves depend only on where it starts and the
opponent's moves, not on the games this process played before (what a test
of concurrent matches compares). It writes one line with its process id to
stderr when it starts.

``random``   keep playing random legal moves (the default)
``illegal``  answer an illegal move
``none``     answer ``bestmove (none)``
``crash``    exit with status 3 without answering
``hang``     never answer (until killed)
``slow=S``   sleep S seconds, then answer a random move
``junk``     answer ``bestmove xyzzy``
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

import chess


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="random")
    parser.add_argument("--after", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--name", default="fake")
    parser.add_argument("--reseed", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    sys.stderr.write(f"{args.name} pid {os.getpid()}\n")
    sys.stderr.flush()
    board = chess.Board()
    goes = 0

    def say(text: str) -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    for line in iter(sys.stdin.readline, ""):
        tokens = line.split()
        if not tokens:
            continue
        cmd = tokens[0]
        if cmd == "uci":
            say(f"id name {args.name}")
            say("option name Skill type spin default 1 min 0 max 9")
            say("uciok")
        elif cmd == "ucinewgame" and args.reseed:
            rng = random.Random(args.seed)
        elif cmd == "isready":
            say("readyok")
        elif cmd == "position":
            if tokens[1] == "startpos":
                board = chess.Board()
                rest = tokens[2:]
            else:
                cut = tokens.index("moves") if "moves" in tokens else len(tokens)
                board = chess.Board(" ".join(tokens[2:cut]))
                rest = tokens[cut:]
            for m in rest[1:]:
                board.push_uci(m)
        elif cmd == "go":
            goes += 1
            mode = args.mode if goes >= args.after else "random"
            if mode == "crash":
                return 3
            if mode == "hang":
                time.sleep(3600)
            if mode.startswith("slow="):
                time.sleep(float(mode.split("=")[1]))
            if mode == "illegal":
                say("bestmove a1a8" if not board.is_legal(chess.Move.from_uci("a1a8")) else "bestmove h1h8")
            elif mode == "none":
                say("bestmove (none)")
            elif mode == "junk":
                say("bestmove xyzzy")
            else:
                say(f"bestmove {rng.choice(list(board.legal_moves)).uci()}")
        elif cmd == "quit":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
