"""Keep glibc from handing freed heap memory back to the system after every game.

Every :class:`~fuseki.go.state.GameState` owns one buffer (3.8 KB on 9x9,
13.9 KB on 19x19) and keeps its parent, so a finished game frees a few
megabytes at once. With glibc's default trim threshold (128 KB) that memory
goes back to the kernel and the next game faults it in again, page by page:
measured here, a Python-level move on 19x19 cost up to 8.5 µs instead of
2.2 µs, and a buffer copy on 9x9 0.39 µs instead of 0.29 µs.

Raising the trim threshold and the top pad keeps that memory in the process
for reuse. The cost is that a process may hold up to ``TRIM_THRESHOLD`` of
freed memory it is not using. Set ``FUSEKI_KEEP_MALLOC=1`` to leave the
allocator alone (or tune glibc yourself with ``MALLOC_TRIM_THRESHOLD_``).
Only glibc is touched; elsewhere this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

M_TRIM_THRESHOLD = -1
M_TOP_PAD = -2
TRIM_THRESHOLD = 128 * 1024 * 1024
TOP_PAD = 16 * 1024 * 1024

_done = False


def tune_malloc() -> bool:
    """Raise glibc's trim threshold and top pad once per process; True if applied."""
    global _done
    if _done:
        return True
    if os.environ.get("FUSEKI_KEEP_MALLOC") or not sys.platform.startswith("linux"):
        return False
    # The user's own glibc settings win.
    if "MALLOC_TRIM_THRESHOLD_" in os.environ or "MALLOC_TOP_PAD_" in os.environ:
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    ok = bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)) and bool(mallopt(M_TOP_PAD, TOP_PAD))
    _done = ok
    return ok
