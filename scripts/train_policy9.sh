#!/usr/bin/env bash
# The recipe of the shipped 9x9 policy network, src/fuseki/models/policy-9x9.safetensors
# (docs/training.md, "The shipped policy"). Every step resumes where a killed run stopped.
#
#   bash scripts/train_policy9.sh [WORK_DIR]     # default runs/policy9; the games go to corpus/gnugo9-1k
#
# 1. 1,000 games of GNU Go against itself (docs/corpus.md), with --clock: the shipped model
#    was trained on games made when the generator still sent GNU Go a clock, so every game
#    is GNU Go at its level-10 strength whatever --levels draws (docs/match.md). Game n
#    depends on (seed, n) alone (two clocked runs of 3 games made the same moves). About
#    an hour on 2 cores.
# 2. The book's `simple` encoder (11 planes), a 90/10 split by game (the split hashes each
#    game's path, so the same split needs the games in the same place).
# 3. A residual CNN (6 blocks of 64), Adam with a cosine schedule, each position under a
#    random one of the board's 8 symmetries, 15 epochs: about 130 s an epoch on one CPU thread.
set -euo pipefail
cd "$(dirname "$0")/.."
W=${1:-runs/policy9}
FUSEKI=${FUSEKI:-.venv/bin/fuseki}
$FUSEKI data generate --engine gnugo --games 1000 --size 9 --out corpus/gnugo9-1k --workers 2 \
    --levels 1-10 --random-opening 6 --komi 7.5 --seed 0 --clock
$FUSEKI data process corpus/gnugo9-1k --encoder simple --size 9 --out "$W/shards" --seed 0
RESUME=(); [ -f "$W/res6x64/checkpoint.pt" ] && RESUME=(--resume)
OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} $FUSEKI train supervised "$W/shards" --network residual \
    --net-option blocks=6 --net-option channels=64 --optimizer adam --lr 0.001 --weight-decay 0.0001 \
    --schedule cosine --batch-size 128 --epochs 15 --augment --seed 0 --out "$W/res6x64" "${RESUME[@]}"
echo "The agent file: $W/res6x64/agent.safetensors (copy it to src/fuseki/models/policy-9x9.safetensors)"
