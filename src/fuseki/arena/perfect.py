"""Exact play for games small enough to solve, and the tic-tac-toe check built on it.

Tic-tac-toe is solved by a full alpha-beta search in milliseconds, so an
agent's strength there can be measured exactly rather than estimated by a
match: against perfect play every opening is a draw, and any loss is a
mistake. The Zero tests and ``benchmarks/zero_ttt_seeds.py`` count the
losses in the 18 games below (each first move, the agent as X then as O).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fuseki.arena.loop import play_game
from fuseki.games.tictactoe import TicTacToe
from fuseki.search.minimax import TranspositionTable, alphabeta


class PerfectPlayer:
    """Full-depth alpha-beta: exact play, deterministic (the first best move in legal-move order).

    Only for games whose whole tree a search can walk (tic-tac-toe,
    Hexapawn); the transposition table is kept between moves, so one
    player's game costs one search of the tree.
    """

    def __init__(self) -> None:
        self.tt = TranspositionTable()

    def select_move(self, state: Any) -> Any:
        return alphabeta(state, tt=self.tt).move


def losses_against_perfect(make_agent: Callable[[], Any]) -> list[str]:
    """Every game of the 18 (each first move, the agent as X then as O) that the agent lost, described.

    As X the agent's first move is forced to each square in turn; as O it
    answers each of the nine first moves of the perfect player. Perfect play
    draws every one of them, so a sound agent loses none. ``make_agent`` is
    called once a game, so that no tree or state carries between games.
    """
    game = TicTacToe()
    lost = []
    for first in game.initial_state().legal_moves():
        start = game.initial_state().play(first)
        for agent_side in (0, 1):
            players = {agent_side: make_agent(), 1 - agent_side: PerfectPlayer()}
            outcome = play_game(start, [players[0], players[1]])
            if outcome.winner == 1 - agent_side:
                lost.append(f"first move {first}, agent {'XO'[agent_side]}: moves {outcome.moves}")
    return lost
