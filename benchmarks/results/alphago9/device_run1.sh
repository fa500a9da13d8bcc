#!/bin/bash
# Device run of scripts/train_alphago9.sh (issue 19). PY, GEN, LIMIT, ALPHAGO_ARGS, WORKERS may be overridden.
cd "$(dirname "$0")"
W=${W:-/tmp/w}; mkdir -p "$W" "$OUT"
exec > >(tee "$W/log.txt") 2>&1
date -u; nproc; nvidia-smi -L 2>/dev/null
PY=${PY:-python3}
if [ -d ../.whl ]; then $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site ../.whl/*.whl; fi
export PYTHONPATH=$PWD/src:/tmp/site PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1
$PY -c "import numba, torch, numpy, sgfmill; print('numba', numba.__version__, 'torch', torch.__version__, 'numpy', numpy.__version__, 'cuda', torch.cuda.is_available())"
pack() {
  cd "$W" || return
  tar czf "$OUT/small.tgz" --exclude='*.safetensors' --exclude='*.npz' --exclude='*.npy' --exclude='*.pt' --exclude=value_data run log.txt 2>/dev/null
  tar czf "$OUT/models.tgz" run/*.safetensors run/model.json run/alphago.json run/metrics.md 2>/dev/null
  tar czf "$OUT/mcts.tgz" mcts9-p800 2>/dev/null
  if [ -d run/value_data ] && [ ! -f run/model.json ]; then tar czf - run/value_data | split -b 15m - "$OUT/vdata.tgz."; fi
  ls -la "$OUT"
}
trap pack EXIT
# Compile the encoder and rollout kernels into Numba's cache beside the MCTS games (the workers then load them).
$PY - <<'PYEOF' &
import time; t = time.time()
from fuseki.go import GameState
from fuseki.encoders import get_encoder
from fuseki.search.go.rollout_policy import RolloutPolicy
s = GameState.new(9, komi=7.5)
get_encoder("alphago49", 9).encode(s.play(40))
RolloutPolicy.zeros().rollout_value(s, 2)
import fuseki.train.alphago.value_data, fuseki.search.go.agtree
print(f"warm-up {time.time() - t:.0f} s", flush=True)
PYEOF
FUSEKI="$PY -m fuseki" WORKERS=${WORKERS:-16} DEVICE=${DEVICE:-cuda} GEN_SECONDS=${GEN:-150} MCTS_DIR=$W/mcts9-p800 \
  timeout -s INT ${LIMIT:-500} bash scripts/train_alphago9.sh "$W/run" "$PWD/corpus/gnugo9" "$PWD/corpus/mcts9-local" 2>&1 \
  | grep -v "eval: game \|self-play: chunk\|^game "
echo "exit ${PIPESTATUS[0]}"; date -u
