"""Matches between two UCI chess engines: openings, alternating colours, adjudication, forfeits, PGN, Elo, resume.

:class:`ChessMatch` plays ``games`` games between engine A and engine B (any
two UCI programs, given as command lines) through python-chess's
``chess.engine``:

- **openings**: game pair ``k`` (games ``2k`` and ``2k + 1``) starts from
  opening ``k`` of a seeded shuffle of the opening set
  (:mod:`fuseki.chess.openings`), A White in the first game of the pair and
  Black in the second, so every opening is played from both sides and the
  games differ;
- **limits**: a fixed time a move (``movetime``), a clock (``base + inc``
  seconds, kept here: an engine whose clock runs out loses on time), or
  per-engine ``nodes`` or ``depth``;
- **adjudication** by the rules, no tablebases: checkmate, stalemate,
  insufficient material, threefold repetition and the 50-move rule (both
  claimed at once, as arbiters of engine games do), fivefold repetition and
  the 75-move rule;
- **forfeits**: an engine that crashes, answers an illegal move or none,
  breaks the protocol or is silent past its time (plus ``grace`` seconds; it
  is killed) loses that game; it is started again for the next one. An
  engine that cannot be started at all stops the match with an
  :class:`~fuseki.util.errors.InputError`;
- **records**: ``game_0001.pgn`` (the game, the opening's name, how it ended)
  and ``game_0001.json`` (the result) in the run folder, each written
  atomically, and ``match.json`` with the settings. Running the same match
  again plays only the missing games (a larger ``games`` extends it); other
  settings, or a second run while one is going, are refused
  (:mod:`fuseki.util.runs`). ``games.pgn`` gathers every game at the end;
- **the result**: A's wins, draws and losses, its score (a draw counts half)
  with a Wilson 95 % interval, the Elo difference with its interval
  (:mod:`fuseki.util.stats`), forfeits per engine and how many games were
  distinct;
- **concurrency**: ``run(games, concurrency=N)`` plays N games at a time, as
  cutechess-cli's ``-concurrency`` does, each in its own thread with its own
  pair of engine processes (slot ``k``'s stderr goes to
  ``engine-A.stderr.log`` for slot 1 and ``engine-A.k.stderr.log`` for the
  others), so the engines of one game never see another game. A game's
  opening and colours depend only on its index, so the games are the same
  ones whatever N is, and N is no setting of the folder: a match started at 1
  resumes at 16 and the other way round. The summary is over all games in
  index order; ``on_game`` hears of each game as it finishes (then not in
  index order).
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import math
import os
import random
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import chess
import chess.engine
import chess.pgn

from fuseki.chess.openings import BUILTIN, Opening, load_openings
from fuseki.engines.programs import program_exists, resolve_command
from fuseki.util.atomic import write_atomic, write_json_atomic
from fuseki.util.errors import InputError
from fuseki.util.runs import RunFolder, field_defaults
from fuseki.util.seeds import derive_seed
from fuseki.util.slots import play_in_slots
from fuseki.util.stats import clip_score, elo_difference, elo_interval, wilson_interval

__all__ = ["SETTINGS_FILE", "ChessMatch", "ChessMatchSettings", "GameRecord", "MatchResult", "parse_tc", "summarize"]

SETTINGS_FILE = "match.json"
#: Where Debian installs Stockfish; ``/usr/games`` is often not on PATH.
STOCKFISH_FALLBACK = "/usr/games/stockfish"


def parse_tc(text: str) -> tuple[float, float]:
    """``"60+0.6"`` (seconds base + increment) or ``"60"`` -> ``(60.0, 0.6)``; ``ValueError`` otherwise.

    >>> parse_tc("10+0.1"), parse_tc("5")
    ((10.0, 0.1), (5.0, 0.0))
    """
    base, _, inc = text.partition("+")
    try:
        b, i = float(base), float(inc or 0)
    except ValueError:
        raise ValueError(f"time control {text!r} is not BASE+INC in seconds, e.g. 60+0.6") from None
    if not (math.isfinite(b) and math.isfinite(i) and b > 0 and i >= 0):
        raise ValueError(f"time control {text!r}: the base must be positive and the increment 0 or more")
    return b, i


@dataclasses.dataclass(frozen=True)
class ChessMatchSettings:
    """Everything that shapes a match (the folder's ``match.json``); ``games`` is not one: a match can be extended."""

    engine_a: str
    engine_b: str
    options_a: dict[str, str] = dataclasses.field(default_factory=dict)
    options_b: dict[str, str] = dataclasses.field(default_factory=dict)
    #: Seconds a move (when no clock); None with a clock or node/depth limits only.
    movetime: float | None = None
    #: ``"BASE+INC"`` seconds, or None.
    tc: str | None = None
    nodes_a: int | None = None
    nodes_b: int | None = None
    depth_a: int | None = None
    depth_b: int | None = None
    #: ``builtin`` or an openings file.
    openings: str = BUILTIN
    seed: int = 0
    #: Seconds past its budget before a silent engine is killed and forfeits.
    grace: float = 2.0
    #: A move limited by nodes or depth only may take this long.
    move_timeout: float = 120.0

    def __post_init__(self) -> None:
        if self.tc is not None:
            parse_tc(self.tc)
            if self.movetime is not None:
                raise ValueError("give a move time or a time control, not both")
        if self.movetime is not None and not (math.isfinite(self.movetime) and self.movetime > 0):
            raise ValueError(f"the move time must be a positive number of seconds, got {self.movetime}")
        for side in ("a", "b"):
            if (
                self.tc is None
                and self.movetime is None
                and getattr(self, f"nodes_{side}") is None
                and getattr(self, f"depth_{side}") is None
            ):
                raise ValueError(f"engine {side.upper()} has no limit: give a move time, a time control, or its nodes or depth")
        if not self.grace >= 0 or not self.move_timeout > 0:
            raise ValueError("grace must be >= 0 and the move timeout positive")


@dataclasses.dataclass
class GameRecord:
    """One finished game, as ``game_NNNN.json`` holds it."""

    index: int
    white: str  #: "A" or "B"
    result: str  #: "1-0", "0-1" or "1/2-1/2"
    termination: str  #: checkmate, stalemate, threefold_repetition, ..., or "forfeit"
    reason: str  #: words for the PGN
    plies: int
    opening: str
    forfeit_by: str | None = None  #: "A" or "B" when a forfeit decided the game
    moves: str = ""  #: the game in UCI (the opening included), to count distinct games

    @property
    def a_score(self) -> float:
        if self.result == "1/2-1/2":
            return 0.5
        a_white = self.white == "A"
        return 1.0 if (self.result == "1-0") == a_white else 0.0


@dataclasses.dataclass
class MatchResult:
    """A's record against B, with intervals."""

    games: int
    a_wins: int
    draws: int
    b_wins: int
    score: float
    score_interval: tuple[float, float]
    elo: float
    elo_interval: tuple[float, float]
    forfeits: dict[str, int]
    distinct_games: int
    terminations: dict[str, int]
    names: dict[str, str]

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def lines(self) -> list[str]:
        a, b = self.names["A"], self.names["B"]
        lo, hi = self.score_interval
        elo_lo, elo_hi = self.elo_interval
        bound = "<= " if self.score == 0.0 else ">= " if self.score == 1.0 else ""  # clipped half a game in
        return [
            f"{a} vs {b}: {self.games} games, +{self.a_wins} ={self.draws} -{self.b_wins} for {a}",
            f"score {self.score:.3f} (95 % Wilson {lo:.3f}-{hi:.3f}); Elo {bound}{self.elo:+.0f} (95 % {elo_lo:+.0f} to {elo_hi:+.0f})",
            f"forfeits: {a} {self.forfeits['A']}, {b} {self.forfeits['B']}; distinct games {self.distinct_games}; "
            + ", ".join(f"{k} {v}" for k, v in sorted(self.terminations.items())),
        ]


def summarize(records: list[GameRecord], names: dict[str, str]) -> MatchResult:
    """The match result of ``records`` (Elo finite even at 0 % or 100 %: the score is clipped half a game in)."""
    n = len(records)
    points = sum(r.a_score for r in records)
    a_wins = sum(1 for r in records if r.a_score == 1.0)
    b_wins = sum(1 for r in records if r.a_score == 0.0)
    score = points / n if n else 0.5
    terminations: dict[str, int] = {}
    for r in records:
        terminations[r.termination] = terminations.get(r.termination, 0) + 1
    return MatchResult(
        games=n,
        a_wins=a_wins,
        draws=n - a_wins - b_wins,
        b_wins=b_wins,
        score=score,
        score_interval=wilson_interval(points, n) if n else (0.0, 1.0),
        elo=elo_difference(clip_score(score, n)) if n else 0.0,
        elo_interval=elo_interval(points, n),
        forfeits={side: sum(1 for r in records if r.forfeit_by == side) for side in ("A", "B")},
        distinct_games=len({r.moves for r in records}),
        terminations=terminations,
        names=names,
    )


# ---- engines ----------------------------------------------------------------------------------


class _Forfeit(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _argv(command: str) -> list[str]:
    argv = resolve_command(command)
    if argv[0] == "stockfish" and shutil.which("stockfish") is None and os.access(STOCKFISH_FALLBACK, os.X_OK):
        argv[0] = STOCKFISH_FALLBACK
    return argv


class _Engine:
    """One side's engine: started on demand, configured, killed on a hang, restarted after a failure."""

    def __init__(self, label: str, command: str, options: dict[str, str], log: Path | None = None) -> None:
        self.label = label
        #: The engine's stderr goes here (appended), so that a crash can be read about afterwards.
        self.log = log
        self.command = command
        self.argv = _argv(command)
        if not program_exists(self.argv):
            raise InputError(f"engine {label}: {self.argv[0]} is not a program on PATH (command {command!r})")
        self.options = options
        self.engine: chess.engine.SimpleEngine | None = None
        self.name = label

    def start(self) -> chess.engine.SimpleEngine:
        if self.engine is None:
            stderr: Any = subprocess.DEVNULL
            if self.log is not None:
                stderr = open(self.log, "ab")  # noqa: SIM115 (the child process holds it; closing ours right away is fine)
            try:
                # Its own process group: a Ctrl-C (or `timeout -s INT`) reaches the match, which stops its games
                # and kills the engines itself, and not the engines first, whose deaths would read as forfeits.
                engine = chess.engine.SimpleEngine.popen_uci(self.argv, timeout=60, stderr=stderr, setpgrp=True)
            except (OSError, chess.engine.EngineError, chess.engine.EngineTerminatedError, TimeoutError) as e:
                raise InputError(f"engine {self.label} ({self.command}) does not start as a UCI engine: {e}") from None
            finally:
                if stderr is not subprocess.DEVNULL:
                    stderr.close()
            try:
                if self.options:
                    engine.configure(dict(self.options))
            except (chess.engine.EngineError, ValueError) as e:
                engine.quit()
                raise InputError(f"engine {self.label}: {e}") from None
            self.engine = engine
            self.name = str(engine.id.get("name", self.label))
        return self.engine

    def ready(self) -> None:
        """Started and answering ``isready``; :class:`_Forfeit` otherwise."""
        try:
            self.start().ping()
        except InputError as e:
            raise _Forfeit(f"could not be started ({e})") from None
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError, TimeoutError) as e:
            raise _Forfeit(f"not ready ({type(e).__name__}: {e})") from None

    def kill(self) -> None:
        """Kill the process from any thread (a hung engine)."""
        engine = self.engine
        if engine is not None:
            try:
                engine.protocol.loop.call_soon_threadsafe(engine.transport.kill)
            except RuntimeError:  # the loop is gone already
                pass

    def close(self) -> None:
        engine, self.engine = self.engine, None
        if engine is not None:
            try:
                engine.quit()
            except (chess.engine.EngineError, chess.engine.EngineTerminatedError, TimeoutError, RuntimeError):
                engine.close()


# ---- the match ---------------------------------------------------------------------------------


class ChessMatch:
    """A match in ``out`` with ``settings`` (see the module notes); :meth:`run` plays it."""

    def __init__(self, settings: ChessMatchSettings, out: str | Path) -> None:
        self.settings = settings
        self.out = Path(out)
        self.openings = load_openings(settings.openings)
        self.names: dict[str, str] = {"A": "A", "B": "B"}
        self.run_folder = RunFolder(
            self.out,
            SETTINGS_FILE,
            "a chess match with other settings",
            "a chess match settings file",
            "use another --out or the same settings",
        )

    def opening_of(self, index: int) -> Opening:
        """Game ``index``'s opening: pair ``index // 2`` of a shuffle seeded by the match's seed."""
        order = list(range(len(self.openings)))
        random.Random(derive_seed(self.settings.seed, "openings")).shuffle(order)
        return self.openings[order[(index // 2) % len(order)]]

    def run(
        self,
        games: int,
        on_game: Callable[[GameRecord, MatchResult], None] | None = None,
        *,
        concurrency: int = 1,
    ) -> MatchResult:
        """Play games ``1 .. games`` that are not in the folder yet, ``concurrency`` at a time; the result over all ``games``.

        ``on_game(record, result so far)`` is called in this thread as each
        game finishes. ``concurrency`` is how many games are played at once,
        each with its own two engine processes; it changes neither the games
        nor the folder's settings.
        """
        if concurrency < 1:
            raise InputError(f"concurrency must be at least 1, got {concurrency}")
        s = self.settings
        mine = json.loads(json.dumps(dataclasses.asdict(s)))
        with self.run_folder.locked():
            theirs = self.run_folder.saved_settings()
            if theirs is not None:
                self.run_folder.check(theirs, mine, defaults=json.loads(json.dumps(field_defaults(ChessMatchSettings))))
            records = {r.index: r for r in self._finished(games)}
            todo = [index for index in range(1, games + 1) if index not in records]
            slots = [self._engines(slot) for slot in range(1, max(1, min(concurrency, len(todo))) + 1)]
            try:
                names = self._names(slots[0])
                self.names = names
                if theirs is None:
                    self.run_folder.write({"settings": mine, "names": names})

                def finished(record: GameRecord) -> None:
                    records[record.index] = record
                    if on_game is not None:
                        on_game(record, summarize([records[k] for k in sorted(records)], names))

                self._play_all(todo, slots, finished)
            finally:
                for engines in slots:
                    for e in engines.values():
                        e.close()
            ordered = [records[k] for k in sorted(records)]
            self._write_all(ordered)
            return summarize(ordered, names)

    def _engines(self, slot: int) -> dict[str, _Engine]:
        """Slot ``slot``'s own pair of engines (started when first needed), each with its stderr log.

        Slot 1's logs are ``engine-A.stderr.log`` and ``engine-B.stderr.log``
        (the names of a match played one game at a time), slot k's
        ``engine-A.k.stderr.log`` and ``engine-B.k.stderr.log``.
        """
        s = self.settings
        suffix = "" if slot == 1 else f".{slot}"
        return {
            side: _Engine(side, command, options, self.out / f"engine-{side}{suffix}.stderr.log")
            for side, command, options in (("A", s.engine_a, s.options_a), ("B", s.engine_b, s.options_b))
        }

    def _play_all(self, todo: list[int], slots: list[dict[str, _Engine]], finished: Callable[[GameRecord], None]) -> None:
        """Play the games ``todo``, one thread per slot with that slot's engines; ``finished(record)`` here as each ends.

        :func:`~fuseki.util.slots.play_in_slots` runs the threads. Anything
        that ends the match early (Ctrl-C here, an exception in ``finished``
        or in a thread) aborts it: no thread takes another game, every engine
        is killed, and the games cut short are not written (the kill would
        read as a forfeit); the next run plays them.
        """

        def play(index: int, engines: dict[str, _Engine], abort: threading.Event) -> GameRecord | None:
            played = self._play(index, engines, abort)
            if played is None or abort.is_set():
                return None
            self._save(*played)
            return played[0]

        def stop(engines: dict[str, _Engine]) -> None:
            for e in engines.values():
                e.kill()

        play_in_slots(todo, slots, play, finished, stop, name="chess-match")

    # -- files -----------------------------------------------------------------------------------

    def _game_path(self, index: int, ext: str) -> Path:
        return self.out / f"game_{index:04d}.{ext}"

    def _finished(self, games: int) -> list[GameRecord]:
        out = []
        for index in range(1, games + 1):
            path = self._game_path(index, "json")
            if path.exists() and self._game_path(index, "pgn").exists():
                try:
                    out.append(GameRecord(**json.loads(path.read_text(encoding="utf-8"))))
                except (ValueError, TypeError) as e:
                    raise InputError(f"{path} is not a game record of a chess match ({e})") from None
        return out

    def _names(self, engines: dict[str, _Engine]) -> dict[str, str]:
        saved = self.run_folder.read() or {}
        names = saved.get("names")
        if isinstance(names, dict) and set(names) == {"A", "B"}:
            return {k: str(v) for k, v in names.items()}
        for e in engines.values():
            e.start()
        a, b = engines["A"].name, engines["B"].name
        if a == b:
            a, b = f"{a} (A)", f"{b} (B)"
        return {"A": a, "B": b}

    def _write_all(self, records: list[GameRecord]) -> None:
        text = "".join(self._game_path(r.index, "pgn").read_text(encoding="utf-8") for r in records)
        write_atomic(self.out / "games.pgn", text.encode("utf-8"))

    # -- one game ----------------------------------------------------------------------------------

    def _limit_for(self, side: str, clocks: dict[bool, float] | None, inc: float) -> chess.engine.Limit:
        s = self.settings
        nodes, depth = getattr(s, f"nodes_{side.lower()}"), getattr(s, f"depth_{side.lower()}")
        if clocks is not None:
            return chess.engine.Limit(
                white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK], white_inc=inc, black_inc=inc, nodes=nodes, depth=depth
            )
        return chess.engine.Limit(time=s.movetime, nodes=nodes, depth=depth)

    def _limit_words(self, side: str) -> str:
        s = self.settings
        words = [f"tc {s.tc}" if s.tc else f"movetime {s.movetime:g} s" if s.movetime else ""]
        for key in ("nodes", "depth"):
            value = getattr(s, f"{key}_{side.lower()}")
            if value is not None:
                words.append(f"{key} {value}")
        return ", ".join(w for w in words if w)

    def _deadline(self, limit: chess.engine.Limit, turn: chess.Color) -> float:
        s = self.settings
        if limit.white_clock is not None:
            remaining = limit.white_clock if turn == chess.WHITE else limit.black_clock
            return max(0.0, float(remaining or 0.0)) + s.grace
        if limit.time is not None:
            return limit.time + s.grace
        return s.move_timeout

    def _play(self, index: int, engines: dict[str, _Engine], abort: threading.Event | None = None) -> tuple[GameRecord, str] | None:
        """Game ``index`` with ``engines``: its record and PGN (not written yet); None once ``abort`` is set."""
        s = self.settings
        opening = self.opening_of(index - 1)
        board = opening.board()
        white = "A" if index % 2 == 1 else "B"
        side_of = {chess.WHITE: white, chess.BLACK: "B" if white == "A" else "A"}
        clocks: dict[bool, float] | None = None
        inc = 0.0
        if s.tc is not None:
            base, inc = parse_tc(s.tc)
            clocks = {chess.WHITE: base, chess.BLACK: base}
        forfeit: tuple[str, str] | None = None  # (side, reason)
        for side in (white, "B" if white == "A" else "A"):
            try:  # started and ready (a network may take seconds to load) before any clock runs
                engines[side].ready()
            except _Forfeit as f:
                forfeit = (side, f.reason)
                engines[side].close()
                break
        while forfeit is None and not board.is_game_over(claim_draw=True):
            if abort is not None and abort.is_set():
                return None
            side = side_of[board.turn]
            engine = engines[side]
            limit = self._limit_for(side, clocks, inc)
            try:
                move, seconds = self._ask(engine, board, limit, index)
            except _Forfeit as f:
                forfeit = (side, f.reason)
                engine.close()
                break
            if clocks is not None:
                clocks[board.turn] -= seconds
                if clocks[board.turn] < 0:
                    forfeit = (side, f"lost on time ({-clocks[board.turn]:.2f} s over)")
                    break
                clocks[board.turn] += inc
            board.push(move)
        return self._record(index, board, opening, white, forfeit, engines)

    def _ask(self, engine: _Engine, board: chess.Board, limit: chess.engine.Limit, index: int) -> tuple[chess.Move, float]:
        """The engine's move and the seconds it took; :class:`_Forfeit` for a crash, a hang, an illegal or no move."""
        try:
            eng = engine.start()
        except InputError as e:
            raise _Forfeit(f"could not be restarted ({e})") from None
        hung = threading.Event()

        def kill() -> None:
            hung.set()
            engine.kill()

        timer = threading.Timer(self._deadline(limit, board.turn), kill)
        timer.daemon = True
        started = time.perf_counter()
        timer.start()
        try:
            result = eng.play(board, limit, game=(str(self.out), index))
        except chess.engine.EngineTerminatedError:
            raise _Forfeit("no answer within its time (killed)" if hung.is_set() else "the engine crashed") from None
        except chess.engine.EngineError as e:
            text = str(e)
            raise _Forfeit(("illegal move: " if "illegal" in text.lower() else "protocol error: ") + text) from None
        except TimeoutError:
            raise _Forfeit("no answer within its time") from None
        finally:
            timer.cancel()
        seconds = time.perf_counter() - started
        if result.move is None:
            raise _Forfeit("no move (bestmove (none)) in a game that is not over")
        if result.move not in board.legal_moves:  # python-chess checks too; a null move gets through
            raise _Forfeit(f"illegal move: {result.move.uci()}")
        return result.move, seconds

    def _record(
        self,
        index: int,
        board: chess.Board,
        opening: Opening,
        white: str,
        forfeit: tuple[str, str] | None,
        engines: dict[str, _Engine],
    ) -> tuple[GameRecord, str]:
        """The game's record and its PGN text."""
        s = self.settings
        if forfeit is not None:
            loser, reason = forfeit
            result = "0-1" if loser == white else "1-0"
            termination, words = "forfeit", f"{engines[loser].name} ({loser}) forfeits: {reason}"
        else:
            outcome = board.outcome(claim_draw=True)
            assert outcome is not None
            result = outcome.result()
            termination = outcome.termination.name.lower()
            words = termination.replace("_", " ")
        names = self.names
        black = "B" if white == "A" else "A"
        game = chess.pgn.Game.from_board(board)
        game.headers["Event"] = "fuseki chess-match"
        game.headers["Site"] = os.uname().nodename if hasattr(os, "uname") else "?"
        game.headers["Date"] = datetime.date.today().strftime("%Y.%m.%d")
        game.headers["Round"] = str(index)
        game.headers["White"] = names[white]
        game.headers["Black"] = names[black]
        game.headers["Result"] = result
        game.headers["Opening"] = opening.name
        if opening.eco:
            game.headers["ECO"] = opening.eco
        game.headers["TimeControl"] = "{:g}+{:g}".format(*parse_tc(s.tc)) if s.tc else "-"
        limits = {side: self._limit_words(side) for side in ("A", "B")}
        game.headers["WhiteLimit"], game.headers["BlackLimit"] = limits[white], limits[black]
        game.headers["Termination"] = "rules infraction" if termination == "forfeit" else "normal"
        game.headers["PlyCount"] = str(len(board.move_stack))
        game.comment = words
        record = GameRecord(
            index=index,
            white=white,
            result=result,
            termination=termination,
            reason=words,
            plies=len(board.move_stack),
            opening=opening.name,
            forfeit_by=forfeit[0] if forfeit else None,
            moves=" ".join(m.uci() for m in board.move_stack),
        )
        return record, str(game) + "\n\n"

    def _save(self, record: GameRecord, pgn: str) -> None:
        """Write the game's files, each atomically, the PGN first: a game counts as finished once both are there."""
        write_atomic(self._game_path(record.index, "pgn"), pgn.encode("utf-8"))
        write_json_atomic(self._game_path(record.index, "json"), dataclasses.asdict(record))
