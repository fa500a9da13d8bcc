"""Finding external programs (GNU Go, michi-c, another GTP engine) from a command line.

Every job that starts an engine (a match, a corpus, dead-stone labels, the
rules check) splits the user's command the same way and finds ``gnugo`` where
Debian puts it (``/usr/games``, often not on ``PATH``), so one function does
it for all of them.
"""

from __future__ import annotations

import os
import shlex
import shutil

__all__ = ["GNUGO_FALLBACK", "program_exists", "resolve_command"]

#: Where Debian installs GNU Go; ``/usr/games`` is often not on PATH.
GNUGO_FALLBACK = "/usr/games/gnugo"


def resolve_command(command: str) -> list[str]:
    """Split an engine command line like a shell; find ``gnugo`` in ``/usr/games`` too.

    Raises ``ValueError`` for an empty or unbalanced command.
    """
    try:
        argv = shlex.split(command)
    except ValueError as e:
        raise ValueError(f"cannot split engine command {command!r}: {e}") from None
    if not argv:
        raise ValueError("empty engine command")
    if (
        argv[0] == "gnugo"
        and shutil.which("gnugo") is None
        and os.access(GNUGO_FALLBACK, os.X_OK)
    ):
        argv[0] = GNUGO_FALLBACK
    return argv


def program_exists(argv: list[str]) -> bool:
    """Whether ``argv[0]`` is an executable file (with a path) or a program on ``PATH``."""
    prog = argv[0]
    if os.sep in prog:
        return os.access(prog, os.X_OK)
    return shutil.which(prog) is not None
