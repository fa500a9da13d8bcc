#!/usr/bin/env bash
# Two of our agents head to head on any board size (issues 21, 24: a network's priors against the search alone at
# equal time), resumable: rerun to continue where it stopped.
#
#   bash benchmarks/pair_match.sh SIZE GAMES NAME AGENT_A AGENT_B
#
# AGENT_A, AGENT_B: any `fuseki eval` agents, their budgets in the spec ("mcts:seconds=2,policy_model=policy-19x19"
# against "mcts:seconds=2": equal time). NAME names the folder benchmarks/results/pair_SIZE/games/NAME/ (SGFs,
# eval.json, runs.txt: the commit and date of every start); benchmarks/results/pair_SIZE/NAME.json is the result.
# Colours alternate; komi 7.5, Chinese rules; each in-process agent gets its own seed every game; both pass back
# when ahead and resign hopeless games (--terminate, as under `fuseki gtp`); GNU Go's final_score is the referee.
# WORKERS (default 1) games at a time: with budgets in seconds give each game a core of its own (the two agents
# of a game take turns on it, so equal seconds are equal CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${1:?board size}
GAMES=${2:?games}
NAME=${3:?name}
A=${4:?agent A}
B=${5:?agent B}
GNUGO=${GNUGO:-gnugo}
PY=${PY:-.venv/bin/python}
D=benchmarks/results/pair_$SIZE
OUT=$D/games/$NAME
mkdir -p "$OUT"
echo "$(git rev-parse HEAD 2>/dev/null || echo unknown) $(date -u +%FT%TZ) $A vs $B, $GAMES games, ${SIZE}x$SIZE, ${WORKERS:-1} at a time on $(nproc --all) cores" >> "$OUT/runs.txt"
"$PY" -m fuseki eval "$A" "$B" --games "$GAMES" --size "$SIZE" --komi 7.5 --workers "${WORKERS:-1}" --terminate \
    --referee "$GNUGO --mode gtp --chinese-rules" --sgf-dir "$OUT" --seed 0 --json \
    | tail -1 > "$D/$NAME.json.tmp"
mv "$D/$NAME.json.tmp" "$D/$NAME.json"
head -c 400 "$D/$NAME.json"; echo
