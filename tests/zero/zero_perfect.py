"""Tic-tac-toe against the exhaustive alpha-beta player: the 18 games the Zero tests and docs count."""

from __future__ import annotations

from typing import Any

from fuseki.arena.loop import play_game
from fuseki.games.tictactoe import TicTacToe
from fuseki.search.minimax import TranspositionTable, alphabeta


class PerfectPlayer:
    """Full-depth alpha-beta (deterministic: the first best move in legal-move order)."""

    def __init__(self) -> None:
        self.tt = TranspositionTable()

    def select_move(self, state: Any) -> Any:
        return alphabeta(state, tt=self.tt).move


def losses_against_perfect(make_agent: Any) -> list[str]:
    """Every game of the 18 (each first move, the agent as X then as O) that the agent lost, described.

    As X the agent's first move is forced to each square in turn; as O it
    answers each of the nine first moves of the perfect player. Perfect play
    draws every one of them, so a sound agent loses none.
    """
    game = TicTacToe()
    lost = []
    for first in game.initial_state().legal_moves():
        start = game.initial_state().play(first)
        for agent_side in (0, 1):
            agent = make_agent()
            players = {agent_side: agent, 1 - agent_side: PerfectPlayer()}
            outcome = play_game(start, [players[0], players[1]])
            if outcome.winner == 1 - agent_side:
                lost.append(f"first move {first}, agent {'XO'[agent_side]}: moves {outcome.moves}")
    return lost
