#!/usr/bin/env bash
# Strength against GNU Go 3.8 on any board size (issues 21 and 24), resumable: rerun to continue where it stopped.
#
#   bash benchmarks/strength_vs_gnugo.sh SIZE LEVEL GAMES AGENT NAME
#
# SIZE: 9, 13 or 19. LEVEL: GNU Go's --level. AGENT: any `fuseki eval` agent, for example
# "policy:model=policy-19x19,mode=argmax" (the network alone) or "mcts:seconds=10" (the budget goes with
# the agent: a figure without it means nothing). NAME names the folder:
# benchmarks/results/strength_vs_gnugo_SIZE/games/NAME-levelLEVEL/ holds the SGFs, eval.json and runs.txt (the
# commit and date of every start), NAME-levelLEVEL.json is the result.
#
# Colours alternate; komi 7.5, Chinese rules, positional superko for both; GNU Go's final_score is the referee.
# GNU Go gets another --seed every game ({seed}: fuseki eval fills it in), so that a deterministic agent (a
# network's argmax) plays different games; GNU Go's seed moves few of its choices, so the result says how many
# games were distinct (distinct_games), and an agent with temperature_moves varies its own openings.
# No clock is sent (with one, GNU Go ignores --level).
# WORKERS (default 1) games at a time: give each a core when the agent's budget is in seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${1:?board size}
LEVEL=${2:?GNU Go level}
GAMES=${3:?games}
AGENT=${4:?agent}
NAME=${5:?name}
GNUGO=${GNUGO:-gnugo}
PY=${PY:-.venv/bin/python}
D=benchmarks/results/strength_vs_gnugo_$SIZE
OUT=$D/games/$NAME-level$LEVEL
mkdir -p "$OUT"
echo "$(git rev-parse HEAD) $(date -u +%FT%TZ) $AGENT vs gnugo level $LEVEL, $GAMES games, ${SIZE}x$SIZE" >> "$OUT/runs.txt"
"$PY" -m fuseki eval "$AGENT" "gtp:$GNUGO --mode gtp --level $LEVEL --positional-superko --seed {seed}" \
    --games "$GAMES" --size "$SIZE" --komi 7.5 --workers "${WORKERS:-1}" --move-time 120 \
    --referee "$GNUGO --mode gtp --chinese-rules" --sgf-dir "$OUT" --seed 0 --json \
    | tail -1 > "$D/$NAME-level$LEVEL.json.tmp"
mv "$D/$NAME-level$LEVEL.json.tmp" "$D/$NAME-level$LEVEL.json"
head -c 400 "$D/$NAME-level$LEVEL.json"; echo
