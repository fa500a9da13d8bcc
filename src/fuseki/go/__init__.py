"""Go rules: coordinates, rule sets, the board kernels, game states, handicap, SGF."""

from fuseki.go.coords import CoordinateError, Point
from fuseki.go.rules import HandicapBonus, KoRule, Rules, Scoring
from fuseki.go.sgf import GameRecord, SgfError, game_to_sgf, load_sgf, read_sgf, save_sgf
from fuseki.go.state import Color, GameState, IllegalMoveError, Move, Score

__all__ = [
    "Color",
    "GameRecord",
    "SgfError",
    "game_to_sgf",
    "load_sgf",
    "read_sgf",
    "save_sgf",
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
