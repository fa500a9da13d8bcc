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
from sgfmill import sgf, sgf_grammar, sgf_properties

from fuseki.go.coords import MAX_SIZE, MIN_SIZE, CoordinateError, Point, from_sgf, to_gtp, to_sgf
from fuseki.go.rules import PRESETS, HandicapBonus, KoRule, Rules, Scoring
from fuseki.go.state import Color, GameState, IllegalMoveError, Move
from fuseki.util.errors import FusekiError

__all__ = [
    "GameRecord",
    "RecordedMove",
    "SgfError",
    "game_to_sgf",
    "load_sgf",
    "read_sgf",
    "parse_result",
    "save_sgf",
]


class SgfError(FusekiError, ValueError):
    """SGF data that is malformed, or that fuseki cannot replay.

    The message is one line, e.g. ``move 23 (W D4) is illegal: occupied``.
    """


class RecordedMove(NamedTuple):
    """One move of the main line. SGF moves carry their colour; our :class:`Move` does not."""

    color: Color
    move: Move

    def label(self, size: int) -> str:
        """``"W D4"`` or ``"B pass"``, as error messages name a move."""
        return f"{self.color.letter} {self.move.gtp(size)}"


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
    {"FF", "GM", "SZ", "CA", "KM", "RU", "HA", "AB", "AW", "AE", "PL"}
    | {"PB", "PW", "BR", "WR", "RE", "DT", "EV", "GN", "C", "B", "W"}
)
#: Properties of a main-line move node that the record owns.
_MOVE_FIELDS = frozenset(("B", "W", "C"))


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
    setup_black: frozenset[Point] = frozenset()  #: root ``AB``
    setup_white: frozenset[Point] = frozenset()  #: root ``AW``
    setup_empty: frozenset[Point] = frozenset()  #: root ``AE``
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
    #: The sgfmill tree this record was read from; it supplies the variations
    #: and uninterpreted properties when writing. Not part of equality.
    tree: sgf.Sgf_game | None = dataclasses.field(default=None, compare=False, repr=False)

    # ---- derived --------------------------------------------------------

    @property
    def rules(self) -> Rules:
        """The rule set ``RU`` names, with the record's komi.

        Chinese, Japanese, Tromp-Taylor (``TT``), AGA, NZ and our own preset
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

    def states(self, rules: Rules | str | None = None) -> Iterator[GameState]:
        """Every state of the main line, from :meth:`initial_state` to the last move.

        Raises :class:`SgfError` at the first move that is out of turn or illegal.
        """
        state = self.initial_state(rules)
        yield state
        for number, recorded in enumerate(self.moves, 1):
            color, move = recorded
            if color is not state.next_player and not state.is_over():
                raise SgfError(
                    f"move {number} ({recorded.label(self.size)}) is out of turn: "
                    f"{state.next_player.name.lower()} to play"
                )
            try:
                state = state.play(move)
            except IllegalMoveError as e:
                raise SgfError(f"move {number} ({recorded.label(self.size)}) is illegal: {e.reason}") from None
            yield state

    def replay(self, rules: Rules | str | None = None) -> GameState:
        """The state at the end of the main line (see :meth:`states`).

        A resignation is only written in :attr:`result`, so it is not replayed.
        """
        last = deque(self.states(rules), maxlen=1)  # replays every move, keeps the last state
        assert last
        return last[0]

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

        The root and the main line are written from the fields. If the record
        was read from a file, the other properties of those nodes, the nodes
        without a move, and the side variations are copied from that tree for
        as long as the main line still follows it.
        """
        stray = sorted(set(self.comments) - set(range(1, len(self.moves) + 1)))
        if stray:
            raise ValueError(f"comment for move {stray[0]}, but the record has {len(self.moves)} moves")
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
                    raise ValueError(
                        f"move {number} is a resignation: SGF writes that in the result (RE), not as a move"
                    )
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
            if number >= len(runs):
                continue
            run = runs[number]
            _copy_properties(run[0], node, encoding, skip=_ROOT_FIELDS if number == 0 else _MOVE_FIELDS)
            branch_points.append((run[0], node))
            for extra in run[1:]:  # nodes without a move; their comments are already merged
                node = node.new_child()
                _copy_properties(extra, node, encoding, skip=frozenset(("C",)))
                branch_points.append((extra, node))
        # Side branches last, so that the main line stays each node's first child.
        for old_node, new_node in branch_points:
            _copy_side_branches(old_node, new_node, encoding)
        return game.serialise()

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


def read_sgf(data: bytes | str) -> GameRecord:
    """Parse one SGF game (the first, if the data holds a collection).

    Bytes are decoded as the ``CA`` property says; without ``CA``, as UTF-8
    when they are valid UTF-8 and as Latin-1 otherwise. Raises
    :class:`SgfError` for anything malformed or unsupported.
    """
    if isinstance(data, str):
        raw, override = data.encode("utf-8"), "UTF-8"
    elif isinstance(data, (bytes, bytearray, memoryview)):
        raw, override = bytes(data), None
    else:
        raise TypeError(f"SGF data must be bytes or str, got {type(data).__name__}")
    try:
        coarse = sgf_grammar.parse_sgf_game(raw)
    except ValueError as e:
        message = str(e)
        if message == "no SGF data found":
            raise SgfError(f"not an SGF file: no '(;' in {_preview(raw)}") from None
        if message == "unexpected end of SGF data":
            raise SgfError("truncated SGF file: it ends inside the game tree") from None
        raise SgfError(f"malformed SGF file: {message}") from None
    props = coarse.sequence[0]
    gm = _first(props, "GM")
    if gm is not None and gm.strip() != b"1":
        raise SgfError(f"not a Go game: GM[{_show(gm)}] (Go is GM[1])")
    size = _read_size(_first(props, "SZ"))
    if override is None:
        override = _guess_encoding(raw, _first(props, "CA"))
    try:
        game = sgf.Sgf_game.from_coarse_game_tree(coarse, override_encoding=override)
    except ValueError as e:
        raise SgfError(f"malformed SGF file: {e}") from None
    assert game.get_size() == size
    return _record_from_tree(game)


def load_sgf(path: str | os.PathLike[str]) -> GameRecord:
    """Read an SGF file (see :func:`read_sgf`). File system errors are not caught."""
    return read_sgf(Path(path).read_bytes())


def _record_from_tree(game: sgf.Sgf_game) -> GameRecord:
    size = game.get_size()
    runs = _main_line_runs(game)
    root = runs[0][0]
    if _has_move(root):
        raise SgfError("the root node holds a move; moves must come after the root")
    record = GameRecord(size=size, tree=game)
    record.komi = _read_komi(root)
    record.handicap = _read_handicap(root, size)
    record.setup_black = read_points(root, "AB")
    record.setup_white = read_points(root, "AW")
    record.setup_empty = read_points(root, "AE")
    both = record.setup_black & record.setup_white
    if both:
        raise SgfError(f"setup point {to_gtp(min(both), size)} is in both AB and AW")
    pl = _first(root.get_raw_property_map(), "PL")
    if pl is not None:
        try:
            record.to_play = Color.parse(pl.decode("latin-1"))
        except ValueError:
            raise SgfError(f"bad player to move PL[{_show(pl)}]") from None
    record.ruleset = _text(root, "RU")
    record.black, record.white = _text(root, "PB"), _text(root, "PW")
    record.black_rank, record.white_rank = _text(root, "BR"), _text(root, "WR")
    record.result, record.date = _text(root, "RE"), _text(root, "DT")
    record.event, record.game_name = _text(root, "EV"), _text(root, "GN")
    for number, run in enumerate(runs):
        for node in run[1:] if number == 0 else run:
            if node.has_setup_stones():
                raise SgfError(f"move {number + 1}: setup stones (AB/AW/AE) after the root are not supported")
        if number > 0:
            record.moves.append(_read_move(run[0], size, number))
        for node in run:
            text = _text(node, "C", simple=False)
            if text:
                record._add_comment(number, text)
    return record


def _main_line_runs(game: sgf.Sgf_game) -> list[list[sgf.Tree_node]]:
    """The main line cut before each move: ``runs[0]`` is the root and the move-less
    nodes after it; ``runs[n]`` starts with the node of move ``n``.
    """
    runs: list[list[sgf.Tree_node]] = [[]]
    for node in game.get_main_sequence():
        if node.parent is not None and _has_move(node):
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


def _read_komi(root: sgf.Node) -> float:
    raw = _first(root.get_raw_property_map(), "KM")
    if raw is None:
        return 0.0
    try:
        komi = float(raw)
    except ValueError:
        raise SgfError(f"bad komi KM[{_show(raw)}]: not a number") from None
    if not math.isfinite(komi) or abs(komi) > 1000 or komi * 2 != round(komi * 2):
        raise SgfError(f"bad komi KM[{_show(raw)}]: komi must be a multiple of 0.5 of modest size")
    return komi


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
    """A root point list (compressed ``aa:cc`` rectangles allowed), as our Points."""
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


def _guess_encoding(raw: bytes, ca: bytes | None) -> str | None:
    """``None`` to trust ``CA``; else the encoding to read the bytes with."""
    if ca is not None:
        try:
            sgf_properties.normalise_charset_name(ca.decode("ascii"))
            return None
        except (LookupError, UnicodeDecodeError):
            pass
    try:
        raw.decode("utf-8")
        return "UTF-8"
    except UnicodeDecodeError:
        return "ISO-8859-1"


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
    record = GameRecord.from_state(
        state, black=black, white=white, result=result, comments=comments, date=date, rules_name=rules_name
    )
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


#: SGF FF[4] writes a result as ``B+3.5``, ``W+R`` or ``W+Resign``, ``B+T`` or ``B+Time``, ``W+F`` or ``W+Forfeit``.
_RESULT = re.compile(r"\A([BW])\+(Resign|Forfeit|Time|R|F|T|\d+(?:\.\d+)?)?\Z", re.IGNORECASE)


def parse_result(result: str) -> tuple[Color | None, str]:
    """An SGF/GTP result -> (winner or ``None`` for a draw, kind).

    Kinds: ``"score"``, ``"resign"``, ``"forfeit"``, ``"time"``, ``"draw"``.
    Raises ``ValueError`` for anything else (``"?"``, ``"Void"``, empty).

    >>> parse_result("W+7.5"), parse_result("B+F"), parse_result("0"), parse_result("W+Resign")
    ((<Color.WHITE: 2>, 'score'), (<Color.BLACK: 1>, 'forfeit'), (None, 'draw'), (<Color.WHITE: 2>, 'resign'))
    """
    text = result.strip()
    if text.lower() in ("0", "draw", "jigo", "b+0", "w+0", "b+0.0", "w+0.0"):
        return None, "draw"
    m = _RESULT.match(text)
    if m is None:
        raise ValueError(f"not a game result: {result!r}")
    winner = Color.BLACK if m.group(1).upper() == "B" else Color.WHITE
    tail = (m.group(2) or "")[:1].upper()  # the long forms (Resign, Time, Forfeit) by their first letter
    kind = {"R": "resign", "F": "forfeit", "T": "time"}.get(tail, "score")
    return winner, kind
