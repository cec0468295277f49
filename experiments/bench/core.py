"""Benchmark the rules core: random-play decisions per second, and the time of one
``legal_intents()`` (listed afresh, and again from the decision's cache), ``clone()``,
``apply()`` (validated, and ``validate=False``) and ``view()``, over fixed seeds.

    python -m experiments.bench.core --games 20 --offices 4
    SM_ENV_PURE=1 python -m experiments.bench.core   # the pure-Python core, where it is compiled

Speed is measured here, never in timed tests (brief: "measure with a benchmark script").
Each figure is the best of ``--repeats`` runs over the same games, so machine noise only
slows a run down, never speeds it up. The first line says which core ran: pure Python, or
compiled with mypyc (``SM_ENV_COMPILE=1`` at install, setup.py).
"""

from __future__ import annotations

import argparse
import time

from agents import seat_seed
from sm_env.core import COMPILED, GameConfig, Rng, compiled_modules, new_game

_FIGURES = ("legal", "legal_cached", "clone", "apply", "apply_unchecked", "view")


def _run(config: GameConfig, games: int) -> dict[str, float]:
    decisions = samples = 0
    t_play = 0.0
    totals = dict.fromkeys(_FIGURES, 0.0)
    clock = time.perf_counter
    for game in range(games):
        state = new_game(config, game)
        rng = Rng(seat_seed(game, 0))
        while not state.is_terminal():
            t0 = clock()
            legal = state.legal_intents()
            state.apply(legal[rng.below(len(legal))])
            t_play += clock() - t0
            decisions += 1
            state.events.clear()
            if decisions % 10 or state.is_terminal():
                continue
            samples += 1
            t0 = clock()
            other = state.clone()
            totals["clone"] += clock() - t0
            other.legal_cache = None
            t0 = clock()
            legal = other.legal_intents()
            totals["legal"] += clock() - t0
            t0 = clock()
            other.legal_intents()
            totals["legal_cached"] += clock() - t0
            unchecked = other.clone()
            t0 = clock()
            other.apply(legal[0])
            totals["apply"] += clock() - t0
            t0 = clock()
            unchecked.apply(legal[0], validate=False)
            totals["apply_unchecked"] += clock() - t0
            t0 = clock()
            state.view(state.current_player())
            totals["view"] += clock() - t0
    out = {name: 1e6 * total / samples for name, total in totals.items()}
    out["decisions"] = decisions
    out["decisions_per_s"] = decisions / t_play
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.bench.core",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--offices", type=int, default=4)
    parser.add_argument("--days", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    config = GameConfig(offices=args.offices, days=args.days)
    runs = [_run(config, args.games) for _ in range(args.repeats)]
    best = {name: min(run[name] for run in runs) for name in _FIGURES}
    rate = max(run["decisions_per_s"] for run in runs)
    games = f"{args.games} games, {config.offices} offices, {config.days} day(s)"
    compiled = compiled_modules()
    build = f"compiled (mypyc), {len(compiled)} of {len(COMPILED)} modules" if compiled else "pure Python"
    print(f"core: {build}")
    print(f"{games}: {runs[0]['decisions']:.0f} decisions")
    print(f"random play (legal_intents + choice + apply): {rate:,.0f} decisions/s")
    print(f"legal_intents(), listed afresh: {best['legal']:.1f} µs; cached: {best['legal_cached']:.2f} µs")
    print(f"clone(): {best['clone']:.1f} µs")
    print(f"apply(): {best['apply']:.1f} µs; apply(validate=False): {best['apply_unchecked']:.1f} µs")
    print(f"view(seat): {best['view']:.1f} µs")


if __name__ == "__main__":
    main()
