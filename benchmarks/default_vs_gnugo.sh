#!/usr/bin/env bash
# The default bot of a board size as players get it, against GNU Go (issue 21's 19×19 and 13×13 targets),
# resumable: rerun to continue where it stopped.
#
#   bash benchmarks/default_vs_gnugo.sh SIZE LEVEL GAMES [SECONDS]
#
# Engine A is `fuseki gtp` without --bot: each size's bot from the table in fuseki/agents/by_size.py, wrapped in the
# termination rules (pass back when ahead, resign when hopeless), exactly what GoGui, Sabaki or gtp2ogs start.
# SECONDS (default 10) is its budget a move (`--seconds`: it replaces a search's default budget; a bot with no
# search, the 19x19 network, answers at once and says so on stderr); a move may take SECONDS + 20 before it
# forfeits. GNU Go 3.8 at --level LEVEL gets another --seed every game. Komi 7.5, Chinese rules with positional
# superko, GNU Go's final_score as referee. `fuseki match` restarts both engines every game ({seed}).
# The folder benchmarks/results/default_vs_gnugo_SIZE/games/sSECONDS-levelLEVEL-MACHINE/ holds the SGFs and the
# match's settings (the engine commands, the interpreter's path among them: MACHINE, default "here", keeps a lent
# machine's run apart); ...-MACHINE.json beside it is the result. WORKERS (default 1) games at a time, each with its
# own engines (`fuseki match --workers`): give each a core when the bot searches on a clock.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${1:?board size}
LEVEL=${2:?GNU Go level}
GAMES=${3:?games}
SECONDS_A=${4:-10}
PY=${PY:-.venv/bin/python}
GNUGO=${GNUGO:-gnugo}
MACHINE=${MACHINE:-here}
D=benchmarks/results/default_vs_gnugo_$SIZE
NAME=s$SECONDS_A-level$LEVEL-$MACHINE
OUT=$D/games/$NAME
mkdir -p "$OUT"
echo "$(git rev-parse HEAD 2>/dev/null || echo unknown) $(date -u +%FT%TZ) default bot at ${SECONDS_A} s vs gnugo level $LEVEL, $GAMES games, ${SIZE}x$SIZE, ${WORKERS:-1} at a time on $(nproc --all) cores" >> "$OUT/runs.txt"
MOVE_TIME=$(( ${SECONDS_A%.*} + 20 ))
"$PY" -m fuseki match "$PY -m fuseki gtp --seconds $SECONDS_A --seed {seed}" \
    "$GNUGO --mode gtp --level $LEVEL --positional-superko --seed {seed}" \
    --games "$GAMES" --size "$SIZE" --komi 7.5 --move-time "$MOVE_TIME" --sgf-dir "$OUT" --seed 0 \
    --workers "${WORKERS:-1}" --json \
    | tail -1 > "$D/$NAME.json.tmp"
mv "$D/$NAME.json.tmp" "$D/$NAME.json"
head -c 400 "$D/$NAME.json"; echo
