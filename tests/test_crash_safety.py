"""Crash safety: real processes killed with SIGKILL at seeded random moments, some of them the
instant a write is in flight (a temporary file of ``write_atomically`` is seen), must leave
every file whole (the old version or the new one) and go on to the result of a run that never
stopped. Covered: the table's autosave, a tournament's CSV and journal (``--resume``), a balance
run's journal, and a training run's checkpoint, model zip, policy files and progress. Ctrl-C and
SIGTERM stop a tournament in one line, and it resumes the same way."""

from __future__ import annotations

import contextlib
import csv
import json
import os
import random
import signal
import subprocess
import sys
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO

import numpy as np
import pytest

from experiments.arena.journal import Journal, JournalError, journal_path
from experiments.arena.parallel import worker_pool
from experiments.cli import main
from sm_env.core import load_replay

STATION_MASTER = str(Path(sys.executable).parent / "station-master")


def _start(
    args: Sequence[str], cwd: Path, stderr: int | IO[bytes] = subprocess.DEVNULL
) -> subprocess.Popen[bytes]:
    """A command in its own process group, so a kill takes its workers too."""
    return subprocess.Popen(
        list(args),
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        start_new_session=True,
    )


def _kill(proc: subprocess.Popen[bytes]) -> None:
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _temporaries(folders: Sequence[Path], name: str = "") -> list[Path]:
    """The temporary files of writes in flight (or cut short) in ``folders``; with ``name``,
    only those of files whose names start with it: a reference run writing beside a killed one
    renames its own temporaries away, and they tell nothing of the killed run."""
    return [p for folder in folders if folder.is_dir() for p in folder.glob(f".{name}*.tmp")]


def _mtime(path: Path) -> int | None:
    try:
        return path.stat().st_mtime_ns
    except FileNotFoundError:
        return None


def _kill_later(
    proc: subprocess.Popen[bytes],
    written: Path | None,
    delay: float,
    folders: Sequence[Path] = (),
    patience: float = 0.0,
    name: str = "",
) -> bool:
    """Kill ``proc`` ``delay`` seconds after it has (re)written the file ``written`` (it is past
    its imports), or with ``patience``, at the first temporary file (of a file named ``name``*)
    seen in ``folders`` after that (a write in flight), waiting at most ``patience`` seconds for
    one. False when it finished first."""
    before = _mtime(written) if written is not None else None
    while written is not None and _mtime(written) in (None, before):
        if proc.poll() is not None:
            return False
        time.sleep(0.002)
    deadline = time.monotonic() + delay
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        time.sleep(0.01)
    watch = deadline + patience
    while time.monotonic() < watch and not _temporaries(folders, name):
        if proc.poll() is not None:
            return False
        time.sleep(0.0005)
    if proc.poll() is not None:
        return False
    _kill(proc)
    return True


def _finish(args: Sequence[str], cwd: Path, timeout: float = 120) -> None:
    done = subprocess.run(list(args), cwd=cwd, capture_output=True, timeout=timeout)
    assert done.returncode == 0, done.stderr.decode()


# ---------------------------------------------------------------------------- the writer

WRITER = """
import sys
from pathlib import Path
from sm_env.core import write_atomically

path, how = Path(sys.argv[1]), sys.argv[2]
versions = [letter * 2_000_000 for letter in "ab"]  # large, so a write takes a while
path.with_name("ready").touch()
i = 0
while True:
    if how == "atomic":
        write_atomically(path, versions[i % 2])
    else:
        path.write_text(versions[i % 2])
    i += 1
"""


@pytest.mark.parametrize("how", ["atomic", "plain"])
def test_a_writer_killed_mid_write_leaves_the_old_or_the_new_file(tmp_path: Path, how: str) -> None:
    """A process that does nothing but rewrite one file, killed: with ``write_atomically``
    (every writer of the project), after a random delay the instant a temporary file is seen
    (a write in flight, however loaded the machine), the file is always one whole version; a
    plain write, the control, killed at random moments, is caught torn, so kills do land
    mid-write."""
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    target = tmp_path / "data.txt"
    rng = random.Random(11)
    whole = torn = in_flight = 0
    target.write_text("a" * 2_000_000)  # the old version
    ready = tmp_path / "ready"
    for _ in range(8):
        ready.unlink(missing_ok=True)
        proc = _start([sys.executable, str(script), str(target), how], tmp_path)
        delay = rng.uniform(0.02, 0.2)
        if how == "atomic":  # then at the first temporary file seen
            killed = _kill_later(proc, ready, delay, [tmp_path], patience=5.0, name=target.name)
        else:
            killed = _kill_later(proc, ready, delay)
        assert killed
        text = target.read_text()
        if text in ("a" * 2_000_000, "b" * 2_000_000):
            whole += 1
        else:
            torn += 1
        in_flight += bool(_temporaries([tmp_path]))
        for left in _temporaries([tmp_path]):
            left.unlink()
    if how == "atomic":
        assert whole == 8 and in_flight >= 4  # most kills cut a write short, and none showed
    else:
        assert torn >= 1


# ---------------------------------------------------------------------------- the table


def test_table_autosave_killed_at_random_keeps_a_whole_game_that_resumes_to_the_same_end(
    tmp_path: Path,
) -> None:
    # a game of several seconds (about 600 decisions), so four kills land before its end on
    # any machine
    seats = "passenger,freight,passenger,freight"
    game = ["play", "--seats", seats, "--days", "5", "--fast", "--seed", "3"]
    reference = _start([STATION_MASTER, *game, "--save", "whole.json"], tmp_path)
    rng = random.Random(26)
    save = tmp_path / "killed.json"
    kills = decisions = 0
    saved = []
    while kills < 4:
        args = (
            [*game, "--save", str(save)] if not save.exists() else ["play", "--resume", str(save), "--fast"]
        )
        proc = _start([STATION_MASTER, *args], tmp_path)
        writing = kills % 2 == 1  # every other kill waits for a save in flight
        patience = 1.0 if writing else 0.0
        if not _kill_later(proc, save, rng.uniform(0.0, 0.3), [tmp_path], patience, save.name):
            break
        kills += 1
        for left in _temporaries([tmp_path], save.name):  # a write the kill cut short: never read
            left.unlink()
        if save.exists():
            replay = load_replay(save)  # whole: it parses, and
            replay.verify()  # its decisions replay to the hash it records
            assert len(replay.decisions) >= decisions  # never an older file than the last one
            decisions = len(replay.decisions)
            saved.append(replay.decisions)
    assert kills >= 3, "the game ended before the kills: they prove nothing"
    _finish([STATION_MASTER, "play", "--resume", str(save), "--fast"], tmp_path)
    assert reference.wait(timeout=120) == 0
    whole = load_replay(tmp_path / "whole.json")
    assert all(decisions == whole.decisions[: len(decisions)] for decisions in saved)
    resumed = load_replay(save)
    assert resumed.final_hash == whole.final_hash
    assert resumed.decisions == whole.decisions


# ---------------------------------------------------------------------------- tournaments


def _csv_rows(path: Path) -> list[list[str]]:
    """The rows without their timing columns (``*_seconds``), which differ from run to run."""
    with path.open(newline="") as f:
        rows = list(csv.reader(f))
    keep = [i for i, name in enumerate(rows[0]) if not name.endswith("_seconds")]
    return [[row[i] for i in keep] for row in rows]


def test_tournament_killed_at_random_keeps_its_csv_whole_and_resumes_to_the_same_rows(
    tmp_path: Path,
) -> None:
    games = 1200  # about 3 s of games on one core (400 had become 1.2 s): three kills land before the end
    match = ["tournament", "--bots", "random", "--offices", "2", "--games", str(games), "--quiet"]
    reference = _start([STATION_MASTER, *match, "--csv", "whole.csv", "--jobs", "1"], tmp_path)
    out = tmp_path / "killed.csv"
    old = "an,older,complete,file\n"
    out.write_text(old)
    journal = journal_path(out)
    rng = random.Random(4)
    kills = 0
    for attempt in range(4):
        jobs = "2" if attempt % 3 == 2 else "1"
        proc = _start([STATION_MASTER, *match, "--csv", str(out), "--jobs", jobs, "--resume"], tmp_path)
        writing = attempt % 2 == 1
        patience = 1.0 if writing else 0.0
        if not _kill_later(proc, journal, rng.uniform(0.0, 1.2), [tmp_path], patience, "killed."):
            break
        kills += 1
        for left in _temporaries([tmp_path], "killed."):  # the killed run's CSV, journal or plot
            left.unlink()
        text = out.read_text()
        assert text == old or len(_csv_rows(out)) == 1 + 2 * games  # the old file or the whole new one
        if journal.exists():
            lines = journal.read_bytes().split(b"\n")
            for line in lines[:-1]:  # each line but a torn last one is whole JSON
                json.loads(line)
    assert kills >= 3
    _finish([STATION_MASTER, *match, "--csv", str(out), "--jobs", "1", "--resume"], tmp_path)
    assert reference.wait(timeout=120) == 0
    whole = _csv_rows(tmp_path / "whole.csv")
    assert len(whole) == 1 + 2 * games
    assert _csv_rows(out) == whole
    assert len(journal.read_text().splitlines()) == 1 + 2 * games  # the record stays: header, games


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(child) for child in path.read_text().split()] if path.exists() else []


def _gone(pids: Sequence[int], seconds: float = 10.0) -> bool:
    """Whether every process of ``pids`` has left within ``seconds``."""
    deadline = time.monotonic() + seconds
    while any(_alive(pid) for pid in pids):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)
    return True


NEEDS_PROC_CHILDREN = pytest.mark.skipif(
    not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(),
    reason="reads the process tree from /proc",
)


def _alive(pid: int) -> bool:
    """Running, not gone and not a zombie waiting for a reaper."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


@NEEDS_PROC_CHILDREN
def test_pool_workers_exit_when_their_tournament_alone_is_killed(tmp_path: Path) -> None:
    """``kill PID`` of a tournament (not of its group) takes its pool workers with it: they do
    not play on for nobody and then wait on the pool's queue for ever."""
    args = ["tournament", "--bots", "random", "--offices", "2", "--games", "100000", "--quiet", "--jobs", "2"]
    proc = _start([STATION_MASTER, *args], tmp_path)
    try:
        deadline = time.monotonic() + 60
        while len(workers := _children(proc.pid)) < 2:
            assert proc.poll() is None and time.monotonic() < deadline, "no pool workers started"
            time.sleep(0.05)
        time.sleep(1.0)  # past their imports, playing games
        assert all(_alive(worker) for worker in workers)
        proc.send_signal(signal.SIGKILL)  # the parent only: its workers are not signalled
        proc.wait()
        assert _gone(workers)
    finally:
        with contextlib.suppress(ProcessLookupError):  # whatever is left, should the test fail
            os.killpg(proc.pid, signal.SIGKILL)


@NEEDS_PROC_CHILDREN
def test_pool_workers_ignore_ctrl_c_from_birth() -> None:
    """A pool's workers ignore SIGINT from the moment they start, before their imports and
    their initializer (a Ctrl-C pressed as a run starts printed a worker's import traceback),
    and the caller's own handler is back once they are spawned."""
    handler = signal.getsignal(signal.SIGINT)
    with worker_pool(2) as pool:
        for worker in pool._pool:  # read at once: they are still starting Python
            status = Path(f"/proc/{worker.pid}/status").read_text().splitlines()
            ignored = int(next(line.split()[1] for line in status if line.startswith("SigIgn:")), 16)
            assert ignored >> (signal.SIGINT - 1) & 1, worker.pid
    assert signal.getsignal(signal.SIGINT) is handler


@NEEDS_PROC_CHILDREN
@pytest.mark.parametrize(
    ("signum", "group", "said"),
    [(signal.SIGINT, True, "interrupted"), (signal.SIGTERM, False, "terminated")],
    ids=["ctrl-c to the terminal's group", "kill PID"],
)
def test_a_tournament_stopped_by_a_signal_says_so_in_one_line_and_resumes_to_the_same_rows(
    tmp_path: Path, signum: int, group: bool, said: str
) -> None:
    """Ctrl-C (SIGINT to the whole process group, workers included) and ``kill``/``timeout``
    (SIGTERM to the tournament alone) stop a run the same way: one line on stderr, no
    traceback from it or its workers, exit 128 + the signal, the workers gone, and the journal
    goes on with ``--resume`` to the rows of a run never stopped."""
    match = ["tournament", "--bots", "random", "--offices", "2", "--games", "1200", "--quiet", "--jobs", "2"]
    reference = _start([STATION_MASTER, *match, "--csv", "whole.csv"], tmp_path)
    out = tmp_path / "stopped.csv"
    with open(tmp_path / "stderr.txt", "wb") as errors:
        proc = _start([STATION_MASTER, *match, "--csv", str(out)], tmp_path, errors)
        try:
            journal = journal_path(out)
            deadline = time.monotonic() + 60
            while not journal.exists() or len(journal.read_bytes().splitlines()) < 2:  # a game in it
                assert proc.poll() is None and time.monotonic() < deadline, "no game was journalled"
                time.sleep(0.01)
            workers = _children(proc.pid)  # the pool's two and the resource tracker
            assert len(workers) >= 2
            (os.killpg if group else os.kill)(proc.pid, signum)
            assert proc.wait(timeout=30) == 128 + signum
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
    stderr = (tmp_path / "stderr.txt").read_text()
    resume = "the same command with --resume goes on from what it kept"
    assert stderr.strip() == f"station-master: {said}; {resume}"
    assert _gone(workers)  # the resource tracker leaves once its pipe closes
    assert 2 <= len(journal.read_text().splitlines()) < 1 + 2 * 1200
    _finish([STATION_MASTER, *match, "--csv", str(out), "--resume"], tmp_path)
    assert reference.wait(timeout=120) == 0
    assert _csv_rows(out) == _csv_rows(tmp_path / "whole.csv")


@pytest.mark.slow
def test_balance_killed_at_random_resumes_from_its_journal_to_the_same_document(tmp_path: Path) -> None:
    # 40 games last about 1.5 s on an idle core: still running at the kill, at most 0.6 s in
    run = ["balance", "--offices", "1,2", "--days", "1", "--games", "40", "--json", "--quiet"]
    whole = subprocess.Popen([STATION_MASTER, *run, "--jobs", "1"], cwd=tmp_path, stdout=subprocess.PIPE)
    journal = tmp_path / "balance.journal"
    proc = _start([STATION_MASTER, *run, "--jobs", "1", "--journal", str(journal)], tmp_path)
    assert _kill_later(proc, journal, random.Random(9).uniform(0.1, 0.6))
    resumed = subprocess.run(
        [STATION_MASTER, *run, "--jobs", "2", "--journal", str(journal), "--resume"],
        cwd=tmp_path,
        capture_output=True,
        check=True,
    )
    assert json.loads(resumed.stdout) == json.loads(whole.communicate(timeout=120)[0])
    assert not journal.exists()


# ---------------------------------------------------------------------------- journals


def test_a_torn_last_line_is_dropped_and_its_game_played_again(tmp_path: Path) -> None:
    path = tmp_path / "run.journal"
    journal = Journal.start(path, {"run": "test"})
    journal.append({"game": 0})
    journal.append({"game": 1})
    journal.close()
    with path.open("a") as f:
        f.write('{"game": 2, "rev')  # the process died writing this line
    resumed = Journal.resume(path, {"run": "test"})
    assert resumed.items == [{"game": 0}, {"game": 1}]
    resumed.append({"game": 2})
    resumed.close()
    again = Journal.resume(path, {"run": "test"})
    assert again.items == [{"game": 0}, {"game": 1}, {"game": 2}]  # nothing glued to the torn line
    again.finish()
    assert not path.exists()


def test_a_journal_damaged_before_its_last_line_or_of_another_run_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "run.journal"
    Journal.start(path, {"run": "test", "seed": 1}).close()
    with pytest.raises(JournalError, match=r"another run \(seed differ\)"):
        Journal.resume(path, {"run": "test", "seed": 2})
    before = path.read_bytes()
    path.write_bytes(before + b"not json\n" + b'{"game": 1}\n')
    with pytest.raises(JournalError, match="line 2 is not JSON"):
        Journal.resume(path, {"run": "test", "seed": 1})


def test_a_journal_resumed_with_a_grown_count_is_the_runs_and_a_shrunk_one_is_refused(
    tmp_path: Path,
) -> None:
    path = tmp_path / "run.journal"
    journal = Journal.start(path, {"run": "test", "seed": 1, "games": 2})
    journal.append({"game": 0})
    journal.close()
    grown = Journal.resume(path, {"run": "test", "seed": 1, "games": 5}, grows="games")
    assert grown.items == [{"game": 0}]
    grown.close()
    assert json.loads(path.read_text().splitlines()[0])["games"] == 5  # the header has the new count
    with pytest.raises(JournalError, match=r"another run \(games differ\)"):
        Journal.resume(path, {"run": "test", "seed": 1, "games": 4}, grows="games")
    with pytest.raises(JournalError, match=r"another run \(seed differ\)"):
        Journal.resume(path, {"run": "test", "seed": 2, "games": 9}, grows="games")
    with pytest.raises(JournalError, match=r"another run \(games differ\)"):
        Journal.resume(path, {"run": "test", "seed": 1, "games": 6})  # only where the run allows it


def test_a_finished_tournament_resumed_with_more_deals_plays_only_the_new_ones(tmp_path: Path) -> None:
    match = ["tournament", "--bots", "random,passenger", "--offices", "2", "--quiet", "--jobs", "1"]
    assert main([*match, "--games", "6", "--csv", str(tmp_path / "whole.csv")]) == 0
    out = tmp_path / "grown.csv"
    assert main([*match, "--games", "4", "--csv", str(out)]) == 0
    first = out.read_text().splitlines()
    assert main([*match, "--games", "6", "--csv", str(out), "--resume"]) == 0
    grown = out.read_text().splitlines()
    assert grown[: len(first)] == first  # the first 4 deals' rows, timing columns too: not replayed
    assert _csv_rows(out) == _csv_rows(tmp_path / "whole.csv")
    assert len(journal_path(out).read_text().splitlines()) == 1 + 2 * 6
    assert main([*match, "--games", "5", "--csv", str(out), "--resume"]) == 2  # fewer deals: another run


def test_tournament_resume_refuses_another_runs_journal_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t.csv"
    Journal.start(journal_path(out), {"run": "tournament", "seed": 99}).close()
    args = ["tournament", "--bots", "random", "--offices", "1", "--games", "2", "--csv", str(out)]
    assert main([*args, "--quiet", "--resume"]) == 2
    err = capsys.readouterr().err.strip()
    assert "is of another run" in err and "\n" not in err
    assert not out.exists()  # nothing written


def test_balance_resume_needs_a_journal(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["balance", "--offices", "1", "--days", "1", "--games", "1", "--resume", "--quiet"]) == 2
    assert "give --journal FILE" in capsys.readouterr().err


# ---------------------------------------------------------------------------- training

TRAIN_SCRIPT = """
import sys
from experiments.training.train import TrainSettings, train

SETTINGS = TrainSettings(
    offices=2, days=1, timesteps=768, segment=256, seed=3, envs=1, opponents=("random",),
    eval_bots=("random",), eval_deals=1, n_steps=128, batch_size=64, n_epochs=1, net=(8,),
)
if __name__ == "__main__":
    train(SETTINGS, sys.argv[1], resume=sys.argv[2] == "resume", progress=False, log=lambda _: None)
"""


def _check_run_files(root: Path) -> None:
    """Every file of a training run is whole, and the checkpoint's model is there."""
    meta = root / "meta.json"
    if meta.exists():
        json.loads(meta.read_text())
    checkpoint = root / "checkpoints" / "checkpoint.json"
    if checkpoint.exists():
        state = json.loads(checkpoint.read_text())
        model = root / "checkpoints" / f"model_{state['timesteps']:010d}.zip"
        if state["timesteps"]:
            with zipfile.ZipFile(model) as z:  # the model the checkpoint names is whole
                assert z.testzip() is None
        for snapshot in state["pool"]:
            assert Path(snapshot).exists()
    for npz in [*root.glob("*.npz"), *root.glob("pool/*.npz")]:
        with np.load(npz, allow_pickle=False) as data:
            assert all(data[k].size for k in data.files)
    for model in root.glob("checkpoints/*.zip"):
        with zipfile.ZipFile(model) as z:
            assert z.testzip() is None
    progress = root / "progress.csv"
    if progress.exists():
        with progress.open(newline="") as f:
            rows = list(csv.reader(f))
        assert rows and all(len(row) == len(rows[0]) for row in rows)
    curve = root / "curve.png"
    if curve.exists():
        data = curve.read_bytes()
        assert data.startswith(b"\x89PNG") and data.endswith(b"IEND\xaeB`\x82")


@pytest.mark.slow
def test_training_killed_while_checkpointing_resumes_to_the_run_that_never_stopped(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    script = tmp_path / "tiny_train.py"
    script.write_text(TRAIN_SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    python = [sys.executable, str(script)]
    whole = subprocess.Popen([*python, str(tmp_path / "whole"), "new"], cwd=tmp_path, env=env)
    root = tmp_path / "killed"
    folders = [root, root / "checkpoints", root / "pool"]
    rng = random.Random(7)
    kills = 0

    def mode() -> str:  # a run killed before its first file (meta.json) starts over
        return "resume" if (root / "meta.json").exists() else "new"

    for _ in range(4):
        proc = subprocess.Popen(
            [*python, str(root), mode()],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        # the first write in flight after 1-3 s: within the ~2 s of imports and the few seconds a
        # resumed run has left even on an idle machine (a later kill let it finish first there)
        if not _kill_later(proc, None, rng.uniform(1.0, 3.0), folders, patience=120):
            break
        kills += 1
        for left in _temporaries(folders):
            left.unlink()
        _check_run_files(root)
    assert kills >= 2
    # on a slow machine every kill may land on meta.json's first write: then it starts over
    done = subprocess.run([*python, str(root), mode()], cwd=tmp_path, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr.decode()
    assert whole.wait(timeout=300) == 0
    _check_run_files(root)
    for name in ("final.npz", "best.npz"):
        with np.load(root / name) as mine, np.load(tmp_path / "whole" / name) as theirs:
            for key in mine.files:
                if key != "meta":
                    np.testing.assert_array_equal(mine[key], theirs[key])

    def rows(run: Path) -> list[dict[str, str]]:
        with (run / "progress.csv").open(newline="") as f:
            return [{k: v for k, v in r.items() if k != "elapsed_s"} for r in csv.DictReader(f)]

    assert rows(root) == rows(tmp_path / "whole")
