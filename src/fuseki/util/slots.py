"""Games played several at a time, one thread per slot of engines, as cutechess-cli's ``-concurrency``.

A match between external engines (GTP or UCI programs) spends its time
waiting on their pipes, so threads are enough: each *slot* holds its own
engine processes and plays one game after another, taking the next game
from one queue. :func:`play_in_slots` is that loop, shared by the Go match
(:mod:`fuseki.arena.match`) and the chess match (:mod:`fuseki.chess.match`),
with the one rule both need when the match ends early: stop every engine,
and write no game that the stop cut short (a killed engine would read as a
forfeit); the next run plays it again.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["play_in_slots"]

S = TypeVar("S")
R = TypeVar("R")


def play_in_slots(
    todo: Sequence[int],
    slots: Sequence[S],
    play: Callable[[int, S, threading.Event], R | None],
    finished: Callable[[R], None],
    stop: Callable[[S], None],
    *,
    name: str = "slot",
) -> None:
    """Play the games ``todo``, one thread per slot; ``finished(result)`` here, in this thread, as each ends.

    ``play(game, slot, abort)`` plays and writes one game with the slot's
    engines and returns its result, or ``None`` when ``abort`` was set during
    the game (it must then write nothing). Anything that ends the match early
    (Ctrl-C here, an exception in ``finished`` or in a thread) aborts it: no
    thread takes another game, ``stop(slot)`` ends every slot's engines, and
    the first exception is raised once the threads have stopped.
    """
    pending: queue.SimpleQueue[int] = queue.SimpleQueue()
    for game in todo:
        pending.put(game)
    # A finished game's result, a thread's exception, or a marker that a thread ended.
    done: queue.SimpleQueue[tuple[str, object]] = queue.SimpleQueue()
    abort = threading.Event()

    def work(slot: S) -> None:
        try:
            while not abort.is_set():
                try:
                    game = pending.get_nowait()
                except queue.Empty:
                    return
                result = play(game, slot, abort)
                if result is None or abort.is_set():
                    return
                done.put(("result", result))
        except BaseException as e:  # handed to the main thread, which raises it
            done.put(("error", e))
        finally:
            done.put(("end", None))

    threads = [
        threading.Thread(target=work, args=(slot,), name=f"{name}-{k}", daemon=True) for k, slot in enumerate(slots, 1)
    ]
    for thread in threads:
        thread.start()
    running = len(threads)
    try:
        while running:
            try:
                kind, item = done.get(timeout=0.5)  # a timeout keeps Ctrl-C prompt
            except queue.Empty:
                continue
            if kind == "end":
                running -= 1
            elif kind == "error":
                assert isinstance(item, BaseException)
                raise item
            else:
                finished(item)  # type: ignore[arg-type]
    finally:
        if running:
            abort.set()
            for slot in slots:
                stop(slot)
            for thread in threads:
                thread.join(timeout=10)
