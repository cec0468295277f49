"""Benchmark the rules core: random-play decisions per second, legal-intent listing and clone.

    python -m experiments.bench_core --games 20 --offices 4

Speed is measured here, never in timed tests (brief: "measure with a benchmark script").
"""

from __future__ import annotations

import argparse
import time

from agents import RandomAgent, seat_seed
from sm_env.core.config import GameConfig
from sm_env.core.state import GameState


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--offices", type=int, default=4)
    parser.add_argument("--days", type=int, default=1)
    args = parser.parse_args()
    config = GameConfig(offices=args.offices, days=args.days)

    decisions = 0
    legal_calls = 0
    clones = 0
    t_play = t_legal = t_clone = 0.0
    for game in range(args.games):
        state = GameState.new(config, game)
        agents = [RandomAgent(seat_seed(game, s)) for s in range(config.offices)]
        while not state.is_terminal():
            t0 = time.perf_counter()
            intent = agents[state.current_player()].choose(state)
            state.apply(intent)
            t_play += time.perf_counter() - t0
            decisions += 1
            state.events.clear()
            if decisions % 10 == 0:
                t0 = time.perf_counter()
                state.legal_intents()
                t_legal += time.perf_counter() - t0
                legal_calls += 1
                t0 = time.perf_counter()
                state.clone()
                t_clone += time.perf_counter() - t0
                clones += 1
    print(f"{args.games} games, {config.offices} offices, {config.days} day(s): {decisions} decisions")
    print(f"random play (legal_intents + choose + apply): {decisions / t_play:,.0f} decisions/s")
    print(f"legal_intents(): {legal_calls / t_legal:,.0f} calls/s")
    print(f"clone(): {clones / t_clone:,.0f} clones/s")


if __name__ == "__main__":
    main()
