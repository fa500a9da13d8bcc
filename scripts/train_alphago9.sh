#!/usr/bin/env bash
# The recipe of the 9x9 AlphaGo model (docs/alphago.md): MCTS self-play games, then the whole
# pipeline of `fuseki alphago train`. Every step resumes where a killed run stopped.
#
#   bash scripts/train_alphago9.sh RUN_DIR [EXTRA_CORPUS ...]
#
# Environment: FUSEKI (the command, default .venv/bin/fuseki), WORKERS (default: the cores),
# DEVICE (default auto: the GPU when there is one), GEN_SECONDS (default 0: no time limit on
# the MCTS games; the corpus is resumable, so a limit keeps what was finished),
# MCTS_GAMES (default 3000), MCTS_PLAYOUTS (default 800), ALPHAGO_ARGS (more flags for
# `fuseki alphago train`, after the recipe's: a later flag wins, e.g. for a small trial run).
#
# 1. The strong MCTS against itself: --playouts per move, 0-4 random opening moves (not
#    training targets), seed 1; SGFs in RUN_DIR/../mcts9-p800 unless MCTS_DIR says.
# 2. fuseki alphago train on those games and the EXTRA_CORPUS folders (the 5,000-game GNU Go
#    corpus of docs/corpus.md): 48-plane shards, the rollout policy, the SL policy and the value
#    network (10 layers of 96 filters), one round of policy gradient (2,000 games), 30,000
#    value games.
set -euo pipefail
cd "$(dirname "$0")/.."
RUN=${1:?usage: train_alphago9.sh RUN_DIR [EXTRA_CORPUS ...]}
shift
FUSEKI=${FUSEKI:-.venv/bin/fuseki}
WORKERS=${WORKERS:-$(nproc)}
DEVICE=${DEVICE:-auto}
MCTS_DIR=${MCTS_DIR:-$(dirname "$RUN")/mcts9-p${MCTS_PLAYOUTS:-800}}
LIMIT=()
if [ "${GEN_SECONDS:-0}" != 0 ]; then LIMIT=(timeout -s INT "$GEN_SECONDS"); fi
rc=0
"${LIMIT[@]}" $FUSEKI data generate --engine mcts --games "${MCTS_GAMES:-3000}" --size 9 \
    --playouts "${MCTS_PLAYOUTS:-800}" --random-opening 4 --komi 7.5 --seed 1 --workers "$WORKERS" \
    --out "$MCTS_DIR" --progress none || rc=$?
# 124/130: stopped by GEN_SECONDS; the finished games stay and a rerun goes on.
case $rc in 0|124|130) ;; *) echo "the MCTS games failed (exit $rc)" >&2; exit "$rc" ;; esac
CORPORA=(--corpus "$MCTS_DIR")
for c in "$@"; do CORPORA+=(--corpus "$c"); done
$FUSEKI alphago train --out "$RUN" "${CORPORA[@]}" --size 9 --workers "$WORKERS" --device "$DEVICE" \
    --sl-layers 10 --sl-filters 96 --sl-epochs 10 --sl-batch-size 256 --rollout-epochs 3 \
    --rl-rounds 1 --rl-games 2000 --rl-eval-games 200 --value-games 30000 --value-chunk-games 500 \
    --value-epochs 15 --value-batch-size 256 ${ALPHAGO_ARGS:-}
