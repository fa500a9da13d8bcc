#!/usr/bin/env bash
# The strength benchmark of issue 5 (resumable: rerun to continue where it stopped).
# fuseki mcts (5 s per move) vs GNU Go 3.8 --level 10, 9x9, komi 7.5, colours alternating.
set -euo pipefail
cd "$(dirname "$0")/../../.."
D=benchmarks/results/mcts_vs_gnugo10_9x9
.venv/bin/fuseki match \
    ".venv/bin/fuseki gtp --bot mcts --seconds 5 --log $D/mcts_moves.jsonl" \
    "gnugo --mode gtp --level 10" \
    --size 9 --komi 7.5 --games "${GAMES:-100}" --move-time 30 --sgf-dir "$D/games" --json
