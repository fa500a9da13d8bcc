#!/usr/bin/env bash
# Device script (issue 20): the chess chain of benchmarks/chess_strength.sh on a lent machine (1 GPU, 16 cores), one call
# of about 9 minutes at a time, each phase skipped when its output is there:
#
#   1. labels: Stockfish 15.1 labels GAMES games at DEPTH on WORKERS processes (each with its own Stockfish;
#      `fuseki chess-warmstart label --workers`), for at most LABEL_SECONDS;
#   2. net:    a warm-start network of BLOCKS x CHANNELS trained on them on the GPU (`chess-warmstart train --device`),
#      for at most TRAIN_MINUTES (it stops after the epoch that ends past them and writes the network);
#   3. match:  if more than MIN_MATCH_SECONDS are left, the network through `fuseki uci` against Stockfish at
#      UCI_LimitStrength/UCI_Elo 1350 (its lowest), MOVETIME s a move, MATCH_GAMES games, CONCURRENCY at once
#      (`chess-match --concurrency`); stopped by Ctrl-C (SIGINT) before the call's end: the games in flight are
#      not written, the finished ones are, and the next call goes on from there.
#
#   here, once:      bash benchmarks/device/chess_gpu.sh prep               # .chess-device: Stockfish (xz), wheels
#   each call:       run(command="bash benchmarks/device/chess_gpu.sh", carry=[".chess-device"], timeout_s=600)
#   after each call: bash benchmarks/device/chess_gpu.sh collect FILES_AT   # the call's state into .chess-device/state
#
# What travels: .chess-device/stockfish.xz (Debian's /usr/games/stockfish, 15.1, 47 MB with its network inside,
# 21.9 MB as xz -9e; the device image has no Stockfish and reaches no mirror), .chess-device/whl (python-chess and
# sgfmill, which the image lacks; 180 kB) and .chess-device/state: the network (nets/; 10.1 MB for 6 x 128, 2.5
# million weights) and the match folder (matches/), which `collect` unpacks from the call's state.tar.
# The labels stay on the device ($WORK; 56 to 78 bytes a position in chunks made here, so 20 to 30 MB for 400,000
# positions): a call that finds the network skips them. The tree travels too, and all of it must stay under the
# 64 MiB (67.1 MB) a call carries: `prep` adds it up and refuses when it is over. On 2026-11-27 the lead's tree was
# 45.06 MB: with Stockfish and the wheels 67.14 MB, 33 kB over, and the network adds 10.1 MB from the second call
# on: this script needs about 10 MB of room in the tree, or an image with Stockfish.
# What comes back in $OUT: log.txt, labels.json (`label --json`), train.json (`train --json`: epochs, held-out
# accuracy, device), match.json (`chess-match --json`, once the match has all MATCH_GAMES), state.tar (or
# state.tar.part-NN in 15 MiB pieces): nets/ and matches/. log.txt ends with the match's games so far.
#
# Labelling speed, measured on the project's 2-core machine (AMD EPYC; benchmarks/chess_label_speed.py, under
# nice -n 19 at a load average of 7, benchmarks/results/chess_label_speed_d8.json): one worker (one Python process,
# one Stockfish 15.1 at depth 8, Threads 1, Hash 16) labelled 799 positions of 10 games in 3.55 s of Stockfish's CPU
# and 1.96 s of Python's: 145 positions a CPU-second (the wall time there, 146 s, was the load's). Python and
# Stockfish take turns, so a worker keeps about one core busy: 15 workers on 16 free cores would label about 2,200
# positions a second if the device's cores are as fast as these (not measured there). At about 80 positions a game,
# GAMES=5000 (about 400,000 positions) is then about 3 minutes; LABEL_SECONDS caps it (the network is then trained
# on the chunks done, and train.json says how many positions).
#
# Settings (environment): CALL_SECONDS (540), WORKERS (15), GAMES (5000), DEPTH (8), CHUNK (games a label file, 10),
# LABEL_SECONDS (240), BLOCKS (6), CHANNELS (128), EPOCHS (10), BATCH (256), LR (0.001), TRAIN_MINUTES (3),
# RESULT_WEIGHT (0), DEVICE (cuda: where the network trains), TRAIN_THREADS (torch's CPU threads, 4), MATCH_GAMES
# (100), MOVETIME (1), CONCURRENCY (14), GRACE (5), ELO (1350), ENGINE_DEVICE (cpu: where `fuseki uci` runs its network
# in the match, one torch thread each; cuda would put 14 processes on one GPU, not tried), MIN_MATCH_SECONDS (90),
# PYTHON (python3), CHESS_DEVICE (.chess-device: what travels), WORK (/tmp/chess-gpu: the labels). Change none of the
# label settings (GAMES, DEPTH, CHUNK) nor the network's (BLOCKS, CHANNELS, RESULT_WEIGHT: they name its file) nor the
# match's (MOVETIME, ELO, ENGINE_DEVICE, PYTHON: its folder refuses others) between the calls of one run; MATCH_GAMES
# may grow, CONCURRENCY and WORKERS may change.
# A smoke test on this machine's CPU, checked on 2026-11-27 (its own state folder, so nothing of it travels; 5.5
# minutes under nice -n 19 at a load average of 7):
#   CHESS_DEVICE=/tmp/cg/dev WORK=/tmp/cg/work OUT=/tmp/cg/out PYTHON=/work/main/.venv/bin/python DEVICE=cpu GAMES=2 \
#   CHUNK=1 WORKERS=2 BLOCKS=1 CHANNELS=8 EPOCHS=1 MATCH_GAMES=2 MOVETIME=0.1 CONCURRENCY=2 MIN_MATCH_SECONDS=10 \
#   CALL_SECONDS=1500 nice -n 19 bash benchmarks/device/chess_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
T0=$SECONDS
MODE=${1:-run}
D=${CHESS_DEVICE:-.chess-device}
STATE=$D/state
case "$MODE" in
prep)
    set -e
    mkdir -p "$D/whl" "$STATE"
    if [ ! -f "$D/stockfish.xz" ]; then
        xz -9e -T1 -c "${STOCKFISH_BIN:-/usr/games/stockfish}" > "$D/stockfish.xz.tmp"
        mv "$D/stockfish.xz.tmp" "$D/stockfish.xz"
    fi
    cp "${WHEELS:-/work/main/.whl}"/chess-*.whl "${WHEELS:-/work/main/.whl}"/sgfmill-*.whl "$D/whl/"
    git check-ignore -q "$D/stockfish.xz" || { echo "chess_gpu: $D is not ignored (.gitignore)" >&2; exit 1; }
    tree=$( (git ls-files -z; git ls-files -z --others --exclude-standard) | xargs -0 du -cb 2>/dev/null | tail -1 | cut -f1)
    carried=$(du -sb "$D" | cut -f1)
    limit=$((64 * 1024 * 1024))
    mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
    echo "the tree $(mb "$tree") + $D $(mb "$carried") = $(mb $((tree + carried))) of the 64 MiB ($(mb $limit)) a call carries"
    [ $((tree + carried)) -le $limit ] || { echo "chess_gpu: over the limit: the call would be refused" >&2; exit 1; }
    exit 0
    ;;
collect)
    set -e
    FILES=${2:?give the files_at folder of the call}
    if ls "$FILES"/state.tar.part-* >/dev/null 2>&1; then cat "$FILES"/state.tar.part-* > /tmp/chess-gpu-state.tar; else cp "$FILES/state.tar" /tmp/chess-gpu-state.tar; fi
    mkdir -p "$STATE"
    tar -xf /tmp/chess-gpu-state.tar -C "$STATE"
    rm -f /tmp/chess-gpu-state.tar
    echo "$STATE: $(find "$STATE/nets" -name '*.safetensors' 2>/dev/null | wc -l) network(s), $(find "$STATE/matches" -name 'game_*.json' 2>/dev/null | wc -l) games"
    exit 0
    ;;
run) ;;
*)
    echo "usage: $0 [run] | prep | collect FILES_AT" >&2
    exit 2
    ;;
esac

: "${OUT:?OUT must be set (the run tool sets it)}"
CALL_SECONDS=${CALL_SECONDS:-540}
WORKERS=${WORKERS:-15}
GAMES=${GAMES:-5000}
DEPTH=${DEPTH:-8}
CHUNK=${CHUNK:-10}
LABEL_SECONDS=${LABEL_SECONDS:-240}
BLOCKS=${BLOCKS:-6}
CHANNELS=${CHANNELS:-128}
EPOCHS=${EPOCHS:-10}
BATCH=${BATCH:-256}
LR=${LR:-0.001}
TRAIN_MINUTES=${TRAIN_MINUTES:-3}
RESULT_WEIGHT=${RESULT_WEIGHT:-0}
DEVICE=${DEVICE:-cuda}
TRAIN_THREADS=${TRAIN_THREADS:-4}
MATCH_GAMES=${MATCH_GAMES:-100}
MOVETIME=${MOVETIME:-1}
CONCURRENCY=${CONCURRENCY:-14}
GRACE=${GRACE:-5}
ELO=${ELO:-1350}
ENGINE_DEVICE=${ENGINE_DEVICE:-cpu}
MIN_MATCH_SECONDS=${MIN_MATCH_SECONDS:-90}
PYTHON=${PYTHON:-python3}
WORK=${WORK:-/tmp/chess-gpu}
LABELS=$WORK/labels-d$DEPTH-g$GAMES
NAME=warm-${BLOCKS}x${CHANNELS}-d$DEPTH-g$GAMES-rw$RESULT_WEIGHT
NET=$STATE/nets/$NAME.safetensors
MATCH=$STATE/matches/$NAME-elo$ELO-mt$MOVETIME
mkdir -p "$OUT" "$WORK" "$STATE/nets" "$STATE/matches"
OUT=$(cd "$OUT" && pwd)
log() { echo "[$((SECONDS - T0)) s] $*" | tee -a "$OUT/log.txt"; }
left() { echo $((CALL_SECONDS - (SECONDS - T0))); }

# ---- setup: packages, Stockfish ----------------------------------------------------------------
log "$(nproc) cores; $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null || echo 'no nvidia-smi')"
if ! $PYTHON -c "import chess, sgfmill" 2>/dev/null; then
    $PYTHON -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$D"/whl/*.whl \
        || { log "installing the carried wheels ($D/whl: chess, sgfmill) failed: run prep here and carry $D"; exit 3; }
fi
export PYTHONPATH=$PWD/src:/tmp/site PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1
$PYTHON -c "import torch, chess, numba, safetensors, filelock; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), 'chess', chess.__version__)" \
    >> "$OUT/log.txt" 2>&1 || { log "a package is missing (see above)"; exit 3; }
if [ "$DEVICE" = cuda ] && ! grep -q "cuda True" "$OUT/log.txt"; then log "torch sees no GPU (DEVICE=cpu trains on the CPU)"; exit 3; fi
if ! command -v stockfish >/dev/null && [ ! -x /usr/games/stockfish ]; then
    [ -f "$D/stockfish.xz" ] || { log "no Stockfish here and no $D/stockfish.xz: run prep here and carry $D"; exit 3; }
    mkdir -p /tmp/chess-bin # Python's lzma, in case the image has no xz
    $PYTHON -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" \
        "$D/stockfish.xz" /tmp/chess-bin/stockfish && chmod +x /tmp/chess-bin/stockfish
    export PATH=/tmp/chess-bin:$PATH
fi
SF=$(command -v stockfish || echo /usr/games/stockfish)
log "Stockfish: $(printf 'uci\nquit\n' | "$SF" 2>&1 | grep -m1 '^id name' || echo "$SF does not answer uci")"
FUSEKI="$PYTHON -m fuseki"

# ---- 1 and 2: labels, then the network (both skipped when the network is there) ------------------
if [ -f "$NET" ]; then
    log "network $NET is there: labels and training skipped"
else
    log "labelling $GAMES games at depth $DEPTH on $WORKERS workers (at most $LABEL_SECONDS s) into $LABELS"
    timeout --signal=INT --kill-after=30 "$LABEL_SECONDS" $FUSEKI chess-warmstart label --out "$LABELS" --games "$GAMES" \
        --depth "$DEPTH" --games-per-chunk "$CHUNK" --workers "$WORKERS" --json > "$OUT/labels.json.tmp" 2>> "$OUT/log.txt"
    status=$?
    tail -n 1 "$OUT/labels.json.tmp" > "$OUT/labels.json"; rm -f "$OUT/labels.json.tmp"
    chunks=$(find "$LABELS" -name 'label-*.npz' 2>/dev/null | wc -l)
    log "labelling exit status $status (124 or 130: stopped at LABEL_SECONDS), $chunks chunks of $(((GAMES + CHUNK - 1) / CHUNK))"
    [ "$chunks" -gt 0 ] || { log "no labels: nothing to train"; exit 4; }
    minutes=$($PYTHON -c "print(round(max(0.5, min($TRAIN_MINUTES, ($(left) - 60) / 60)), 2))")
    log "training $BLOCKS x $CHANNELS on $DEVICE for at most $EPOCHS epochs and about $minutes minutes"
    timeout --signal=KILL $(($(left) > 60 ? $(left) : 60)) $FUSEKI chess-warmstart train "$LABELS" --model-out "$NET.tmp.safetensors" \
        --blocks "$BLOCKS" --channels "$CHANNELS" --epochs "$EPOCHS" --batch-size "$BATCH" --lr "$LR" \
        --result-weight "$RESULT_WEIGHT" --device "$DEVICE" --threads "$TRAIN_THREADS" --max-minutes "$minutes" --json \
        > "$OUT/train.json.tmp" 2>> "$OUT/log.txt"
    log "training exit status $?"
    tail -n 1 "$OUT/train.json.tmp" > "$OUT/train.json"; rm -f "$OUT/train.json.tmp"
    [ -f "$NET.tmp.safetensors" ] && mv "$NET.tmp.safetensors" "$NET"
    [ -f "$NET" ] && cp "$OUT/train.json" "$NET.json"
fi

# ---- 3: the match, if time is left ------------------------------------------------------------------
budget=$(($(left) - 40)) # 40 s for the engines to stop, the packing and the transfer back
if [ ! -f "$NET" ]; then
    log "no network: no match"
elif [ $budget -lt "$MIN_MATCH_SECONDS" ]; then
    log "only $budget s left: no match this call"
else
    log "match: $MATCH_GAMES games at $MOVETIME s a move, $CONCURRENCY at once, against UCI_Elo $ELO, for at most $budget s"
    # From the state folder, so that the engine's command (a setting of the match folder) names the network by a
    # path that is the same wherever the state lies.
    (cd "$STATE" && timeout --signal=INT --kill-after=30 $budget $FUSEKI chess-match \
        "$PYTHON -m fuseki uci --model nets/$NAME.safetensors --device $ENGINE_DEVICE" stockfish --option-b "Threads=1" \
        --option-b "UCI_LimitStrength=true" --option-b "UCI_Elo=$ELO" --games "$MATCH_GAMES" --movetime "$MOVETIME" \
        --grace "$GRACE" --concurrency "$CONCURRENCY" --out "${MATCH#"$STATE"/}" --json > "$OUT/match.json.tmp" 2>> "$OUT/log.txt")
    status=$?
    log "match exit status $status (124 or 130: stopped at the call's end); $(find "$MATCH" -name 'game_*.json' | wc -l) of $MATCH_GAMES games"
    [ $status -eq 0 ] && tail -n 1 "$OUT/match.json.tmp" > "$OUT/match.json"
    rm -f "$OUT/match.json.tmp"
fi
if [ -f "$MATCH/match.json" ]; then # the games so far, whether or not the match is over (summarize needs no engine)
    $PYTHON - "$MATCH" <<'EOF' 2>&1 | tee -a "$OUT/log.txt"
import json, sys
from pathlib import Path
from fuseki.chess.match import GameRecord, summarize
records = [GameRecord(**json.loads(p.read_text())) for p in sorted(Path(sys.argv[1]).glob("game_*.json"))]
names = json.loads((Path(sys.argv[1]) / "match.json").read_text())["names"]
print("\n".join(summarize(records, names).lines()) if records else "no game finished yet")
EOF
fi

# ---- back to this machine: the state (network, match folder) -----------------------------------------
tar -cf "$OUT/state.tar" -C "$STATE" nets matches
if [ "$(stat -c %s "$OUT/state.tar")" -gt $((15 * 1024 * 1024)) ]; then
    split -b 15M -d "$OUT/state.tar" "$OUT/state.tar.part-" && rm "$OUT/state.tar"
fi
log "done: $(ls "$OUT" | tr '\n' ' ')"
