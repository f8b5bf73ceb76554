#!/usr/bin/env bash
# Reproduce the shipped pretrained agents and the "Trained agents" ladder (docs/site/training.md).
#
#   scripts/train_pretrained.sh [AGENT...]   (default: all eight; needs `make .venv/.installed-dev`)
#
# AGENT is a row name below: promise_war_v0 ... for the 2-player tables, promise_war_v0_3p ...
# for the others. Each trains with `--backend vector` (masked PPO on the vector engine) by
# self-play: a league of its own snapshots, half the games against random and the heuristic,
# in one process with one torch thread, bfloat16 hidden layers (AMX; `--precision bfloat16` is
# passed so a machine without bfloat16 units emulates the same arithmetic, slowly), each under
# 2 hours of CPU time; a row's own flags add the magnet term and exploiters in the league
# (docs/magnet.md, training/exploiters.py). Then: export the checkpoint whose training-time
# evaluation against the heuristic was best to agents/pretrained/<AGENT>.npz, rate it on fresh
# games (1000 per pairing, seed 2026; at 3 and 4 players alone against heuristics in every
# other seat), and plot the learning curves.
set -euo pipefail
cd "$(dirname "$0")/.."
CARDARENA=${CARDARENA:-.venv/bin/cardarena}
OUT=${OUT:-runs/ladder}
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1

#            agent                env             players  steps     every    league  [flags]
RUNS=$(cat <<'EOF'
promise_war_v0       promise_war_v0  2  20000000  1000000  latest
ironman_war_v0       ironman_war_v0  2  30000000  2000000  prioritised  --kl-coef 0.5 --magnet average --exploiter-every 5000000 --exploiter-steps 1000000 --sample
beast_wars_v0        beast_wars_v0   2  12000000  1000000  prioritised  --learning-rate 0.0003
cardline_v0          cardline_v0     2   5000000   500000  latest
promise_war_v0_3p    promise_war_v0  3   8000000   500000  latest
promise_war_v0_4p    promise_war_v0  4   8000000   500000  latest
cardline_v0_3p       cardline_v0     3   6000000   500000  latest  --learning-rate 0.0003
cardline_v0_4p       cardline_v0     4   6000000   500000  latest  --learning-rate 0.0003
EOF
)
declare -A OPPONENTS=([promise_war_v0]="heuristic random" [beast_wars_v0]="heuristic random"
                      [ironman_war_v0]="heuristic random"
                      [cardline_v0]="heuristic random memory oracle")

wanted=("$@")
trained=()
while read -r agent env players steps every league extra; do
    if [ ${#wanted[@]} -gt 0 ] && [[ ! " ${wanted[*]} " == *" $agent "* ]]; then
        continue
    fi
    run="$OUT/$agent"
    table=()  # the 2-player agents train at the env's default table
    [ "$players" = 2 ] || table=(--num-players "$players")
    # shellcheck disable=SC2086  # $extra: the row's own flags, split into words
    "$CARDARENA" train "$env" --backend vector "${table[@]}" --selfplay \
        --steps "$steps" --seed 0 --out "$run" --league-mode "$league" --precision bfloat16 \
        --eval-every "$every" --checkpoint-every "$every" --snapshot-every "$every" \
        --eval-games 1000 --no-progress ${extra:+$extra}
    # The checkpoint with the best training-time evaluation against the heuristic, after at
    # least one snapshot interval of self-play; the ladder below measures it on fresh games.
    "$CARDARENA" export "$run" "agents/pretrained/$agent.npz" --best heuristic \
        --min-step $((2 * every))
    if [ "$players" = 2 ]; then
        # shellcheck disable=SC2086
        "$CARDARENA" eval "$env" pretrained ${OPPONENTS[$env]} --games 1000 --jobs 2 \
            --seed 2026 --out "$run/ladder" --quiet
    else
        "$CARDARENA" eval "$env" pretrained random --field heuristic --games 1000 \
            --config "num_players=$players" --seed 2026 --out "$run/ladder"
    fi
    trained+=("$run")
done <<< "$RUNS"
if [ ${#trained[@]} -gt 0 ]; then
    "$CARDARENA" curves "${trained[@]}" --out docs/learning_curves.png
fi
