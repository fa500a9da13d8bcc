#!/usr/bin/env bash
# The strength benchmark of issue 7 (resumable: rerun to continue where it stopped).
# The shipped 9x9 policy network alone (no search; the book's DeepLearningAgent,
# sampling with the cube-and-clip probabilities) against GNU Go 3.8, 9x9, komi
# 7.5, colours alternating, GNU Go's final_score as referee.
#
#   bash benchmarks/results/policy_vs_gnugo_9x9/run.sh LEVEL [GAMES] [AGENT] [NAME]
#
# LEVEL: GNU Go's --level (the issue asks for 1 and 10). GNU Go gets --positional-superko,
# the match's ko rule (the results of 2026-11-23/25 were played without it: GNU Go lost two
# games by breaking superko). No clock is sent: with one GNU Go ignores --level (docs/match.md). AGENT (default
# policy-9x9, the shipped model) is any `fuseki eval` agent, for example
# "mcts:policy_model=policy-9x9,seconds=1" for the policy as MCTS priors. NAME
# (default policy) names the folder: games/NAME-levelLEVEL/ holds the SGFs and
# eval.json; NAME-levelLEVEL.json is the result.
set -euo pipefail
cd "$(dirname "$0")/../../.."
D=benchmarks/results/policy_vs_gnugo_9x9
LEVEL=${1:?GNU Go level}
GAMES=${2:-100}
AGENT=${3:-policy-9x9}
NAME=${4:-policy}
OUT=$D/games/$NAME-level$LEVEL
mkdir -p "$OUT"
echo "$(git rev-parse HEAD) $(date -u +%FT%TZ) $AGENT vs gnugo level $LEVEL, $GAMES games" >> "$OUT/runs.txt"
.venv/bin/fuseki eval "$AGENT" "gtp:gnugo --mode gtp --level $LEVEL --positional-superko" \
    --games "$GAMES" --size 9 --komi 7.5 --workers "${WORKERS:-2}" --move-time 60 \
    --referee "gnugo --mode gtp --chinese-rules" --sgf-dir "$OUT" --seed 0 --json \
    | tail -1 > "$D/$NAME-level$LEVEL.json.tmp"
mv "$D/$NAME-level$LEVEL.json.tmp" "$D/$NAME-level$LEVEL.json"
cat "$D/$NAME-level$LEVEL.json" | head -c 400; echo
