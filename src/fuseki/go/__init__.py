"""Go rules: coordinates, rule sets, the board kernels, game states, handicap, SGF."""

from fuseki.go.coords import CoordinateError, Point
from fuseki.go.rules import HandicapBonus, KoRule, Rules, Scoring
from fuseki.go.state import Color, GameState, IllegalMoveError, Move, Score

__all__ = [
    "Color",
    "CoordinateError",
    "GameState",
    "HandicapBonus",
    "IllegalMoveError",
    "KoRule",
    "Move",
    "Point",
    "Rules",
    "Score",
    "Scoring",
]
