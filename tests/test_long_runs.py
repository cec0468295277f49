"""Long runs: ``station-master bench --long-run`` reports memory and open files over env steps
and tournament games, and open file descriptors stay flat over env resets and tournament games
(in this process and through the pool)."""

from __future__ import annotations

import json
from multiprocessing import resource_tracker
from pathlib import Path

import numpy as np
import pytest

import sm_env
from experiments.arena import tournament as tour
from experiments.bench import longrun
from experiments.cli import main
from sm_env.core import GameConfig

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads /proc (Linux)")


def test_long_run_reports_each_phase_from_start_to_end(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--long-run", "--steps", "300", "--games", "9", "--samples", "3", "--json"]) == 0
    phases = json.loads(capsys.readouterr().out)["phases"]
    assert [p["name"] for p in phases] == ["env", "tournament", "tournament-pool"]
    env, local, pool = phases
    assert env["unit"] == "steps" and env["done"] == 300
    assert local["unit"] == pool["unit"] == "games" and local["done"] == pool["done"] == 9  # 3 deals x 3
    for phase in phases:
        samples = phase["samples"]
        assert [s["done"] for s in samples] == sorted(s["done"] for s in samples)
        assert samples[0]["done"] == 0 and samples[-1]["done"] == phase["done"]
        assert 2 <= len(samples) <= 1 + 3
        assert phase["rss_start_kb"] == samples[0]["rss_kb"] > 0
        assert phase["rss_end_kb"] == samples[-1]["rss_kb"] > 0
        assert phase["rss_growth_kb"] == phase["rss_end_kb"] - phase["rss_warm_kb"]
        assert phase["fd_growth"] == phase["fds_end"] - phase["fds_start"]
        assert phase["seconds"] > 0 and phase["rate"] > 0
    assert pool["workers_rss_kb_max"] > 0  # the workers were measured while they ran
    assert env["workers_rss_kb_max"] == local["workers_rss_kb_max"] == 0


def test_long_run_sizes_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--long-run", "--steps", "0"]) == 2
    assert "steps, games and samples must be >= 1, got 0" in capsys.readouterr().err


def test_rss_and_descriptors_are_read_from_proc() -> None:
    assert longrun.rss_kb() > 1000  # a Python with numpy holds megabytes
    assert longrun.rss_kb(2**22 + 12345) == 0  # no such process: 0, no error
    before = longrun.open_fds()
    with open(__file__) as f:
        assert longrun.open_fds() == before + 1
        f.read(1)
    assert longrun.open_fds() == before


def test_descriptors_stay_flat_over_200_env_resets() -> None:
    env = sm_env.station_master_v1.env(num_offices=2, days=1)
    rng = np.random.default_rng(0)

    def games(first: int, count: int) -> None:
        for seed in range(first, first + count):
            env.reset(seed=seed)
            for _ in range(5):  # a few steps each, so a reset follows a game under way
                obs, _r, term, trunc, _i = env.last()
                if term or trunc:
                    break
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))

    games(0, 5)  # the first reset builds the tables once
    before = longrun.open_fds()
    games(5, 200)
    assert longrun.open_fds() == before
    env.close()


@pytest.mark.parametrize("jobs", [1, 2])
def test_descriptors_stay_flat_over_50_tournament_games(jobs: int) -> None:
    match = tour.Tournament(("random",), GameConfig(offices=2, days=1), 25, 1)  # 25 deals x 2 seatings
    resource_tracker.ensure_running()  # spawning starts it once per process and keeps its pipe
    before = longrun.open_fds()
    results = tour.play(match, jobs)
    assert len(results) == 50
    assert longrun.open_fds() == before
