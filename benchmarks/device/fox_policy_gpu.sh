#!/usr/bin/env bash
# Device script: the 19×19 policy network (a residual net of AlphaGo's SL kind on its 48 feature planes)
# trained on fox-9d's human games on a lent GPU machine, a few minutes a call, resumable across calls.
#
# Runs on the device, in the repository root (the run tool's copy of the lead's checkout). The shards are
# far over the 64 MiB a call carries (1.1 GB for one plane, about 17 kB a position for 48 planes), so
# they are made there from the 3.9 MB archive, which travels; the run's checkpoint travels back and forth.
#
#   here, once:       bash benchmarks/device/fox_policy_prep.sh prep
#   each call:        run(command="bash benchmarks/device/fox_policy_gpu.sh", carry=[".fox"], timeout_s=560)
#   after each call:  bash benchmarks/device/fox_policy_prep.sh collect FILES_AT
#
# `collect` puts the checkpoint into .fox/run, so the next call continues the same run (`--resume`).
# What comes back in $OUT (at most 8 files of 16 MiB): log.txt, process.json (the shards' summary),
# summary.json (epochs, test top-1/top-5 of the last epoch, the best epoch), metrics.csv (every epoch),
# curves.png, and checkpoint.part-* (checkpoint.pt cut in 15 MiB pieces: model, Adam state, history;
# 2 pieces for 6 blocks of 128 channels, 3 for 10: more blocks would pass the 8 files).
#
# Settings (environment): CALL_SECONDS (480: the whole call, processing included), ENCODER (alphago),
# GAMES (8000: 48 planes of all 18,081 games would need about 55 GB of the 64 GiB disk), BLOCKS (6),
# CHANNELS (128), EPOCHS (16 of BATCHES=1000 batches of BATCH=512: the cosine schedule's length),
# LR (0.002), HEAD (dense: the shipped policy-19x19's; conv: one logit a point, a network that plays every board
# size, docs/agents.md). Change none of the training settings between calls of one run: --resume refuses.
# For a smoke test on a CPU (RUN keeps its checkpoint out of .fox/run, which travels and would be resumed there):
# RUN=/tmp/o-run OUT=/tmp/o DEVICE=cpu PRECISION=fp32 PYTHON=.venv/bin/python GAMES=20 BLOCKS=1
# CHANNELS=8 EPOCHS=2 BATCHES=2 BATCH=32 bash benchmarks/device/fox_policy_gpu.sh
set -uo pipefail
T0=$SECONDS
: "${OUT:?OUT must be set (the run tool sets it)}"
CALL_SECONDS=${CALL_SECONDS:-480}
ENCODER=${ENCODER:-alphago}
GAMES=${GAMES:-8000}
BLOCKS=${BLOCKS:-6}
CHANNELS=${CHANNELS:-128}
EPOCHS=${EPOCHS:-16}
BATCHES=${BATCHES:-1000}
BATCH=${BATCH:-512}
LR=${LR:-0.002}
HEAD=${HEAD:-dense}
DEVICE=${DEVICE:-cuda}
PRECISION=${PRECISION:-bf16}
PYTHON=${PYTHON:-python3}
# The game ids (hence the train/test split) contain the archive's resolved path: the same path as on the
# project's machine gives the same held-out games as there (a test game there is a test game here).
ARCHIVE=/work/shared/data/fox-9d/games.tar.xz
ARCHIVE_SHA256=$(sha256sum .fox/games.tar.xz 2>/dev/null | cut -d' ' -f1)
SHARDS=/tmp/fox-shards-$ENCODER-$GAMES
# A run of each head keeps its own checkpoint (--resume refuses other settings). Only .fox travels, at most
# 64 MiB with the tree: remove a finished run's folder (rm -r .fox/run) before starting the other head's.
# The dense head is the network's default: its runs record the same options as before HEAD existed.
if [ "$HEAD" = conv ]; then RUN=${RUN:-.fox/run-conv}; HEAD_OPTION=(--net-option policy_head=conv)
else RUN=${RUN:-.fox/run}; HEAD_OPTION=(); fi
log() { echo "[$((SECONDS - T0)) s] $*" | tee -a "$OUT/log.txt"; }

[ -n "$ARCHIVE_SHA256" ] || { log "no .fox/games.tar.xz: run benchmarks/device/fox_policy_prep.sh prep and carry .fox"; exit 2; }
[ "$DEVICE" = cuda ] && log "$(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader)"
log "$(nproc) cores, $(df -h /tmp | tail -1 | awk '{print $4}') free on /tmp"
if ! $PYTHON -c "import sgfmill, chess" 2>/dev/null; then
    $PYTHON -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .fox/whl/*.whl \
        || { log "installing the carried wheels (.fox/whl: sgfmill, chess) failed"; exit 3; }
fi
export PYTHONPATH=$PWD/src:/tmp/site PYTHONUNBUFFERED=1
$PYTHON -c "import torch, numba, sgfmill, safetensors, matplotlib; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())" \
    > "$OUT/versions.txt" 2>&1 || { cat "$OUT/versions.txt"; log "a package is missing"; exit 3; }
cat "$OUT/versions.txt" >> "$OUT/log.txt"; rm -f "$OUT/versions.txt"
if [ "$DEVICE" = cuda ] && ! grep -q "cuda True" "$OUT/log.txt"; then log "torch sees no GPU"; exit 3; fi

[ -f $ARCHIVE ] || { mkdir -p "$(dirname $ARCHIVE)" && cp .fox/games.tar.xz $ARCHIVE; } || { log "cannot write $ARCHIVE"; exit 2; }
[ "$(sha256sum $ARCHIVE | cut -d' ' -f1)" = "$ARCHIVE_SHA256" ] || { log "$ARCHIVE is not .fox/games.tar.xz"; exit 2; }
log "archive $ARCHIVE sha256 $ARCHIVE_SHA256"

# 1. The shards (a warm machine still has them: process resumes and keeps every finished shard).
$PYTHON -m fuseki data process $ARCHIVE --encoder "$ENCODER" --size 19 --games "$GAMES" --workers "$(nproc)" \
    --out "$SHARDS" --quiet --json > "$OUT/process.json.tmp" 2>> "$OUT/log.txt" \
    || { log "processing failed"; tail -3 "$OUT/log.txt"; exit 4; }
tail -1 "$OUT/process.json.tmp" > "$OUT/process.json"; rm -f "$OUT/process.json.tmp"
log "shards: $($PYTHON -c "import json,sys; d=json.load(open('$OUT/process.json')); print(d['train_games'], 'train and', d['test_games'], 'test games,', d['positions'], 'positions,', round(d['bytes']/1e9, 1), 'GB,', d['games_per_second'], 'games/s')")"

# 2. The run: continue the carried checkpoint, if any (collect left it in pieces).
mkdir -p $RUN
if ls $RUN/checkpoint.part-* >/dev/null 2>&1; then
    cat $RUN/checkpoint.part-* > $RUN/checkpoint.pt.tmp && mv $RUN/checkpoint.pt.tmp $RUN/checkpoint.pt && rm -f $RUN/checkpoint.part-*
    log "resuming $RUN/checkpoint.pt ($(stat -c %s $RUN/checkpoint.pt) bytes)"
fi
LEFT=$((CALL_SECONDS - (SECONDS - T0) - 75))   # 75 s for the last test pass, the copies and the transfer back
[ $LEFT -gt 60 ] || { log "only $LEFT s left for training; nothing trained"; exit 5; }
MINUTES=$($PYTHON -c "print(round($LEFT / 60, 2))")
log "training for up to $MINUTES minutes"
timeout --signal=KILL $((LEFT + 60)) $PYTHON -m fuseki train supervised "$SHARDS" --network residual \
    --net-option blocks="$BLOCKS" --net-option channels="$CHANNELS" "${HEAD_OPTION[@]}" --optimizer adam --lr "$LR" --weight-decay 0.0001 \
    --schedule cosine --epochs "$EPOCHS" --max-batches "$BATCHES" --batch-size "$BATCH" --augment --precision "$PRECISION" \
    --device "$DEVICE" --seed 0 --out $RUN --resume --max-minutes "$MINUTES" --json \
    > "$OUT/summary.json.tmp" 2> >(grep --line-buffered -v " batch " >> "$OUT/log.txt")
log "trainer exit status $?"
tail -1 "$OUT/summary.json.tmp" > "$OUT/summary.json"; rm -f "$OUT/summary.json.tmp"

# 3. Back to this machine: whatever checkpoint is on disk (written atomically after every epoch).
if [ -f $RUN/checkpoint.pt ]; then
    split -b 15M -d $RUN/checkpoint.pt "$OUT/checkpoint.part-"
    cp $RUN/metrics.csv $RUN/curves.png "$OUT/" 2>/dev/null
fi
$PYTHON - "$OUT/summary.json" <<'EOF' 2>&1 | tee -a "$OUT/log.txt"
import json, sys
try:
    s = json.load(open(sys.argv[1]))
except ValueError:
    sys.exit("no summary: see log.txt")
f = s.get("final") or {}
print(f"epoch {s['epochs']}/{s['planned_epochs']} (stopped: {s['stopped']}); held-out games: "
      f"top-1 {f.get('test_top1', 0):.4f}, top-5 {f.get('test_top5', 0):.4f}, loss {f.get('test_loss', 0):.4f}; "
      f"{f.get('positions_per_second')} positions/s")
EOF
log "done"
