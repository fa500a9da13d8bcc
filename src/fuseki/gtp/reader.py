"""Reading GTP input in the background: :class:`LineReader`.

An analysis command (``lz-analyze``, ``kata-analyze``) runs until the next
command arrives, and a clock starts when the controller sends ``genmove``,
not when the engine gets round to reading it. Both need the input read while
the engine is busy. A daemon thread reads lines as they come, stamps each
with its arrival time (:func:`time.perf_counter`), and queues them; the
engine takes them in order and can ask, between two batches of simulations,
whether anything is waiting.

Lines longer than :data:`MAX_LINE` characters are cut there and marked, so
that the engine answers them with one error; the rest of such a line is
read and dropped.

A stream with a file descriptor (the process's standard input, a pipe) is
read with :func:`os.read` and decoded here (UTF-8, bad bytes replaced; lines
end at LF only), never through the stream's buffered reader: a daemon thread
blocked inside a buffered read holds its lock, and the interpreter aborts at
exit when it finds that lock taken. Other streams (``io.StringIO`` in tests)
are read line by line.
"""

from __future__ import annotations

import codecs
import collections
import dataclasses
import io
import os
import threading
import time
from typing import TextIO

__all__ = ["INTERRUPT", "MAX_LINE", "Line", "LineReader"]

#: Longest command line read as one; longer lines get a ``?`` reply and are discarded.
MAX_LINE = 1 << 16
#: GoGui's interrupt: a comment line that stops the command in progress (``gogui-interrupt``).
INTERRUPT = "# interrupt"


@dataclasses.dataclass(frozen=True)
class Line:
    """One input line: its text (with the line feed), when it arrived, and whether it was cut."""

    text: str
    arrived: float
    too_long: bool = False


class LineReader:
    """Read ``stream`` line by line on a daemon thread; :meth:`get` hands the lines out in order."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._lines: collections.deque[Line | None] = collections.deque()  # None marks the end of input
        self._ready = threading.Condition()
        self._thread = threading.Thread(target=self._read, name="gtp-reader", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            fd = self._stream.fileno()
        except (OSError, ValueError, io.UnsupportedOperation):
            fd = -1
        if fd >= 0:
            self._read_fd(fd)
        else:
            self._read_lines()
        self._put(None)

    def _read_fd(self, fd: int) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        line = ""
        dropping = False  # inside an over-long line whose head was already queued
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                chunk = b""
            text = decoder.decode(chunk, final=not chunk)
            arrived = time.perf_counter()
            while text:
                end = text.find("\n")
                piece, text = (text, "") if end < 0 else (text[: end + 1], text[end + 1 :])
                if dropping:
                    dropping = end < 0
                    continue
                line += piece
                if end < 0:
                    if len(line) >= MAX_LINE:
                        self._put(Line(line[:MAX_LINE], arrived, True))
                        line, dropping = "", True
                    continue
                self._put(Line(line[:MAX_LINE], arrived, len(line) - 1 >= MAX_LINE))
                line = ""
            if not chunk:
                if line and not dropping:
                    self._put(Line(line[:MAX_LINE], arrived, len(line) >= MAX_LINE))
                return

    def _read_lines(self) -> None:
        try:
            while True:
                text = self._stream.readline(MAX_LINE)
                if not text:
                    break
                arrived = time.perf_counter()
                too_long = len(text) >= MAX_LINE and not text.endswith("\n")
                if too_long:
                    while True:  # drop the rest of the line
                        chunk = self._stream.readline(MAX_LINE)
                        if not chunk or chunk.endswith("\n"):
                            break
                self._put(Line(text, arrived, too_long))
        except (OSError, ValueError):  # a closed stream ends the input like an end of file
            pass

    def _put(self, item: Line | None) -> None:
        with self._ready:
            self._lines.append(item)
            self._ready.notify_all()

    def get(self) -> Line | None:
        """The next line (waiting for it), or ``None`` at the end of the input."""
        with self._ready:
            while not self._lines:
                self._ready.wait()
            item = self._lines[0]
            if item is not None:  # the end stays queued: every later get() sees it too
                self._lines.popleft()
            return item

    def pending(self) -> bool:
        """Anything waiting: a line (even an empty one or a comment) or the end of the input."""
        with self._ready:
            return bool(self._lines)

    def take_interrupt(self) -> bool:
        """True (and the line consumed) when the next waiting line is GoGui's ``# interrupt``.

        The end of the input is no interrupt: ``printf 'genmove b\\n' | fuseki gtp``
        must still search its whole budget.
        """
        with self._ready:
            if not self._lines:
                return False
            head = self._lines[0]
            if head is not None and head.text.strip() == INTERRUPT:
                self._lines.popleft()
                return True
            return False
