#!/usr/bin/env bash
# Install fuseki and everything it needs on a fresh machine, idempotently.
#
#   bash scripts/setup.sh            # the package in .venv, GNU Go, warm JIT cache
#   bash scripts/setup.sh --test     # + test and lint tools (pytest, import-linter, ruff, mypy), the peers and Stockfish
#   bash scripts/setup.sh --bench    # + the benchmark peers (OpenSpiel, dlgo)
#
# Debian packages are installed only when missing (needs root or sudo).
# torch is installed pinned (TORCH_VERSION, default 2.13.0, the CPU build on
# this machine class), never through the package metadata.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
VENV=${FUSEKI_VENV:-$ROOT/.venv}
PYTHON=${PYTHON:-python3}
WANT_TEST=0
WANT_BENCH=0
for arg in "$@"; do
    case "$arg" in
        --test) WANT_TEST=1; WANT_BENCH=1 ;;  # the benchmark tests run the peers too
        --bench) WANT_BENCH=1 ;;
        -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
        *) echo "setup.sh: unknown option $arg (try --help)" >&2; exit 2 ;;
    esac
done

say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

# --- Debian packages ---------------------------------------------------------
apt_install() {
    local missing=()
    for spec in "$@"; do
        local pkg=${spec%%:*} probe=${spec#*:}
        [ -e "$probe" ] || command -v "$probe" >/dev/null 2>&1 || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
            say "warning: cannot install ${missing[*]} (not root, no sudo); tests that need them will fail"
            return 0
        fi
    fi
    say "installing Debian packages: ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
apt_install "gnugo:/usr/games/gnugo"
if [ $WANT_TEST -eq 1 ]; then
    apt_install "nodejs:node" "npm:npm"  # Sabaki's GTP library drives our engine in a test
    apt_install "chromium:chromium" "chromium-driver:chromedriver"  # the web UI's browser tests
    apt_install "stockfish:/usr/games/stockfish"  # chess: encoding tests on its games, the UCI match tests (15.1)
fi

# --- Python environment --------------------------------------------------------
if [ ! -x "$VENV/bin/python" ]; then
    say "creating virtual environment $VENV"
    "$PYTHON" -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip install --quiet --disable-pip-version-check)
"${PIP[@]}" --upgrade pip >/dev/null
EXTRAS=""
[ $WANT_TEST -eq 1 ] && EXTRAS="test,lint,ray"  # the Zero loop's Ray test starts a local Ray cluster
[ $WANT_BENCH -eq 1 ] && EXTRAS="${EXTRAS:+$EXTRAS,}bench"
# torch is pinned here, never in the package metadata: a plain "torch"
# requirement would pull a CUDA build of several GB on a CPU machine.
if ! "$VENV/bin/python" -c "import torch" >/dev/null 2>&1; then
    say "installing torch ${TORCH_VERSION:=2.13.0} (CPU build)"
    "${PIP[@]}" "torch==$TORCH_VERSION"
fi
say "installing fuseki${EXTRAS:+[$EXTRAS]}"
"${PIP[@]}" -e ".${EXTRAS:+[$EXTRAS]}"
if [ $WANT_BENCH -eq 1 ]; then
    # dlgo pins an old Keras/TensorFlow; only its pure-Python board is benchmarked.
    "${PIP[@]}" --no-deps dlgo
fi

if [ $WANT_TEST -eq 1 ] && command -v npm >/dev/null 2>&1; then
    say "installing @sabaki/gtp for the GTP controller test"
    (cd tests/sabaki && npm ci --silent --no-audit --no-fund >/dev/null)
fi

# --- Compile the Numba kernels once, so the first game starts at once -----------
say "compiling the board kernels (cached for later runs)"
"$VENV/bin/python" -m fuseki.go.warmup
"$VENV/bin/python" -m fuseki.search.go.warmup
"$VENV/bin/python" -m fuseki.deadstones.warmup
say "done: $VENV/bin/fuseki is ready"
