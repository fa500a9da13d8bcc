"""The Go position and game: :class:`GameState`, immutable from the outside.

``state.play(move)`` returns a new state; the old one is untouched, so search
code can branch freely and ``undo`` is simply the parent. Under the Python
objects sits one flat ``int32`` buffer that the Numba kernels of
:mod:`fuseki.go.kernels` update: one copy and one kernel call per move.

>>> s = GameState.new(9)
>>> s = s.play(Move.play(Point(4, 4)))
>>> s.next_player
<Color.WHITE: 2>
>>> s.undo().move_number
0
"""

from __future__ import annotations

import dataclasses
import enum
import re
import sys
from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from fuseki.go import kernels as K
from fuseki.go._malloc import tune_malloc
from fuseki.go.coords import (
    CoordinateError,
    GTP_COLUMNS,
    Point,
    check_size,
    from_gtp,
    to_gtp,
)
from fuseki.go.handicap import fixed_handicap, max_free_handicap
from fuseki.go.rules import KoRule, Rules, Scoring
from fuseki.util.errors import FusekiError, InputError


class Color(enum.IntEnum):
    """A player; the values match the kernels' board codes."""

    BLACK = 1
    WHITE = 2

    @property
    def other(self) -> "Color":
        return Color.WHITE if self is Color.BLACK else Color.BLACK

    @property
    def letter(self) -> str:
        """``"B"`` or ``"W"``, as SGF and results write it."""
        return "B" if self is Color.BLACK else "W"

    @staticmethod
    def parse(text: str) -> "Color":
        """Accept ``b``, ``black``, ``w``, ``white`` in any case."""
        t = text.strip().lower()
        if t in ("b", "black"):
            return Color.BLACK
        if t in ("w", "white"):
            return Color.WHITE
        raise InputError(f"{text!r} is not a colour (expected black or white)")


@dataclasses.dataclass(frozen=True, slots=True)
class Move:
    """A move: a stone on a point, a pass or a resignation (the book's ``Move``)."""

    point: Point | None = None
    is_pass: bool = False
    is_resign: bool = False

    @classmethod
    def play(cls, point: Point | tuple[int, int]) -> "Move":
        return cls(point=Point(*point))

    @classmethod
    def pass_turn(cls) -> "Move":
        return cls(is_pass=True)

    @classmethod
    def resign(cls) -> "Move":
        return cls(is_resign=True)

    @property
    def is_play(self) -> bool:
        return self.point is not None

    def gtp(self, size: int) -> str:
        """The move as GTP writes it: ``"D4"``, ``"pass"`` or ``"resign"``."""
        if self.is_resign:
            return "resign"
        return to_gtp(self.point, size)

    @classmethod
    def from_gtp(cls, text: str, size: int) -> "Move":
        """Parse ``"D4"``, ``"pass"`` or ``"resign"``."""
        if text.strip().lower() == "resign":
            return cls.resign()
        point = from_gtp(text, size)
        return cls.pass_turn() if point is None else cls.play(point)

    def __str__(self) -> str:
        if self.is_resign:
            return "resign"
        if self.is_pass:
            return "pass"
        return f"({self.point.row}, {self.point.col})"  # type: ignore[union-attr]


class IllegalMoveError(FusekiError, ValueError):
    """A move the rules forbid. ``reason`` is one short word or phrase.

    Reasons: ``occupied``, ``suicide``, ``ko``, ``superko``, ``off board``,
    ``game over``.
    """

    def __init__(self, reason: str, move: object = None, detail: str = "") -> None:
        self.reason = reason
        self.move = move
        super().__init__(detail or f"illegal move {move}: {reason}")


_REASONS = {
    K.ERR_OCCUPIED: "occupied",
    K.ERR_SUICIDE: "suicide",
    K.ERR_KO: "ko",
    K.ERR_OFFBOARD: "off board",
}


@dataclasses.dataclass(frozen=True)
class Score:
    """A counted result. ``black`` and ``white`` include komi and handicap bonus."""

    black: float
    white: float
    scoring: Scoring
    #: Per-point owner map, ``(size, size)``: kernels.R_* codes (:meth:`territory` reads them for frontends).
    regions: np.ndarray = dataclasses.field(repr=False, compare=False)

    def territory(self, color: Color) -> np.ndarray:
        """A ``(size, size)`` bool mask of the empty (or dead-stone) points counted for ``color``.

        What a frontend draws as territory; it saves every caller from reading
        the kernels' region codes.
        """
        code = K.R_BLACK_AREA if color is Color.BLACK else K.R_WHITE_AREA
        return np.asarray(self.regions) == code

    @property
    def margin(self) -> float:
        """Black's points minus White's."""
        return self.black - self.white

    @property
    def winner(self) -> Color | None:
        if self.margin > 0:
            return Color.BLACK
        if self.margin < 0:
            return Color.WHITE
        return None

    @property
    def result(self) -> str:
        """SGF/GTP style: ``"B+3.5"``, ``"W+0.5"`` or ``"0"`` for a draw."""
        m = self.margin
        if m == 0:
            return "0"
        text = f"{abs(m):g}"
        return f"{'B' if m > 0 else 'W'}+{text}"


class _History:
    """The keys of the positions on a line of play, shared between states.

    A state on that line knows how many entries are its own (``length``).
    Appending from the tip is O(1); playing from an older state (branching)
    copies the prefix. ``first`` maps a key to its first index, so "did this
    position occur in my first ``length`` positions" is one dict lookup.

    ``bits`` is a 65,536-bit filter of every key ever added (a superset of any
    state's own prefix), so that move generation can rule out repetitions in
    the kernel and check exactly only the few moves that hit it.
    """

    __slots__ = ("keys", "first", "_bytes", "bits")

    def __init__(self, keys: Sequence[int] = (), bits: bytearray | None = None) -> None:
        self.keys: list[int] = []
        self.first: dict[int, int] = {}
        self._bytes = bytearray(bits) if bits is not None else bytearray(1 << 13)
        self.bits = np.frombuffer(self._bytes, dtype=np.uint8)
        for k in keys:
            self._add(k)

    def _add(self, key: int) -> None:
        self.first.setdefault(key, len(self.keys))
        self.keys.append(key)
        bit = key & 0xFFFF
        self._bytes[bit >> 3] |= 1 << (bit & 7)

    def seen(self, key: int, length: int) -> bool:
        i = self.first.get(key)
        return i is not None and i < length

    def extended(self, length: int, key: int) -> "_History":
        hist = self if len(self.keys) == length else _History(self.keys[:length], self._bytes)
        hist._add(key)
        return hist


_ASCII_BLACK = set("XxB#●@")
_ASCII_WHITE = set("OoW○")
_ASCII_EMPTY = set(".+,-_")


class GameState:
    """A position plus everything the rules need: player to move, ko, history, result.

    Build one with :meth:`new`, :meth:`from_ascii` or :meth:`from_setup`; then
    :meth:`play` moves. A move is a :class:`Move` or an int index
    (``row * size + col``, ``size * size`` for pass), the fast path.
    """

    # Few slots, and the per-game constants in one shared object: ``play`` sets
    # each slot once per move, and that cost is part of every move.
    #
    # The buffer (``_b``) is handed down, not copied, when nothing else holds
    # it: a child takes its parent's buffer and plays its move in place, and
    # the parent, which the caller rarely looks at again, restores its own when
    # it is asked (:meth:`_restore`: a copy of the nearest ancestor that kept
    # one, and the moves since). A state keeps its buffer (``_keep``) when it is
    # a root, every SNAPSHOT-th move, and once it has been restored, so a
    # restore replays fewer than SNAPSHOT moves and a state that is played from
    # twice (a search trying moves) copies from then on. A buffer that anything
    # else refers to (a view from ``legal_points``, a caller holding
    # ``_buf``) is copied, never taken: its reference count says so. Copying a
    # 9x9 buffer (5 KB) was a third of the time of a move through this API.
    # Not for two threads playing from one state at the same time.
    __slots__ = ("_b", "_g", "parent", "_hist", "_hlen", "_over", "_move", "_keep")

    _b: np.ndarray | None
    _g: "_Game"
    parent: "GameState | None"
    _hist: "_History | None"
    _hlen: int
    _over: int
    _move: int
    _keep: bool

    # ---- construction -------------------------------------------------

    @classmethod
    def _make(cls, buf: np.ndarray, rules: Rules, handicap: int) -> "GameState":
        s = cls.__new__(cls)
        s._b = buf
        s._keep = True
        s._move = -1
        s._g = _Game(rules, int(buf[K.M_N]), handicap)
        s.parent = None
        s._over = 0
        s._hist = None
        s._hlen = 0
        if rules.superko:
            s._hist = _History([s._key_for(K.board_hash(buf), int(buf[K.M_TOMOVE]))])
            s._hlen = 1
        return s

    @property
    def _buf(self) -> np.ndarray:
        """The position's buffer, restored first if a child took it."""
        buf = self._b
        return buf if buf is not None else self._restore()

    @property
    def buffer(self) -> np.ndarray:
        """The position's flat ``int32`` kernel buffer, for Numba code that reads raw boards.

        Encoders and the MCTS engine run their kernels on it instead of on
        Python objects (design: one kernel call per move). Read it; never
        write to it: the state's hash, history and legal moves live in it.
        """
        return self._buf

    def _restore(self) -> np.ndarray:
        """Rebuild the buffer a child took: copy the nearest ancestor's and replay the moves since.

        Those moves were legal when they were played, so they are legal
        again. From now on this state keeps its buffer.
        """
        moves = []
        s = self
        while s._b is None:
            moves.append(s._move)
            s = s.parent  # type: ignore[assignment]  # a root always keeps its buffer
        buf = s._b.copy()
        for p in reversed(moves):
            _kplay(buf, p)
        self._b = buf
        self._keep = True
        return buf

    @property
    def rules(self) -> Rules:
        return self._g.rules

    @property
    def size(self) -> int:
        return self._g.size

    @property
    def handicap(self) -> int:
        """Number of handicap stones the game started with (0 for none)."""
        return self._g.handicap

    @property
    def resigned(self) -> "Color | None":
        """The player who resigned, if the game ended that way."""
        return Color(self._over - 1) if self._over > 1 else None

    @property
    def last_move(self) -> "Move | None":
        """The move that led here (``None`` at the start)."""
        return None if self.parent is None else self.move_played()

    @classmethod
    def new(
        cls,
        size: int = 19,
        rules: Rules | str | None = None,
        *,
        komi: float | None = None,
        handicap: int = 0,
        handicap_points: Iterable[Point] | None = None,
    ) -> "GameState":
        """An empty board (or one with handicap stones), Black to move unless handicapped.

        ``handicap`` places the GTP fixed stones; ``handicap_points`` places
        stones freely. With either, White moves first.
        """
        check_size(size)
        rules = _as_rules(rules)
        if komi is not None:
            rules = rules.replace(komi=float(komi))
        points: list[Point] = []
        if handicap_points is not None:
            points = [Point(*p) for p in handicap_points]
            if len(set(points)) != len(points):
                raise InputError("handicap points repeat")
            if not 2 <= len(points) <= max_free_handicap(size):
                raise InputError(f"free handicap on {size}x{size} must be from 2 to {max_free_handicap(size)} stones")
        elif handicap:
            points = fixed_handicap(handicap, size)
        if not points:
            return cls._make(K.new_board(size, int(rules.suicide)), rules, 0)
        return cls.from_setup(size, black=points, rules=rules, to_move=Color.WHITE, handicap=len(points))

    @classmethod
    def from_setup(
        cls,
        size: int,
        black: Iterable[Point] = (),
        white: Iterable[Point] = (),
        *,
        rules: Rules | str | None = None,
        to_move: Color = Color.BLACK,
        handicap: int = 0,
    ) -> "GameState":
        """A position with stones placed directly (SGF ``AB``/``AW``, handicap, tests).

        Strings left with no liberty are an error: such a position cannot occur.
        """
        check_size(size)
        rules = _as_rules(rules)
        stones = np.zeros(size * size, dtype=np.int8)
        for color, pts in ((K.BLACK, black), (K.WHITE, white)):
            for p in pts:
                point = Point(*p)
                if not (0 <= point.row < size and 0 <= point.col < size):
                    raise CoordinateError(f"setup stone {tuple(point)} is off a {size}x{size} board")
                stones[point.row * size + point.col] = color
        return cls.from_array(stones.reshape(size, size), rules=rules, to_move=to_move, handicap=handicap)

    @classmethod
    def from_array(
        cls,
        board: np.ndarray,
        *,
        rules: Rules | str | None = None,
        to_move: Color = Color.BLACK,
        handicap: int = 0,
        captures: tuple[int, int] = (0, 0),
    ) -> "GameState":
        """A position from a square array of colour codes (0 empty, 1 black, 2 white).

        ``captures`` are the prisoners (taken by Black, taken by White) the
        position starts with: they count under territory scoring, so a
        frontend that re-roots a game (GTP's out-of-turn moves) keeps them.
        """
        board = np.asarray(board)
        if board.ndim != 2 or board.shape[0] != board.shape[1]:
            raise ValueError(f"board must be a square 2-D array, got shape {board.shape}")
        size = check_size(int(board.shape[0]))
        if not np.isin(board, (0, 1, 2)).all():
            raise ValueError("board values must be 0 (empty), 1 (black) or 2 (white)")
        rules = _as_rules(rules)
        buf = K.new_board(size, int(rules.suicide))
        K.set_colors(buf, board.astype(np.int8).ravel())
        buf[K.M_TOMOVE] = int(to_move)
        if min(captures) < 0:
            raise ValueError(f"captures must not be negative, got {captures}")
        buf[K.M_CAPB], buf[K.M_CAPW] = int(captures[0]), int(captures[1])
        K.fill_legal(buf)
        state = cls._make(buf, rules, handicap)
        dead = [p for p in state._string_roots() if K.liberties(buf, p) == 0]
        if dead:
            pt = Point(dead[0] // size, dead[0] % size)
            raise ValueError(f"the string at {to_gtp(pt, size)} has no liberties")
        return state

    @classmethod
    def from_ascii(
        cls,
        text: str,
        *,
        rules: Rules | str | None = None,
        to_move: Color = Color.BLACK,
    ) -> "GameState":
        """A position drawn as text, one row per line, top row first.

        ``X``/``x``/``B``/``#`` are black, ``O``/``o``/``W`` white, ``.`` or ``+``
        empty. Spaces are ignored, and so are GTP coordinate labels around the
        board (as :meth:`to_ascii` prints them).

        >>> s = GameState.from_ascii('''
        ...     . X O
        ...     X O .
        ...     . . .
        ... ''')
        >>> s.size
        3
        """
        rows: list[list[int]] = []
        for raw in text.strip("\n").splitlines():
            line = re.sub(r"^\s*\d+|\d+\s*$", "", raw.replace("(", " ").replace(")", " ")).strip()
            cells = [ch for ch in line if not ch.isspace()]
            if not cells or "".join(cells) == GTP_COLUMNS[: len(cells)]:
                continue  # blank line or the column labels "A B C ..."
            row = []
            for ch in cells:
                if ch in _ASCII_BLACK:
                    row.append(K.BLACK)
                elif ch in _ASCII_WHITE:
                    row.append(K.WHITE)
                elif ch in _ASCII_EMPTY:
                    row.append(K.EMPTY)
                else:
                    raise ValueError(f"unknown board character {ch!r} in line {raw!r}")
            rows.append(row)
        if not rows or any(len(r) != len(rows) for r in rows):
            raise ValueError(f"an ASCII board must be square; got rows of lengths {[len(r) for r in rows]}")
        return cls.from_array(np.array(rows, dtype=np.int8), rules=rules, to_move=to_move)

    # ---- playing ------------------------------------------------------

    def _key_for(self, board_hash: int, to_move: int) -> int:
        """History key: the board, plus the side to move under situational superko."""
        if self._g.situational and to_move == K.WHITE:
            return board_hash ^ K.SIDE_KEY
        return board_hash

    def move_index(self, move: "Move | int | Point") -> int:
        """Any move form -> int index (``size * size`` for pass). Resign is -1."""
        if isinstance(move, Move):
            if move.is_resign:
                return -1
            if move.is_pass:
                return self.size * self.size
            move = move.point  # type: ignore[assignment]
        if isinstance(move, tuple):
            r, c = move
            if not (0 <= r < self.size and 0 <= c < self.size):
                raise IllegalMoveError("off board", move, f"{tuple(move)} is off the {self.size}x{self.size} board")
            return r * self.size + c
        return int(move)  # type: ignore[arg-type]  # an int or a NumPy integer here

    def play(self, move: "Move | int | Point") -> "GameState":
        """The state after the player to move plays ``move``.

        Raises :class:`IllegalMoveError` (with ``reason``) for a move the rules forbid.
        """
        tm = type(move)
        if tm is int:
            p: int = move  # type: ignore[assignment]  # tested by type() above: the fast path takes no isinstance
        elif tm is _I32 or tm is _I64 or isinstance(move, np.integer):
            p = int(move)  # type: ignore[arg-type]  # a NumPy integer here
        else:
            p = self.move_index(move)
        if self._over:
            raise IllegalMoveError("game over", move, "the game is over")
        g = self._g
        buf = self._b
        if buf is None:
            buf = self._restore()
        if self._keep or _refcount(buf) > _UNSHARED:
            buf = buf.copy()
        else:
            self._b = None  # the child takes the buffer (see __slots__)
        h = _kplay(buf, p)  # validates p too: off-board indices come back as an error
        if h < 0:
            if self._b is None:
                self._b = buf  # an error leaves the buffer unchanged: give it back
            if p == -1:
                return self._resign()
            if not 0 <= p <= g.n2:
                raise IllegalMoveError("off board", move, f"move index {p} is off the {g.size}x{g.size} board")
            raise IllegalMoveError(_REASONS[h], _describe(move, g.size))
        new = _new_state(GameState)
        new._b = buf
        new._g = g
        new.parent = self
        new._move = p
        new._keep = buf.item(9) % SNAPSHOT == 0  # 9 is M_MOVENUM
        new._over = h >> 62  # kernels.OVER_BIT: the second pass in a row
        hist = self._hist
        if hist is None:
            new._hist = None
            new._hlen = 0
        else:
            h &= K.HASH_MASK
            key = self._key_for(h, buf.item(K.M_TOMOVE))
            if p != g.n2 and hist.seen(key, self._hlen):
                raise IllegalMoveError("superko", _describe(move, g.size))
            new._hist = hist.extended(self._hlen, key)
            new._hlen = self._hlen + 1
        return new

    def _resign(self) -> "GameState":
        new = _new_state(GameState)
        new._b = self._buf.copy()
        new._b[K.M_LAST] = -1
        new._keep = True
        new._move = -1
        new._g = self._g
        new.parent = self
        new._hist, new._hlen = self._hist, self._hlen
        new._over = 1 + int(self._buf[K.M_TOMOVE])
        return new

    def apply_moves(self, moves: Iterable["Move | int | Point"]) -> "GameState":
        """Play a sequence of moves in order."""
        state = self
        for m in moves:
            state = state.play(m)
        return state

    def undo(self) -> "GameState":
        """The state before the last move (exact: states are immutable)."""
        if self.parent is None:
            raise InputError("nothing to undo")
        return self.parent

    # ---- legality -----------------------------------------------------

    def why_illegal(self, move: "Move | int | Point") -> str | None:
        """``None`` if ``move`` is legal, else the reason (as in :class:`IllegalMoveError`)."""
        if self._over:
            return "game over"
        try:
            p = self.move_index(move)
        except IllegalMoveError as e:
            return e.reason
        n2 = self.size * self.size
        if p == -1 or p == n2:
            return None
        if not 0 <= p < n2:
            return "off board"
        code = K.legal_code(self._buf, p)
        if code != K.OK:
            return _REASONS[code]
        if self._hist is not None:
            h = int(K.hashes_after(self._buf, np.array([p], dtype=np.int64))[0])
            if self._hist.seen(self._key_for(h, 3 - int(self._buf[K.M_TOMOVE])), self._hlen):
                return "superko"
        return None

    def superko_keys(self) -> np.ndarray:
        """The keys of every position of this line of play, the first one first (int64; empty under simple ko).

        What the superko rule compares a move's result with: the board hash,
        XORed with ``kernels.SIDE_KEY`` when White is to move under
        situational superko. A search that keeps its own tree of positions
        (the Zero search of :mod:`fuseki.search.go.zeropuct`) checks its
        moves against these and against its own path.
        """
        if self._hist is None:
            return np.empty(0, dtype=np.int64)
        return np.array(self._hist.keys[: self._hlen], dtype=np.int64)

    def is_legal(self, move: "Move | int | Point") -> bool:
        return self.why_illegal(move) is None

    def legal_points(self) -> np.ndarray:
        """Legal moves as int indices (pass, ``size * size``, always last). Fast path.

        Empty once the game is over. The order of the points is unspecified. The
        array may be a view of the state's own data: copy it before changing it.
        (While the view lives, a child copies the buffer instead of taking it
        over, so the view never changes: see ``__slots__``.)
        """
        if self._over:
            return np.empty(0, dtype=np.int32)
        buf = self._b
        if buf is None:
            buf = self._restore()
        start = self._g.legal_start
        # A view of the list that the play kernel keeps (slot 13 is M_NLEGAL).
        # Marking it read-only would cost a fifth of a move, so it is not.
        pts = buf[start : start + buf.item(13)]
        hist = self._hist
        if hist is not None and len(pts) > 1:
            g = self._g
            side = K.SIDE_KEY if g.situational and buf.item(K.M_TOMOVE) == K.BLACK else 0
            suspects = K.superko_suspects(buf, hist.bits, side)
            if len(suspects):
                bad = {p for p, key in zip(suspects[::2].tolist(), suspects[1::2].tolist()) if hist.seen(key, self._hlen)}
                if bad:
                    pts = np.array([p for p in pts.tolist() if p not in bad], dtype=np.int32)
        return pts

    def legal_moves(self) -> list[Move]:
        """Legal moves as :class:`Move` values (pass included, resign not)."""
        n = self.size
        out = [Move.play(Point(int(p) // n, int(p) % n)) for p in self.legal_points()[:-1]]
        if not self._over:
            out.append(Move.pass_turn())
        return out

    # ---- queries ------------------------------------------------------

    @property
    def next_player(self) -> Color:
        return Color(int(self._buf[K.M_TOMOVE]))

    @property
    def move_number(self) -> int:
        """Moves played since the start position (passes count; resignations do not)."""
        return int(self._buf[K.M_MOVENUM])

    @property
    def passes(self) -> int:
        """Consecutive passes that ended the record so far."""
        return int(self._buf[K.M_PASSES])

    @property
    def ko_point(self) -> Point | None:
        """The point that simple ko forbids now, if any."""
        q = int(self._buf[K.M_KO])
        if q < 0:
            return None
        w = self.size + 2
        return Point(q // w - 1, q % w - 1)

    @property
    def last_index(self) -> int | None:
        """Index of the last move (``size * size`` for pass), or None at the start."""
        v = int(self._buf[K.M_LAST])
        return None if v < 0 else v

    @property
    def hash(self) -> int:
        """Zobrist hash of the stones (62 bits), kept incrementally."""
        return K.board_hash(self._buf)

    @property
    def key(self) -> int:
        """Hashable key of the situation: stones and the player to move."""
        h = K.board_hash(self._buf)
        return h ^ K.SIDE_KEY if self._buf[K.M_TOMOVE] == K.WHITE else h

    def captures(self, color: Color) -> int:
        """Stones that ``color`` has captured so far (prisoners)."""
        return int(self._buf[K.M_CAPB if color is Color.BLACK else K.M_CAPW])

    def stones(self) -> np.ndarray:
        """Colours of all points as a ``(size, size)`` int8 array (0/1/2)."""
        return K.colors(self._buf).reshape(self.size, self.size)

    def color_at(self, point: Point | tuple[int, int]) -> Color | None:
        r, c = point
        if not (0 <= r < self.size and 0 <= c < self.size):
            raise CoordinateError(f"{tuple(point)} is off the {self.size}x{self.size} board")
        v = int(self._buf[K.META + (r + 1) * (self.size + 2) + c + 1])
        return None if v == K.EMPTY else Color(v)

    def liberties(self, point: Point | tuple[int, int]) -> int:
        """Exact liberty count of the string at ``point`` (0 for an empty point)."""
        r, c = point
        return int(K.liberties(self._buf, r * self.size + c))

    def is_eye(self, point: "Point | tuple[int, int] | int", color: Color) -> bool:
        """The book's ``is_point_an_eye``: empty, own neighbours, enough own diagonals.

        ``point`` may be an int index, as :meth:`legal_points` returns them.
        """
        if isinstance(point, tuple):
            p = point[0] * self.size + point[1]
        else:
            p = int(point)
        if not 0 <= p < self.size * self.size:
            return False
        return bool(K.is_eye(self._buf, p, int(color)))

    def _string_roots(self) -> list[int]:
        """One unpadded point per string."""
        n, w, np_ = self.size, self.size + 2, (self.size + 2) ** 2
        heads = self._buf[K.META + K.B_HEAD * np_ : K.META + (K.B_HEAD + 1) * np_]
        out = []
        for p in range(n * n):
            q = (p // n + 1) * w + p % n + 1
            if self._buf[K.META + q] in (K.BLACK, K.WHITE) and heads[q] == q:
                out.append(p)
        return out

    def strings(self) -> list[tuple[Color, list[Point]]]:
        """Every string (chain) as its colour and its points."""
        n = self.size
        groups: dict[int, list[Point]] = {}
        np_ = (n + 2) ** 2
        heads = self._buf[K.META + K.B_HEAD * np_ : K.META + (K.B_HEAD + 1) * np_]
        owner: dict[int, Color] = {}
        for p in range(n * n):
            q = (p // n + 1) * (n + 2) + p % n + 1
            v = int(self._buf[K.META + q])
            if v in (K.BLACK, K.WHITE):
                groups.setdefault(int(heads[q]), []).append(Point(p // n, p % n))
                owner[int(heads[q])] = Color(v)
        return [(owner[r], pts) for r, pts in groups.items()]

    def moves(self) -> list[Move]:
        """The moves from the root state to this one, in order."""
        out: list[Move] = []
        s: GameState | None = self
        while s is not None and s.parent is not None:
            out.append(s.move_played())
            s = s.parent
        out.reverse()
        return out

    def move_played(self) -> Move:
        """The move that led to this state."""
        if self.parent is None:
            raise ValueError("the root state was not reached by a move")
        if self._over > 1:
            return Move.resign()
        v = self._move  # what M_LAST holds, without restoring a buffer a child took
        if v == self.size * self.size:
            return Move.pass_turn()
        return Move.play(Point(v // self.size, v % self.size))

    def root(self) -> "GameState":
        s = self
        while s.parent is not None:
            s = s.parent
        return s

    def ancestors(self) -> Iterator["GameState"]:
        """This state, then its parent, and so on to the root."""
        s: GameState | None = self
        while s is not None:
            yield s
            s = s.parent

    # ---- end of game --------------------------------------------------

    def is_over(self) -> bool:
        """Two passes in a row, or a resignation."""
        return self._over > 0

    def score(self, dead: Iterable[Point] | np.ndarray | None = None) -> Score:
        """Count the board under the rules' scoring.

        ``dead`` lists dead stones (points) or is a boolean ``(size, size)``
        mask; by default every stone is alive (the book's and Tromp-Taylor's
        convention). Dead stones are removed before counting; under territory
        scoring they also count as prisoners.
        """
        n = self.size
        mask = np.zeros(n * n, dtype=np.uint8)
        if dead is not None:
            if isinstance(dead, np.ndarray) and dead.shape == (n, n):
                mask[:] = dead.astype(bool).ravel()
            else:
                for pt in dead:
                    r, c = pt
                    if not (0 <= r < n and 0 <= c < n):
                        raise CoordinateError(f"dead stone {tuple(pt)} is off the board")
                    mask[r * n + c] = 1
        stones = K.colors(self._buf)
        mask &= stones != 0
        regions = K.region_map(self._buf, mask)
        counts = np.bincount(regions, minlength=5)
        komi = self.rules.komi
        if self.rules.scoring is Scoring.AREA:
            black = float(counts[K.R_BLACK_STONE] + counts[K.R_BLACK_AREA])
            white = float(counts[K.R_WHITE_STONE] + counts[K.R_WHITE_AREA])
            white += self.rules.handicap_bonus.points(self.handicap)
        else:
            dead_black = int(((stones == K.BLACK) & (mask == 1)).sum())
            dead_white = int(((stones == K.WHITE) & (mask == 1)).sum())
            black = float(counts[K.R_BLACK_AREA] + self.captures(Color.BLACK) + dead_white)
            white = float(counts[K.R_WHITE_AREA] + self.captures(Color.WHITE) + dead_black)
        return Score(black, white + komi, self.rules.scoring, regions.reshape(n, n))

    def winner(self) -> Color | None:
        """The winner of a finished game (``None`` while playing or for a draw)."""
        if self._over > 1:
            return Color(self._over - 1).other
        if not self._over:
            return None
        return self.score().winner

    def result(self) -> str:
        """``"B+R"``, ``"W+2.5"``, ``"0"`` (draw) or ``"?"`` while the game goes on."""
        if self._over > 1:
            return f"{Color(self._over - 1).other.letter}+R"
        if not self._over:
            return "?"
        return self.score().result

    # ---- display ------------------------------------------------------

    def to_ascii(self, coordinates: bool = True, mark_last: bool = True) -> str:
        """The board as text, top row first; the last stone played is in parentheses.

        As GNU Go's ``showboard`` does, the separators around the last stone
        become ``(`` and ``)``, so every row keeps the same width.
        """
        n = self.size
        grid = self.stones()
        last = self.last_index if mark_last else None
        chars = ".XO"
        width = len(str(n))
        header = " " * width + "".join(" " + c for c in GTP_COLUMNS[:n])
        lines = [header] if coordinates else []
        for r in range(n):
            seps = [" "] * (n + 1)
            if last is not None and last < n * n and last // n == r:
                seps[last % n] = "("
                seps[last % n + 1] = ")"
            row = "".join(seps[c] + chars[int(grid[r, c])] for c in range(n)) + seps[n]
            if coordinates:
                label = str(n - r).rjust(width)
                lines.append(f"{label}{row} {label}")
            else:
                lines.append(row.strip())
        if coordinates:
            lines.append(header)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_ascii()

    def __repr__(self) -> str:
        return f"<GameState {self.size}x{self.size} move {self.move_number}, {self.next_player.name.lower()} to play>"


class _Game:
    """What all states of one game share: rules, size, handicap, derived flags."""

    __slots__ = ("rules", "size", "n2", "handicap", "situational", "legal_start")

    def __init__(self, rules: Rules, size: int, handicap: int) -> None:
        self.rules = rules
        self.size = size
        self.n2 = size * size
        self.legal_start = K.legal_offset(size)
        self.handicap = handicap
        self.situational = rules.ko is KoRule.SITUATIONAL


tune_malloc()  # see fuseki.go._malloc: states are freed a game at a time

_new_state = object.__new__
_kplay = K.play
#: Every SNAPSHOT-th move a state keeps its own buffer (see ``GameState.__slots__``).
SNAPSHOT = 16
_refcount = sys.getrefcount
#: ``sys.getrefcount`` of a buffer in ``play`` that only its state refers to:
#: the state's slot, ``play``'s local name and the call's own argument.
_UNSHARED = 3
_I32 = np.int32
_I64 = np.int64


def _as_rules(rules: Rules | str | None) -> Rules:
    if rules is None:
        return Rules()
    if isinstance(rules, str):
        return Rules.preset(rules)
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a Rules value or a preset name, got {type(rules).__name__}")
    return rules


def _describe(move: object, size: int) -> str:
    if isinstance(move, Move):
        return move.gtp(size)
    if isinstance(move, tuple):
        return to_gtp(Point(*move), size)
    p = int(move)  # type: ignore[call-overload]
    if p == size * size:
        return "pass"
    return to_gtp(Point(p // size, p % size), size)
