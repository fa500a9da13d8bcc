"""Differential test of our rules engine against the real GNU Go, move by move.

Hand-written rules tests cover the cases someone thought of. Random games
against an independent implementation cover the ones nobody did: captures of
several strings at once, ko right after a capture elsewhere, suicide that is
legal because it captures, a board filled and emptied again. GNU Go is the
reference because its legality is well known and it speaks GTP: ``all_legal``
and ``list_stones`` expose everything we need to compare.

Each game sets up the board in GNU Go and in a :class:`~fuseki.go.state.GameState`
with the ``"gnugo"`` rules (simple ko, no suicide), then plays uniformly random
moves chosen from *our* legal moves and sends each to GNU Go with ``play``. At
every position both engines are asked for

- the stones (``list_stones black`` / ``list_stones white`` vs ``state.stones()``), and
- the legal moves of the player to move (``all_legal`` vs ``state.legal_points()``).

Legal moves are compared *before* each move because ``play`` alone would catch
only half of the bugs: it tells whether GNU Go accepts the move we chose, never
whether we forbid a move GNU Go allows. (GNU Go 3.8's ``play`` does refuse
suicide and a ko recapture with ``? illegal move``; a refusal is recorded as a
disagreement too.) At the end of a game the prisoner counts are compared.

The first disagreement of a game ends that game and is recorded with the whole
move list, which replays it (:meth:`Disagreement.replay`).
"""

from __future__ import annotations

import dataclasses
import math
import shutil
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fuseki.go.coords import GTP_COLUMNS, MAX_SIZE, MIN_SIZE
from fuseki.go.rules import KoRule, Rules
from fuseki.go.state import Color, GameState, Move
from fuseki.engines.gtp_client import GtpClient, GtpError
from fuseki.util.errors import InputError

__all__ = [
    "DEFAULT_GNUGO",
    "DifferentialReport",
    "Disagreement",
    "GameResult",
    "check_sizes",
    "find_gnugo",
    "games_per_size",
    "gnugo_flags",
    "run_differential",
]

#: Where Debian's ``gnugo`` package installs the binary (``/usr/games`` is often not on PATH).
DEFAULT_GNUGO = "/usr/games/gnugo"
#: Always passed; the rule options come from :func:`gnugo_flags`.
GNUGO_ARGS = ("--mode", "gtp")
#: GNU Go is compiled for boards up to 19x19.
GNUGO_MAX_SIZE = 19


@dataclasses.dataclass(frozen=True)
class Disagreement:
    """The first point at which our engine and GNU Go differ in one game.

    ``kind`` is ``"stones"`` (the boards differ), ``"legal"`` (the legal moves
    of the player to move differ), ``"play"`` (GNU Go refused a move we call
    legal) or ``"captures"`` (prisoner counts differ at the end). ``moves`` are
    the moves played before it, in GTP form, Black first; ``position`` is our
    board there. ``only_ours`` / ``only_gnugo`` are the differing entries:
    vertices for ``legal``, ``"B D4"``-style entries for ``stones``.
    """

    game: int
    size: int
    move_number: int
    kind: str
    to_move: str
    moves: tuple[str, ...]
    position: str
    only_ours: tuple[str, ...]
    only_gnugo: tuple[str, ...]
    detail: str = ""
    ko: str = KoRule.SIMPLE.value  #: the ko rule of the game (a :class:`KoRule` value)
    suicide: bool = False  #: whether the game allowed suicide

    def describe(self) -> str:
        """A multi-line report that a developer can act on without rerunning anything."""
        who = "black" if self.to_move == "black" else "white"
        lines = [
            f"game {self.game} ({self.size}x{self.size}), after move {self.move_number}, "
            + f"{who} to play: {self.kind} differ",
            f"  only ours:  {' '.join(self.only_ours) or '-'}",
            f"  only GNU Go: {' '.join(self.only_gnugo) or '-'}",
        ]
        if self.detail:
            lines.append(f"  {self.detail}")
        lines.append(f"  moves: {' '.join(self.moves) or '(none)'}")
        lines.extend("  " + row for row in self.position.splitlines())
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @property
    def rules(self) -> Rules:
        """The rules of the game (komi aside, which legality ignores)."""
        return Rules.preset("gnugo").replace(ko=KoRule(self.ko), suicide=self.suicide)

    def replay(self) -> GameState:
        """Our state at the disagreement, rebuilt from :attr:`moves` (the reproducer)."""
        state = GameState.new(self.size, self.rules)
        for entry in self.moves:
            state = state.play(Move.from_gtp(entry.split()[-1], self.size))
        return state


@dataclasses.dataclass(frozen=True)
class GameResult:
    """One game of the differential run."""

    game: int
    size: int
    moves: int  #: moves played (passes included)
    positions: int  #: positions at which stones and legal moves were compared
    captures: int  #: stones captured in the game, both sides
    disagreement: Disagreement | None

    @property
    def agreed(self) -> bool:
        return self.disagreement is None


@dataclasses.dataclass
class DifferentialReport:
    """The outcome of :func:`run_differential`."""

    seed: int
    gnugo: str
    gnugo_version: str
    rules: str = "simple ko, no suicide"  #: the legality compared, in words
    games: int = 0
    agreed: int = 0
    moves: int = 0  #: moves played in all games (passes included)
    moves_compared: int = 0  #: positions whose stones and legal moves were compared
    captures: int = 0  #: stones captured over all games (a sanity check that captures happened)
    games_by_size: dict[int, int] = dataclasses.field(default_factory=dict)
    disagreements: list[Disagreement] = dataclasses.field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """True when every game agreed to the end."""
        return self.agreed == self.games

    def add(self, result: GameResult) -> None:
        self.games += 1
        self.agreed += result.agreed
        self.moves += result.moves
        self.moves_compared += result.positions
        self.captures += result.captures
        self.games_by_size[result.size] = self.games_by_size.get(result.size, 0) + 1
        if result.disagreement is not None:
            self.disagreements.append(result.disagreement)

    def summary(self) -> str:
        """One line: how many games agreed, and how much was compared."""
        sizes = ", ".join(f"{n}x{n}: {g}" for n, g in sorted(self.games_by_size.items()))
        return (
            f"{self.agreed}/{self.games} games agreed with {self.gnugo_version} ({self.rules}) "
            f"({self.moves_compared} positions compared, {self.moves} moves, {self.captures} stones captured; "
            f"{sizes}; seed {self.seed}; {self.seconds:.1f} s)"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "games": self.games,
            "agreed": self.agreed,
            "disagreed": self.games - self.agreed,
            "moves": self.moves,
            "moves_compared": self.moves_compared,
            "captures": self.captures,
            "games_by_size": {str(k): v for k, v in sorted(self.games_by_size.items())},
            "seed": self.seed,
            "gnugo": self.gnugo,
            "gnugo_version": self.gnugo_version,
            "rules": self.rules,
            "seconds": round(self.seconds, 3),
            "disagreements": [d.to_dict() for d in self.disagreements],
        }


def gnugo_flags(rules: Rules) -> tuple[str, ...]:
    """The GNU Go options that give GNU Go the same legality as ``rules``.

    ``Rules.preset("gnugo")`` maps to ``--forbid-suicide --simple-ko``, GNU Go's
    own defaults, spelled out. Other rules exercise our suicide and superko
    code, with one known GNU Go difference: GNU Go 3.8 does not apply superko
    to suicide, so with both ``suicide`` and a superko rule it allows a suicide
    that recreates an earlier position, which superko (and we) forbid.
    """
    ko = {
        KoRule.SIMPLE: "--simple-ko",
        KoRule.POSITIONAL: "--positional-superko",
        KoRule.SITUATIONAL: "--situational-superko",
    }[rules.ko]
    return ("--allow-all-suicide" if rules.suicide else "--forbid-suicide", ko)


def _legality(rules: Rules) -> str:
    return f"{rules.ko.value} ko, {'suicide allowed' if rules.suicide else 'no suicide'}"


def find_gnugo(path: str | None = None) -> str:
    """The GNU Go binary to use: ``path`` if given, else ``gnugo`` on PATH, else :data:`DEFAULT_GNUGO`.

    Raises :class:`FileNotFoundError` with an installation hint when there is none.
    """
    candidates = [path] if path else ["gnugo", DEFAULT_GNUGO]
    for cand in candidates:
        found = shutil.which(cand)
        if found:
            return found
    shown = path or f"gnugo (on PATH or at {DEFAULT_GNUGO})"
    raise FileNotFoundError(f"GNU Go not found: {shown}; install it (Debian: apt install gnugo) or give its path")


def check_sizes(sizes: Sequence[int]) -> None:
    """Raise ``ValueError`` unless every size is one both engines play."""
    if not sizes:
        raise InputError("no board sizes given")
    for n in sizes:
        if isinstance(n, bool) or not isinstance(n, int) or not MIN_SIZE <= n <= min(MAX_SIZE, GNUGO_MAX_SIZE):
            raise InputError(f"board size {n!r} is not one both engines play ({MIN_SIZE} to {GNUGO_MAX_SIZE})")


def games_per_size(games: int, sizes: Sequence[int]) -> dict[int, int]:
    """Split ``games`` over ``sizes`` in proportion to 1 / area, each size at least once.

    Why 1 / area: a game lasts about ``2 * area`` moves, so each size then gets
    about the same number of compared positions, and most games are on small
    boards, where captures, ko and suicide situations come thick and fast.

    >>> games_per_size(200, [5, 9, 13, 19])
    {5: 129, 9: 41, 13: 20, 19: 10}
    """
    sizes = list(dict.fromkeys(sizes))
    if games < 0:
        raise InputError(f"games must be >= 0, got {games}")
    if not sizes:
        raise InputError("no board sizes given")
    if games == 0:
        return {n: 0 for n in sizes}
    weights = [1.0 / (n * n) for n in sizes]
    total = sum(weights)
    counts = {n: 0 for n in sizes}
    base = min(games, len(sizes))  # every size gets one game while there are games to give
    for n in sizes[:base]:
        counts[n] = 1
    rest = games - base
    shares = [rest * w / total for w in weights]
    for n, s in zip(sizes, shares):
        counts[n] += math.floor(s)
    # Largest remainder for what the floors left over.
    left = games - sum(counts.values())
    order = sorted(range(len(sizes)), key=lambda i: (-(shares[i] - math.floor(shares[i])), i))
    for i in order[:left]:
        counts[sizes[i]] += 1
    return counts


def run_differential(
    games: int,
    sizes: Sequence[int],
    seed: int,
    gnugo: str = DEFAULT_GNUGO,
    *,
    max_plies: int | None = None,
    timeout: float = 30.0,
    rules: Rules | str = "gnugo",
    progress: Callable[[GameResult, DifferentialReport], None] | None = None,
) -> DifferentialReport:
    """Play ``games`` random games against GNU Go, comparing every position.

    Games are split over ``sizes`` by :func:`games_per_size`, played size by
    size in the given order. Game ``i`` draws its moves from
    ``numpy.random.default_rng([seed, i])``, so any one game can be replayed
    alone. A game ends at two passes in a row, after ``max_plies`` moves
    (default ``2 * size * size``), or at its first disagreement.

    ``rules`` (a :class:`~fuseki.go.rules.Rules` value or preset name) sets our
    engine's legality, and GNU Go is started with the options of
    :func:`gnugo_flags` to match. The default, ``"gnugo"``, is GNU Go's own
    legality (simple ko, no suicide); the others are for exploring.

    ``progress`` is called after each game. Raises :class:`FileNotFoundError`
    when GNU Go is missing, ``ValueError`` for a size GNU Go cannot play, and
    :class:`~fuseki.engines.gtp_client.GtpClientError` if GNU Go itself fails (dies,
    hangs past ``timeout``).
    """
    check_sizes(sizes)
    if max_plies is not None and max_plies < 1:
        raise InputError(f"max_plies must be >= 1, got {max_plies}")
    rules = Rules.preset(rules) if isinstance(rules, str) else rules
    binary = find_gnugo(gnugo)
    schedule = [n for n, count in games_per_size(games, sizes).items() for _ in range(count)]
    start = time.perf_counter()
    with GtpClient([binary, *GNUGO_ARGS, *gnugo_flags(rules)], timeout=timeout) as gtp:
        version = f"{gtp.name()} {gtp.version()}".strip()
        report = DifferentialReport(seed=seed, gnugo=binary, gnugo_version=version, rules=_legality(rules))
        for i, size in enumerate(schedule):
            rng = np.random.default_rng([seed, i])
            result = _play_game(gtp, i, size, rng, max_plies or 2 * size * size, rules)
            report.add(result)
            report.seconds = time.perf_counter() - start
            if progress is not None:
                progress(result, report)
    report.seconds = time.perf_counter() - start
    return report


class _Vertices:
    """GTP vertex <-> move index for one board size, as precomputed tables."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.names = [f"{GTP_COLUMNS[p % size]}{size - p // size}" for p in range(size * size)] + ["pass"]
        self.index = {name.upper(): p for p, name in enumerate(self.names)}

    def parse(self, reply: str) -> set[int]:
        """A whitespace-separated vertex list, as ``all_legal`` and ``list_stones`` send it."""
        try:
            return {self.index[v.upper()] for v in reply.split()}
        except KeyError as e:
            raise InputError(f"GNU Go sent {e.args[0]!r}, not a vertex of a {self.size}x{self.size} board") from None


def _play_game(
    gtp: GtpClient, game: int, size: int, rng: np.random.Generator, max_plies: int, rules: Rules
) -> GameResult:
    vx = _Vertices(size)
    gtp.boardsize(size)
    gtp.clear_board()
    state = GameState.new(size, rules)
    played: list[str] = []
    positions = 0

    def disagree(kind: str, ours: set[str], theirs: set[str], detail: str = "") -> GameResult:
        d = Disagreement(
            game=game,
            size=size,
            move_number=state.move_number,
            kind=kind,
            to_move=state.next_player.name.lower(),
            moves=tuple(played),
            position=state.to_ascii(),
            only_ours=tuple(sorted(ours - theirs)),
            only_gnugo=tuple(sorted(theirs - ours)),
            detail=detail,
            ko=rules.ko.value,
            suicide=rules.suicide,
        )
        return GameResult(game, size, state.move_number, positions, _captured(state), d)

    while True:
        # (a) stones.
        grid = state.stones().ravel()
        ours_stones = {f"B {vx.names[p]}" for p in np.flatnonzero(grid == 1)}
        ours_stones |= {f"W {vx.names[p]}" for p in np.flatnonzero(grid == 2)}
        theirs_stones = {f"B {vx.names[p]}" for p in vx.parse(gtp.send("list_stones black"))}
        theirs_stones |= {f"W {vx.names[p]}" for p in vx.parse(gtp.send("list_stones white"))}
        if ours_stones != theirs_stones:
            return disagree("stones", ours_stones, theirs_stones)
        if state.is_over() or state.move_number >= max_plies:
            break
        # (b) legal moves of the player to move.
        color = state.next_player
        legal = state.legal_points()
        ours_legal = {vx.names[p] for p in legal[:-1].tolist()}
        theirs_legal = {vx.names[p] for p in vx.parse(gtp.send(f"all_legal {color.name.lower()}"))}
        positions += 1
        if ours_legal != theirs_legal:
            return disagree("legal", ours_legal, theirs_legal)
        # Uniform over our legal moves, pass included: pass then comes with
        # probability 1 / (number of legal moves), rare until the board fills up.
        move = int(legal[rng.integers(len(legal))])
        vertex = vx.names[move]
        try:
            gtp.play(color.name.lower(), vertex)
        except GtpError as e:
            return disagree("play", {vertex}, set(), f"GNU Go refused {color.name.lower()} {vertex}: {e.message}")
        state = state.play(move)
        played.append(f"{color.letter} {vertex}")
    # Prisoners, once per game: a wrong count never shows on the board.
    for c in (Color.BLACK, Color.WHITE):
        theirs = int(gtp.send(f"captures {c.name.lower()}"))
        if theirs != state.captures(c):
            return disagree(
                "captures",
                {f"{c.letter} captured {state.captures(c)}"},
                {f"{c.letter} captured {theirs}"},
            )
    return GameResult(game, size, state.move_number, positions, _captured(state), None)


def _captured(state: GameState) -> int:
    return state.captures(Color.BLACK) + state.captures(Color.WHITE)
