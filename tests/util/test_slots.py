"""play_in_slots: every game played once, results here in this thread, and an abort that stops the slots."""

from __future__ import annotations

import threading
import time

import pytest

from fuseki.util.slots import play_in_slots


def test_every_game_is_played_once_across_the_slots() -> None:
    seen: list[tuple[int, str]] = []
    results: list[int] = []
    main = threading.current_thread()
    in_main: list[bool] = []

    def play(game: int, slot: str, abort: threading.Event) -> int:
        time.sleep(0.01)
        seen.append((game, slot))
        return game * 10

    def finished(result: int) -> None:
        in_main.append(threading.current_thread() is main)
        results.append(result)

    play_in_slots(range(1, 13), ["a", "b", "c"], play, finished, lambda slot: None)
    assert sorted(results) == [g * 10 for g in range(1, 13)]
    assert sorted(g for g, _ in seen) == list(range(1, 13)) and all(in_main)
    assert len({s for _, s in seen}) > 1  # the slots shared the games


def test_an_error_stops_every_slot_and_writes_nothing_more() -> None:
    stopped: list[str] = []
    written: list[int] = []
    release = threading.Event()

    def play(game: int, slot: str, abort: threading.Event) -> int | None:
        if game == 1:
            raise RuntimeError("engine exploded")
        release.wait(5)  # a game in flight when the match is aborted
        if abort.is_set():
            return None
        written.append(game)
        return game

    def stop(slot: str) -> None:
        stopped.append(slot)
        release.set()

    with pytest.raises(RuntimeError, match="engine exploded"):
        play_in_slots([1, 2, 3, 4], ["a", "b"], play, lambda r: None, stop)
    assert sorted(stopped) == ["a", "b"] and written == []
