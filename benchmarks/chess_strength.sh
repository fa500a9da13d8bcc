#!/usr/bin/env bash
# The chess strength chain of issue 20, resumable step by step:
#   Stockfish labels -> a warm-start network -> matches against Stockfish 15.1 through `fuseki uci`.
#
#   bash benchmarks/chess_strength.sh            # every step, each skipped or resumed where it stopped
#   bash benchmarks/chess_strength.sh labels     # one step: labels | net | skill0 | elo1350 | skills
#
# Everything lives in $STATE (default .chess in the repository, ignored by git: the home cache
# ~/.cache/fuseki/chess, the old default, was wiped between sessions; STATE=~/.cache/fuseki/chess uses
# it still), so a killed run resumes with the same command: `chess-warmstart label` and `chess-match`
# resume their folders themselves, and the network is trained only when its file is missing. Each step
# runs under `nice -n 10` (the 2-core machine keeps its CPU for the timed Go matches).
#
# Settings (environment): PY (python), GAMES (labelled games, 200), DEPTH (8), BLOCKS/CHANNELS (4/64),
# EPOCHS (4), RESULT_WEIGHT (0), MATCH_GAMES (100), GRACE (seconds past a move's time before a silent
# engine forfeits; 5, since a niced engine on a loaded machine can be starved for seconds),
# WORKERS (labelling processes, each with its own Stockfish; 1) and CONCURRENCY (games of a match
# played at once, each with its own engines; 1). Neither changes the labels or the games, and a step
# resumes at another value; on the 2-core machine keep CONCURRENCY at 1, since two engines thinking
# at once on one core each get half the time a move their budget says.
# The network is $STATE/nets/warm-BxC-dDEPTH-gGAMES-rwRESULT_WEIGHT[-eEPOCHS, when not 4].safetensors, and the
# matches of any network but the first (warm-4x64-d8-g200-rw0) are named after it: skill0-mt0.1-NETWORK.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-python}
export PYTHONPATH=${PYTHONPATH:-$PWD/src}
STATE=${STATE:-$PWD/.chess}
GAMES=${GAMES:-200}
DEPTH=${DEPTH:-8}
BLOCKS=${BLOCKS:-4}
CHANNELS=${CHANNELS:-64}
EPOCHS=${EPOCHS:-4}
RESULT_WEIGHT=${RESULT_WEIGHT:-0}
MATCH_GAMES=${MATCH_GAMES:-100}
GRACE=${GRACE:-5}
WORKERS=${WORKERS:-1}
CONCURRENCY=${CONCURRENCY:-1}
LABELS=$STATE/labels-d$DEPTH
NETNAME=warm-${BLOCKS}x${CHANNELS}-d$DEPTH-g$GAMES-rw$RESULT_WEIGHT
if [[ $EPOCHS != 4 ]]; then NETNAME+="-e$EPOCHS"; fi
NET=$STATE/nets/$NETNAME.safetensors
# The first network's matches keep their folder names (skill0-mt0.1, ...); any other network's carry its name.
TAG=""
if [[ $NETNAME != warm-4x64-d8-g200-rw0 ]]; then TAG="-$NETNAME"; fi
RUN="nice -n 10 $PY -m fuseki"
ENGINE="$PY -m fuseki uci --model $NET"
mkdir -p "$STATE/nets" "$STATE/matches"

labels() {
  $RUN chess-warmstart label --out "$LABELS" --games "$GAMES" --depth "$DEPTH" --workers "$WORKERS" --json \
    | tee "$STATE/labels-d$DEPTH.json"
}

net() {
  if [[ -f $NET ]]; then echo "network $NET exists"; return; fi
  $RUN chess-warmstart train "$LABELS" --model-out "$NET.tmp.safetensors" --blocks "$BLOCKS" --channels "$CHANNELS" \
    --epochs "$EPOCHS" --result-weight "$RESULT_WEIGHT" --json | tee "$NET.json"
  mv "$NET.tmp.safetensors" "$NET"
}

# match NAME MOVETIME OPTION...: a match of MATCH_GAMES games against Stockfish (1 thread) with the given options.
match() {
  local name=$1$TAG movetime=$2; shift 2
  local opts=(--option-b "Threads=1")
  for o in "$@"; do opts+=(--option-b "$o"); done
  $RUN chess-match "$ENGINE" stockfish "${opts[@]}" --games "$MATCH_GAMES" --movetime "$movetime" \
    --grace "$GRACE" --concurrency "$CONCURRENCY" --out "$STATE/matches/$name" --json | tee -a "$STATE/matches/$name.log"
  tail -n 1 "$STATE/matches/$name.log" > "$STATE/matches/$name.json"
}

skill0() { match skill0-mt0.1 0.1 "Skill Level=0"; }
elo1350() { match elo1350-mt1 1 "UCI_LimitStrength=true" "UCI_Elo=1350"; }
skills() { for s in 1 3 5; do match "skill$s-mt0.1" 0.1 "Skill Level=$s"; done; }

steps=("$@")
[[ ${#steps[@]} -eq 0 ]] && steps=(labels net skill0 elo1350 skills)
for step in "${steps[@]}"; do
  case $step in
    labels | net | skill0 | elo1350 | skills) echo "== $step"; "$step" ;;
    *) echo "unknown step $step (labels | net | skill0 | elo1350 | skills)" >&2; exit 2 ;;
  esac
done
