#!/bin/bash
# The value stage of the device run, on this machine's CPU (issue 19): a small value network (5 layers of 32
# filters, from random weights), learning rate 3e-4, 4 epochs, batch 128.
cd /root/.cache/fuseki/ag
OMP_NUM_THREADS=1 PYTHONPATH=/work/wt/ag/src nice -n 5 /work/main/.venv/bin/python -m fuseki alphago train --out run9 \
  --corpus /tmp/w/mcts9-p800 --corpus /work/main/.ag/corpus/gnugo9 --corpus /work/main/.ag/corpus/mcts9-local \
  --size 9 --workers 1 --device cpu --sl-layers 10 --sl-filters 96 --sl-epochs 10 --sl-batch-size 256 --rollout-epochs 3 \
  --rl-rounds 1 --rl-games 2000 --rl-eval-games 200 --value-games 30000 --value-chunk-games 500 \
  --value-layers 5 --value-filters 32 --value-epochs 4 --value-batch-size 128 --value-lr 0.0003
