#!/usr/bin/env bash
# Device script: the book's chapter 6-8 table (`fuseki train book`) at 19×19 on fox-9d's human games, on a lent GPU.
#
# On this project's 2 shared cores the table is about an hour and a half of a free core (docs/human-games.md,
# section 2); on the device it is a few minutes. The data travel as in fox_policy_gpu.sh: the 3.9 MB archive and
# two wheels in .fox/ (bash benchmarks/device/fox_policy_prep.sh prep), never the shards.
#
#   each call:  run(command="bash benchmarks/device/book19_gpu.sh", carry=[".fox"], timeout_s=CALL_SECONDS+30)
#   after:      bash benchmarks/device/book19_gpu.sh collect FILES_AT
#
# GAMES (150) and TEST (0.33) are the book's size: 100 training games, 50 held out (the book tests on its
# training files; we hold games out). ROWS (all of `fuseki train book --rows`), SEED (0), CALL_SECONDS (420).
# The run folder stays there (checkpoints with Adam's state: 75 MB for `small` alone, over what a call carries):
# a call cut short returns the rows it finished in results.json; a warm machine's next call continues the run.
# collect puts results.md, results.json and curves.png into benchmarks/results/book19_fox/GAMES-games/.
set -uo pipefail
cd "$(git rev-parse --show-toplevel 2>/dev/null || pwd)"
T0=$SECONDS
GAMES=${GAMES:-150}
TEST=${TEST:-0.33}
ROWS=${ROWS:-}
SEED=${SEED:-0}
if [ "${1:-}" = collect ]; then
    set -e
    FILES=${2:?give the files_at folder of the call}
    DEST=benchmarks/results/book19_fox/$GAMES-games
    mkdir -p "$DEST"
    for f in results.md results.json curves.png log.txt; do [ -f "$FILES/$f" ] && cp "$FILES/$f" "$DEST/"; done
    cat "$DEST/results.md" 2>/dev/null || echo "no results.md yet: see $DEST/log.txt"
    exit 0
fi
: "${OUT:?OUT must be set (the run tool sets it)}"
CALL_SECONDS=${CALL_SECONDS:-420}
PYTHON=${PYTHON:-python3}
log() { echo "[$((SECONDS - T0)) s] $*" | tee -a "$OUT/log.txt"; }
ARCHIVE=/work/shared/data/fox-9d/games.tar.xz   # the same path as here: the same game ids, the same split
[ -f .fox/games.tar.xz ] || { log "no .fox/games.tar.xz: run benchmarks/device/fox_policy_prep.sh prep and carry .fox"; exit 2; }
[ -f $ARCHIVE ] || { mkdir -p "$(dirname $ARCHIVE)" && cp .fox/games.tar.xz $ARCHIVE; } || { log "cannot write $ARCHIVE"; exit 2; }
cmp -s $ARCHIVE .fox/games.tar.xz || { log "$ARCHIVE is not .fox/games.tar.xz"; exit 2; }
if ! $PYTHON -c "import sgfmill, chess" 2>/dev/null; then
    $PYTHON -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .fox/whl/*.whl \
        || { log "installing the carried wheels failed"; exit 3; }
fi
CORES=$(nproc)
export PYTHONPATH=$PWD/src:/tmp/site PYTHONUNBUFFERED=1
log "$CORES cores; $($PYTHON -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available())')"
RUN=/tmp/book19-$GAMES
[ -d $RUN ] && log "continuing the run in $RUN (a warm machine)"
LEFT=$((CALL_SECONDS - (SECONDS - T0) - 40))
[ $LEFT -gt 30 ] || { log "only $LEFT s left"; exit 5; }
log "training for up to $LEFT s: $GAMES games, test fraction $TEST, rows ${ROWS:-all}"
timeout --signal=INT --kill-after=20 $LEFT $PYTHON -m fuseki train book $ARCHIVE --size 19 --games "$GAMES" \
    --test-fraction "$TEST" ${ROWS:+--rows "$ROWS"} --seed "$SEED" --workers "$CORES" --device cuda --out $RUN \
    >> "$OUT/log.txt" 2>&1
log "exit status $?"
for f in results.md results.json curves.png; do [ -f $RUN/$f ] && cp $RUN/$f "$OUT/"; done
log "done"
