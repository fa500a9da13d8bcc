"""Speed benchmarks behind ``fuseki bench NAME``, with peers measured side by side.

One module per benchmark:

==========  ==============================================================
``rules``   :mod:`fuseki.bench.rules`: uniform-random Go games through the
            Python API and inside a Numba kernel, against OpenSpiel and dlgo
==========  ==============================================================

Each module returns its result as one JSON-ready ``dict``; the command
(:mod:`fuseki.commands.bench`) prints it as a table and, with ``--json``, as
the last line. Recorded results live in ``benchmarks/results/``.
"""
