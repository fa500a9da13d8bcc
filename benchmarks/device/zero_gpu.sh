#!/usr/bin/env bash
# Device script (issue 18): `fuseki bench zero` on the lent GPU with the batch that fills it, beside OpenSpiel's
# MCTSBot, and the Zero loop's self-play speed with --workers 1/4/8/16 on the machine's cores. Everything goes to $OUT
# (log.txt, machine.txt, zero_bench_9_gpu_p512.json, zero_bench_9_gpu_p2048.json, zero_workers_9.json). Under 8 minutes.
#
# With the run tool, from a checkout holding .whl/ (the wheels the machine lacks: python-chess, sgfmill, safetensors,
# filelock, open_spiel and its deps for Python 3.12; copy /work/main/.whl), carry [".whl"]:
#     bash benchmarks/device/zero_gpu.sh
# A local check on the CPU with tiny settings (seconds of work, no wheels needed):
#     OUT=/tmp/zg ZERO_GPU_TINY=1 PY=.venv/bin/python bash benchmarks/device/zero_gpu.sh
set -u
cd "$(dirname "$0")/../.."
: "${OUT:?set OUT to the folder for the results}"
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
PY=${PY:-python3}
TINY=${ZERO_GPU_TINY:-0}
DEVICE=${DEVICE:-cuda}
BUDGET=${BUDGET:-450}  # seconds for the whole script; the optional last step runs only if time is left
# Every step has a time limit (seconds x SCALE); the tiny local check on a loaded 2-core machine needs longer ones.
SCALE=${SCALE:-$([ "$TINY" = 0 ] && echo 1 || echo 10)}
date -u
{ nproc; lscpu 2>/dev/null | grep -E "Model name|^CPU\(s\)|Flags" | cut -c1-300; nvidia-smi -L 2>/dev/null; } | tee "$OUT/machine.txt"
if [ -d .whl ] && [ "$TINY" = 0 ]; then
  # The wheels may lie in .whl/ or .whl/py312/; an unmatched glob would reach pip as a literal name and stop it.
  wheels=$(shopt -s nullglob; echo .whl/py312/*.whl .whl/*.whl)
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site $wheels 2>&1 | tail -2
fi
export PYTHONPATH=$PWD/src:/tmp/site PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1
$PY -c "import numba, torch, chess; print('numba', numba.__version__, 'torch', torch.__version__, 'cuda', torch.cuda.is_available())" \
  || { echo "missing a package: carry .whl"; exit 3; }
left() { echo $((BUDGET * SCALE - SECONDS)); }

# 1. Compile the Zero search kernels once (both roots) into Numba's cache; the bench and every worker then load them.
timeout $((150 * SCALE)) $PY -m fuseki.search.go.warmup; echo "warm-up done at ${SECONDS} s"

if [ "$TINY" = 0 ]; then
  BENCH=(--size 9 --simulations 100 --blocks 4 --channels 64 --moves 20 --batch 8 --device "$DEVICE")
  WORKERS=(--workers 1,4,8,16 --games-per-worker 32 --moves 12)
  P1=512; P2=2048; PEER=160
else
  BENCH=(--size 9 --simulations 4 --blocks 1 --channels 8 --moves 2 --batch 2 --device cpu)
  WORKERS=(--workers 1,2 --games-per-worker 2 --moves 2 --simulations 4 --blocks 1 --channels 8)
  P1=4; P2=8; PEER=2
fi

# 2. The bench at a batch that fills the GPU (512 games x 8 leaves: about 4,000 positions a pass), the peer in the same run.
timeout $((200 * SCALE)) $PY -m fuseki bench zero "${BENCH[@]}" --parallel $P1 --peer-moves $PEER --json --out "$OUT/zero_bench_9_gpu_p$P1.json" 2>&1 | tail -8
echo "bench p$P1 exit ${PIPESTATUS[0]} at ${SECONDS} s"

# 3. The loop's self-play with 1, 4, 8 and 16 local workers (CPU, one torch thread each), games per second.
timeout $((170 * SCALE)) $PY benchmarks/zero_workers.py "${WORKERS[@]}" --out "$OUT/zero_workers_9.json"
echo "workers exit $? at ${SECONDS} s"

# 4. If time is left: a bigger batch without the peer.
if [ "$(left)" -gt 60 ]; then
  timeout "$(left)" $PY -m fuseki bench zero "${BENCH[@]}" --parallel $P2 --no-peers --json --out "$OUT/zero_bench_9_gpu_p$P2.json" 2>&1 | tail -4
  echo "bench p$P2 exit ${PIPESTATUS[0]} at ${SECONDS} s"
fi
ls -la "$OUT"; date -u
