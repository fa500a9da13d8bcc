#!/bin/bash
# Device run 2 (issue 19): resume the first run's folder; the value network from the SL policy's layers, 70,000 value games.
cd "$(dirname "$0")"
W=${W:-/tmp/w}; mkdir -p "$W" "$OUT"
exec > >(tee "$W/log2.txt") 2>&1
date -u
PY=${PY:-python3}
cp -r dev1run "$W/run"; cp -r mcts9-p800 "$W/mcts9-p800"
if [ -d ../.whl ]; then $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site ../.whl/*.whl; fi
export PYTHONPATH=$PWD/src:/tmp/site PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1 PYTHONWARNINGS=ignore
pack() {
  cd "$W" || return
  tar czf "$OUT/models2.tgz" run/value.safetensors run/model.json run/alphago.json run/metrics.md log2.txt 2>/dev/null
  ls -la "$OUT"
}
trap pack EXIT
timeout -s INT ${LIMIT:-190} $PY -m fuseki alphago train --out "$W/run" --corpus "$W/mcts9-p800" --corpus /work/main/.ag/corpus/gnugo9 \
  --corpus /work/main/.ag/corpus/mcts9-local --size 9 --workers ${WORKERS:-16} --device ${DEVICE:-cuda} --sl-layers 10 --sl-filters 96 \
  --sl-epochs 10 --sl-batch-size 256 --rollout-epochs 3 --rl-rounds 1 --rl-games 2000 --rl-eval-games 200 \
  --value-games ${VG:-70000} --value-chunk-games 500 --value-epochs 15 --value-batch-size 256 2>&1 | grep -v "^value games: chunk [0-9]*[1-9]/"
echo "exit ${PIPESTATUS[0]}"; date -u
