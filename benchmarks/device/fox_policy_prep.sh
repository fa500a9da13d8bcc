#!/usr/bin/env bash
# The project-machine side of benchmarks/device/fox_policy_gpu.sh (run in the checkout whose tree travels).
#
#   bash benchmarks/device/fox_policy_prep.sh prep             before the first call
#   bash benchmarks/device/fox_policy_prep.sh collect FILES_AT  after each call (FILES_AT: the run's files_at)
#   HEAD=conv bash benchmarks/device/fox_policy_prep.sh collect FILES_AT   for a run with HEAD=conv
#
# prep: .fox/ in the repository root, ignored by .gitignore (never committed), the one folder a call carries:
#   .fox/games.tar.xz  the fox-9d archive (3.9 MB, GPL-3.0: it travels to the device, never into git)
#   .fox/whl/          the two wheels the device image lacks (sgfmill, chess: 180 kB; from /work/main/.whl)
# What travels is the checkout's tracked files (about 12 MB) and .fox (4 MB, plus the checkpoint after the
# first call: 25 MB for 6 blocks of 128, 39 MB for 10): under the 64 MiB a call carries.
# collect: the checkpoint pieces into .fox/run/ (the next call resumes from them), and the small results
#   into benchmarks/results/fox_policy_gpu/ (summary.json, metrics.csv, curves.png, log.txt, process.json).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
DATA=${FOX9D:-/work/shared/data/fox-9d}
WHEELS=${WHEELS:-/work/main/.whl}
# HEAD=conv: the run of fox_policy_gpu.sh with HEAD=conv (its checkpoint in .fox/run-conv, its results apart).
if [ "${HEAD:-dense}" = conv ]; then
    RUN=.fox/run-conv
    RESULTS=${RESULTS:-benchmarks/results/fox_policy_gpu_conv}
else
    RUN=.fox/run
    RESULTS=${RESULTS:-benchmarks/results/fox_policy_gpu}
fi

case "${1:-}" in
prep)
    mkdir -p .fox/whl
    cp "$DATA/games.tar.xz" .fox/games.tar.xz
    cp "$WHEELS"/sgfmill-*.whl "$WHEELS"/chess-*.whl .fox/whl/
    git check-ignore -q .fox/games.tar.xz || { echo "fox_policy_prep: .fox is not ignored (.gitignore)" >&2; exit 1; }
    du -sh .fox
    ;;
collect)
    FILES=${2:?give the files_at folder of the call}
    ls "$FILES"/checkpoint.part-* >/dev/null 2>&1 || { echo "fox_policy_prep: no checkpoint in $FILES" >&2; exit 1; }
    mkdir -p "$RUN" "$RESULTS"
    rm -f "$RUN"/checkpoint.part-* "$RUN"/checkpoint.pt
    cp "$FILES"/checkpoint.part-* "$RUN"/
    for f in summary.json metrics.csv curves.png log.txt process.json; do
        if [ -f "$FILES/$f" ]; then cp "$FILES/$f" "$RESULTS/"; fi
    done
    cat "$RESULTS/summary.json"
    ;;
*)
    echo "usage: $0 prep | collect FILES_AT" >&2
    exit 2
    ;;
esac
