"""How many Moves a busy station offers, and how fast they are listed and applied.

    python -m experiments.bench.switching --stations 20 --placements 40

Stations are grown with random legal card placements; trays with four cars and standing
cars are put on random Operational Rail. Speed is measured here, never in timed tests.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter

from experiments.bench.stations import random_station
from sm_env.core import GameState, MoveTray, render_station


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.bench.switching",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--stations", type=int, default=20)
    parser.add_argument("--placements", type=int, default=40)
    parser.add_argument("--trays", type=int, default=3)
    parser.add_argument("--show", action="store_true", help="print the busiest station")
    args = parser.parse_args()

    counts, per_destination, list_times, apply_times = [], [], [], []
    busiest: tuple[int, GameState] | None = None
    for seed in range(args.stations):
        state = random_station(seed, args.placements, args.trays, cars_per_tray=4)
        t0 = time.perf_counter()
        moves = [i for i in state.legal_intents() if isinstance(i, MoveTray)]
        list_times.append(time.perf_counter() - t0)
        counts.append(len(moves))
        variants = Counter((m.tray, m.path[-1]) for m in moves)
        per_destination.append(max(variants.values(), default=0))
        if busiest is None or len(moves) > busiest[0]:
            busiest = (len(moves), state)
        t0 = time.perf_counter()
        for move in moves[:200]:
            state.clone().apply(move)
        apply_times.append((time.perf_counter() - t0) / max(1, min(200, len(moves))))
    print(f"{args.stations} stations, {args.placements} placements tried, {args.trays} trays of 4 cars")
    print(f"Moves listed: median {statistics.median(counts):.0f}, max {max(counts)}")
    print(
        f"most Moves sharing one (tray, destination): median {statistics.median(per_destination):.0f}, "
        f"max {max(per_destination)}"
    )
    print(
        f"legal_intents() in the switching step: median {statistics.median(list_times) * 1e3:.2f} ms, "
        f"max {max(list_times) * 1e3:.2f} ms"
    )
    print(f"clone + apply one Move: median {statistics.median(apply_times) * 1e6:.0f} us")
    if args.show and busiest is not None:
        print(render_station(busiest[1], 0))


if __name__ == "__main__":
    main()
