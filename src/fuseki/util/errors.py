"""The base of every error a user can cause, so the command line can tell them from bugs.

``fuseki`` prints a :class:`FusekiError` as one line and exits with status 2
(a malformed SGF, an illegal move, a bad flag, a missing file); anything else
is a bug and keeps its traceback.
"""

from __future__ import annotations

__all__ = ["FusekiError"]


class FusekiError(Exception):
    """An error in what the user asked for or gave (input, flags, files), not in fuseki."""
