#!/usr/bin/env bash
# The ladder: per game, random, heuristic, ismcts at two budgets and pretrained against each
# other (a round robin, cardarena eval), each one's approximate exploitability at ONE stated
# best-response budget (cardarena exploit), and optionally, for one self-play run, the
# exploitability of its checkpoints over the run (is self-play converging?). Then the tables
# (scripts/ladder_table.py). Nothing here is tuned to the seeds: they are fixed below.
#
#   scripts/ladder.sh [ENV ...]                    # default: all four games
#   BR_STEPS=1000000 GAMES=200 scripts/ladder.sh promise_war_v0
#   GENERATIONS=runs/pw scripts/ladder.sh promise_war_v0   # + a self-play run's checkpoints
#
# Search agents have no batched form: as the best response's opponent they play row by row
# (tens of ms per decision), so their exploitability is measured only with ISMCTS_EXPLOIT=1
# and at its own stated budget (ISMCTS_BR_STEPS).
set -euo pipefail
cd "$(dirname "$0")/.."
export OPENBLAS_NUM_THREADS=1  # small numpy policies run far faster on one BLAS thread

OUT=${OUT:-runs/ladder}
BR_STEPS=${BR_STEPS:-1000000}        # best-response budget per start (learner decisions)
BR_GAMES=${BR_GAMES:-2000}           # fresh games measuring each best response
GAMES=${GAMES:-200}                  # games per pairing of the round robin
ISMCTS_LOW=${ISMCTS_LOW:-25}         # the two search budgets (iterations per decision)
ISMCTS_HIGH=${ISMCTS_HIGH:-100}
ISMCTS_EXPLOIT=${ISMCTS_EXPLOIT:-0}
ISMCTS_BR_STEPS=${ISMCTS_BR_STEPS:-65536}
GENERATIONS=${GENERATIONS:-}         # a `cardarena train --selfplay --out` folder
EVAL_SEED=2026
BR_SEED=0
CARDARENA=${CARDARENA:-.venv/bin/cardarena}
PYTHON=${PYTHON:-.venv/bin/python}

envs=("$@")
[ ${#envs[@]} -gt 0 ] || envs=(promise_war_v0 ironman_war_v0 beast_wars_v0 cardline_v0)
low="ismcts:iterations=$ISMCTS_LOW"
high="ismcts:iterations=$ISMCTS_HIGH"

for env in "${envs[@]}"; do
    here="$OUT/$env"
    mkdir -p "$here"
    if [ ! -f "$here/round_robin/results.json" ]; then
        "$CARDARENA" eval "$env" random heuristic "$low" "$high" pretrained \
            --games "$GAMES" --jobs 2 --seed "$EVAL_SEED" --quiet --out "$here/round_robin"
    fi
    exploited=(random heuristic pretrained)
    [ "$ISMCTS_EXPLOIT" = 1 ] && exploited+=("$low")
    for agent in "${exploited[@]}"; do
        name=${agent//[:=]/_}
        [ -f "$here/exploit/$name/exploit.json" ] && continue
        steps=$BR_STEPS
        [[ $agent == ismcts* ]] && steps=$ISMCTS_BR_STEPS
        "$CARDARENA" exploit "$env" "$agent" --steps "$steps" --games "$BR_GAMES" \
            --seed "$BR_SEED" --out "$here/exploit/$name" --no-progress
    done
    if [ -n "$GENERATIONS" ]; then
        for checkpoint in "$GENERATIONS"/checkpoints/step_*; do
            name=$(basename "$checkpoint")
            [ -f "$here/generations/$name/exploit.json" ] && continue
            "$CARDARENA" exploit "$env" "$checkpoint" --steps "$BR_STEPS" --start scratch \
                --games "$BR_GAMES" --seed "$BR_SEED" --out "$here/generations/$name" \
                --no-progress
        done
    fi
done
"$PYTHON" scripts/ladder_table.py "$OUT" | tee "$OUT/ladder.md"
