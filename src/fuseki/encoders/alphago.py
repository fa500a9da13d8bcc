"""AlphaGo's 48 feature planes (book ch. 13, table 13.1; Silver et al. 2016, table 2).

Every feature is from the point of view of the player to move. The features
with eight planes are one-hot; the last plane of each holds "that many or
more". Move features (sensibleness, liberties after the move, capture size,
self-atari size, ladders) are set only on legal points (superko applied).

=======  ====================  ==========================================================
planes   feature               1 on
=======  ====================  ==========================================================
0-2      stone colour          own stone / opponent's stone / empty point
3        ones                  every point
4        zeros                 no point
5        sensibleness          legal moves that do not fill an own eye (the book's eye)
6-13     turns since           stones played 1, 2, ..., 7, 8+ moves ago (8+ also for
                               stones placed before the recorded history)
14-21    liberties             stones whose string has 1, 2, ..., 7, 8+ liberties
22-29    liberties after move  moves after which the new string has 1, ..., 8+ liberties
30-37    capture size          moves that capture 0, 1, ..., 6, 7+ opponent stones
38-45    self-atari size       moves that leave their own new string of 1, ..., 8+ stones
                               with a single liberty
46       ladder capture        moves that atari an opponent string (two liberties before)
                               that then cannot escape the ladder
47       ladder escape         moves that take an own string out of atari so that it
                               cannot be captured by a ladder (three or more liberties,
                               or two from which the ladder fails)
48       player colour         every point when Black is to move (only with
                               ``player_plane=True``: the value network's 49th plane)
=======  ====================  ==========================================================

The ladder reader is in :mod:`fuseki.encoders._features`: the attacker plays
only ataris, the defender only extends or captures an adjacent attacker in
atari; reading stops after :data:`~fuseki.encoders._features.LADDER_MAX_DEPTH`
plies or :data:`~fuseki.encoders._features.LADDER_MAX_NODES` positions (an
escape).

>>> from fuseki.go import GameState
>>> enc = AlphaGoEncoder(9)
>>> enc.shape
(48, 9, 9)
>>> planes = enc.encode(GameState.new(9))
>>> int(planes[3].sum()), int(planes[5].sum()), int(planes[30].sum())
(81, 81, 81)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from fuseki.encoders import _features as F
from fuseki.encoders._common import PlaneEncoder, legal_points

if TYPE_CHECKING:
    from fuseki.go.state import GameState


def _names(feature: str, labels: list[str]) -> tuple[str, ...]:
    return tuple(f"{feature} {label}" for label in labels)


_PLANE_NAMES = (
    ("stone: own", "stone: opponent", "stone: empty", "ones", "zeros", "sensibleness")
    + _names("turns since", [str(i) for i in range(1, 8)] + ["8+"])
    + _names("liberties", [str(i) for i in range(1, 8)] + ["8+"])
    + _names("liberties after move", [str(i) for i in range(1, 8)] + ["8+"])
    + _names("capture size", [str(i) for i in range(0, 7)] + ["7+"])
    + _names("self-atari size", [str(i) for i in range(1, 8)] + ["8+"])
    + ("ladder capture", "ladder escape")
)
assert len(_PLANE_NAMES) == 48

#: Plane offsets by feature, as dlgo's ``FEATURE_OFFSETS``.
FEATURE_OFFSETS = {
    "stone_color": F.P_STONE,
    "ones": F.P_ONES,
    "zeros": F.P_ZEROS,
    "sensibleness": F.P_SENSIBLE,
    "turns_since": F.P_TURNS,
    "liberties": F.P_LIBS,
    "liberties_after": F.P_LIBS_AFTER,
    "capture_size": F.P_CAPTURE,
    "self_atari_size": F.P_SELF_ATARI,
    "ladder_capture": F.P_LADDER_CAPTURE,
    "ladder_escape": F.P_LADDER_ESCAPE,
    "current_player_color": F.P_PLAYER,
}


class AlphaGoEncoder(PlaneEncoder):
    """AlphaGo's policy-network features (48 planes), or 49 with the player plane."""

    name = "alphago"

    def __init__(self, size: int = 19, player_plane: bool = False) -> None:
        super().__init__(size)
        self.player_plane = bool(player_plane)
        # The registry name that rebuilds this encoder (manifests store it).
        self.name = "alphago49" if self.player_plane else "alphago"  # type: ignore[misc]

    def __repr__(self) -> str:
        return f"AlphaGoEncoder(size={self.size}, player_plane={self.player_plane})"

    @property
    def plane_names(self) -> tuple[str, ...]:
        return _PLANE_NAMES + (("player colour: black",) if self.player_plane else ())

    def encode(self, state: "GameState") -> np.ndarray:
        self._check(state)
        n2 = self.size * self.size
        ages = np.zeros(n2, dtype=np.int32)
        s = state
        for k in range(1, 8):
            if s.parent is None:
                break
            last = s.last_index
            if last is not None and last < n2 and ages[last] == 0:
                ages[last] = k
            s = s.parent
        out = np.zeros((self.num_planes, n2), dtype=np.uint8)
        F.alphago_planes(state.buffer, legal_points(state), ages, out, self.player_plane, F.LADDER_MAX_NODES)
        return out.reshape(self.shape)


def alphago49_encoder(size: int = 19) -> AlphaGoEncoder:
    """The 48 planes plus the player-colour plane that the book's value network reads (``alphago49``)."""
    return AlphaGoEncoder(size, player_plane=True)
