"""Rules are data: one frozen :class:`Rules` value instead of flags scattered around.

As in KataGo, a rule set is the ko rule, the scoring, whether suicide is
allowed, komi and how handicap stones are compensated. Presets cover the
common cases:

>>> Rules.preset("book")
Rules(ko=<KoRule.SITUATIONAL: 'situational'>, scoring=<Scoring.AREA: 'area'>, suicide=False, komi=7.5, handicap_bonus=<HandicapBonus.NONE: '0'>)
>>> Rules.preset("japanese").komi
6.5
"""

from __future__ import annotations

import dataclasses
import enum
import math

from fuseki.util.errors import InputError


class KoRule(enum.Enum):
    """Which repetitions are forbidden."""

    SIMPLE = "simple"  #: only the immediate recapture of a single-stone ko
    POSITIONAL = "positional"  #: no board position may repeat
    SITUATIONAL = "situational"  #: no (position, player to move) may repeat


class Scoring(enum.Enum):
    """How the final score is counted."""

    AREA = "area"  #: stones + surrounded empty points (Chinese, Tromp-Taylor)
    TERRITORY = "territory"  #: surrounded empty points + prisoners (Japanese)


class HandicapBonus(enum.Enum):
    """Points given to White for each handicap stone (KataGo's ``whiteHandicapBonus``)."""

    NONE = "0"
    N_MINUS_1 = "N-1"
    N = "N"

    def points(self, handicap: int) -> int:
        """White's bonus for ``handicap`` stones (a handicap of 1 means no stones)."""
        if handicap < 2:
            return 0
        if self is HandicapBonus.N:
            return handicap
        if self is HandicapBonus.N_MINUS_1:
            return handicap - 1
        return 0


@dataclasses.dataclass(frozen=True)
class Rules:
    """A complete rule set. Immutable; use :meth:`replace` to derive one."""

    ko: KoRule = KoRule.SITUATIONAL
    scoring: Scoring = Scoring.AREA
    suicide: bool = False
    komi: float = 7.5
    handicap_bonus: HandicapBonus = HandicapBonus.NONE

    def __post_init__(self) -> None:
        if not math.isfinite(self.komi) or abs(self.komi) > 1000:
            raise InputError(f"komi must be a finite number of modest size, got {self.komi!r}")
        if round(self.komi * 2) != self.komi * 2:
            raise InputError(f"komi must be a multiple of 0.5, got {self.komi!r}")

    @staticmethod
    def preset(name: str) -> "Rules":
        """A named rule set: one of :data:`PRESETS`."""
        try:
            return PRESETS[name.lower()]
        except KeyError:
            raise InputError(f"unknown rule set {name!r}; known: {', '.join(sorted(PRESETS))}") from None

    def replace(self, **changes: object) -> "Rules":
        """A copy with some fields changed, e.g. ``rules.replace(komi=0.5)``."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    @property
    def superko(self) -> bool:
        """True when the ko rule needs the whole history, not only the last capture."""
        return self.ko is not KoRule.SIMPLE


PRESETS: dict[str, Rules] = {
    "chinese": Rules(KoRule.POSITIONAL, Scoring.AREA, False, 7.5, HandicapBonus.N),
    "japanese": Rules(KoRule.SIMPLE, Scoring.TERRITORY, False, 6.5, HandicapBonus.NONE),
    "tromp-taylor": Rules(KoRule.POSITIONAL, Scoring.AREA, True, 7.5, HandicapBonus.NONE),
    "book": Rules(KoRule.SITUATIONAL, Scoring.AREA, False, 7.5, HandicapBonus.NONE),
    # GNU Go's own legality: simple ko, no suicide (used by the differential test).
    "gnugo": Rules(KoRule.SIMPLE, Scoring.AREA, False, 7.5, HandicapBonus.NONE),
}
