"""Game records in SGF (Smart Game Format, FF[4]): read, replay, write.

sgfmill parses and serialises; this module decides what an SGF game *means*
to fuseki. A :class:`GameRecord` holds what we support -- board size, komi,
rules, handicap and setup stones, the first player, players and ranks,
result, date, event, comments and the main line of moves -- and replays the
main line with our own rules engine. Variations are not replayed, but the
sgfmill tree a record was read from stays attached to it, so writing the
record back keeps every variation (and every property we do not interpret).

Reading checks the file's syntax and structure; :meth:`GameRecord.replay`
checks the moves against the rules. Every problem in the data is an
:class:`SgfError` whose one-line message names it.

**Files from the wild.** By default the reader is lenient: it reads what Go
servers write and other programs load -- handicap stones in the second node,
``HA[3]`` with the stones left implied, komi written times 100 (and in stones
under Chinese counting), two moves of one colour in a row (a pass not
written), a board repeated under rules that forbid it (the server played
simple ko), a missing ``(`` or ``)``, a property written twice, names in
GB18030 without ``CA``. Each repair is an :class:`SgfWarning` in
:attr:`GameRecord.warnings` (replaying adds the ones found on the board), and
``strict=True`` turns every repair into an :class:`SgfError`. Setup stones
(``AB``/``AW``/``AE``/``PL``) may stand in any node, in both modes: they are
valid SGF. docs/sgf.md lists the repairs.

>>> fox = read_sgf(";GM[1]SZ[19]KM[650]HA[2]AP[GNU Go:3.8]AP[foxwq];AB[pd][dp];W[qp];W[dd]")
>>> fox.komi, len(fox.setup_black), [w.kind for w in fox.warnings]
(6.5, 2, ['missing_open', 'duplicate_property', 'missing_close', 'komi_x100', 'setup_after_root'])
>>> _ = fox.replay()
>>> print(fox.warnings[-1])
move 2 (W D16) follows a white move: replayed after a black pass

>>> record = read_sgf("(;GM[1]FF[4]SZ[9]KM[7]PB[Ann]PW[Bob];B[ee]C[tengen];W[cc])")
>>> record.black, record.size, record.komi, len(record.moves)
('Ann', 9, 7.0, 2)
>>> record.moves[0].label(9), record.comments
('B E5', {1: 'tengen'})
>>> record.replay().next_player
<Color.BLACK: 1>
>>> read_sgf(record.to_sgf()) == record
True
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import os
import re
import tempfile
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import numpy as np
from sgfmill import sgf, sgf_grammar

from fuseki.go.coords import MAX_SIZE, MIN_SIZE, CoordinateError, Point, from_sgf, to_gtp, to_sgf
from fuseki.go.handicap import fixed_handicap, max_fixed_handicap
from fuseki.go.rules import PRESETS, HandicapBonus, KoRule, Rules, Scoring
from fuseki.go.sgf_parse import KINDS, Log, SgfError, SgfWarning, guess_encoding, parse_game
from fuseki.go.sgf_result import GameResult, parse_result, read_result
from fuseki.go.state import Color, GameState, IllegalMoveError, Move

__all__ = [
    "KINDS",
    "GameRecord",
    "GameResult",
    "RecordedMove",
    "ReplayStep",
    "Setup",
    "SgfError",
    "SgfWarning",
    "game_to_sgf",
    "load_sgf",
    "read_sgf",
    "parse_result",
    "read_result",
    "save_sgf",
]


class RecordedMove(NamedTuple):
    """One move of the main line. SGF moves carry their colour; our :class:`Move` does not."""

    color: Color
    move: Move

    def label(self, size: int) -> str:
        """``"W D4"`` or ``"B pass"``, as error messages name a move."""
        return f"{self.color.letter} {self.move.gtp(size)}"


class Setup(NamedTuple):
    """Setup properties of the nodes between two moves: stones added (``AB``, ``AW``),
    points cleared (``AE``) and the player to move (``PL``), in that order of effect."""

    black: frozenset[Point] = frozenset()
    white: frozenset[Point] = frozenset()
    empty: frozenset[Point] = frozenset()
    to_play: Color | None = None

    def then(self, later: Setup) -> Setup:
        """This setup followed by ``later``, as one."""
        changed = later.black | later.white | later.empty
        return Setup(
            (self.black - changed) | later.black,
            (self.white - changed) | later.white,
            (self.empty - changed) | later.empty,
            later.to_play or self.to_play,
        )

    def apply(self, board: np.ndarray) -> None:
        """Put the stones on ``board`` (colour codes, row 0 at the top), in place."""
        for points, code in ((self.empty, 0), (self.black, int(Color.BLACK)), (self.white, int(Color.WHITE))):
            for p in points:
                board[p.row, p.col] = code


class ReplayStep(NamedTuple):
    """One move of a replay (:meth:`GameRecord.steps`)."""

    number: int  #: 1-based
    move: RecordedMove
    #: The position the move is played from: after the setup before it and,
    #: for a move out of turn, after the other side's implied pass.
    before: GameState
    #: The position after the move, with the setup of the nodes that follow it.
    after: GameState
    #: The move comes after the game had ended by two passes (a game resumed).
    resumed: bool = False


class _Superko(Exception):
    """Internal: the lenient replay met a board that the rules' superko forbids."""

    def __init__(self, number: int, label: str, rules: Rules) -> None:
        self.number, self.label, self.rules = number, label, rules


# ---- rule sets ------------------------------------------------------------

#: AGA and New Zealand rules as KataGo defines them. fuseki has no preset for
#: them, but rules are data, so an SGF game played under them still replays
#: correctly (situational superko; NZ allows suicide; AGA gives N-1 points).
AGA_RULES = Rules(KoRule.SITUATIONAL, Scoring.AREA, False, 7.5, HandicapBonus.N_MINUS_1)
NZ_RULES = Rules(KoRule.SITUATIONAL, Scoring.AREA, True, 7.0, HandicapBonus.NONE)

#: How ``RU`` is written for a rule set (first match, komi ignored). Our own
#: preset names come last: other programs ignore them, we read them back.
_RU_NAMES: list[tuple[str, Rules]] = [
    ("Chinese", PRESETS["chinese"]),
    ("Japanese", PRESETS["japanese"]),
    ("Tromp-Taylor", PRESETS["tromp-taylor"]),
    ("AGA", AGA_RULES),
    ("NZ", NZ_RULES),
    ("book", PRESETS["book"]),
    ("gnugo", PRESETS["gnugo"]),
]

#: ``RU`` values, lower-cased with everything but letters and digits removed.
_RU_RULES: dict[str, Rules] = {
    **{_name.lower().replace("-", ""): _rules for _name, _rules in _RU_NAMES},
    "tt": PRESETS["tromp-taylor"],
    "newzealand": NZ_RULES,
    # Korean rules count territory with simple ko, as Japanese ones do (servers write RU[Korean]).
    "korean": PRESETS["japanese"],
}


def _rules_for(ruleset: str, komi: float) -> Rules:
    """The rule set an ``RU`` value names (our default when unknown), with ``komi``."""
    key = re.sub(r"[^a-z0-9]", "", ruleset.lower())
    return _RU_RULES.get(key, Rules()).replace(komi=komi)


def _ruleset_name(rules: Rules) -> str:
    """The ``RU`` value for ``rules``, or ``""`` when no named rule set matches."""
    for name, known in _RU_NAMES:
        if known.replace(komi=rules.komi) == rules:
            return name
    return ""


# ---- the record -----------------------------------------------------------

#: Root properties that :class:`GameRecord` fields own. On writing, the record
#: sets these; any other root property of the original tree is copied as is.
_ROOT_FIELDS = frozenset(
    {"FF", "GM", "SZ", "CA", "KM", "RU", "HA", "AB", "AW", "AE", "PL"} | {"PB", "PW", "BR", "WR", "RE", "DT", "EV", "GN", "C", "B", "W"}
)
#: Setup properties: the record owns them in every main-line node.
_SETUP_FIELDS = frozenset(("AB", "AW", "AE", "PL"))
#: Properties of a main-line move node that the record owns.
_MOVE_FIELDS = frozenset(("B", "W", "C")) | _SETUP_FIELDS
#: Properties of a main-line node without a move that the record owns (its comment is merged).
_EXTRA_FIELDS = frozenset(("C",)) | _SETUP_FIELDS


@dataclasses.dataclass
class GameRecord:
    """What fuseki understands of an SGF game. Two records are equal when these fields are.

    Text fields are ``""`` when the file has no such property. Points are our
    :class:`Point` (row 0 at the top), not sgfmill's (row 0 at the bottom).
    """

    size: int = 19
    #: ``KM``; 0 when absent, as sgfmill and most programs read it.
    komi: float = 0.0
    #: The raw ``RU`` value; :attr:`rules` maps it to a rule set.
    ruleset: str = ""
    #: ``HA``: the number of handicap stones (0 for none). The stones are in :attr:`setup_black`.
    handicap: int = 0
    #: ``AB`` of the root and of the nodes before the first move (a server's second node).
    setup_black: frozenset[Point] = frozenset()
    setup_white: frozenset[Point] = frozenset()  #: ``AW``, as :attr:`setup_black`
    setup_empty: frozenset[Point] = frozenset()  #: ``AE``, as :attr:`setup_black`
    #: ``PL``: who moves first, when the file says.
    to_play: Color | None = None
    black: str = ""  #: ``PB``
    white: str = ""  #: ``PW``
    black_rank: str = ""  #: ``BR``
    white_rank: str = ""  #: ``WR``
    result: str = ""  #: ``RE``, e.g. ``"B+3.5"``, ``"W+R"``, ``"0"``
    date: str = ""  #: ``DT``
    event: str = ""  #: ``EV``
    game_name: str = ""  #: ``GN``
    comment: str = ""  #: the root's ``C``
    moves: list[RecordedMove] = dataclasses.field(default_factory=list)
    #: Move number (1-based) -> that move's ``C``. Comments on nodes without a
    #: move are joined to the comment of the move before them.
    comments: dict[int, str] = dataclasses.field(default_factory=dict)
    #: Move number (1-based) -> the mover's clock right after it: seconds left (``BL``/``WL``;
    #: in overtime, what was left of the period) and, in overtime, the stones or periods left
    #: (``OB``/``OW``). Written, not read back (the tree keeps them when a file is rewritten).
    clock: dict[int, tuple[float, int]] = dataclasses.field(default_factory=dict, compare=False)
    #: Setup later in the game: move number ``n`` -> the setup of the nodes
    #: after move ``n`` (and of move ``n + 1``'s own node), applied before move ``n + 1``.
    setups: dict[int, Setup] = dataclasses.field(default_factory=dict)
    #: The sgfmill tree this record was read from; it supplies the variations
    #: and uninterpreted properties when writing. Not part of equality.
    tree: sgf.Sgf_game | None = dataclasses.field(default=None, compare=False, repr=False)
    #: What reading (and replaying, which adds to it) repaired or noted. Not part of equality.
    warnings: list[SgfWarning] = dataclasses.field(default_factory=list, compare=False, repr=False)
    #: Read with ``strict=True``: the replay repairs nothing either.
    strict: bool = dataclasses.field(default=False, compare=False, repr=False)

    # ---- derived --------------------------------------------------------

    @property
    def rules(self) -> Rules:
        """The rule set ``RU`` names, with the record's komi.

        Chinese, Japanese (and Korean), Tromp-Taylor (``TT``), AGA, NZ and our own preset
        names are known; anything else, or no ``RU``, gives the default
        :class:`Rules` (area scoring, situational superko, no suicide).
        """
        return _rules_for(self.ruleset, self.komi)

    @property
    def variation_count(self) -> int:
        """Side variations in the kept tree: every branch that is not the main line."""
        if self.tree is None:
            return 0
        count, stack = 0, [self.tree.get_root()]
        while stack:
            node = stack.pop()
            count += max(len(node) - 1, 0)
            stack.extend(node)
        return count

    # ---- replaying ------------------------------------------------------

    def initial_state(self, rules: Rules | str | None = None) -> GameState:
        """The position before the first move: setup stones, handicap, player to move.

        ``rules`` is a :class:`Rules` value (used as given), a preset name
        (given the record's komi) or ``None`` for :attr:`rules`.
        """
        if rules is None:
            rules = self.rules
        elif isinstance(rules, str):
            rules = Rules.preset(rules).replace(komi=self.komi)
        if self.to_play is not None:
            to_move = self.to_play
        elif self.moves:
            to_move = self.moves[0].color
        else:
            to_move = Color.WHITE if self.handicap >= 2 and self.setup_black else Color.BLACK
        try:
            return GameState.from_setup(
                self.size,
                black=sorted(self.setup_black - self.setup_empty),
                white=sorted(self.setup_white - self.setup_empty),
                rules=rules,
                to_move=to_move,
                handicap=self.handicap,
            )
        except ValueError as e:  # CoordinateError included
            raise SgfError(f"impossible setup position: {e}") from None

    def _resolve(self, rules: Rules | str | None) -> Rules:
        if rules is None:
            return self.rules
        if isinstance(rules, str):
            return Rules.preset(rules).replace(komi=self.komi)
        return rules

    def steps(self, rules: Rules | str | None = None) -> Iterator[ReplayStep]:
        """Replay the main line move by move (see :class:`ReplayStep`).

        Raises :class:`SgfError` at the first move that cannot be replayed,
        after the steps before it. Unless the record was read with
        ``strict=True``, a move out of turn is played after the other side's
        implied pass, a move after two passes resumes the game, and a board
        repeated under a superko rule is allowed: the game is replayed with
        simple ko, as the server that recorded it played. Each of these adds
        an :class:`SgfWarning` to :attr:`warnings` (once, however often the
        game is replayed).
        """
        rules = self._resolve(rules)
        done = 0
        while True:
            try:
                for step in self._walk(rules):
                    if step.number > done:  # after a restart: the steps already given are the same
                        done = step.number
                        yield step
                return
            except _Superko as s:
                self._log().repair(
                    "superko",
                    f"move {s.number} ({s.label}) repeats an earlier board, which {self._ruleset_words()} forbid "
                    f"({s.rules.ko.value} superko)",
                    "replayed the game with simple ko, as it was played",
                )
                rules = rules.replace(ko=KoRule.SIMPLE)

    def _ruleset_words(self) -> str:
        return f"the rules of RU[{self.ruleset}]" if self.ruleset else "the default rules"

    def _log(self) -> Log:
        return Log(self.strict, self.warnings)  # shared: the replay's repairs are the record's

    def _walk(self, rules: Rules) -> Iterator[ReplayStep]:
        """The replay under ``rules``; raises :class:`_Superko` where the lenient replay should drop superko."""
        log = self._log()
        state = self._with_setup(self.initial_state(rules), 0)
        for number, recorded in enumerate(self.moves, 1):
            label = recorded.label(self.size)
            color, move = recorded
            resumed = False
            if state.is_over():
                if self.strict:
                    raise SgfError(f"move {number} ({label}) is illegal: game over")
                log.repair(
                    "resumed",
                    f"move {number} ({label}) comes after the game ended by two passes",
                    "replayed as a resumed game",
                )
                state, resumed = self._rebase(state, color), True
            elif color is not state.next_player:
                if self.strict:
                    raise SgfError(f"move {number} ({label}) is out of turn: {state.next_player.name.lower()} to play")
                other = color.other.name.lower()
                log.repair(
                    "implied_pass",
                    f"move {number} ({label}) follows a {color.name.lower()} move",
                    f"replayed after a {other} pass",
                )
                # A pass after a pass would end the game: then the turn is simply handed over.
                state = self._rebase(state, color) if state.passes else state.play(Move.pass_turn())
            try:
                after = state.play(move)
            except IllegalMoveError as e:
                if e.reason == "superko" and not self.strict:
                    raise _Superko(number, label, rules) from None
                raise SgfError(f"move {number} ({label}) is illegal: {e.reason}") from None
            after = self._with_setup(after, number)
            yield ReplayStep(number, recorded, state, after, resumed)
            state = after

    @staticmethod
    def _rebase(state: GameState, color: Color) -> GameState:
        """``state``'s stones and prisoners with ``color`` to move (a new history)."""
        captures = (state.captures(Color.BLACK), state.captures(Color.WHITE))
        return GameState.from_array(state.stones(), rules=state.rules, to_move=color, handicap=state.handicap, captures=captures)

    def _with_setup(self, state: GameState, number: int) -> GameState:
        """``state`` with the setup after move ``number`` applied (the same state if there is none).

        The player to move is the setup's ``PL``, else the colour of the next
        move, as at the root. The position starts a new history: superko
        does not look back across a setup.
        """
        setup = self.setups.get(number)
        if setup is None:
            return state
        board = state.stones().copy()
        setup.apply(board)
        if setup.to_play is not None:
            to_move = setup.to_play
        elif number < len(self.moves):
            to_move = self.moves[number].color
        else:
            to_move = state.next_player
        captures = (state.captures(Color.BLACK), state.captures(Color.WHITE))
        try:
            return GameState.from_array(board, rules=state.rules, to_move=to_move, handicap=state.handicap, captures=captures)
        except ValueError as e:
            raise SgfError(f"impossible setup position after move {number}: {e}") from None

    def states(self, rules: Rules | str | None = None) -> Iterator[GameState]:
        """Every state of the main line, from :meth:`initial_state` to the last move.

        ``states[n]`` is the position after move ``n``, with any setup that
        follows it. Raises :class:`SgfError` at the first move that cannot be
        replayed (see :meth:`steps`).
        """
        steps = self.steps(rules)
        try:
            step = next(steps)
        except StopIteration:
            yield self._with_setup(self.initial_state(self._resolve(rules)), 0)
            return
        except SgfError:
            yield self._with_setup(self.initial_state(self._resolve(rules)), 0)
            raise
        # Move 1 is played from the start position or, out of turn, from the pass after it.
        yield step.before if step.before.parent is None else step.before.parent
        yield step.after
        for step in steps:
            yield step.after

    def replay(self, rules: Rules | str | None = None) -> GameState:
        """The state at the end of the main line (see :meth:`states`).

        A resignation is only written in :attr:`result`, so it is not replayed.
        """
        last = deque(self.states(rules), maxlen=1)  # replays every move, keeps the last state
        assert last
        return last[0]

    @property
    def outcome(self) -> GameResult | None:
        """:attr:`result` read (:func:`read_result`); ``None`` when there is none or it is unreadable."""
        try:
            return read_result(self.result) if self.result else None
        except ValueError:
            return None

    # ---- building and writing ---------------------------------------------

    @classmethod
    def from_state(
        cls,
        state: GameState,
        *,
        black: str = "",
        white: str = "",
        result: str | None = None,
        comments: dict[int, str] | None = None,
        date: str | None = None,
        rules_name: str | None = None,
    ) -> GameRecord:
        """The record of the game that led to ``state`` (see :func:`game_to_sgf`)."""
        line = list(state.ancestors())[::-1]
        root = line[0]
        stones = root.stones()
        moves = [RecordedMove(parent.next_player, child.move_played()) for parent, child in itertools.pairwise(line)]
        resigned = bool(moves) and moves[-1].move.is_resign
        if resigned:
            moves.pop()  # SGF has no resignation move: the result says "B+R"
        record = cls(
            size=state.size,
            komi=state.rules.komi,
            ruleset=_ruleset_name(state.rules) if rules_name is None else rules_name,
            handicap=root.handicap,
            setup_black=_points(stones == 1),
            setup_white=_points(stones == 2),
            black=black,
            white=white,
            result=result if result is not None else (state.result() if state.is_over() else ""),
            date=date or "",
            moves=moves,
        )
        # PL only where it says something: a set-up position, or White first.
        if stones.any() or root.next_player is Color.WHITE:
            record.to_play = root.next_player
        for number, text in sorted((comments or {}).items()):
            if not text:
                continue
            if resigned and number == len(moves) + 1:
                # The resignation has no node of its own; its comment goes on the last one.
                record._add_comment(len(moves), text)
            elif 1 <= number <= len(moves):
                record._add_comment(number, text)
            else:
                raise ValueError(f"comment for move {number}, but the game has {len(moves)} moves")
        return record

    def _add_comment(self, number: int, text: str) -> None:
        """Append ``text`` to the comment of move ``number`` (0: the root)."""
        if number == 0:
            self.comment = _join(self.comment, text)
        else:
            self.comments[number] = _join(self.comments.get(number, ""), text)

    def to_sgf(self) -> bytes:
        """The record as SGF bytes (UTF-8).

        The root, the main line and its setup are written from the fields. If
        the record was read from a file, the other properties of those nodes,
        the nodes without a move, and the side variations are copied from that
        tree for as long as the main line still follows it. Setup stones of
        the nodes before the first move are written in the root; later setup
        in a node of its own after its move.
        """
        stray = sorted(set(self.comments) - set(range(1, len(self.moves) + 1)))
        if stray:
            raise ValueError(f"comment for move {stray[0]}, but the record has {len(self.moves)} moves")
        stray = sorted(set(self.setups) - set(range(len(self.moves) + 1)))
        if stray:
            raise ValueError(f"setup after move {stray[0]}, but the record has {len(self.moves)} moves")
        game = sgf.Sgf_game(self.size)
        old = self.tree if self.tree is not None and self.tree.get_size() == self.size else None
        runs = _main_line_runs(old) if old is not None else []
        encoding = old.get_root().get_encoding() if old is not None else "UTF-8"
        node = game.get_root()
        self._write_root(node)
        branch_points: list[tuple[sgf.Tree_node, sgf.Tree_node]] = []  # (old node, its copy)
        for number in range(len(self.moves) + 1):
            if number > 0:
                color, move = self.moves[number - 1]
                if move.is_resign:
                    raise ValueError(f"move {number} is a resignation: SGF writes that in the result (RE), not as a move")
                node = node.new_child()
                node.set_raw(color.letter, to_sgf(move.point).encode("ascii"))
                if self.comments.get(number):
                    node.set("C", self.comments[number])
                if number in self.clock:
                    left, stones = self.clock[number]
                    node.set_raw(color.letter + "L", f"{left:.2f}".encode("ascii"))
                    if stones:
                        node.set_raw("O" + color.letter, str(int(stones)).encode("ascii"))
                if number < len(runs) and not _same_move(runs[number][0], self.moves[number - 1]):
                    runs = runs[:number]  # the main line leaves the old tree here
            run = runs[number] if number < len(runs) else []
            if run:
                first = run[0]
                if first.parent is None and number > 0:
                    pass  # a move in the old root: its other properties went to the new root
                elif number == 0 and _has_move(first):
                    run = []  # the old root's children follow its move (run 1)
                else:
                    _copy_properties(first, node, encoding, skip=_ROOT_FIELDS if number == 0 else _MOVE_FIELDS)
                if run:
                    branch_points.append((first, node))
            if number in self.setups:
                node = node.new_child()
                self._write_setup(node, self.setups[number])
            for extra in run[1:]:  # nodes without a move; their comments are already merged
                props = {k for k in extra.get_raw_property_map() if k not in _EXTRA_FIELDS}
                if not props and len(extra) < 2:
                    continue  # only setup (now in the root or its own node) and comments: nothing left
                node = node.new_child()
                _copy_properties(extra, node, encoding, skip=_EXTRA_FIELDS)
                branch_points.append((extra, node))
        # Side branches last, so that the main line stays each node's first child.
        for old_node, new_node in branch_points:
            _copy_side_branches(old_node, new_node, encoding)
        return game.serialise()

    def _write_setup(self, node: sgf.Tree_node, setup: Setup) -> None:
        n = self.size
        for ident, points in (("AE", setup.empty), ("AB", setup.black), ("AW", setup.white)):
            if points:
                node.set(ident, {(n - 1 - p.row, p.col) for p in points})
        if setup.to_play is not None:
            node.set("PL", setup.to_play.letter.lower())

    def _write_root(self, root: sgf.Tree_node) -> None:
        """Set the root properties that the record's fields own."""
        root.set("KM", self.komi)
        n = self.size
        for ident, points in (("AB", self.setup_black), ("AW", self.setup_white), ("AE", self.setup_empty)):
            if points:
                root.set(ident, {(n - 1 - p.row, p.col) for p in points})
        if self.handicap:
            root.set("HA", self.handicap)
        if self.to_play is not None:
            root.set("PL", self.to_play.letter.lower())
        for ident, value in (
            ("RU", self.ruleset),
            ("PB", self.black),
            ("PW", self.white),
            ("BR", self.black_rank),
            ("WR", self.white_rank),
            ("RE", self.result),
            ("DT", self.date),
            ("EV", self.event),
            ("GN", self.game_name),
            ("C", self.comment),
        ):
            if value:
                root.set(ident, value)


# ---- reading --------------------------------------------------------------


def read_sgf(data: bytes | str, *, strict: bool = False) -> GameRecord:
    """Parse one SGF game (the first, if the data holds a collection).

    Bytes are decoded as the ``CA`` property says; without ``CA``, as UTF-8
    when they are valid UTF-8, else (lenient) as the encoding they look like,
    or (strict) as ISO-8859-1, the SGF default. Raises :class:`SgfError` for
    anything malformed or unsupported; with ``strict=True`` also for anything
    the lenient reader repairs (see the module doc and
    :attr:`GameRecord.warnings`).
    """
    if isinstance(data, str):
        raw, override = data.encode("utf-8"), "UTF-8"
    elif isinstance(data, (bytes, bytearray, memoryview)):
        raw, override = bytes(data), None
    else:
        raise TypeError(f"SGF data must be bytes or str, got {type(data).__name__}")
    log = Log(strict)
    coarse = parse_game(raw, log)
    props = coarse.sequence[0]
    gm = _first(props, "GM")
    if gm is not None and gm.strip() != b"1":
        raise SgfError(f"not a Go game: GM[{_show(gm)}] (Go is GM[1])")
    size = _read_size(_first(props, "SZ"))
    if override is None:
        override = guess_encoding(raw, _first(props, "CA"), log)
    try:
        game = sgf.Sgf_game.from_coarse_game_tree(coarse, override_encoding=override)
    except ValueError as e:
        raise SgfError(f"malformed SGF file: {e}") from None
    assert game.get_size() == size
    record = _record_from_tree(game, log)
    record.warnings, record.strict = log.warnings, strict
    return record


def load_sgf(path: str | os.PathLike[str], *, strict: bool = False) -> GameRecord:
    """Read an SGF file (see :func:`read_sgf`). File system errors are not caught."""
    return read_sgf(Path(path).read_bytes(), strict=strict)


def _record_from_tree(game: sgf.Sgf_game, log: Log) -> GameRecord:
    size = game.get_size()
    runs = _main_line_runs(game)
    root = runs[0][0]
    if _has_move(root):
        color, raw = root.get_raw_move()
        log.repair(
            "move_in_root",
            f"the root node holds a move ({color.upper()}[{_show(raw)}]); moves must come after the root",
            "read it as move 1",
        )
    record = GameRecord(size=size, tree=game)
    props = root.get_raw_property_map()
    record.ruleset = _text(root, "RU")
    record.komi = _read_komi(_first(props, "KM"), log)
    record.handicap = _read_handicap(root, size)
    record.setup_black = read_points(root, "AB")
    record.setup_white = read_points(root, "AW")
    record.setup_empty = read_points(root, "AE")
    both = record.setup_black & record.setup_white
    if both:
        raise SgfError(f"setup point {to_gtp(min(both), size)} is in both AB and AW")
    pl = _first(props, "PL")
    if pl is not None:
        record.to_play = _read_player(pl)
    record.black, record.white = _text(root, "PB"), _text(root, "PW")
    record.black_rank, record.white_rank = _text(root, "BR"), _text(root, "WR")
    record.result, record.date = _text(root, "RE"), _text(root, "DT")
    record.event, record.game_name = _text(root, "EV"), _text(root, "GN")
    for number, run in enumerate(runs):
        nodes = run[1:] if number == 0 else run
        if number > 0:
            move_node = run[0]
            if move_node.parent is None:
                nodes = run[1:]  # the root's move: its setup and comment are the root's
            elif _has_setup(move_node):
                log.repair(
                    "setup_in_move_node",
                    f"move {number}'s node also holds setup ({_setup_idents(move_node)})",
                    "placed the stones before the move",
                )
                _add_setup(record, number - 1, _read_setup(move_node, number - 1), log)
                nodes = run[1:]
            record.moves.append(_read_move(move_node, size, number))
        for node in nodes:
            if _has_setup(node):
                where = "before the first move" if number == 0 else f"after move {number}"
                log.repair(
                    "setup_after_root",
                    f"setup ({_setup_idents(node)}) in a node {where}",
                    "read with the root's setup" if number == 0 else "applied there",
                )
                _add_setup(record, number, _read_setup(node, number), log)
        for node in run:
            if number > 0 and node.parent is None:
                continue  # the root's comment is the game's (run 0)
            text = _text(node, "C", simple=False)
            if text:
                record._add_comment(number, text)
    _place_implied_handicap(record, log)
    return record


def _has_setup(node: sgf.Node) -> bool:
    return any(node.has_property(ident) for ident in _SETUP_FIELDS)


def _setup_idents(node: sgf.Node) -> str:
    return "/".join(ident for ident in ("AB", "AW", "AE", "PL") if node.has_property(ident))


def _read_player(raw: bytes) -> Color:
    try:
        return Color.parse(raw.decode("latin-1"))
    except ValueError:
        raise SgfError(f"bad player to move PL[{_show(raw)}]") from None


def _read_setup(node: sgf.Node, number: int) -> Setup:
    black, white, empty = read_points(node, "AB"), read_points(node, "AW"), read_points(node, "AE")
    both = black & white
    if both:
        where = "before the first move" if number == 0 else f"after move {number}"
        raise SgfError(f"setup point {to_gtp(min(both), node.get_size())} is in both AB and AW ({where})")
    pl = _first(node.get_raw_property_map(), "PL")
    return Setup(black, white, empty, _read_player(pl) if pl is not None else None)


def _add_setup(record: GameRecord, number: int, setup: Setup, log: Log) -> None:
    """Add the setup of a node after move ``number`` (0: before the first move, merged into the root's)."""
    if number > 0:
        record.setups[number] = record.setups[number].then(setup) if number in record.setups else setup
        return
    root = Setup(record.setup_black - record.setup_empty, record.setup_white - record.setup_empty)
    merged = root.then(setup)
    record.setup_black, record.setup_white = merged.black, merged.white
    record.setup_empty = (record.setup_empty | setup.empty) - merged.black - merged.white
    if setup.to_play is not None:
        record.to_play = setup.to_play


def _place_implied_handicap(record: GameRecord, log: Log) -> None:
    """``HA[n]`` (n >= 2) without any black setup stone, White to move first: the
    server left the stones implied. They are on the fixed points: GTP's, which are
    the servers' too, but for 6 and 7 stones, whose side stones some servers
    (Fox in 2015) put on the top and bottom rather than left and right. Where
    the two differ, the first placement with which the whole game replays is
    taken, and the warning says so."""
    n, size = record.handicap, record.size
    if n < 2 or record.setup_black:
        return
    first = record.to_play or (record.moves[0].color if record.moves else None)
    if first is not Color.WHITE:
        return  # Black moves first: the stones, if any, are Black's moves
    if not 2 <= n <= max_fixed_handicap(size):
        raise SgfError(f"HA[{n}] without handicap stones (no AB), and {size}x{size} has no fixed placement for {n} stones")
    gtp = frozenset(fixed_handicap(n, size))
    choices = [gtp, frozenset(Point(p.col, p.row) for p in gtp)]  # left/right or top/bottom side stones
    chosen, note = gtp, ""
    if choices[1] != gtp and not log.strict:
        for option in choices:
            trial = dataclasses.replace(record, setup_black=option - record.setup_white, warnings=[])
            try:
                deque(trial.states(), maxlen=0)
            except SgfError:
                continue
            chosen = option
            if option != gtp:
                shown = " ".join(to_gtp(p, size) for p in sorted(gtp - option))
                note = f" (the game's moves rule out {shown})"
            break
    log.repair(
        "handicap_placed",
        f"HA[{n}] without handicap stones (no AB) and White to move first",
        f"placed {n} stones on the fixed points {' '.join(to_gtp(p, size) for p in sorted(chosen))}{note}",
    )
    record.setup_black = chosen - record.setup_white


def _main_line_runs(game: sgf.Sgf_game) -> list[list[sgf.Tree_node]]:
    """The main line cut before each move: ``runs[0]`` is the root and the move-less
    nodes after it; ``runs[n]`` starts with the node of move ``n``.

    A root that holds a move (a repaired file) starts both ``runs[0]``, alone,
    and ``runs[1]``, with the nodes after it.
    """
    runs: list[list[sgf.Tree_node]] = [[]]
    for node in game.get_main_sequence():
        if node.parent is None and _has_move(node):
            runs[0].append(node)
            runs.append([node])
        elif node.parent is not None and _has_move(node):
            runs.append([node])
        else:
            runs[-1].append(node)
    return runs


def _has_move(node: sgf.Node) -> bool:
    return node.has_property("B") or node.has_property("W")


def _read_move(node: sgf.Node, size: int, number: int) -> RecordedMove:
    props = node.get_raw_property_map()
    if "B" in props and "W" in props:
        black, white = _show(props["B"][0]), _show(props["W"][0])
        raise SgfError(f"move {number}: two moves in one node (B[{black}] and W[{white}])")
    ident = "B" if "B" in props else "W"
    values = props[ident]
    if len(values) > 1:
        raise SgfError(f"move {number}: {ident} has {len(values)} values")
    text = values[0].decode("latin-1")
    try:
        point = from_sgf(text, size)
    except CoordinateError:
        if re.fullmatch("[a-z]{2}", text):
            raise SgfError(f"move {number}: {ident}[{text}] is off the {size}x{size} board") from None
        raise SgfError(f"move {number}: {ident}[{_show(values[0])}] is not an SGF point") from None
    color = Color.BLACK if ident == "B" else Color.WHITE
    return RecordedMove(color, Move.pass_turn() if point is None else Move.play(point))


def _read_size(raw: bytes | None) -> int:
    if raw is None:
        return 19
    try:
        size = int(raw.strip())
    except ValueError:
        raise SgfError(f"bad board size SZ[{_show(raw)}]") from None
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise SgfError(f"unsupported board size {size} (fuseki plays {MIN_SIZE}x{MIN_SIZE} to {MAX_SIZE}x{MAX_SIZE})")
    return size


#: Komi this large that is a whole number of quarters times 100 is no real komi: a server wrote it times 100.
_KOMI_X100_FROM = 25


def _read_komi(raw: bytes | None, log: Log) -> float:
    """``KM`` in points, with the servers' encodings undone (see docs/sgf.md).

    A komi of 25 or more that is a whole number of quarter points times 100
    was written times 100 (``KM[650]``: 6.5). A quarter that is not a half
    (``KM[375]``: 3.75) is a komi in stones, as Chinese counting states it;
    a stone is two points, so it is 7.5. No real komi is 25 points or more
    *and* a multiple of 25; ``KM[30]`` stays 30.
    """
    if raw is None:
        return 0.0
    shown = f"KM[{_show(raw)}]"
    try:
        komi = float(raw)
    except ValueError:
        komi = math.nan
    if not math.isfinite(komi):
        log.repair("bad_komi", f"bad komi {shown} (not a number)", "read as 0")
        return 0.0
    if abs(komi) >= _KOMI_X100_FROM and (komi * 4 / 100).is_integer():
        scaled = komi / 100
        if (scaled * 2).is_integer():
            log.repair("komi_x100", f"{shown} is komi times 100", f"read as {scaled:g}")
            return scaled
        log.repair("komi_stones", f"{shown} is komi times 100 in stones ({scaled:g}, Chinese counting)", f"read as {2 * scaled:g}")
        return 2 * scaled
    if (komi * 2).is_integer() and abs(komi) <= 1000:
        return komi
    if (komi * 4).is_integer() and abs(komi) < _KOMI_X100_FROM:
        log.repair("komi_stones", f"{shown} is komi in stones (Chinese counting)", f"read as {2 * komi:g}")
        return 2 * komi
    log.repair("bad_komi", f"bad komi {shown} (not a multiple of 0.5 of modest size)", "read as 0")
    return 0.0


def _read_handicap(root: sgf.Node, size: int) -> int:
    raw = _first(root.get_raw_property_map(), "HA")
    if raw is None:
        return 0
    try:
        handicap = int(raw.strip())
    except ValueError:
        raise SgfError(f"bad handicap HA[{_show(raw)}]: not a number") from None
    if not 0 <= handicap < size * size:
        raise SgfError(f"bad handicap HA[{handicap}] on a {size}x{size} board")
    return handicap


def read_points(root: sgf.Node, ident: str) -> frozenset[Point]:
    """A node's point list (compressed ``aa:cc`` rectangles allowed), as our Points."""
    if not root.has_property(ident):
        return frozenset()
    try:
        points = root.get(ident)
    except ValueError:
        values = "".join(f"[{_show(v)}]" for v in root.get_raw_list(ident))
        raise SgfError(f"bad setup stones {ident}{values}") from None
    n = root.get_size()
    return frozenset(Point(n - 1 - row, col) for row, col in points)


def _text(node: sgf.Node, ident: str, simple: bool = True) -> str:
    """A text property, decoded leniently: a stray byte must not make a game unreadable."""
    raw = _first(node.get_raw_property_map(), ident)
    if raw is None:
        return ""
    value = sgf_grammar.simpletext_value(raw) if simple else sgf_grammar.text_value(raw)
    return value.decode(node.get_encoding(), "replace")


# ---- writing --------------------------------------------------------------


def game_to_sgf(
    state: GameState,
    *,
    black: str = "",
    white: str = "",
    result: str | None = None,
    comments: dict[int, str] | None = None,
    date: str | None = None,
    rules_name: str | None = None,
) -> bytes:
    """The SGF of the game that led to ``state``.

    The root position's stones become ``AB``/``AW`` (with ``HA`` for a
    handicap). ``result`` defaults to ``state.result()`` once the game is
    over; a resignation appears only there. ``comments`` maps move numbers
    (1-based) to comments. ``rules_name`` is written as ``RU``; by default the
    name of the rule set ``state.rules`` matches, if any.

    >>> s = GameState.new(9, "chinese", komi=7).play(Move.play(Point(4, 4)))
    >>> game_to_sgf(s, black="me", comments={1: "tengen"}).decode()
    '(;FF[4]CA[UTF-8]GM[1]KM[7]PB[me]RU[Chinese]SZ[9];B[ee]C[tengen])\\n'
    """
    record = GameRecord.from_state(state, black=black, white=white, result=result, comments=comments, date=date, rules_name=rules_name)
    return record.to_sgf()


def save_sgf(path: str | os.PathLike[str], data: bytes | GameRecord) -> None:
    """Write SGF bytes (or a record) to ``path`` atomically.

    The data goes to a temporary file in the same directory, which then
    replaces ``path`` in one step: a reader never sees half a file, and a
    crash leaves the old file intact.
    """
    if isinstance(data, GameRecord):
        data = data.to_sgf()
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a game record is not
        os.replace(tmp, target)
    except BaseException:
        os.unlink(tmp)
        raise


def _same_move(node: sgf.Node, recorded: RecordedMove) -> bool:
    """Does this node of the old tree hold ``recorded``?"""
    color, raw = node.get_raw_move()
    if color != recorded.color.letter.lower():
        return False
    try:
        return from_sgf(raw.decode("latin-1"), node.get_size()) == recorded.move.point
    except CoordinateError:  # the tree was edited after reading
        return False


def _copy_properties(source: sgf.Node, target: sgf.Node, encoding: str, skip: frozenset[str]) -> None:
    for ident, values in source.get_raw_property_map().items():
        # sgfmill reads an all-lower-case FF[3] identifier as "": nothing to keep.
        if ident not in skip and ident != "SZ" and sgf_grammar.is_valid_property_identifier(ident):
            target.set_raw_list(ident, [_transcode(v, encoding) for v in values])


def _copy_side_branches(source: sgf.Tree_node, target: sgf.Tree_node, encoding: str) -> None:
    """Copy every child of ``source`` but the first (the main line) under ``target``."""
    queue = deque((child, target) for child in source[1:])
    while queue:
        old, new_parent = queue.popleft()
        new = new_parent.new_child()
        _copy_properties(old, new, encoding, skip=frozenset())
        queue.extend((child, new) for child in old)


def _transcode(value: bytes, encoding: str) -> bytes:
    """A raw value from a tree read in ``encoding``, re-encoded as UTF-8 (what we write)."""
    if encoding == "UTF-8":
        return value
    utf8 = value.decode(encoding, "replace").encode("utf-8")
    # A multi-byte character can hide a backslash; never write a broken value.
    return utf8 if sgf_grammar.is_valid_property_value(utf8) else value


# ---- small helpers --------------------------------------------------------


def _first(props: dict[str, list[bytes]], ident: str) -> bytes | None:
    values = props.get(ident)
    return values[0] if values else None


def _show(raw: bytes, limit: int = 20) -> str:
    """A raw value for an error message: decoded, one line, not too long."""
    text = raw.decode("latin-1").replace("\n", " ").replace("\r", " ")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _preview(raw: bytes) -> str:
    return repr(_show(raw.lstrip(), 30))


def _join(first: str, second: str) -> str:
    return f"{first}\n\n{second}" if first else second


def _points(mask: np.ndarray) -> frozenset[Point]:
    rows, cols = np.nonzero(mask)
    return frozenset(Point(int(r), int(c)) for r, c in zip(rows, cols))
