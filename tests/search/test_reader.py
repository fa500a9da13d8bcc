"""The playouts' colour-board ladder reader agrees with the exact reader of fuseki.go.ladder."""

from __future__ import annotations

import numpy as np

from fuseki.go import Color, GameState
from fuseki.go import kernels as K
from fuseki.go.ladder import ladder_captured
from fuseki.search.go.reader import ladder_after_move, ladder_read, libs, load, play, reader_stack


def test_play_captures_and_refuses_suicide() -> None:
    s = GameState.from_ascii(
        """
        . X O . .
        X O . . .
        . . . . .
        . . . . .
        . . . . .
        """
    )
    cols, _, rwork = reader_stack(5)
    load(s._buf, cols)
    w = 7

    def q(r: int, c: int) -> int:
        return (r + 1) * w + c + 1

    assert libs(cols[0], q(1, 1), w, rwork, 3)[0] == 2
    assert play(cols[0], q(0, 0), K.WHITE, w, rwork, 0) >= 0  # takes the last liberty of the black stone at (0,1)
    assert cols[0, q(0, 1)] == K.EMPTY and cols[0, q(1, 0)] == K.BLACK
    load(GameState.from_ascii(". X . . .\nX . . . .\n. . . . .\n. . . . .\n. . . . .")._buf, cols)
    assert play(cols[0], q(0, 0), K.WHITE, w, rwork, 0) < 0  # suicide: no liberty, no capture
    assert cols[0, q(0, 0)] == K.EMPTY
    assert play(cols[0], q(0, 1), K.WHITE, w, rwork, 0) < 0  # occupied


def test_ladder_read_agrees_with_the_exact_reader() -> None:
    """Every string in atari or with two liberties on many random boards: the same verdict as ladder_captured."""
    checked = 0
    for seed in range(40):
        n = 9 if seed % 2 else 7
        buf = GameState.new(n)._buf.copy()
        K.seed_kernels(seed)
        K.playout(buf, K.POLICY_NO_EYES, 20 + seed % 25)
        if buf[K.M_PASSES] >= 2:
            continue
        cols, rmoves, rwork = reader_stack(n, 4 * n)
        w = n + 2
        to_move = int(buf[K.M_TOMOVE])
        for p in range(n * n):
            q = int(K.PAD[n, p])
            color = int(buf[K.META + q])
            if color not in (K.BLACK, K.WHITE):
                continue
            load(buf, cols)
            count = libs(cols[0], q, w, rwork, 3)[0]
            if (color == to_move and count != 1) or (color != to_move and count != 2):
                continue
            fast = ladder_read(cols, rmoves, rwork, q, to_move, int(buf[K.M_KO]), w, 10_000)
            assert fast == ladder_captured(buf, p, max_nodes=10_000), (seed, p)
            checked += 1
    assert checked > 50


def test_ladder_after_move_reads_an_escape() -> None:
    s = GameState.from_ascii(
        """
        . . . . . . .
        . . . . . . .
        . . X X . . .
        . X O . . . .
        . . X . . . .
        . . . . . . .
        . . . . . . .
        """,
        to_move=Color.WHITE,
    )
    cols, rmoves, rwork = reader_stack(7, 28)
    escape = int(K.PAD[7, 3 * 7 + 3])
    assert ladder_after_move(s._buf, escape, K.WHITE, cols, rmoves, rwork, 200)  # runs into a ladder
    assert not ladder_after_move(s._buf, escape, K.WHITE, cols, rmoves, rwork, 2)  # out of reading: an escape
    breaker = s.play((5, 5)).play((0, 0))  # a white ladder breaker on the path (Black answered in the corner)
    assert not ladder_captured(breaker.play((3, 3))._buf, 3 * 7 + 3)  # the premise, by the exact reader
    assert not ladder_after_move(breaker._buf, escape, K.WHITE, cols, rmoves, rwork, 200)
    assert ladder_captured(s.play((3, 3))._buf, 3 * 7 + 3)
    assert np.all(cols[0, : 7 + 2] == K.BORDER)
