#!/usr/bin/env bash
# Self-play A/B: MCTS at 0ae0e08 (ladder priors, no settled pass) vs 8c7b38a, 3,000 playouts a move each.
set -euo pipefail
cd "$(dirname "$0")/../../.."
PY=$(pwd)/.venv/bin/python
.venv/bin/fuseki match \
    "env PYTHONPATH=/tmp/fuseki-v2-0ae0e08/src $PY -m fuseki gtp --bot mcts --playouts 3000" \
    "env PYTHONPATH=/tmp/fuseki-strength-8c7b38a0e01e/src $PY -m fuseki gtp --bot mcts --playouts 3000" \
    --size 9 --komi 7.5 --games "${GAMES:-40}" --sgf-dir benchmarks/results/mcts_ab/v2_vs_v1 --json
