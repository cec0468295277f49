"""Benchmark the rules core: random-play decisions per second, and the time of one
``legal_intents()``, one ``clone()`` and one ``apply()``, over fixed seeds.

    python -m experiments.bench_core --games 20 --offices 4

Speed is measured here, never in timed tests (brief: "measure with a benchmark script").
Each figure is the best of ``--repeats`` runs over the same games, so machine noise only
slows a run down, never speeds it up.
"""

from __future__ import annotations

import argparse
import time

from agents import RandomAgent, seat_seed
from sm_env.core.config import GameConfig
from sm_env.core.state import GameState


def _run(config: GameConfig, games: int) -> dict[str, float]:
    decisions = legal_calls = clones = applies = 0
    t_play = t_legal = t_clone = t_apply = 0.0
    for game in range(games):
        state = GameState.new(config, game)
        agents = [RandomAgent(seat_seed(game, s)) for s in range(config.offices)]
        while not state.is_terminal():
            t0 = time.perf_counter()
            intent = agents[state.current_player()].choose(state)
            state.apply(intent)
            t_play += time.perf_counter() - t0
            decisions += 1
            state.events.clear()
            if decisions % 10 == 0 and not state.is_terminal():
                t0 = time.perf_counter()
                other = state.clone()
                t_clone += time.perf_counter() - t0
                clones += 1
                t0 = time.perf_counter()
                legal = other.legal_intents()
                t_legal += time.perf_counter() - t0
                legal_calls += 1
                t0 = time.perf_counter()
                other.apply(legal[0])
                t_apply += time.perf_counter() - t0
                applies += 1
    return {
        "decisions": decisions,
        "decisions_per_s": decisions / t_play,
        "legal_us": 1e6 * t_legal / legal_calls,
        "clone_us": 1e6 * t_clone / clones,
        "apply_us": 1e6 * t_apply / applies,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--offices", type=int, default=4)
    parser.add_argument("--days", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    config = GameConfig(offices=args.offices, days=args.days)
    runs = [_run(config, args.games) for _ in range(args.repeats)]
    print(
        f"{args.games} games, {config.offices} offices, {config.days} day(s): {runs[0]['decisions']:.0f} decisions"
    )
    print(
        f"random play (legal_intents + choose + apply): {max(r['decisions_per_s'] for r in runs):,.0f} decisions/s"
    )
    print(f"legal_intents(): {min(r['legal_us'] for r in runs):.1f} µs a call")
    print(f"clone(): {min(r['clone_us'] for r in runs):.1f} µs a call")
    print(f"apply() of the first legal intent: {min(r['apply_us'] for r in runs):.1f} µs a call")


if __name__ == "__main__":
    main()
