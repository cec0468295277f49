"""``station-master bench --scaling``: every figure of the scaling table is measured (a smoke
test at the quick size; the figures in README.md come from the full size)."""

from __future__ import annotations

import json

import pytest

from experiments.cli import main

pytest.importorskip("ray", reason="the Ray figures need the ray extra: pip install '.[ray]'")
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]


def test_scaling_reports_local_and_ray_at_one_and_two_workers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--scaling", "--quick", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)["figures"]
    for workload in ("tournament", "selfplay"):
        for where in ("local.1", "local.2", "ray.1", "ray.2"):
            assert figures[f"scaling.{workload}.{where}"]["value"] > 0
    assert figures["scaling.ray.batch_ms"]["value"] > 0 and figures["scaling.ray.init.1"]["value"] > 0
