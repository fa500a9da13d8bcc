"""What a long job tells its user: one :class:`Progress` event type, three ways to show it, and ``--json`` output.

A job (a match, an evaluation, a corpus, self-play, data processing, the RL
loop) calls its ``progress`` callback with a :class:`Progress` after each
item it finishes: how many of how many, what an item is, a human line, and
the numbers behind the line. The command decides how to show it
(``--progress``, :func:`open_renderer`):

- ``lines``: the human line, on stderr (what a log file wants);
- ``bar``: a ``tqdm`` bar with the lines above it (a terminal; ``auto``
  chooses it when stderr is one);
- ``json``: one JSON object a line (what a program that drives the job wants);
- ``none``: nothing.

With ``--json`` a command's last line on stdout is one JSON object with its
result: :func:`print_json` prints it, the same way for every command.

>>> p = Progress(2, 5, "game", "game 2/5: B+3.5", {"result": "B+3.5"})
>>> str(p)
'game 2/5: B+3.5'
>>> JsonRenderer(sys.stdout)(p)
{"what": "game", "done": 2, "total": 5, "message": "game 2/5: B+3.5", "result": "B+3.5"}
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import IO, Any

__all__ = [
    "PROGRESS_MODES",
    "BarRenderer",
    "JsonRenderer",
    "LineRenderer",
    "Progress",
    "ProgressCallback",
    "open_renderer",
    "print_json",
]

#: The choices of ``--progress``.
PROGRESS_MODES = ("auto", "lines", "bar", "json", "none")


@dataclasses.dataclass(frozen=True)
class Progress:
    """One step of a long job: ``done`` of ``total`` items (``what``: game, chunk, shard, round) are finished.

    ``message`` is the human line (``str(progress)`` is the same);
    ``extra`` holds the numbers behind it, for JSON.
    """

    done: int
    total: int
    what: str
    message: str
    extra: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def __str__(self) -> str:
        return self.message

    def to_dict(self) -> dict[str, Any]:
        return {"what": self.what, "done": self.done, "total": self.total, "message": self.message, **self.extra}

    def within(self, prefix: str, **extra: Any) -> Progress:
        """The same event seen from a job that runs this one: ``prefix`` before the line, ``extra`` added.

        >>> Progress(1, 4, "game", "game 1/4: W+R").within("round 2 eval: ", round=2).to_dict()["message"]
        'round 2 eval: game 1/4: W+R'
        """
        return dataclasses.replace(self, message=prefix + self.message, extra={**extra, **self.extra})


#: What a job's ``progress`` argument is called with.
ProgressCallback = Callable[[Progress], None]


class LineRenderer:
    """Each event's line, flushed at once (a log, a pipe, a test's captured stderr)."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def __call__(self, event: Progress) -> None:
        print(event.message, file=self.stream, flush=True)

    def close(self) -> None:
        """Nothing to close (the stream is the caller's)."""


class JsonRenderer:
    """Each event as one JSON object a line (:meth:`Progress.to_dict`)."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def __call__(self, event: Progress) -> None:
        print(json.dumps(event.to_dict(), default=str), file=self.stream, flush=True)

    def close(self) -> None:
        """Nothing to close (the stream is the caller's)."""


class BarRenderer:
    """A ``tqdm`` bar of ``done`` out of ``total``, with each event's line printed above it.

    A new bar starts when the kind of item or the total changes (the RL loop
    goes from self-play chunks to evaluation games).
    """

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.bar: Any = None
        self._key: tuple[str, int] | None = None

    def __call__(self, event: Progress) -> None:
        from tqdm import tqdm  # only when a bar is shown

        key = (event.what, event.total)
        if self.bar is None or key != self._key:
            self.close()
            self.bar = tqdm(total=event.total, unit=event.what, file=self.stream, dynamic_ncols=True)
            self._key = key
        self.bar.write(event.message, file=self.stream)
        self.bar.n = event.done
        self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


@contextlib.contextmanager
def open_renderer(mode: str = "auto", stream: IO[str] | None = None) -> Iterator[ProgressCallback | None]:
    """The renderer of ``mode`` (:data:`PROGRESS_MODES`) on ``stream`` (stderr), closed at the end.

    ``auto`` is a bar on a terminal and lines anywhere else; ``none`` yields ``None``.
    """
    if mode not in PROGRESS_MODES:
        raise ValueError(f"unknown progress mode {mode!r}; one of {', '.join(PROGRESS_MODES)}")
    out = stream if stream is not None else sys.stderr
    if mode == "none":
        yield None
        return
    if mode == "auto":
        mode = "bar" if out.isatty() else "lines"
    renderer: LineRenderer | JsonRenderer | BarRenderer
    if mode == "bar":
        renderer = BarRenderer(out)
    elif mode == "json":
        renderer = JsonRenderer(out)
    else:
        renderer = LineRenderer(out)
    try:
        yield renderer
    finally:
        renderer.close()


def print_json(
    obj: Any,
    *,
    file: IO[str] | None = None,
    sort_keys: bool = False,
    default: Callable[[Any], Any] | None = None,
) -> None:
    """Print ``obj`` as one line of JSON and flush: the last line of a command run with ``--json``.

    The object's own key order is kept unless ``sort_keys`` (some results
    promise their first keys in a fixed order); ``default`` as in
    :func:`json.dumps`.
    """
    text = json.dumps(obj, sort_keys=sort_keys, default=default)
    print(text, file=file if file is not None else sys.stdout, flush=True)
