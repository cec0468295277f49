"""The Ray backend (experiments.arena.parallel) on a local Ray instance: tournaments, balance
runs and self-play give the same outputs as the local backend, and a worker killed mid-run
costs only its batch. Skipped where the `ray` extra is not installed."""

from __future__ import annotations

import csv
import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip("ray", reason="the Ray backend needs the ray extra: pip install '.[ray]'")

from experiments.arena.parallel import BackendError, GameFailed, Workers, run_all  # noqa: E402
from experiments.cli import main  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]


@pytest.fixture(scope="module", autouse=True)
def local_ray() -> Iterator[None]:
    """One local Ray instance for the module; the backend uses it as it is."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def rows(path: Path) -> list[dict[str, str]]:
    """A tournament CSV without its timing columns."""
    return [
        {k: v for k, v in row.items() if not k.endswith("seconds")} for row in csv.DictReader(path.open())
    ]


def test_a_tournament_on_ray_writes_the_local_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "tournament",
        "--bots",
        "random,passenger,freight",
        "--offices",
        "3",
        "--days",
        "1",
        "--games",
        "3",
    ]
    argv += ["--seed", "11", "--quiet"]
    assert main([*argv, "--jobs", "1", "--csv", str(tmp_path / "local.csv")]) == 0
    assert main([*argv, "--backend", "ray", "--csv", str(tmp_path / "ray.csv")]) == 0
    assert "on Ray" in capsys.readouterr().out
    local, remote = rows(tmp_path / "local.csv"), rows(tmp_path / "ray.csv")
    assert remote == local and len(local) == 9


def test_a_balance_run_on_ray_gives_the_local_document(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["balance", "--offices", "1,2", "--days", "1", "--games", "3", "--seed", "4", "--json", "--quiet"]
    assert main([*argv, "--jobs", "1"]) == 0
    local = json.loads(capsys.readouterr().out)
    assert main([*argv, "--backend", "ray"]) == 0
    assert json.loads(capsys.readouterr().out) == local


def test_a_selfplay_generation_on_ray_makes_the_local_files(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from test_selfplay import digests, tiny

    from experiments.training.selfplay import selfplay

    assert selfplay(tiny(generations=1), tmp_path / "local", log=lambda _: None)
    assert selfplay(tiny(generations=1, jobs=Workers(backend="ray")), tmp_path / "ray", log=lambda _: None)
    assert digests(tmp_path / "ray") == digests(tmp_path / "local")


def test_a_killed_worker_costs_only_its_batch(tmp_path: Path) -> None:
    """The worker playing task 5 is killed (the process exits at once) the first time; Ray runs
    that batch again and the results are complete and right."""
    marker = tmp_path / "killed-once"

    def square(task: tuple[int, str]) -> int:
        number, flag = task
        if number == 5 and not os.path.exists(flag):
            Path(flag).write_text("x")
            os._exit(1)  # a real process dies mid-batch
        return number * number

    tasks = [(n, str(marker)) for n in range(40)]
    results = run_all(square, tasks, Workers(backend="ray"))
    assert marker.exists()
    assert sorted(results) == [n * n for n in range(40)]


def test_a_game_raising_on_ray_is_reported(tmp_path: Path) -> None:
    def fail(task: int) -> Any:
        # one failing task: which of two failing batches Ray finishes first is a race
        if task == 1:
            raise ValueError(f"bad task {task}")
        return task

    with pytest.raises(GameFailed, match="(?s)task 1.*bad task 1"):
        run_all(fail, [1, 2], Workers(backend="ray"))


def test_bad_backend_options_are_one_line_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--bots", "random", "--address", "10.0.0.1:6379"]) == 2
    assert "--address is the Ray cluster's" in capsys.readouterr().err
    with pytest.raises(BackendError, match="backend must be one of"):
        Workers(backend="spark")


def test_an_address_where_nothing_listens_is_refused_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ray would wait minutes for a cluster that is not there; the command refuses in seconds,
    before it writes anything."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # free once closed: nothing listens there
    path = tmp_path / "t.csv"
    argv = ["tournament", "--bots", "random", "--backend", "ray", "--address", f"127.0.0.1:{port}"]
    assert main([*argv, "--csv", str(path)]) == 2
    assert f"no Ray cluster answers at 127.0.0.1:{port}" in capsys.readouterr().err
    assert not path.exists()
