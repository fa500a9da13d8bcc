"""Balanced chess openings, so that the games of a match differ: the shipped set and user files.

The shipped ``openings.tsv`` holds 41 named openings of 2 to 16 plies from
lichess-org/chess-openings (public domain), each kept because Stockfish 15.1
at depth 18 scores its final position within 50 centipawns of equal; the
file's header says how it was made (``scripts/chess_openings.py``).

A user's file may be that TSV format (``eco``, ``name``, ``moves`` in UCI,
``cp``; ``#`` comments), or one opening a line as UCI moves or as an EPD/FEN
position (a line with ``/``). Every opening is checked when it is read: an
illegal move or a bad FEN is an :class:`~fuseki.util.errors.InputError`
naming the file and line.

>>> book = load_openings()
>>> len(book), book[0].name
(41, 'Nimzo-Larsen Attack: Modern Variation')
>>> book[0].board().fen()
'r1bqkb1r/pppp1ppp/2n2n2/4p3/2P5/1P6/PB1PPPPP/RN1QKBNR w KQkq - 1 4'
"""

from __future__ import annotations

import dataclasses
from importlib import resources
from pathlib import Path

import chess

from fuseki.util.errors import InputError

__all__ = ["BUILTIN", "Opening", "load_openings"]

#: The name that selects the shipped set.
BUILTIN = "builtin"


@dataclasses.dataclass(frozen=True)
class Opening:
    """A start for a game: a FEN and the moves played from it."""

    name: str
    moves: tuple[str, ...] = ()
    fen: str = chess.STARTING_FEN
    eco: str = ""

    def board(self) -> chess.Board:
        """The position after the opening, with its moves on the stack (they go into the PGN)."""
        board = chess.Board(self.fen)
        for m in self.moves:
            board.push_uci(m)
        return board


def _parse_line(line: str, where: str) -> Opening:
    fields = line.split("\t")
    try:
        if len(fields) >= 3:  # eco, name, moves[, cp]
            opening = Opening(name=fields[1].strip(), moves=tuple(fields[2].split()), eco=fields[0].strip())
        elif "/" in line:
            parts = line.split()
            full = len(parts) >= 6 and parts[4].isdigit() and parts[5].isdigit()  # a FEN; else EPD (clocks 0 1)
            board = chess.Board(" ".join(parts[:6]) if full else " ".join(parts[:4]) + " 0 1")
            if not board.is_valid():
                raise ValueError(f"not a legal position ({board.status()!r})")
            opening = Opening(name=board.fen(), fen=board.fen())
        else:
            opening = Opening(name=line.strip(), moves=tuple(line.split()))
        opening.board()  # every move legal
    except ValueError as e:
        raise InputError(f"{where}: not an opening ({e})") from None
    return opening


def load_openings(source: str | Path = BUILTIN) -> list[Opening]:
    """The openings of ``source`` (a file, or ``"builtin"``), in file order; :class:`InputError` for a bad file."""
    if str(source) == BUILTIN:
        text = resources.files("fuseki.chess").joinpath("openings.tsv").read_text(encoding="utf-8")
        label = "the shipped openings.tsv"
    else:
        try:
            text = Path(source).read_text(encoding="utf-8")
        except OSError as e:
            raise InputError(f"cannot read openings file {source}: {e.strerror or e}") from None
        label = str(source)
    out: list[Opening] = []
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#") or line.startswith("eco\t"):
            continue
        out.append(_parse_line(raw.rstrip("\n"), f"{label}, line {n}"))
    if not out:
        raise InputError(f"{label} holds no openings")
    return out
