"""Speed benchmarks behind ``fuseki bench NAME``, with peers measured side by side.

One module per benchmark, and one that they share:

==========  ==============================================================
``rules``   :mod:`fuseki.bench.rules`: uniform-random Go games through the
            Python API and inside a Numba kernel, against OpenSpiel and dlgo
``mcts``    :mod:`fuseki.bench.mcts`: MCTS playouts per second against
            dlgo's ``MCTSAgent``
``common``  :mod:`fuseki.bench.common`: what both share (rounds in
            rotating order, fresh-process JIT timing, machine and source
            info, ratios and the report table); not a benchmark
==========  ==============================================================

Each module returns its result as one JSON-ready ``dict``; the command
(:mod:`fuseki.commands.bench`) prints it as a table and, with ``--json``, as
the last line. Recorded results live in ``benchmarks/results/``.
"""
