"""The one base class of the errors a user can cause.

A command line or a web request that fails because of what the user gave it
(a bad SGF file, an illegal move, an unknown bot name, a flag out of range, a
missing file) should say so in one line. Every other exception is a bug in
fuseki and deserves a traceback and a bug report. :class:`FusekiError` is the
line between the two: ``fuseki`` (``cli.py``) prints a ``FusekiError`` as one
line with exit status 2, and anything else with its traceback and a request
for a bug report (exit status 1). :class:`InputError` is the usual one: a
value the user gave (a flag, an option, a file's content) that cannot be used.

Subclasses often keep a second, older base (``class SgfError(FusekiError,
ValueError)``) so that code which catches ``ValueError`` keeps working.

>>> class BadBoardSize(FusekiError, ValueError):
...     pass
>>> isinstance(BadBoardSize("size 40"), ValueError)
True
"""

from __future__ import annotations

__all__ = ["FusekiError", "InputError"]


class FusekiError(Exception):
    """An error caused by the user's input (a file, a flag, a move, a name), not by a bug in fuseki."""


class InputError(FusekiError, ValueError):
    """A value the user gave that cannot be used: a flag, an option, a setting, a file's content.

    A ``ValueError`` too, so code that catches ``ValueError`` (and the tests
    that expect one) keep working; the command line shows it as one line.
    """
