"""Run a chess Zero network as a UCI engine on stdin/stdout, for chess GUIs, cutechess and python-chess.

::

    fuseki uci --model runs/chess/gen-0010.safetensors [--simulations 800] [--threads 1] [--device auto]

The file must be a chess network of ``fuseki zero train chess`` (or of the
warm start, ``fuseki chess-warmstart train``); a wrong or broken file is
refused at once, before torch loads. Only UCI goes to standard output.
See docs/chess-zero.md and :mod:`fuseki.chess.uci`.
"""

from __future__ import annotations

import argparse
import sys

from fuseki.cli import UserError, int_at_least


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", required=True, metavar="FILE", help="a chess Zero network file (gen-NNNN.safetensors)")
    parser.add_argument(
        "--simulations", type=int_at_least(1), default=400, help="simulations of a plain 'go' (the Simulations option; default 400)"
    )
    parser.add_argument("--threads", type=int_at_least(1), default=1, help="torch threads (the Threads option; default 1)")
    parser.add_argument(
        "--batch", type=int_at_least(1), default=8, help="leaves per network call, under virtual loss (the Batch option; default 8)"
    )
    parser.add_argument("--device", choices=("auto", "cpu", "cuda", "mps"), default="cpu", help="where the network runs (default cpu)")
    parser.add_argument("--name", default="fuseki", help="the name the engine gives in 'id name' (default fuseki)")


def run(args: argparse.Namespace) -> int:
    from fuseki.chess.uci import UciEngine, UciOptions, check_chess_model
    from fuseki.util.errors import FusekiError

    try:
        check_chess_model(args.model)
    except FusekiError as e:
        raise UserError(str(e)) from None
    path = args.model

    def load():  # type: ignore[no-untyped-def]
        # Imported here: torch takes seconds to load, and ``uci`` is answered before it is.
        from fuseki.agents.zero_agent import load_zero_network

        network, game, _ = load_zero_network(path)
        if game.name != "chess":
            raise UserError(f"{path} is a Zero network for {game.name}, not chess")
        return network, game

    def set_threads(n: int) -> None:
        import torch

        torch.set_num_threads(n)

    options = UciOptions(threads=args.threads, simulations=args.simulations, batch=args.batch)
    engine = UciEngine(load, sys.stdout, name=args.name, options=options, device=args.device, set_threads=set_threads)
    return engine.serve(iter(sys.stdin.readline, ""))
