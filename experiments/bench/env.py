"""Benchmark the PettingZoo environments (v0 and v1): random masked play, steps per second,
with the parts of a step timed apart (the mask: the legal intents and, in v1, the speller; the
rest of observe: the encoder; step: the rules and the env's bookkeeping), and PettingZoo's
connect_four_v3 played the same way for scale when pygame is installed.

    python -m experiments.bench.env --games 20 --offices 3

Speed is measured here, never in timed tests.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

import sm_env


def play(env: Any, games: int) -> tuple[int, float, float, float, float]:
    """(steps, seconds, seconds in the mask, in the rest of last(), in step()) of random
    masked play."""
    rng = np.random.default_rng(0)
    raw = env.unwrapped
    mask_first = hasattr(raw, "action_mask")  # connect_four's mask is made in observe
    steps = 0
    t_mask = t_last = t_step = 0.0
    start = time.perf_counter()
    for game in range(games):
        env.reset(seed=game)
        for _agent in env.agent_iter():
            t0 = time.perf_counter()
            if mask_first and env.agents:
                raw.action_mask()
            t1 = time.perf_counter()
            obs, _reward, term, trunc, _info = env.last()
            t2 = time.perf_counter()
            action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            t3 = time.perf_counter()
            env.step(action)
            t_mask += t1 - t0
            t_last += t2 - t1
            t_step += time.perf_counter() - t3
            steps += action is not None
    return steps, time.perf_counter() - start, t_mask, t_last, t_step


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.bench.env",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--offices", type=int, default=3)
    parser.add_argument("--days", type=int, default=1)
    args = parser.parse_args()

    versions = (("station_master_v0", sm_env.station_master_v0.env), ("station_master_v1", sm_env.env))
    for name, make in versions:
        env = make(num_offices=args.offices, days=args.days)
        steps, seconds, t_mask, t_last, t_step = play(env, args.games)
        raw = env.unwrapped
        mask, observe, step = (1e6 * t / steps for t in (t_mask, t_last, t_step))
        print(
            f"{name}, {args.offices} offices, {args.days} day(s): {steps} steps in {seconds:.2f} s, "
            f"{steps / seconds:,.0f} steps/s (per step: mask {mask:.1f} µs, the rest of observe "
            f"{observe:.1f} µs, step {step:.1f} µs); actions {raw.table.size}, "
            f"observation {raw.encoder.size}"
        )
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError as err:  # connect_four needs pygame
        print(f"connect_four_v3 not measured: {err}")
        return
    steps, seconds, *_ = play(connect_four_v3.env(), args.games * 20)
    print(f"connect_four_v3 for scale: {steps} steps in {seconds:.2f} s, {steps / seconds:,.0f} steps/s")


if __name__ == "__main__":
    main()
