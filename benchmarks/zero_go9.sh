#!/usr/bin/env bash
# Issue 18's 12-hour 9x9 run from zero, kept across sessions whose machines may be wiped.
#
#   bash benchmarks/zero_go9.sh run [HOURS] [GENERATIONS]  # restore the run from its snapshot if runs/go9 is missing,
#                                                   # then train until HOURS (12) of recorded machine time, at most
#                                                   # GENERATIONS (200) generations
#   bash benchmarks/zero_go9.sh save                # copy what a resume needs into the tracked snapshot folder
#   bash benchmarks/zero_go9.sh rate [GAMES]        # Elo of every 5th generation against the fixed anchors
#   bash benchmarks/zero_go9.sh match [GEN] [GAMES] [SECONDS]   # issue 18's target: generation GEN (default the
#                                                   # last) against GNU Go level 1, SECONDS (5) a move, GAMES (100)
#
# The run lives in runs/go9 (git-ignored: every generation's samples and networks, tens of MB). A session's
# machine can be reset before the next session, and only what is committed survives, so `save` copies into
# benchmarks/results/zero_go9/snapshot/ the part of the run that `fuseki zero train` needs to go on as if never
# stopped, and the part the rating needs:
#   zero.json, state.json, losses.png       the settings, every generation's counts and losses
#   gen-G and learner-G of the last one     the network and optimiser state the next generation trains from
#   selfplay of the last WINDOW-1           the samples the next generation's window still holds
#   gen-N for N a multiple of 5             the networks the Elo curve rates (docs/zero.md), the last one
#                                           before each amendment of the settings (zero.json's amendments), and
#                                           every other generation rate/ratings.json has rated
#   rate/                                   the rating's settings, games and ratings
# Each step of the loop derives its randomness from the seed and the generation, so a run restored this way ends
# in the same state as one never stopped (docs/zero.md: "a stopped and resumed run ends in the same state").
# The settings are those of docs/zero.md ("A 12-hour 9x9 run from zero on this CPU"). PRECISION (default auto) is the
# machine's, not the run's: bf16 where the CPU computes it (the Zen 4 the run began on), fp32 elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
RUN=${RUN:-runs/go9}
SNAP=${SNAP:-benchmarks/results/zero_go9/snapshot}
WINDOW=${WINDOW:-20}
EVERY=5

# Generations 1-102 trained on a window of 4 generations, all of it, at learning rate 0.02. From generation 103 on
# (an amendment, recorded in zero.json; docs/zero.md "The window and the learning rate"): a uniform draw of 65,536
# of the last 20 generations' samples, at 0.002, after benchmarks/zero_lr_probe.py found the value head's held-out
# loss at the old settings no better than a constant's.
settings=(--size 9 --games 256 --parallel 32 --leaves 4 --root gumbel --gumbel-m 16 --simulations 32
    --blocks 4 --channels 64 --precision "${PRECISION:-auto}" --temperature-moves 8 --resign -0.9 --no-resign-share 0.1
    --max-moves 160 --window "$WINDOW" --train-samples 65536 --epochs 1 --batch-size 256 --lr 0.02
    --lr-schedule 103:0.002 --seed 0)
# A smoke test of save and restore on a small board (RUN, SNAP, WINDOW and ZERO_ARGS set; never for the real run).
if [ -n "${ZERO_ARGS:-}" ]; then read -r -a settings <<< "$ZERO_ARGS"; settings+=(--window "$WINDOW"); fi

restore() {
    if [ -e "$RUN/zero.json" ]; then return; fi
    if [ ! -e "$SNAP/zero.json" ]; then return; fi
    echo "restoring $RUN from $SNAP" >&2
    mkdir -p "$RUN"
    cp -r "$SNAP"/. "$RUN"/
}

last_generation() {
    "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["generation"])' "$1/state.json"
}

case "${1:-}" in
run)
    restore
    HOURS=${2:-12}
    GENERATIONS=${3:-200}
    if [ -z "${ZERO_ARGS:-}" ]; then
        mkdir -p benchmarks/results/zero_go9
        echo "$(git rev-parse --short HEAD) $(date -u +%FT%TZ) run to $HOURS hours, at most generation $GENERATIONS," \
            "on $(nproc) cores" >> benchmarks/results/zero_go9/runs.txt
    fi
    exec "$PY" -m fuseki zero train go --out "$RUN" --hours "$HOURS" --generations "$GENERATIONS" "${settings[@]}"
    ;;
save)
    [ -e "$RUN/state.json" ] || { echo "zero_go9.sh: no run in $RUN to save" >&2; exit 2; }
    G=$(last_generation "$RUN")
    mkdir -p "${SNAP%/*}"
    tmp=$(mktemp -d "${SNAP%/*}/.snapshot.XXXXXX")
    for f in zero.json state.json losses.png; do [ -e "$RUN/$f" ] && cp "$RUN/$f" "$tmp/"; done
    keep=("$G")
    for ((n = 0; n <= G; n += EVERY)); do keep+=("$n"); done
    # and the last network of each regime before an amendment (what the amended generations are measured against)
    for n in $("$PY" -c 'import json,sys; print(*(a["from_generation"] - 1 for a in json.load(open(sys.argv[1])).get("amendments", [])))' \
        "$RUN/zero.json"); do keep+=("$n"); done
    # and every generation the rating has rated, so that its ratings.json can be fitted again from the snapshot
    if [ -e "$RUN/rate/ratings.json" ]; then
        for n in $("$PY" -c 'import json,sys; print(*(g["generation"] for g in json.load(open(sys.argv[1]))["generations"]))' \
            "$RUN/rate/ratings.json"); do keep+=("$n"); done
    fi
    for n in "${keep[@]}"; do
        f=$(printf 'gen-%04d.safetensors' "$n")
        [ -e "$RUN/$f" ] && cp "$RUN/$f" "$tmp/"
    done
    f=$(printf 'learner-%04d.safetensors' "$G")
    [ -e "$RUN/$f" ] && cp "$RUN/$f" "$tmp/"
    for ((n = G - WINDOW + 2; n <= G; n++)); do
        f=$(printf 'selfplay-%04d.npz' "$n")
        [ "$n" -ge 1 ] && [ -e "$RUN/$f" ] && cp "$RUN/$f" "$tmp/"
    done
    if [ -d "$RUN/rate" ]; then cp -r "$RUN/rate" "$tmp/"; find "$tmp/rate" -name .fuseki.lock -delete; fi
    chmod 755 "$tmp"
    rm -rf "$SNAP" && mv "$tmp" "$SNAP"
    echo "saved generation $G of $RUN in $SNAP ($(du -sh "$SNAP" | cut -f1))"
    ;;
match)
    restore
    G=${2:-$(last_generation "$RUN")}
    MODEL=$(printf '%s/gen-%04d.safetensors' "$RUN" "$G")
    [ -e "$MODEL" ] || { echo "zero_go9.sh: no network $MODEL" >&2; exit 2; }
    # The network's argmax search is deterministic, and GNU Go's seed ({seed}) alone left 14 of generation 79's
    # 100 games repeats of others (docs/zero.md): as in the rating, the first 4 moves are drawn by visit counts,
    # seeded by the game's number (the arena gives every in-process agent its own seed a game).
    exec bash benchmarks/strength_vs_gnugo.sh 9 1 "${3:-100}" "zero:model=$MODEL,seconds=${4:-5},temperature_moves=4" \
        "zero-go9-gen$G-${4:-5}s-t4"
    ;;
rate)
    restore
    exec "$PY" -m fuseki zero rate "$RUN" --anchors random,mcts:1000,gnugo:1 --games "${2:-40}" --every "$EVERY"
    ;;
*)
    sed -n '2,8p' "$0" >&2
    exit 2
    ;;
esac
