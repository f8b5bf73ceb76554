#!/usr/bin/env bash
# Reproduce the shipped pretrained agents and the README's "Trained agents" ladder.
#
#   scripts/train_pretrained.sh [GAME...]      (default: all four; needs `make .venv/.installed-dev`)
#
# Each game trains by self-play (league of its own snapshots, half the games against random
# and the heuristic) in one process with one torch thread: under 30 minutes of CPU time each
# (the README lists each run's CPU and wall time; its four runs shared the 2-core machine).
# Then: export the best checkpoint to agents/pretrained/<game>.npz, rate it in a tournament
# (1000 games per pairing, fresh seeds), and plot the learning curves.
set -euo pipefail
cd "$(dirname "$0")/.."
CARDARENA=${CARDARENA:-.venv/bin/cardarena}
OUT=${OUT:-runs/ladder}

declare -A STEPS=([promise_war_v0]=4000000 [beast_wars_v0]=1600000
                  [ironman_war_v0]=3000000 [cardline_v0]=1800000)
declare -A EVERY=([promise_war_v0]=200000 [beast_wars_v0]=100000
                  [ironman_war_v0]=200000 [cardline_v0]=100000)
# Iron Man needs the prioritised league (the default); the others ran with "latest".
declare -A LEAGUE=([promise_war_v0]=latest [beast_wars_v0]=latest
                   [ironman_war_v0]=prioritised [cardline_v0]=latest)
declare -A OPPONENTS=([promise_war_v0]="heuristic random" [beast_wars_v0]="heuristic random"
                      [ironman_war_v0]="heuristic random"
                      [cardline_v0]="heuristic random memory oracle")

games=("$@")
[ ${#games[@]} -gt 0 ] || games=(promise_war_v0 beast_wars_v0 ironman_war_v0 cardline_v0)
for game in "${games[@]}"; do
    every=${EVERY[$game]}
    "$CARDARENA" train "$game" --selfplay --steps "${STEPS[$game]}" --seed 0 \
        --out "$OUT/$game" --league-mode "${LEAGUE[$game]}" --eval-every "$every" --checkpoint-every "$every" \
        --snapshot-every "$every" --eval-games 200 --no-progress
    # The checkpoint with the best training-time evaluation against the heuristic, after at
    # least one snapshot interval of self-play; the ladder below measures it on fresh games.
    "$CARDARENA" export "$OUT/$game" "agents/pretrained/$game.npz" --best heuristic \
        --min-step $((2 * every))
    # shellcheck disable=SC2086
    "$CARDARENA" eval "$game" pretrained ${OPPONENTS[$game]} --games 1000 --jobs 2 \
        --seed 2026 --out "$OUT/$game/ladder" --quiet
done
runs=()
for game in "${games[@]}"; do runs+=("$OUT/$game"); done
"$CARDARENA" curves "${runs[@]}" --out docs/learning_curves.png
# The README's extra panel: Iron Man with the "latest" league, which forgets the heuristic.
#   cardarena train ironman_war_v0 --selfplay --league-mode latest --steps 3000000 --seed 0 \
#       --out runs/ladder/ironman_war_v0_latest (other flags as above)
