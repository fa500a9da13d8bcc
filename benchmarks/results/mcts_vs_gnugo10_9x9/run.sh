#!/usr/bin/env bash
# The strength benchmark of issue 5 (resumable: rerun to continue where it stopped).
# fuseki mcts (5 s per move) vs GNU Go 3.8 --level 10, 9x9, komi 7.5, colours alternating.
#
#   bash benchmarks/results/mcts_vs_gnugo10_9x9/run.sh [COMMIT] [SHARD]
#
# The engine runs from a detached worktree of COMMIT (default: HEAD) so that
# editing the source during a long run cannot change the engine mid-match.
# SHARD (default 1) names an independent match of GAMES games (default 50)
# in games/COMMIT-SHARD/: two shards run side by side on a 2-core machine, one
# core each. summarize.py adds the shards up.
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$(pwd)
D=$ROOT/benchmarks/results/mcts_vs_gnugo10_9x9
COMMIT=$(git rev-parse "${1:-HEAD}")
SHARD=${2:-1}
OUT=$D/games/${COMMIT:0:7}-$SHARD
mkdir -p "$OUT"
WT=${TMPDIR:-/tmp}/fuseki-strength-${COMMIT:0:12}
[ -d "$WT" ] || git worktree add -f --detach "$WT" "$COMMIT" >/dev/null
export PYTHONPATH=$WT/src
.venv/bin/python -m fuseki.go.warmup >/dev/null
.venv/bin/python -m fuseki.search.go.warmup >/dev/null
echo "$COMMIT $(date -u +%FT%TZ) shard $SHARD" >> "$OUT/runs.txt"
.venv/bin/fuseki match \
    "$ROOT/.venv/bin/python -m fuseki gtp --bot mcts --seconds 5 --log $OUT/mcts_moves.jsonl" \
    "gnugo --mode gtp --level 10 --positional-superko" \
    --size 9 --komi 7.5 --games "${GAMES:-50}" --move-time 30 --sgf-dir "$OUT" --json
