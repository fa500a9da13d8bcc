"""Make src/fuseki/chess/openings.tsv: named openings, each checked balanced by Stockfish.

The candidates are entries of lichess-org/chess-openings (a.tsv, b.tsv,
c.tsv, d.tsv; the ECO code, the name and the move order exactly as there; the
data set is in the public domain). Each final position is evaluated by
Stockfish 15.1 at a fixed depth; an opening is kept when its evaluation is
within ``--max-cp`` centipawns of equal, so that neither colour starts a game
of ``fuseki chess-match`` ahead. The file records the evaluation and this
command.

    PYTHONPATH=src python scripts/chess_openings.py --depth 18 --out src/fuseki/chess/openings.tsv
"""

from __future__ import annotations

import argparse
import shutil
import sys

import chess
import chess.engine

SOURCE = "lichess-org/chess-openings (public domain): https://github.com/lichess-org/chess-openings"

CANDIDATES = [
    ("A01", "Nimzo-Larsen Attack: Modern Variation", "1. b3 e5 2. Bb2 Nc6 3. c4 Nf6"),
    ("A03", "Bird Opening: Lasker Variation", "1. f4 d5 2. Nf3 Nf6 3. e3 c5"),
    ("A05", "King's Indian Attack: Wahls Defense", "1. Nf3 Nf6 2. g3 g6 3. Bg2 Bg7 4. O-O O-O 5. d3 d5"),
    ("A05", "Zukertort Opening: Double Fianchetto Attack", "1. Nf3 Nf6 2. g3 g6 3. b3 Bg7 4. Bb2 O-O 5. Bg2 d6 6. O-O"),
    ("A05", "Zukertort Opening", "1. Nf3 Nf6 2. Nc3 Nc6"),
    ("A07", "King's Indian Attack, with Bf5", "1. Nf3 Nf6 2. g3 d5 3. Bg2 c6 4. O-O Bf5 5. d3 e6 6. Nbd2"),
    ("A07", "King's Indian Attack, with e6", "1. Nf3 Nf6 2. g3 d5 3. Bg2 e6 4. O-O Be7"),
    ("A07", "King's Indian Attack: Keres Variation", "1. Nf3 d5 2. g3 c6 3. Bg2 Bg4 4. O-O Nd7"),
    (
        "B92",
        "Sicilian Defense: Najdorf Variation, Opocensky Variation, Modern Line",
        "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 6. Be2 e5 7. Nb3 Be7 8. O-O Be6",
    ),
    (
        "B92",
        "Sicilian Defense: Najdorf Variation, Opocensky Variation, Traditional Line",
        "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 6. Be2 e5 7. Nb3 Be7 8. O-O O-O",
    ),
    ("B93", "Sicilian Defense: Najdorf Variation, Amsterdam Variation", "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 6. f4"),
    ("B94", "Sicilian Defense: Najdorf Variation", "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 6. Bg5"),
    ("B95", "Sicilian Defense: Najdorf Variation", "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 6. Bg5 e6"),
    (
        "B98",
        "Sicilian Defense: Najdorf Variation, Traditional Line",
        "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 6. Bg5 e6 7. f4 Be7 8. Qf3 Qc7",
    ),
    ("C01", "French Defense: Exchange Variation", "1. e4 e6 2. d4 d5 3. exd5"),
    ("C02", "French Defense: Advance Variation, Main Line", "1. e4 e6 2. d4 d5 3. e5 c5 4. c3 Nc6 5. Nf3 Qb6 6. a3"),
    ("C02", "French Defense: Advance Variation, Paulsen Attack", "1. e4 e6 2. d4 d5 3. e5 c5 4. c3 Nc6 5. Nf3"),
    ("C03", "French Defense: Tarrasch Variation", "1. e4 e6 2. d4 d5 3. Nd2"),
    ("C05", "French Defense: Tarrasch Variation, Closed Variation", "1. e4 e6 2. d4 d5 3. Nd2 Nf6"),
    ("C07", "French Defense: Tarrasch Variation, Open System", "1. e4 e6 2. d4 d5 3. Nd2 c5"),
    ("C09", "French Defense: Tarrasch Variation, Open System, Main Line", "1. e4 e6 2. d4 d5 3. Nd2 c5 4. exd5 exd5 5. Ngf3 Nc6"),
    ("C10", "French Defense: Rubinstein Variation", "1. e4 e6 2. d4 d5 3. Nc3 dxe4"),
    ("C11", "French Defense: Classical Variation, Steinitz Variation", "1. e4 e6 2. d4 d5 3. Nc3 Nf6 4. e5"),
    ("C13", "French Defense: Classical Variation, Normal Variation", "1. e4 e6 2. d4 d5 3. Nc3 Nf6 4. Bg5 Be7"),
    ("C15", "French Defense: Winawer Variation", "1. e4 e6 2. d4 d5 3. Nc3 Bb4"),
    ("C17", "French Defense: Winawer Variation, Advance Variation", "1. e4 e6 2. d4 d5 3. Nc3 Bb4 4. e5 c5 5. a3"),
    ("D23", "Queen's Gambit Accepted", "1. d4 d5 2. c4 dxc4 3. Nf3 Nf6"),
    ("D25", "Queen's Gambit Accepted: Normal Variation", "1. d4 d5 2. c4 dxc4 3. Nf3 Nf6 4. e3"),
    ("D26", "Queen's Gambit Accepted: Classical Defense, Normal Line", "1. d4 d5 2. c4 dxc4 3. Nf3 Nf6 4. e3 e6 5. Bxc4 c5 6. O-O"),
    ("D27", "Queen's Gambit Accepted: Classical Defense, Main Line", "1. d4 d5 2. c4 dxc4 3. Nf3 Nf6 4. e3 e6 5. Bxc4 c5 6. O-O a6"),
    ("D30", "Queen's Gambit Declined", "1. d4 d5 2. c4 e6"),
    ("D30", "Queen's Gambit Declined: Traditional Variation", "1. d4 Nf6 2. c4 e6 3. Nf3 d5 4. Bg5"),
    ("D30", "Semi-Slav Defense: Quiet Variation", "1. d4 d5 2. c4 c6 3. Nf3 Nf6 4. e3 e6 5. Nbd2 Nbd7"),
    ("D31", "Semi-Slav Defense: Accelerated Move Order", "1. d4 d5 2. c4 e6 3. Nc3 c6"),
    ("D32", "Tarrasch Defense: Two Knights Variation", "1. d4 d5 2. c4 e6 3. Nc3 c5 4. cxd5 exd5 5. Nf3"),
    ("D33", "Tarrasch Defense: Prague Variation", "1. d4 d5 2. c4 e6 3. Nc3 c5 4. cxd5 exd5 5. Nf3 Nc6 6. g3 Nf6"),
    ("D35", "Queen's Gambit Declined: Exchange Variation, Positional Variation", "1. d4 Nf6 2. c4 e6 3. Nc3 d5 4. cxd5 exd5 5. Bg5"),
    ("D35", "Queen's Gambit Declined: Harrwitz Attack", "1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bf4"),
    ("D37", "Queen's Gambit Declined: Three Knights Variation", "1. d4 Nf6 2. c4 e6 3. Nf3 d5 4. Nc3"),
    (
        "D37",
        "Queen's Gambit Declined: Harrwitz Attack, Main Line",
        "1. d4 Nf6 2. c4 e6 3. Nf3 d5 4. Nc3 Be7 5. Bf4 O-O 6. e3 c5 7. dxc5 Bxc5",
    ),
    ("D38", "Queen's Gambit Declined: Ragozin Defense", "1. d4 Nf6 2. c4 e6 3. Nf3 d5 4. Nc3 Bb4"),
    ("D40", "Queen's Gambit Declined: Semi-Tarrasch Defense", "1. d4 Nf6 2. c4 e6 3. Nf3 d5 4. Nc3 c5"),
    ("D43", "Semi-Slav Defense", "1. d4 d5 2. c4 c6 3. Nf3 Nf6 4. Nc3 e6"),
    ("D45", "Semi-Slav Defense: Main Line", "1. d4 d5 2. c4 c6 3. Nc3 Nf6 4. e3 e6 5. Nf3"),
    ("D45", "Semi-Slav Defense: Normal Variation", "1. d4 d5 2. c4 c6 3. Nc3 Nf6 4. e3 e6 5. Nf3 Nbd7"),
    ("D45", "Semi-Slav Defense: Accelerated Meran Variation", "1. d4 d5 2. c4 c6 3. Nc3 Nf6 4. e3 e6 5. Nf3 a6"),
]


def uci_moves(pgn: str) -> tuple[chess.Board, list[str]]:
    board = chess.Board()
    moves = []
    for token in pgn.split():
        if token.endswith("."):
            continue
        move = board.parse_san(token)
        moves.append(move.uci())
        board.push(move)
    return board, moves


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=18)
    parser.add_argument("--max-cp", type=int, default=50)
    parser.add_argument("--stockfish", default=shutil.which("stockfish") or "/usr/games/stockfish")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    engine = chess.engine.SimpleEngine.popen_uci(args.stockfish)
    version = engine.id.get("name", "Stockfish")
    kept = []
    try:
        for eco, name, pgn in CANDIDATES:
            board, moves = uci_moves(pgn)
            info = engine.analyse(board, chess.engine.Limit(depth=args.depth))
            cp = info["score"].white().score(mate_score=100_000)
            ok = abs(cp) <= args.max_cp
            print(f"{'keep' if ok else 'drop'} {cp:+5d} {eco} {name}", file=sys.stderr)
            if ok:
                kept.append((eco, name, " ".join(moves), cp))
    finally:
        engine.quit()
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(f"# Balanced openings for fuseki chess-match: {len(kept)} of {len(CANDIDATES)} candidates.\n")
        f.write(f"# Source of the names and move orders: {SOURCE}\n")
        f.write(f"# Kept: |eval| <= {args.max_cp} cp, {version} at depth {args.depth}, from White's side (column cp).\n")
        f.write(
            f"# Made by: PYTHONPATH=src python scripts/chess_openings.py --depth {args.depth} --max-cp {args.max_cp} --out {args.out}\n"
        )
        f.write("eco\tname\tmoves\tcp\n")
        for eco, name, moves, cp in kept:
            f.write(f"{eco}\t{name}\t{moves}\t{cp}\n")
    print(f"{len(kept)} of {len(CANDIDATES)} kept", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
