#!/usr/bin/env bash
# The ladder: per game, random, heuristic, ismcts at two budgets and pretrained against each
# other (a round robin, cardarena eval), each one's approximate exploitability (cardarena
# exploit), and for one short self-play run per game the exploitability of its checkpoints
# (is self-play converging?). Then the tables and the figure (scripts/ladder_table.py).
# Nothing here is tuned to the seeds: they are fixed below. Every finished result is copied
# to docs/ladder (KEEP), and one found there is not measured again: delete it to redo it. A
# best response cut short (a kill, a lost session) continues from its last checkpoint when the
# script runs again (cardarena exploit --resume: the same file as an uninterrupted run).
#
#   scripts/ladder.sh [ENV ...]                    # default: all four games
#   GAMES=100 PARTS="round_robin exploit" scripts/ladder.sh promise_war_v0
#
# PARTS (default all): round_robin, habits (heuristic and pretrained against the habit zoo,
# cardarena.agents.habits, every habit against every other too: HABIT_GAMES per pairing), exploit (random, heuristic, pretrained at BR_STEPS),
# common (random, heuristic, pretrained at the common budget, see below), search (both ismcts
# budgets at the common budget), selfplay (train the self-play run, the shipped agent's row of
# scripts/train_pretrained.sh with fewer steps), generations (exploit each of its checkpoints
# at BR_STEPS from scratch). A finished piece is never redone; SEARCH="25" (say) limits the
# search part to some budgets.
#
# The common budget, the one every agent of the table is measured at: search agents have no
# vector form, so as the best response's opponent they play row by row (tens of ms per
# decision), and a budget they can afford is small: COMMON_STEPS learner decisions, the best
# response warm-started from `pretrained`'s network, measured on COMMON_GAMES games. The
# agents with a vector form get the long budget (BR_STEPS, best of two starts) as well.
set -euo pipefail
cd "$(dirname "$0")/.."
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1  # small numpy policies: far faster on one thread

OUT=${OUT:-runs/ladder}
PARTS=${PARTS:-round_robin habits exploit common search selfplay generations}
BR_STEPS=${BR_STEPS:-1000000}        # best-response budget per start (learner decisions)
BR_GAMES=${BR_GAMES:-2000}           # fresh games measuring each best response
GAMES=${GAMES:-100}                  # games per pairing of the round robin
HABIT_GAMES=${HABIT_GAMES:-1000}     # games per pairing against and among the habits
HABIT_SEED=2027
ISMCTS_LOW=${ISMCTS_LOW:-25}         # the two search budgets (iterations per decision)
ISMCTS_HIGH=${ISMCTS_HIGH:-100}
SEARCH=${SEARCH:-"$ISMCTS_LOW $ISMCTS_HIGH"}
COMMON_STEPS=${COMMON_STEPS:-32768}
COMMON_GAMES=${COMMON_GAMES:-300}
# Worker processes for a search agent's moves (cardarena exploit --jobs): the same results for
# every value, sooner on free cores. (nproc counts OMP_NUM_THREADS, which is 1 here.)
SEARCH_JOBS=${SEARCH_JOBS:-$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)}
EVAL_SEED=2026
BR_SEED=0
KEEP=${KEEP:-docs/ladder}            # the measured results, kept in the repository (see there)
CARDARENA=${CARDARENA:-.venv/bin/cardarena}
PYTHON=${PYTHON:-.venv/bin/python}

# The self-play runs: the shipped rows' league and flags (scripts/train_pretrained.sh), fewer steps.
# They train in float32 (SELFPLAY_PRECISION), fast on every CPU; the kept generations in
# docs/ladder were measured so. SELFPLAY_PRECISION=bfloat16 trains them in the shipped rows'
# own precision, which needs AMX or AVX-512 BF16 to be fast (emulated, some ten times slower:
# Beast Wars' 4M steps take hours instead of minutes).
SELFPLAY_PRECISION=${SELFPLAY_PRECISION:-float32}
declare -A SELFPLAY=(
    [promise_war_v0]="4000000 1000000 latest"
    [ironman_war_v0]="4000000 1000000 prioritised"
    [beast_wars_v0]="4000000 1000000 prioritised --learning-rate 0.0003"
    [cardline_v0]="2000000 500000 latest"
)

# The results files only (the runs' checkpoints stay in $OUT), with their folders, from $1 to
# $2, never over a file already there: a kept result counts as a finished piece.
copy_results() {
    [ -d "$1" ] || return 0
    (cd "$1" && find . \( -name exploit.json -o -name results.json \) -print0) |
        while IFS= read -r -d '' file; do
            [ -e "$2/$file" ] || install -D -m 644 "$1/$file" "$2/$file"
        done
}

envs=("$@")
[ ${#envs[@]} -gt 0 ] || envs=(promise_war_v0 ironman_war_v0 beast_wars_v0 cardline_v0)
low="ismcts:iterations=$ISMCTS_LOW"
high="ismcts:iterations=$ISMCTS_HIGH"
wanted() { [[ " $PARTS " == *" $1 "* ]]; }

# --resume when $1 holds a run cut short (its checkpoints are where it goes on from).
resume_flag() { if [ -d "$1" ]; then echo --resume; fi; }

# The best response to $2 at the common budget, into $1/common/<spec as a file name>; $3...:
# more flags.
common() {
    local folder
    folder="$1/common/$(tr ':=' '__' <<< "$2")"
    [ -f "$folder/exploit.json" ] && return 0
    # shellcheck disable=SC2046  # resume_flag: no word or one
    "$CARDARENA" exploit "$env" "$2" $(resume_flag "$folder") --warm-from pretrained \
        --steps "$COMMON_STEPS" --num-envs 64 --rollout-steps 16 --minibatch-size 512 \
        --eval-games 50 --evaluations 4 --games "$COMMON_GAMES" --seed "$BR_SEED" \
        --out "$folder" --no-progress "${@:3}"
}

copy_results "$KEEP" "$OUT"
trap 'copy_results "$OUT" "$KEEP"' EXIT  # what finished is kept, even when a piece fails
for env in "${envs[@]}"; do
    here="$OUT/$env"
    mkdir -p "$here"
    if wanted round_robin && [ ! -f "$here/round_robin/results.json" ]; then
        "$CARDARENA" eval "$env" random heuristic "$low" "$high" pretrained \
            --games "$GAMES" --jobs 2 --seed "$EVAL_SEED" --quiet --out "$here/round_robin"
    fi
    if wanted habits && [ ! -f "$here/habits/results.json" ]; then
        mapfile -t habits < <("$PYTHON" -c "from cardarena.agents.habits import plans
print('\n'.join(f'habit:plan={p}' for p in plans('$env')))")
        "$CARDARENA" eval "$env" heuristic pretrained "${habits[@]}" \
            --games "$HABIT_GAMES" --jobs 2 --seed "$HABIT_SEED" --quiet --out "$here/habits"
    fi
    if wanted exploit; then
        for agent in random heuristic pretrained; do
            [ -f "$here/exploit/$agent/exploit.json" ] && continue
            # shellcheck disable=SC2046  # resume_flag: no word or one
            "$CARDARENA" exploit "$env" "$agent" $(resume_flag "$here/exploit/$agent") \
                --steps "$BR_STEPS" --games "$BR_GAMES" \
                --seed "$BR_SEED" --out "$here/exploit/$agent" --no-progress
        done
    fi
    if wanted common; then
        for agent in random heuristic pretrained; do common "$here" "$agent"; done
    fi
    if wanted search; then
        for iterations in $SEARCH; do
            common "$here" "ismcts:iterations=$iterations" --jobs "$SEARCH_JOBS"
        done
    fi
    if wanted selfplay && [ ! -f "$here/selfplay/done" ]; then
        read -r steps every league extra <<< "${SELFPLAY[$env]}"
        # shellcheck disable=SC2086  # $extra: the row's own flags, split into words
        "$CARDARENA" train "$env" --backend vector --selfplay --steps "$steps" --seed 0 \
            --out "$here/selfplay" --league-mode "$league" --precision "$SELFPLAY_PRECISION" \
            --eval-every "$every" --checkpoint-every "$every" --snapshot-every "$every" \
            --eval-games 1000 --no-progress ${extra:+$extra}
        touch "$here/selfplay/done"
    fi
    if wanted generations && [ -d "$here/selfplay/checkpoints" ]; then
        for checkpoint in "$here"/selfplay/checkpoints/step_*; do
            name=$(basename "$checkpoint")
            [ -f "$here/generations/$name/exploit.json" ] && continue
            # shellcheck disable=SC2046  # resume_flag: no word or one
            "$CARDARENA" exploit "$env" "$checkpoint" $(resume_flag "$here/generations/$name") \
                --steps "$BR_STEPS" --start scratch \
                --games "$BR_GAMES" --seed "$BR_SEED" --out "$here/generations/$name" \
                --no-progress
        done
    fi
done
"$PYTHON" scripts/ladder_table.py "$OUT" | tee "$OUT/ladder.md"
if ls "$OUT"/*/generations/step_*/exploit.json >/dev/null 2>&1; then
    "$PYTHON" scripts/ladder_table.py "$OUT" --figure "$OUT/generations.png" >/dev/null
fi
