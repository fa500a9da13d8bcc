"""Tic-tac-toe from zero with the Gumbel root at 8 simulations: losses against perfect play, seed by seed.

The test ``test_tictactoe_from_zero_with_the_gumbel_root_and_few_simulations``
trains one seed for ten generations. At 8 simulations a move the outcome
depends on the run's floating-point sums, so another CPU can end in another
network: this script measures how far the result moves, over seeds and
generations, on the machine it runs on (docs/zero.md, "The Gumbel root").
For every seed and every generation asked for it counts the games lost of
the 18 against perfect play (``fuseki.arena.perfect``) by the network alone
(one simulation: the root's priors decide) and by 8- and 25-simulation searches.

    python benchmarks/zero_ttt_seeds.py --seeds 0,1,2 --generations 0,8-13 \
        --out benchmarks/results/zero_ttt_seeds.json
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
from pathlib import Path
from typing import Any

from fuseki.agents.zero_agent import ZeroAgent
from fuseki.arena.perfect import losses_against_perfect
from fuseki.bench.common import finish_record, machine_info
from fuseki.zero.loop import ZeroSettings, network_path, run_zero

#: The test's settings (tests/zero/test_zero_loop.py: TICTACTOE with 8 simulations and the Gumbel root).
SETTINGS = ZeroSettings(games=80, simulations=8, temperature_moves=4, epochs=4, seed=0, root="gumbel", gumbel_m=9)
SEARCHES = (1, 8, 25)


def parse_generations(text: str) -> list[int]:
    """``"0,8-13"`` -> ``[0, 8, 9, 10, 11, 12, 13]``: sorted, each once."""
    found: set[int] = set()
    for part in text.split(","):
        low, _, high = part.partition("-")
        first, last = int(low), int(high or low)
        if first < 0 or last < first:
            raise ValueError(f"bad generation range {part!r}")
        found.update(range(first, last + 1))
    return sorted(found)


def rate_seed(seed: int, generations: list[int], folder: Path) -> list[dict[str, Any]]:
    """Train ``seed`` generation by generation up to the last asked for, counting losses at each one asked for."""
    settings = dataclasses.replace(SETTINGS, seed=seed)
    rows = []
    for generation in generations:
        # Generation 0 is the random network the run starts from, written before generation 1 trains.
        state = run_zero(folder, settings, max(generation, 1))
        path = network_path(folder, generation)
        losses = {str(s): len(losses_against_perfect(lambda s=s, p=path: ZeroAgent.from_file(p, simulations=s)))
                  for s in SEARCHES}
        loss = state["history"][generation - 1]["train"]["loss"] if generation else None
        rows.append({"seed": seed, "generation": generation, "losses_of_18": losses, "train_loss": loss})
        print(f"seed {seed} generation {generation:2d}: lost {losses} (simulations: losses of 18)", flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0,1,2", help="comma-separated seeds")
    parser.add_argument("--generations", default="0,8-13", help="generations to rate, e.g. 0,8-13")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    try:
        seeds = [int(s) for s in args.seeds.split(",")]
        generations = parse_generations(args.generations)
    except ValueError as error:
        parser.error(str(error))
    rows: list[dict[str, Any]] = []
    for seed in seeds:
        with tempfile.TemporaryDirectory() as folder:
            rows += rate_seed(seed, generations, Path(folder) / "ttt")
    result = {"settings": dataclasses.asdict(SETTINGS) | {"seed": seeds}, "searches": list(SEARCHES),
              "rows": rows, "machine": machine_info()}
    return finish_record(result, "benchmarks/zero_ttt_seeds.py", argv, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
