#!/usr/bin/env bash
# Device script: a strength match against GNU Go (benchmarks/strength_vs_gnugo.sh), or two of our agents head to
# head with GNU Go as the referee (benchmarks/pair_match.sh), on a lent machine's 16 cores.
#
# A 19×19 match of 50 games against GNU Go is hours of one core here; with 16 games at a time it is minutes.
# The device image has no GNU Go and reaches no package mirror, so the binary travels: Debian's /usr/games/gnugo
# (3.8; it needs glibc 2.29 or later) and the two libraries it links beyond glibc (libreadline 8, libtinfo 6).
# Against GNU Go, only agents whose budget is not a clock belong here (a network's argmax, a fixed number of
# playouts): the device's cores are not this machine's, so a budget in seconds would buy another strength. A pair
# at equal time is fair anywhere (both sides take turns on one core); its figure is the device's.
#
#   here, once:  bash benchmarks/device/gnugo_match.sh prep
#   each call:   run(command="bash benchmarks/device/gnugo_match.sh run SIZE LEVEL GAMES AGENT NAME", carry=[".gnugo"])
#           or:  run(command="bash benchmarks/device/gnugo_match.sh pair SIZE GAMES NAME AGENT_A AGENT_B", carry=[".gnugo"])
#           or:  run(command="bash benchmarks/device/gnugo_match.sh default SIZE LEVEL GAMES", carry=[".gnugo"])
#                (benchmarks/default_vs_gnugo.sh: the size's default bot as players get it, `fuseki gtp` without
#                --bot, into the folder s10-levelLEVEL-$MACHINE, MACHINE default "device"; only where that bot
#                does not search on a clock, as the 19x19 and 13x13 networks do not)
#   after:       bash benchmarks/device/gnugo_match.sh collect FILES_AT
#
# The match folder (benchmarks/results/strength_vs_gnugo_SIZE/games/NAME-levelLEVEL/) is resumable and, while
# untracked or committed, travels with the tree: a call continues the games already played here or there, and a
# call cut short by CALL_SECONDS (default 300) keeps its finished games. `collect` unpacks the call's folder
# over this checkout's. Environment: CALL_SECONDS, WORKERS (default: the machine's cores), PYTHON (python3).
set -uo pipefail
cd "$(git rev-parse --show-toplevel 2>/dev/null || pwd)"
T0=$SECONDS
MODE=${1:-}
case "$MODE" in
prep)
    set -e
    mkdir -p .gnugo/lib .gnugo/whl
    cp /usr/games/gnugo .gnugo/gnugo
    for lib in libreadline.so.8 libtinfo.so.6; do cp -L "/lib/x86_64-linux-gnu/$lib" .gnugo/lib/; done
    cp "${WHEELS:-/work/main/.whl}"/sgfmill-*.whl "${WHEELS:-/work/main/.whl}"/chess-*.whl .gnugo/whl/
    git check-ignore -q .gnugo/gnugo || { echo "gnugo_match: .gnugo is not ignored (.gitignore)" >&2; exit 1; }
    du -sh .gnugo
    exit 0
    ;;
collect)
    set -e
    FILES=${2:?give the files_at folder of the call}
    [ -f "$FILES/results.tar" ] || { echo "gnugo_match: no results.tar in $FILES" >&2; exit 1; }
    tar -xf "$FILES/results.tar"
    tar -tf "$FILES/results.tar" | grep -c '\.sgf$' | sed 's/$/ games in the unpacked folders/'
    exit 0
    ;;
run | pair | default) shift ;;
*)
    echo "usage: $0 prep | run SIZE LEVEL GAMES AGENT NAME | pair SIZE GAMES NAME AGENT_A AGENT_B | default SIZE LEVEL GAMES | collect FILES_AT" >&2
    exit 2
    ;;
esac
: "${OUT:?OUT must be set (the run tool sets it)}"
if [ "$MODE" = default ]; then
    SIZE=${1:?board size}; LEVEL=${2:?GNU Go level}; GAMES=${3:?games}; AGENTS=(); MACHINE=${MACHINE:-device}
    D=benchmarks/results/default_vs_gnugo_$SIZE; MATCH=$D/games/s10-level$LEVEL-$MACHINE; RESULT=$D/s10-level$LEVEL-$MACHINE.json
    WHAT="the default bot (fuseki gtp) vs gnugo --level $LEVEL"
    MATCH_CMD=(env MACHINE="$MACHINE" bash benchmarks/default_vs_gnugo.sh "$SIZE" "$LEVEL" "$GAMES")
elif [ "$MODE" = run ]; then
    SIZE=${1:?board size}; LEVEL=${2:?GNU Go level}; GAMES=${3:?games}; AGENTS=("${4:?agent}"); NAME=${5:?name}
    D=benchmarks/results/strength_vs_gnugo_$SIZE; MATCH=$D/games/$NAME-level$LEVEL; RESULT=$D/$NAME-level$LEVEL.json
    WHAT="${AGENTS[0]} vs gnugo --level $LEVEL"
    MATCH_CMD=(bash benchmarks/strength_vs_gnugo.sh "$SIZE" "$LEVEL" "$GAMES" "${AGENTS[0]}" "$NAME")
else
    SIZE=${1:?board size}; GAMES=${2:?games}; NAME=${3:?name}; AGENTS=("${4:?agent A}" "${5:?agent B}")
    D=benchmarks/results/pair_$SIZE; MATCH=$D/games/$NAME; RESULT=$D/$NAME.json
    WHAT="${AGENTS[0]} vs ${AGENTS[1]}"
    MATCH_CMD=(bash benchmarks/pair_match.sh "$SIZE" "$GAMES" "$NAME" "${AGENTS[0]}" "${AGENTS[1]}")
fi
CALL_SECONDS=${CALL_SECONDS:-300}
PYTHON=${PYTHON:-python3}
log() { echo "[$((SECONDS - T0)) s] $*" | tee -a "$OUT/log.txt"; }
[ -x .gnugo/gnugo ] || { log "no .gnugo/gnugo: run 'bash benchmarks/device/gnugo_match.sh prep' here and carry .gnugo"; exit 2; }
# GNU Go as `gnugo` on the PATH: the match folder records the engine's command, and the same command here and
# there lets either machine resume the other's games.
mkdir -p /tmp/gnugo-bin && ln -sf "$PWD/.gnugo/gnugo" /tmp/gnugo-bin/gnugo
export PATH=/tmp/gnugo-bin:$PATH LD_LIBRARY_PATH=$PWD/.gnugo/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
gnugo --version 2>&1 | head -1 | tee -a "$OUT/log.txt" | grep -q "GNU Go" || { log "the carried gnugo does not run here"; exit 3; }
if ! $PYTHON -c "import sgfmill, chess" 2>/dev/null; then
    $PYTHON -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .gnugo/whl/*.whl \
        || { log "installing the carried wheels failed"; exit 3; }
fi
CORES=$(nproc)  # before OMP_NUM_THREADS=1: GNU nproc reports that variable's value when it is set
export PYTHONPATH=$PWD/src:/tmp/site PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1
log "$CORES cores; $($PYTHON -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available())')"
# Compile the kernels once, before the workers start: the rules' kernels, then whatever the agent calls (its
# first moves). Warming every search kernel (fuseki.search.go.warmup) took 155 s there, most of a short call.
$PYTHON -m fuseki.go.warmup > /dev/null || { log "warming the rules' kernels failed"; exit 3; }
if [ "$MODE" = default ]; then
    # The engine compiles every search kernel at start-up (some size's default bot searches); each game starts it
    # afresh, and a start that compiles would pass the 30 s a start may take: fill Numba's cache once, here.
    printf 'boardsize %s\ngenmove b\ngenmove w\nquit\n' "$SIZE" | $PYTHON -m fuseki gtp --seconds 10 > "$OUT/warm.txt" 2>&1 \
        || { log "the default bot could not play its first moves"; cat "$OUT/warm.txt"; exit 3; }
fi
$PYTHON - "$SIZE" "${AGENTS[@]}" <<'PY' || { log "an agent could not play its first moves"; exit 3; }
import sys
from fuseki.arena.specs import build_agent, parse_agent_spec
from fuseki.go.state import GameState
for spec in sys.argv[2:]:
    agent = build_agent(parse_agent_spec(spec), 0)
    state = GameState.new(int(sys.argv[1]))
    for _ in range(4):
        state = state.play(agent.select_move(state))
PY
log "kernels warm"
LEFT=$((CALL_SECONDS - (SECONDS - T0) - 20))
[ $LEFT -gt 30 ] || { log "only $LEFT s left; no games played"; exit 5; }
log "playing for up to $LEFT s: $WHAT, ${SIZE}x$SIZE, $GAMES games, ${WORKERS:-$CORES} at a time"
timeout --signal=INT --kill-after=15 $LEFT env PY=$PYTHON WORKERS=${WORKERS:-$CORES} "${MATCH_CMD[@]}" >> "$OUT/log.txt" 2>&1
log "match exit status $? with $(ls "$MATCH"/*.sgf 2>/dev/null | wc -l) games in the folder"
tar -cf "$OUT/results.tar" --exclude=.fuseki.lock "$MATCH" $(ls "$RESULT" 2>/dev/null)
log "done"
