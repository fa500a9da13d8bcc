"""A GTP v2 engine: any :class:`~fuseki.agents.Agent` playable by Go programs.

:class:`GtpEngine` reads commands from a text stream and writes replies to
another, so ``fuseki gtp`` runs it on stdin/stdout and tests drive it in
process. As in minigo, each command is a method named ``cmd_<name>``, found by
reflection: a new command is one method, and ``list_commands`` is generated
from them. Vendor prefixes become dashes (``cmd_kgs_genmove_cleanup`` answers
``kgs-genmove_cleanup``).

>>> import io
>>> from fuseki.agents import make_agent
>>> out = io.StringIO()
>>> engine = GtpEngine(make_agent("random", seed=1), stdout=out)
>>> engine.handle("1 boardsize 9")
'=1 '
>>> engine.handle("play black E5")
'= '
>>> engine.handle("play white E5")
'? illegal move: occupied'
>>> engine.handle("list_stones black")
'= E5'

Input is cleaned as the GTP specification says: control characters other
than HT and LF are removed, HT becomes a space, ``#`` starts a comment, and
empty lines are skipped. No input crashes the engine: an error in a command
becomes a ``?`` reply, and every command line gets exactly one reply.

**Moves out of turn.** GTP lets ``play`` and ``genmove`` name either colour;
:class:`~fuseki.go.state.GameState` only plays for ``next_player``. Rather
than insert a pass (which would put a move in the record that nobody played),
the engine *rebases*: it starts a new root position with the same stones, the
same prisoners and the named colour to move, and plays from there. The same
happens for a move after the game ended by two passes (controllers may go on
playing to remove dead stones). The record that ``printsgf`` writes keeps
every move with its real colour; what a rebase loses is only the superko
history before it (simple ko needs none: the ko point never binds the colour
that just moved). Controllers that alternate colours never trigger it.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import re
import sys
import traceback
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TextIO

import numpy as np

from fuseki import __version__
from fuseki.agents.base import board_size_problem
from fuseki.deadstones.scorer import final_status_estimator
from fuseki.go.coords import (
    MAX_SIZE,
    MIN_SIZE,
    CoordinateError,
    Point,
    from_gtp,
    to_gtp,
)
from fuseki.go.handicap import fixed_handicap, max_fixed_handicap, max_free_handicap
from fuseki.go.rules import Rules
from fuseki.go.sgf import GameRecord, RecordedMove, Setup, SgfError, load_sgf
from fuseki.go.state import Color, GameState, IllegalMoveError, Move

if TYPE_CHECKING:
    from fuseki.agents.base import Agent

#: Longest command line read as one; longer lines get a ``?`` reply and are discarded.
MAX_LINE = 1 << 16
#: Longest piece of user input quoted back in an error message.
_QUOTE = 40

#: Method-name prefixes that GTP writes with a dash (``kgs-genmove_cleanup``).
_VENDOR_PREFIXES = ("kgs", "lz", "gogui")

_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_ID = re.compile(r"[0-9]+")


class GtpCommandError(Exception):
    """A command that fails: the message becomes the text of the ``?`` reply."""


#: What a dead-stone estimate returns: every stone as ``alive``, ``dead`` or ``seki``.
FinalStatus = Callable[[GameState], dict[str, list[Point]]]


def gtp_name(method_name: str) -> str:
    """``cmd_kgs_genmove_cleanup`` -> ``kgs-genmove_cleanup``; ``cmd_play`` -> ``play``."""
    name = method_name.removeprefix("cmd_")
    head, _, rest = name.partition("_")
    if head in _VENDOR_PREFIXES and rest:
        return f"{head}-{rest}"
    return name


def clean_line(line: str) -> str:
    """A raw input line as GTP wants it read: no control characters, no comment, stripped.

    >>> clean_line("  12 play\\tb d4  # a comment\\r\\n")
    '12 play b d4'
    """
    line = line.replace("\t", " ")
    line = _CONTROL.sub("", line)
    return line.split("#", 1)[0].strip()


def _quote(text: str) -> str:
    """User input as an error message may show it: short, one line, printable."""
    text = "".join(ch if ch.isprintable() else "?" for ch in text)
    return repr(text if len(text) <= _QUOTE else text[:_QUOTE] + "...")


def _one_reply(text: str) -> str:
    """Reply text with no empty line inside (an empty line ends a GTP reply)."""
    lines = [ln.rstrip() for ln in text.replace("\r", "").split("\n")]
    # The first line may be empty (``showboard`` starts the board on a new line).
    return "\n".join(lines[:1] + [ln for ln in lines[1:] if ln])


@dataclasses.dataclass
class TimeSettings:
    """What the controller said about the clock (kept; the random bots do not use it)."""

    main_time: float = 0.0
    byo_yomi_time: float = 0.0
    byo_yomi_stones: int = 0
    system: str = "none"  #: ``none``, ``absolute``, ``canadian`` or ``byoyomi``
    #: Colour -> (seconds left, stones left in the period).
    left: dict[Color, tuple[float, int]] = dataclasses.field(default_factory=dict)


class GtpEngine:
    """A GTP v2 engine around one agent.

    ``rules`` sets ko, suicide and scoring (komi comes from ``komi`` commands;
    it starts at the rule set's komi). ``stdin``/``stdout`` default to the
    process's streams; :meth:`run` serves until ``quit`` or end of input.

    ``size`` is the board at start: by default the agent's ``board_size``
    where it has one (a network plays only the size it was trained for, and
    refuses others), else 19. A ``size`` the agent cannot play is a
    ``ValueError``.

    ``dead_stones`` chooses the estimate that ``final_score`` and
    ``final_status_list`` use: ``"playouts"`` (Benson, playout ownership and
    the seki rule of :mod:`fuseki.go.ownership`) or ``"network"`` (the
    thesis's block classifier, :mod:`fuseki.deadstones.scorer`; its own model
    file with ``dead_stones_model``, else the shipped one). A bad choice or an
    unreadable model raises ``ValueError`` here, not at the end of a game.
    """

    def __init__(
        self,
        agent: Agent,
        *,
        rules: Rules | str = "chinese",
        name: str = "fuseki",
        version: str | None = None,
        size: int | None = None,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        log: TextIO | None = None,
        dead_stones: str = "playouts",
        dead_stones_model: str | os.PathLike[str] | None = None,
    ) -> None:
        #: The estimate behind ``final_score`` and ``final_status_list`` (spec G8, T4).
        #: Built now, so that a bad method or an unreadable model fails at start-up
        #: (``ValueError``) rather than at the end of the first game.
        self.dead_stones = dead_stones
        self._final_status: FinalStatus = final_status_estimator(dead_stones, model=dead_stones_model)

        self.agent = agent
        self.rules = Rules.preset(rules) if isinstance(rules, str) else rules
        self.engine_name = name
        self.engine_version = version or __version__
        self.stdin = stdin if stdin is not None else sys.stdin
        self.stdout = stdout if stdout is not None else sys.stdout
        self.log = log if log is not None else sys.stderr
        self.time = TimeSettings()
        self.done = False
        self._commands: dict[str, Callable[[list[str]], str]] = {
            gtp_name(attr): getattr(self, attr) for attr in sorted(dir(type(self))) if attr.startswith("cmd_")
        }
        #: The one board size the agent plays (a network's ``board_size``), or None: any size.
        self.fixed_size: int | None = getattr(agent, "board_size", None)
        if size is None:
            size = self.fixed_size or 19
        problem = self._size_problem(size)
        if problem:
            raise ValueError(problem)
        self.size = size
        self._reset(GameState.new(size, self.rules))

    def _size_problem(self, size: int) -> str:
        """Why the agent cannot play on ``size`` ("" if it can).

        A network is trained for one board size and fails on any other, so
        the engine refuses such a board when it is set, not at the next
        ``genmove``, where the controller would take it for a crash.
        """
        return board_size_problem(getattr(self.agent, "name", "the bot"), self.fixed_size, size)

    # ---- the game ------------------------------------------------------

    def _reset(self, root: GameState) -> None:
        """Start from ``root``: a new game, a handicap or a loaded position."""
        self.root = root
        #: States after each move; ``stack[0]`` is the root. ``undo`` pops.
        self.stack: list[GameState] = [root]
        self.moves: list[RecordedMove] = []
        #: Setup stones of a loaded game after its move ``n`` (see :class:`~fuseki.go.sgf.GameRecord`).
        self.setups: dict[int, Setup] = {}

    @property
    def state(self) -> GameState:
        """The current position."""
        return self.stack[-1]

    def _rebase(self, state: GameState, color: Color) -> GameState:
        """A new root with ``state``'s stones and prisoners and ``color`` to move (see the module doc)."""
        # Prisoners count under territory scoring, so the new root keeps them.
        captures = (state.captures(Color.BLACK), state.captures(Color.WHITE))
        return GameState.from_array(
            state.stones(), rules=state.rules, to_move=color, handicap=state.handicap, captures=captures
        )

    def _play(self, color: Color, move: Move) -> GameState:
        """Play ``move`` for ``color`` and push it; raise :class:`GtpCommandError` if illegal."""
        state = self.state
        if color is not state.next_player or state.is_over():
            state = self._rebase(state, color)
        try:
            new = state.play(move)
        except IllegalMoveError as e:
            raise GtpCommandError(f"illegal move: {e.reason}") from None
        self.stack.append(new)
        self.moves.append(RecordedMove(color, move))
        return new

    def _rules_with_komi(self, komi: float) -> Rules:
        return self.rules.replace(komi=komi)

    # ---- reading and answering -----------------------------------------

    def run(self) -> int:
        """Answer commands until ``quit`` or the end of input. Returns 0."""
        while not self.done:
            line = self.stdin.readline(MAX_LINE)
            if not line:
                break
            if len(line) >= MAX_LINE and not line.endswith("\n"):
                reply = self._too_long(line)
            else:
                reply = self.handle(line)
            if reply is not None:
                self.stdout.write(reply + "\n\n")
                self.stdout.flush()
        return 0

    def _too_long(self, head: str) -> str:
        """Discard the rest of an over-long line; answer it with one error."""
        while True:
            chunk = self.stdin.readline(MAX_LINE)
            if not chunk or chunk.endswith("\n"):
                break
        cleaned = clean_line(head)
        m = _ID.match(cleaned)
        cid = m.group(0) if m and (len(cleaned) == m.end() or cleaned[m.end()] == " ") else ""
        return f"?{cid} line too long (more than {MAX_LINE} characters)"

    def handle(self, line: str) -> str | None:
        """The reply to one input line (without the closing blank line), or ``None``
        for a line that GTP says to ignore (empty or a comment)."""
        text = clean_line(line)
        if not text:
            return None
        words = text.split()
        cid = ""
        if _ID.fullmatch(words[0]):
            cid = str(int(words[0])) if len(words[0]) < 30 else words[0]
            words = words[1:]
            if not words:
                return f"?{cid} missing command after the id"
        name, args = words[0], words[1:]
        command = self._commands.get(name)
        if command is None:
            return f"?{cid} unknown command: {_quote(name)}"
        try:
            reply = command(args)
        except GtpCommandError as e:
            return f"?{cid} {_one_reply(str(e))}"
        except Exception as e:  # noqa: BLE001 -- a bug must cost one reply, never the session
            traceback.print_exc(file=self.log)
            return f"?{cid} internal error: {_one_reply(type(e).__name__ + ': ' + str(e))[:200]}"
        return f"={cid} {_one_reply(reply)}"

    # ---- argument parsing ------------------------------------------------

    @staticmethod
    def _nargs(args: list[str], low: int, high: int | None = None) -> None:
        high = low if high is None else high
        if not low <= len(args) <= high:
            want = str(low) if low == high else f"{low} to {high}"
            raise GtpCommandError(f"syntax error: expected {want} argument(s), got {len(args)}")

    @staticmethod
    def _int(text: str, what: str) -> int:
        if not re.fullmatch(r"[+-]?[0-9]{1,9}", text):
            raise GtpCommandError(f"syntax error: {what} must be an integer, got {_quote(text)}")
        return int(text)

    @staticmethod
    def _float(text: str, what: str) -> float:
        if not re.fullmatch(r"[+-]?([0-9]{1,9}(\.[0-9]*)?|\.[0-9]+)", text):
            raise GtpCommandError(f"syntax error: {what} must be a number, got {_quote(text)}")
        return float(text)

    @staticmethod
    def _color(text: str) -> Color:
        try:
            return Color.parse(text)
        except ValueError:
            raise GtpCommandError(f"syntax error: invalid color {_quote(text)}") from None

    def _vertex(self, text: str) -> Move:
        """A GTP vertex or ``pass`` (never ``resign``: ``play`` cannot resign)."""
        try:
            point = from_gtp(text, self.size)
        except CoordinateError:
            raise GtpCommandError(f"invalid coordinate {_quote(text)} on a {self.size}x{self.size} board") from None
        return Move.pass_turn() if point is None else Move.play(point)

    def _point(self, text: str) -> Point:
        move = self._vertex(text)
        if move.point is None:
            raise GtpCommandError("invalid coordinate 'pass': a point is needed")
        return move.point

    def _vertices(self, points: Iterable[Point]) -> str:
        return " ".join(to_gtp(p, self.size) for p in points)

    # ---- administrative commands ------------------------------------------

    def cmd_protocol_version(self, args: list[str]) -> str:
        return "2"

    def cmd_name(self, args: list[str]) -> str:
        return self.engine_name

    def cmd_version(self, args: list[str]) -> str:
        return self.engine_version

    def cmd_known_command(self, args: list[str]) -> str:
        self._nargs(args, 1)
        return "true" if args[0] in self._commands else "false"

    def cmd_list_commands(self, args: list[str]) -> str:
        return "\n".join(sorted(self._commands))

    def cmd_quit(self, args: list[str]) -> str:
        self.done = True
        return ""

    # ---- setup -------------------------------------------------------------

    def cmd_boardsize(self, args: list[str]) -> str:
        self._nargs(args, 1)
        size = self._int(args[0], "the board size")
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise GtpCommandError(f"unacceptable size: boards from {MIN_SIZE} to {MAX_SIZE} are supported")
        problem = self._size_problem(size)
        if problem:  # the old board stays, so the game can go on at the size the agent plays
            raise GtpCommandError(f"unacceptable size: {problem}")
        self.size = size
        self._reset(GameState.new(size, self.rules))
        return ""

    def cmd_clear_board(self, args: list[str]) -> str:
        self._reset(GameState.new(self.size, self.rules))
        return ""

    def cmd_komi(self, args: list[str]) -> str:
        self._nargs(args, 1)
        komi = self._float(args[0], "komi")
        try:
            rules = self._rules_with_komi(komi)
        except ValueError as e:
            raise GtpCommandError(f"syntax error: {e}") from None
        # States carry their rules: replay the game (its setup too) under the new komi.
        record = self.record()
        record.komi = komi
        self._load(record, rules, len(record.moves))
        return ""

    def _place_handicap(self, points: list[Point]) -> str:
        if self.moves or self.state.stones().any():
            raise GtpCommandError("board not empty")
        self._reset(GameState.new(self.size, self.rules, handicap_points=points))
        return self._vertices(points)

    def cmd_fixed_handicap(self, args: list[str]) -> str:
        self._nargs(args, 1)
        n = self._int(args[0], "the number of stones")
        limit = max_fixed_handicap(self.size)
        if not 2 <= n <= limit:
            raise GtpCommandError(f"invalid number of stones: {self.size}x{self.size} takes 2 to {limit}"
                                  if limit else f"invalid number of stones: no fixed handicap on {self.size}x{self.size}")
        return self._place_handicap(fixed_handicap(n, self.size))

    def cmd_place_free_handicap(self, args: list[str]) -> str:
        self._nargs(args, 1)
        n = self._int(args[0], "the number of stones")
        limit = max_free_handicap(self.size)
        if not 2 <= n <= limit:
            raise GtpCommandError(f"invalid number of stones: {self.size}x{self.size} takes 2 to {limit}")
        return self._place_handicap(free_handicap_points(n, self.size))

    def cmd_set_free_handicap(self, args: list[str]) -> str:
        limit = max_free_handicap(self.size)
        if not 2 <= len(args) <= limit:
            raise GtpCommandError(f"bad vertex list: {self.size}x{self.size} takes 2 to {limit} stones")
        points = [self._point(a) for a in args]
        if len(set(points)) != len(points):
            raise GtpCommandError("bad vertex list: a vertex repeats")
        self._place_handicap(points)
        return ""

    # ---- playing -------------------------------------------------------------

    def cmd_play(self, args: list[str]) -> str:
        self._nargs(args, 2)
        color = self._color(args[0])
        self._play(color, self._vertex(args[1]))
        return ""

    def _generate(self, args: list[str]) -> tuple[Color, Move, GameState]:
        self._nargs(args, 1)
        color = self._color(args[0])
        state = self.state
        if color is not state.next_player or state.is_over():
            state = self._rebase(state, color)
        move = self.agent.select_move(state)
        if not move.is_resign and not state.is_legal(move):
            raise GtpCommandError(f"the bot chose an illegal move: {move.gtp(self.size)} ({state.why_illegal(move)})")
        return color, move, state

    def cmd_genmove(self, args: list[str]) -> str:
        color, move, _ = self._generate(args)
        if not move.is_resign:
            self._play(color, move)
        return move.gtp(self.size)

    def cmd_reg_genmove(self, args: list[str]) -> str:
        """Like ``genmove``, but the move is not played (for regression tests)."""
        _, move, _ = self._generate(args)
        return move.gtp(self.size)

    def cmd_kgs_genmove_cleanup(self, args: list[str]) -> str:
        """KGS's cleanup phase: the bot should capture dead stones rather than pass.

        The random bots never pass while they have a move, so this is ``genmove``.
        """
        return self.cmd_genmove(args)

    def cmd_undo(self, args: list[str]) -> str:
        if len(self.stack) < 2:
            raise GtpCommandError("cannot undo")
        self.stack.pop()
        self.moves.pop()
        self.setups.pop(len(self.moves) + 1, None)
        return ""

    # ---- the end of the game ----------------------------------------------------

    def cmd_final_score(self, args: list[str]) -> str:
        """The area (or territory) count after removing the stones the chosen estimate calls dead."""
        return self.state.score(dead=self._final_status(self.state)["dead"]).result

    def cmd_final_status_list(self, args: list[str]) -> str:
        """The strings with the status asked for, one string per line, as GNU Go writes them."""
        self._nargs(args, 1)
        status = args[0].lower()
        if status not in ("alive", "dead", "seki"):
            raise GtpCommandError(f"syntax error: status must be alive, dead or seki, got {_quote(args[0])}")
        chosen = set(self._final_status(self.state).get(status, ()))
        lines = []
        for _, points in sorted(self.state.strings(), key=lambda s: min(s[1])):
            if points[0] in chosen:
                lines.append(self._vertices(sorted(points)))
        return "\n".join(lines)

    # ---- time ---------------------------------------------------------------------

    def cmd_time_settings(self, args: list[str]) -> str:
        self._nargs(args, 3)
        main, byo, stones = (self._int(a, "a time setting") for a in args)
        if min(main, byo, stones) < 0:
            raise GtpCommandError("syntax error: time settings cannot be negative")
        system = "absolute" if byo == 0 else ("none" if stones == 0 else "canadian")
        self.time = TimeSettings(main, byo, stones, system)
        return ""

    def cmd_kgs_time_settings(self, args: list[str]) -> str:
        if not args:
            raise GtpCommandError("syntax error: expected none, absolute, byoyomi or canadian")
        system, rest = args[0].lower(), args[1:]
        counts = {"none": 0, "absolute": 1, "byoyomi": 3, "canadian": 3}
        if system not in counts:
            raise GtpCommandError(f"syntax error: unknown time system {_quote(args[0])}")
        self._nargs(rest, counts[system])
        values = [self._int(a, "a time setting") for a in rest]
        if any(v < 0 for v in values):
            raise GtpCommandError("syntax error: time settings cannot be negative")
        if system == "none":
            self.time = TimeSettings()
        elif system == "absolute":
            self.time = TimeSettings(values[0], 0, 0, "absolute")
        else:  # byoyomi: main, period time, periods; canadian: main, period time, stones
            self.time = TimeSettings(values[0], values[1], values[2], system)
        return ""

    def cmd_time_left(self, args: list[str]) -> str:
        self._nargs(args, 3)
        color = self._color(args[0])
        seconds = self._int(args[1], "the time left")
        stones = self._int(args[2], "the stones left")
        self.time.left[color] = (seconds, stones)
        return ""

    # ---- looking at the game ----------------------------------------------------------

    def cmd_showboard(self, args: list[str]) -> str:
        state = self.state
        lines = state.to_ascii().split("\n")
        # Where GNU Go writes the prisoners: beside the two bottom rows.
        lines[-3] += f"     WHITE (O) has captured {state.captures(Color.WHITE)} stones"
        lines[-2] += f"     BLACK (X) has captured {state.captures(Color.BLACK)} stones"
        return "\n" + "\n".join(lines)

    def cmd_list_stones(self, args: list[str]) -> str:
        """GNU Go's extension: the vertices of one colour's stones, top row first."""
        self._nargs(args, 1)
        color = self._color(args[0])
        grid = self.state.stones()
        n = self.size
        points = [Point(r, c) for r in range(n) for c in range(n) if grid[r, c] == int(color)]
        return self._vertices(points)

    def cmd_loadsgf(self, args: list[str]) -> str:
        """Load the game in an SGF file, up to (not including) ``move_number``.

        Answers the colour to play, as GNU Go does. The file is read leniently
        (:func:`~fuseki.go.sgf.read_sgf`): its repairs are written to the log
        (stderr). It is replayed under the engine's rules with the file's
        komi; a game that repeats a board they forbid continues with simple
        ko, as it was played.
        """
        self._nargs(args, 1, 2)
        upto = self._int(args[1], "the move number") if len(args) == 2 else None
        if not os.path.isfile(args[0]):  # not a FIFO or a device: /dev/stdin is our input
            raise GtpCommandError(f"cannot load file: {_quote(args[0])} is not a readable file")
        try:
            record = load_sgf(args[0])
        except (OSError, SgfError, ValueError) as e:
            raise GtpCommandError(f"cannot load file: {_one_reply(str(e))}") from None
        problem = self._size_problem(record.size)
        if problem:
            raise GtpCommandError(f"cannot load file: {problem}")
        count = len(record.moves) if upto is None else min(max(upto - 1, 0), len(record.moves))
        try:
            rules = self._rules_with_komi(record.komi)
            self._load(record, rules, count)
        except (SgfError, ValueError) as e:
            raise GtpCommandError(f"cannot load file: {_one_reply(str(e))}") from None
        for warning in record.warnings:
            print(f"loadsgf: {args[0]}: {warning}", file=self.log, flush=True)
        return self.state.next_player.name.lower()

    def _load(self, record: GameRecord, rules: Rules, count: int) -> None:
        """Make the first ``count`` moves of ``record`` the game, replayed under ``rules``.

        Replays first, so that an error leaves the game as it was.
        """
        states = list(itertools.islice(record.states(rules), count + 1))
        if len(states) < count + 1:  # pragma: no cover - states() raises first
            raise SgfError(f"the game has only {len(states) - 1} moves")
        self.size, self.rules = record.size, states[-1].rules  # simple ko, if the replay needed it
        self.root, self.stack = states[0], states
        self.moves = list(record.moves[:count])
        self.setups = {n: setup for n, setup in record.setups.items() if n <= count}

    def record(self) -> GameRecord:
        """The game so far as a :class:`GameRecord` (moves with their real colours)."""
        # The root's size, komi, rules, handicap and setup stones, then our moves.
        record = GameRecord.from_state(self.root)
        record.moves = list(self.moves)
        record.setups = dict(self.setups)
        if self.state.is_over():
            record.result = self.state.result()
        return record

    def cmd_printsgf(self, args: list[str]) -> str:
        """The game as SGF; with a file name, written there instead."""
        self._nargs(args, 0, 1)
        data = self.record().to_sgf()
        if args:
            try:
                with open(args[0], "wb") as f:
                    f.write(data)
            except OSError as e:
                raise GtpCommandError(f"cannot write file: {e}") from None
            return ""
        return data.decode("utf-8")


def free_handicap_points(n: int, size: int) -> list[Point]:
    """Where ``place_free_handicap`` puts ``n`` stones: the fixed points first, then
    each next stone on the point farthest (Manhattan) from the stones so far,
    preferring points off the first two lines, then the top-left.

    >>> [to_gtp(p, 9) for p in free_handicap_points(10, 9)][-1]
    'A9'
    >>> [to_gtp(p, 5) for p in free_handicap_points(2, 5)]
    ['C3', 'A5']
    """
    limit = max_fixed_handicap(size)
    points = fixed_handicap(min(n, limit), size) if limit >= 2 and n >= 2 else []
    rows, cols = np.indices((size, size))
    edge = np.minimum(np.minimum(rows, cols), np.minimum(size - 1 - rows, size - 1 - cols))
    if points:
        dist = np.min([np.abs(rows - p.row) + np.abs(cols - p.col) for p in points], axis=0)
    else:  # the first stone goes in the centre: "farthest" from a virtual stone far away
        dist = 2 * size - np.abs(rows - size // 2) - np.abs(cols - size // 2)
    # One score per point, larger is better: distance, then (a little) off the edge.
    # Ties go to the lowest index, i.e. top-left, because argmax takes the first.
    while len(points) < n:
        score = np.where(dist > 0, dist * 4 + np.minimum(edge, 2), -1)
        r, c = divmod(int(np.argmax(score)), size)
        points.append(Point(r, c))
        dist = np.minimum(dist, np.abs(rows - r) + np.abs(cols - c))
    return points


__all__ = ["GtpCommandError", "GtpEngine", "clean_line", "free_handicap_points", "gtp_name"]
