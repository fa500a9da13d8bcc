"""A test set for end-of-game scoring: games stopped by two passes before the board is settled.

Why this set: games that both sides play to the very end (every dame filled,
every dead string captured) are trivial to count, and any estimate agrees
with GNU Go on them (docs/scoring.md). A player needs the count of a game
that was stopped while dead stones still sit inside territory and some
borders are still open, as happens when a human or a weak bot passes early.

How a game is made (all choices drawn from the game's own seed):

- an **opening** of ``0..opening_max`` moves by the book's random bot
  (``make_agent("random")``), scattering stones that later die inside the
  opponent's area;
- then **GNU Go** (``--level 0``, one process playing both colours) against a
  **weaker GNU Go**: one side, drawn at random, replaces each of its moves by
  a random bot's move with a probability ``noise`` drawn from
  ``[0.05, noise_max]``. Its random moves invade and throw in stones that GNU
  Go leaves on the board, dead, when it passes;
- the **ending**: half of the games stop at the *first* pass (the other side
  passes at once: a capture-less early stop, borders often still open), the
  others when two passes follow each other (GNU Go's own notion of "over",
  with the dead stones never removed). A game longer than ``3 * size**2``
  moves is stopped with two passes. ``endings="two-passes"`` (or
  ``"first-pass"``) gives every game that ending: issue 21's measure counts
  the two-pass games, and on 19×19 a set of only those costs half the
  CPU time. The draw is made either way, so the other choices of game ``i``
  (opening, weak side, noise) do not depend on ``endings``.

The reference labels come from a second GNU Go (default level, Chinese
rules, ``set_random_seed`` per game): ``final_score`` (which plays the
aftermath out itself and counts area) and ``final_status_list dead`` /
``seki``. Each game is one JSON line holding its SGF, whose ``RE`` is GNU
Go's result and whose last node marks GNU Go's dead stones with ``DD`` (the
form ``fuseki deadstones make-data --labeller marks`` reads).

The file is appended one game at a time (flushed and synced), so a killed
run resumes where it stopped; a torn last line is dropped on resume. Game
``i`` depends only on ``(size, seed, i)``, so the set is reproducible by
one command.
"""

from __future__ import annotations

import json
import os
import random
import shlex
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from fuseki.agents import make_agent
from fuseki.engines.gtp_client import GtpClient, GtpError
from fuseki.go.coords import Point, from_gtp
from fuseki.go.sgf import GameRecord
from fuseki.go.state import Color, GameState, Move
from fuseki.util.errors import InputError
from fuseki.util.runs import RunFolder

__all__ = ["SetSettings", "ScoringGame", "make_set", "read_set", "GAMES_FILE"]

GAMES_FILE = "games.jsonl"
#: ``SetSettings.endings``: how games stop (``both``: drawn per game, half each).
ENDINGS = ("both", "two-passes", "first-pass")
PLAYER = "/usr/games/gnugo --mode gtp --level 0 --chinese-rules"
REFEREE = "/usr/games/gnugo --mode gtp --chinese-rules"


@dataclass(frozen=True)
class SetSettings:
    """What a test set was made with; a folder holds one set of these."""

    size: int
    seed: int = 0
    komi: float = 7.5
    opening_max: int = -1  # -1: size-dependent default (6 on 9x9, 30 on 19x19)
    noise_max: float = 0.35
    player: str = PLAYER
    referee: str = REFEREE
    endings: str = "both"  # "both" (drawn per game), "two-passes" or "first-pass"

    def __post_init__(self) -> None:
        if self.endings not in ENDINGS:
            raise InputError(f"endings must be one of {', '.join(ENDINGS)}, got {self.endings!r}")

    def opening_limit(self) -> int:
        return self.opening_max if self.opening_max >= 0 else (6 if self.size <= 9 else 30)


@dataclass
class ScoringGame:
    """One game of the set and GNU Go's labels for its final position."""

    game: int
    size: int
    komi: float
    opening: int
    weak: str  # "B" or "W": the side whose moves are replaced by random ones
    noise: float
    ending: str  # "first-pass" or "two-passes"
    moves: int
    sgf: str
    gnugo_score: str
    gnugo_dead: list[str]
    gnugo_seki: list[str]
    seconds: float

    def state(self) -> GameState:
        """The final position (both passes played), replayed from the SGF under its rules."""
        from fuseki.go.sgf import read_sgf

        return read_sgf(self.sgf).replay()

    def dead_points(self) -> list[Point]:
        out = []
        for v in self.gnugo_dead:
            p = from_gtp(v, self.size)
            if p is None:
                raise InputError(f"game {self.game}: dead vertex {v!r} is not a point")
            out.append(p)
        return out


def _gtp_points(reply: str) -> list[str]:
    return sorted({w.upper() for w in reply.split()})


def _dd(points: list[str], size: int) -> str:
    """An SGF ``DD`` property for GTP vertices."""
    if not points:
        return ""
    letters = "abcdefghijklmnopqrs"
    vals = []
    for v in points:
        p = from_gtp(v, size)
        assert p is not None
        vals.append(f"[{letters[p.col]}{letters[p.row]}]")  # Point rows count from the top, as SGF's do
    return "DD" + "".join(vals)


def _with_marks(sgf: str, dead: list[str], size: int) -> str:
    """``sgf`` with ``DD`` added to its last node (the main line has no variations)."""
    prop = _dd(dead, size)
    body = sgf.rstrip()
    if not prop:
        return body
    if not body.endswith(")"):
        raise ValueError("an SGF game ends with ')'")
    return body[:-1] + prop + ")"


def _play_game(settings: SetSettings, index: int, player: GtpClient) -> tuple[GameState, dict[str, Any]]:
    """Play game ``index``: random opening, GNU Go against a noisy GNU Go, then the ending."""
    n = settings.size
    rng = random.Random(f"scoring-set/{n}/{settings.seed}/{index}")
    opening = rng.randint(0, settings.opening_limit())
    weak = rng.choice((Color.BLACK, Color.WHITE))
    noise = round(rng.uniform(0.05, settings.noise_max), 3)
    drawn = rng.choice(("first-pass", "two-passes"))  # drawn always: game i's later draws stay the same
    ending = drawn if settings.endings == "both" else settings.endings
    bot = make_agent("random", seed=rng.randrange(2**31))
    player.boardsize(n)
    player.clear_board()
    player.komi(settings.komi)
    player.send(f"set_random_seed {rng.randrange(2**31)}")
    state = GameState.new(n, rules="chinese", komi=settings.komi)
    cap = 3 * n * n
    passes = 0
    while state.move_number < cap:
        color = state.next_player
        name = "black" if color is Color.BLACK else "white"
        if state.move_number < opening or (color is weak and rng.random() < noise):
            move = bot.select_move(state)
            if not move.is_pass:
                player.play(name, move.gtp(n))
        else:
            reply = player.genmove(name).strip().upper()
            if reply in ("PASS", "RESIGN"):
                move = Move.pass_turn()
                if reply == "RESIGN":  # GNU Go's board has no pass to undo; tell it one
                    player.play(name, "pass")
            else:
                move = Move.from_gtp(reply, n)
                if not state.is_legal(move):  # superko (GNU Go plays simple ko): a pass instead
                    player.send("undo")
                    player.play(name, "pass")
                    move = Move.pass_turn()
        state = state.play(move)
        passes = passes + 1 if move.is_pass else 0
        if passes >= 2 or (passes == 1 and ending == "first-pass"):
            break
    while not state.is_over():
        state = state.play(Move.pass_turn())
    meta = {"opening": opening, "weak": weak.letter, "noise": noise, "ending": ending}
    return state, meta


def _label(settings: SetSettings, index: int, state: GameState, referee: GtpClient) -> tuple[str, list[str], list[str]]:
    n = settings.size
    referee.boardsize(n)
    referee.clear_board()
    referee.komi(settings.komi)
    first_black = state.root().next_player is Color.BLACK
    for k, move in enumerate(state.moves()):
        is_black = (k % 2 == 0) == first_black
        referee.play("black" if is_black else "white", move.gtp(n))
    referee.send(f"set_random_seed {1 + index}")
    dead = _gtp_points(referee.send("final_status_list dead"))
    seki = _gtp_points(referee.send("final_status_list seki"))
    score = referee.final_score().strip()
    return score, dead, seki


def read_set(path: str | os.PathLike[str]) -> list[ScoringGame]:
    """The games of a set folder (or its ``games.jsonl``), in game order; a torn last line is left out."""
    p = Path(path)
    if p.is_dir():
        p = p / GAMES_FILE
    if not p.exists():
        raise InputError(f"{p}: no such scoring set (make one with benchmarks/scoring_agreement.py make)")
    games = []
    lines = p.read_text(encoding="utf-8").splitlines()
    for k, line in enumerate(lines):
        try:
            games.append(ScoringGame(**json.loads(line)))
        except (ValueError, TypeError) as e:
            if k == len(lines) - 1:
                break  # a run killed in the middle of its last write
            raise InputError(f"{p}:{k + 1}: not a scoring-set game ({e})") from None
    return games


def _settings_dict(settings: SetSettings) -> dict[str, Any]:
    return asdict(settings)


def make_set(
    out: str | os.PathLike[str], settings: SetSettings, games: int, *, timeout: float = 1800.0
) -> Iterator[ScoringGame]:
    """Make (or resume) the set in folder ``out`` up to ``games`` games; yields each new game.

    Refuses a folder made with other settings, and a folder another run holds.
    """
    if settings.size < 5 or settings.size > 19:
        raise InputError(f"board size {settings.size}: the set needs 5..19 (GNU Go's range)")
    run = RunFolder(Path(out), "settings.json", "a scoring set with other settings", "a scoring-set settings file")
    with run.locked():
        theirs = run.saved_settings()
        mine = _settings_dict(settings)
        if theirs is not None:
            run.check({"endings": "both", **theirs}, mine)  # sets made before ``endings`` drew both
        else:
            run.write({"settings": mine, "about": "fuseki.bench.scoring_set: games stopped by two passes before settled"})
        path = run.path / GAMES_FILE
        done = read_set(path) if path.exists() else []
        # Rewrite without a torn last line before appending.
        text = "".join(json.dumps(asdict(g), sort_keys=True) + "\n" for g in done)
        if path.exists() and path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        with (
            GtpClient(shlex.split(settings.player), timeout=timeout) as player,
            GtpClient(shlex.split(settings.referee), timeout=timeout) as referee,
            open(path, "a", encoding="utf-8") as f,
        ):
            for index in range(len(done), games):
                t0 = time.perf_counter()
                state, meta = _play_game(settings, index, player)
                try:
                    score, dead, seki = _label(settings, index, state, referee)
                except GtpError as e:
                    raise InputError(f"game {index}: GNU Go refused to score it ({e})") from None
                record = GameRecord.from_state(
                    state,
                    black=_player_name(meta, "B"),
                    white=_player_name(meta, "W"),
                    result=score,
                )
                sgf = _with_marks(record.to_sgf().decode("utf-8"), dead, settings.size)
                game = ScoringGame(
                    game=index,
                    size=settings.size,
                    komi=settings.komi,
                    moves=state.move_number,
                    sgf=sgf,
                    gnugo_score=score,
                    gnugo_dead=dead,
                    gnugo_seki=seki,
                    seconds=round(time.perf_counter() - t0, 2),
                    **meta,
                )
                f.write(json.dumps(asdict(game), sort_keys=True) + "\n")
                f.flush()
                os.fsync(f.fileno())
                yield game


def _player_name(meta: dict[str, Any], side: str) -> str:
    if meta["weak"] == side:
        return f"GNU Go 3.8 level 0, {round(100 * meta['noise'])} % random moves"
    return "GNU Go 3.8 level 0"
