"""Progress events and their renderers (fuseki.util.progress): lines, JSON lines, a tqdm bar; --json output."""

from __future__ import annotations

import io
import json

import pytest

from fuseki.util.progress import (
    BarRenderer,
    JsonRenderer,
    LineRenderer,
    Progress,
    open_renderer,
    print_json,
)

EVENTS = [
    Progress(1, 3, "game", "game 1/3: B+3.5, A wins", {"result": "B+3.5"}),
    Progress(2, 3, "game", "game 2/3: W+R, B wins", {"result": "W+R"}),
]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_lines_are_the_messages_one_a_line():
    out = io.StringIO()
    show = LineRenderer(out)
    for event in EVENTS:
        show(event)
    assert out.getvalue() == "game 1/3: B+3.5, A wins\ngame 2/3: W+R, B wins\n"


def test_json_lines_hold_the_counts_the_message_and_the_extra_numbers():
    out = io.StringIO()
    show = JsonRenderer(out)
    for event in EVENTS:
        show(event)
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    assert rows == [
        {"what": "game", "done": 1, "total": 3, "message": "game 1/3: B+3.5, A wins", "result": "B+3.5"},
        {"what": "game", "done": 2, "total": 3, "message": "game 2/3: W+R, B wins", "result": "W+R"},
    ]


def test_the_bar_shows_the_count_and_keeps_the_lines():
    out = Terminal()
    show = BarRenderer(out)
    for event in EVENTS:
        show(event)
    assert show.bar.n == 2 and show.bar.total == 3
    show(Progress(1, 10, "chunk", "chunk 1/10"))  # another kind of item: a new bar
    assert show.bar.n == 1 and show.bar.total == 10
    show.close()
    text = out.getvalue()
    assert "game 1/3: B+3.5, A wins" in text and "game 2/3: W+R, B wins" in text and "chunk 1/10" in text
    assert "2/3" in text and "1/10" in text  # the bars' counts


def test_auto_is_a_bar_on_a_terminal_and_lines_elsewhere():
    with open_renderer("auto", Terminal()) as show:
        assert isinstance(show, BarRenderer)
    with open_renderer("auto", io.StringIO()) as show:
        assert isinstance(show, LineRenderer)
    with open_renderer("none", io.StringIO()) as show:
        assert show is None
    with pytest.raises(ValueError, match="unknown progress mode 'loud'"), open_renderer("loud"):
        pass


def test_within_puts_the_outer_job_in_front():
    inner = EVENTS[0].within("round 2 eval: ", round=2)
    assert inner.message == "round 2 eval: game 1/3: B+3.5, A wins" and str(inner) == inner.message
    assert inner.to_dict()["round"] == 2 and inner.to_dict()["result"] == "B+3.5"
    assert (inner.done, inner.total, inner.what) == (1, 3, "game")


def test_print_json_prints_one_line_and_keeps_the_key_order_unless_asked():
    out = io.StringIO()
    print_json({"games": 2, "a_wins": 1, "results": [{"x": 1}]}, file=out)
    print_json({"b": 1, "a": 2}, file=out, sort_keys=True)
    first, second = out.getvalue().splitlines()
    assert first == '{"games": 2, "a_wins": 1, "results": [{"x": 1}]}'
    assert second == '{"a": 2, "b": 1}'
