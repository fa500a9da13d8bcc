"""The background line reader of the GTP engine: raw descriptors and text streams alike."""

from __future__ import annotations

import io
import os
import threading

import pytest

from fuseki.gtp.reader import MAX_LINE, LineReader


def lines_of(data: bytes, *, pipe: bool) -> list[tuple[str, bool]]:
    if pipe:
        r, w = os.pipe()

        def feed() -> None:
            with os.fdopen(w, "wb") as f:
                for i in range(0, len(data), 4096):  # in pieces, as a pipe delivers them
                    f.write(data[i : i + 4096])
                    f.flush()

        threading.Thread(target=feed, daemon=True).start()
        stream = os.fdopen(r, "r", encoding="utf-8", errors="replace", newline="\n")
    else:
        stream = io.StringIO(data.decode("utf-8", errors="replace"), newline="\n")
    reader = LineReader(stream)
    out = []
    while (line := reader.get()) is not None:
        out.append((line.text, line.too_long))
    assert reader.get() is None and reader.pending()  # the end stays
    return out


@pytest.mark.parametrize("pipe", [True, False])
def test_lines_long_lines_and_the_last_line(pipe: bool) -> None:
    data = b"name\r\n" + b"x" * (MAX_LINE + 10) + b"\n" + b"\xff\xfeversion\n" + b"quit"
    got = lines_of(data, pipe=pipe)
    assert got[0] == ("name\r\n", False)  # CR is kept: GTP strips it as a control character
    assert got[1][1] and len(got[1][0]) == MAX_LINE  # cut, marked, the rest dropped
    assert got[2] == ("\ufffd\ufffdversion\n", False)
    assert got[3] == ("quit", False)
    assert len(got) == 4


def test_interrupt_is_taken_only_at_the_head() -> None:
    reader = LineReader(io.StringIO("genmove b\n# interrupt\nname\n"))
    first = reader.get()
    assert first is not None and first.text == "genmove b\n"
    while not reader.pending():
        pass
    assert reader.take_interrupt()
    assert not reader.take_interrupt()  # the head is now "name": not an interrupt, not consumed
    nxt = reader.get()
    assert nxt is not None and nxt.text == "name\n"


def test_piped_genmove_searches_its_whole_budget_before_the_end_of_input() -> None:
    from fuseki.agents.mcts_agent import MCTSAgent
    from fuseki.gtp.engine import GtpEngine

    agent = MCTSAgent(playouts=300, seed=1)
    out = io.StringIO()
    engine = GtpEngine(agent, size=9, stdin=io.StringIO("genmove b\n"), stdout=out, log=io.StringIO())
    engine.run()  # the end of input is queued at once: it must not cut the search short
    assert out.getvalue().startswith("= ")
    assert agent.last_info is not None and agent.last_info.playouts == 300
