"""Envs and games run in threads and in subprocesses give the trajectories of a serial run, and
the data every game shares is read-only (issue 26).

Games share by reference what a configuration fixes: the card catalogue, the action and token
tables, the grid geometry (built once per catalogue and cached). A game run beside others, in
threads that switch between them as often as Python lets them, or in worker processes
(spawned: a fresh interpreter, as Ray and SubprocVecEnv make them; forked: a copy of this one,
caches and all), must play exactly as it does alone: the same observations, masks, rewards and
state hashes, step for step. And nothing may change the shared tables: every public
module-level table of ``sm_env`` and ``sm_env.core``, and the catalogue, is immutable (tuples,
frozensets, ``MappingProxyType``, frozen dataclasses), but for the engine's ``PHASES`` and
``STEPS``, which tests and tools patch on purpose (``sm_env/core/__init__.py``)."""

from __future__ import annotations
import __future__

import dataclasses
import enum
import functools
import hashlib
import importlib
import multiprocessing
import pkgutil
import re
import sys
import threading
import types
import typing
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest

import sm_env
import sm_env.core
from sm_env.core import GameConfig, HouseRules, Mode, load_catalogue, new_game

# (kind, configuration, seed, steps): the core alone, both AEC versions and both
# single-agent views, over office counts, days, house rules and modes (the threads run each job
# twice at once, so two games share each configuration's cached tables).
JOBS: tuple[tuple[str, tuple[tuple[str, Any], ...], int, int], ...] = (
    ("core", (("num_offices", 6), ("days", 2), ("house_rules", ("emergency_toolbox",))), 1, 300),
    ("core", (("num_offices", 1), ("days", 3)), 2, 300),
    ("v0", (("num_offices", 3), ("days", 1)), 3, 150),
    ("v0", (("num_offices", 3), ("days", 1)), 4, 150),
    (
        "v1",
        (("num_offices", 4), ("days", 1), ("house_rules", ("sister_trains", "reduced_visibility"))),
        5,
        150,
    ),
    ("v1", (("num_offices", 2), ("days", 2), ("mode", "coop"), ("target_revenue", 8)), 6, 150),
    ("single_v0", (("num_offices", 2), ("days", 1)), 7, 150),
    ("single_v1", (("num_offices", 5), ("days", 1), ("house_rules", ("employee_rotation",))), 8, 150),
)


def _digest(*parts: Any) -> str:
    text = hashlib.sha256()
    for part in parts:
        text.update(part if isinstance(part, bytes) else repr(part).encode())
    return text.hexdigest()[:16]


def _core_trajectory(config: dict[str, Any], seed: int, steps: int) -> list[str]:
    """The core alone: random legal intents (from a generator seeded by ``seed``), the hash
    after each; a game that ends begins again with the next seed."""
    game_config = GameConfig(
        offices=config["num_offices"],
        days=config["days"],
        target_revenue=config.get("target_revenue"),
        mode=Mode(config.get("mode", "competitive")),
        house_rules=HouseRules(**dict.fromkeys(config.get("house_rules", ()), True)),
    )
    rng = np.random.default_rng(seed)
    state, out = new_game(game_config, seed), []
    for _ in range(steps):
        if state.is_terminal():
            state = new_game(game_config, int(rng.integers(2**32)))
        legal = state.legal_intents()
        state.apply(legal[int(rng.integers(len(legal)))])
        out.append(state.state_hash())
    return out


def _aec_trajectory(version: str, config: dict[str, Any], seed: int, steps: int) -> list[str]:
    """A raw AEC env: random unmasked actions; each step's agent, observation, mask, reward
    and the game's hash."""
    module = importlib.import_module(f"sm_env.station_master_{version}")
    env = module.raw_env(**config)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        if env.game.is_terminal():
            env.reset(seed=int(rng.integers(2**31)))
        agent = env.agent_selection
        obs = env.observe(agent)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        out.append(
            _digest(
                agent,
                obs["observation"].tobytes(),
                obs["action_mask"].tobytes(),
                env._cumulative_rewards,
                env.game.state_hash(),
            )
        )
    return out


def _single_agent_trajectory(version: str, config: dict[str, Any], seed: int, steps: int) -> list[str]:
    """A single-agent view with random opponents (the env's own generator): each step's
    observation, reward, ends and the game's hash."""
    from sm_env.single_agent import StationMasterEnvV0, StationMasterEnvV1

    env = (StationMasterEnvV0 if version == "v0" else StationMasterEnvV1)(**config)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(
            int(rng.choice(np.flatnonzero(env.action_masks())))
        )
        out.append(_digest(obs.tobytes(), reward, terminated, truncated, info, env.aec.game.state_hash()))
        if terminated or truncated:
            obs, _ = env.reset()
    return out


def trajectory(job: tuple[str, tuple[tuple[str, Any], ...], int, int]) -> list[str]:
    """One job's per-step digests (module level: worker processes import it by name)."""
    kind, pairs, seed, steps = job
    config = dict(pairs)
    if kind == "core":
        return _core_trajectory(config, seed, steps)
    if kind.startswith("single_"):
        return _single_agent_trajectory(kind.removeprefix("single_"), config, seed, steps)
    return _aec_trajectory(kind, config, seed, steps)


@pytest.fixture(scope="module")
def serial() -> list[list[str]]:
    return [trajectory(job) for job in JOBS]


def test_jobs_cover_every_kind_and_make_distinct_games(serial: list[list[str]]) -> None:
    assert {kind for kind, *_ in JOBS} == {"core", "v0", "v1", "single_v0", "single_v1"}
    assert [len(t) for t in serial] == [steps for *_, steps in JOBS]
    assert len({tuple(t) for t in serial}) == len(JOBS)


@pytest.fixture
def switching_often() -> Iterator[None]:
    """Threads switched every 10 µs (Python's default is 5 ms), so their steps interleave."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        yield
    finally:
        sys.setswitchinterval(interval)


def test_threads_give_the_serial_trajectories(serial: list[list[str]], switching_often: None) -> None:
    """Every job at once, one thread each, twice over (so two threads play each configuration
    at the same time, on its shared tables), started together."""
    jobs = list(JOBS) * 2
    start = threading.Barrier(len(jobs))

    def run(job: tuple[str, tuple[tuple[str, Any], ...], int, int]) -> list[str]:
        start.wait()
        return trajectory(job)

    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        threaded = list(pool.map(run, jobs))
    assert threaded == serial * 2


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_subprocesses_give_the_serial_trajectories(serial: list[list[str]], method: str) -> None:
    """The jobs in two worker processes, spawned (a fresh interpreter) or forked (this
    process's caches copied)."""
    with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context(method)) as pool:
        assert list(pool.map(trajectory, JOBS)) == serial


# --------------------------------------------------------------------------- read-only tables

# Tables that are mutable on purpose: the engine's flow, which tests and tools watch and patch
# (sm_env/core/__init__.py, on why the engine is not compiled; tests/test_balance.py and
# tests/test_engine.py patch them).
PATCHED_ON_PURPOSE = {"sm_env.core.engine.PHASES", "sm_env.core.engine.STEPS"}


def modules() -> list[types.ModuleType]:
    """``sm_env``, ``sm_env.core`` and every module of the two packages (the environments
    import Gymnasium and PettingZoo, which the tests have)."""
    names = ["sm_env", "sm_env.core"]
    names += [f"sm_env.{m.name}" for m in pkgutil.iter_modules(sm_env.__path__) if m.name != "core"]
    names += [f"sm_env.core.{m.name}" for m in pkgutil.iter_modules(sm_env.core.__path__)]
    return [importlib.import_module(name) for name in names]


def is_code(value: Any) -> bool:
    """Functions, classes, typing constructs and ``from __future__`` flags: not tables."""
    if isinstance(value, types.MappingProxyType):
        return False
    return (
        isinstance(
            value,
            (
                type,
                types.ModuleType,
                types.FunctionType,
                types.BuiltinFunctionType,
                types.GenericAlias,
                types.UnionType,
                typing.TypeVar,
                __future__._Feature,
            ),
        )
        or type(value).__module__ == "typing"
    )


ATOMS = (type(None), bool, int, float, complex, str, bytes, range, enum.Enum, re.Pattern)


def mutable_parts(value: Any, path: str, seen: set[int] | None = None) -> list[str]:
    """Where in ``value`` something could be changed in place: a list, dict, set, an unfrozen
    dataclass or any other object with state of its own (a partial's keywords too)."""
    seen = set() if seen is None else seen
    if id(value) in seen or isinstance(value, ATOMS) or is_code(value):
        return []
    seen.add(id(value))
    if isinstance(value, tuple | frozenset):
        return [p for i, item in enumerate(value) for p in mutable_parts(item, f"{path}[{i}]", seen)]
    if isinstance(value, types.MappingProxyType):
        out = []
        for key, item in value.items():
            out += mutable_parts(key, f"{path} key {key!r}", seen)
            out += mutable_parts(item, f"{path}[{key!r}]", seen)
        return out
    if isinstance(value, functools.partial):
        if value.keywords:
            return [f"{path}: a partial with keywords (a dict)"]
        return mutable_parts(value.func, f"{path}.func", seen) + mutable_parts(
            value.args, f"{path}.args", seen
        )
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if not type(value).__dataclass_params__.frozen:  # type: ignore[attr-defined]
            return [f"{path}: {type(value).__qualname__} is a dataclass that is not frozen"]
        return [
            p
            for f in dataclasses.fields(value)
            for p in mutable_parts(getattr(value, f.name), f"{path}.{f.name}", seen)
        ]
    if not hasattr(value, "__dict__") and all(
        c.__dict__.get("__slots__") == () for c in type(value).__mro__[:-1]
    ):
        return []  # an object with no state of its own (the engine: ``__slots__ = ()``)
    return [f"{path}: {type(value).__qualname__}"]


def public_tables() -> Iterator[tuple[str, Any]]:
    """Every public module-level value of the two packages that is not code: a module's
    ``__all__`` names, or its names without a leading underscore."""
    for module in modules():
        names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
        for name in names:
            value = getattr(module, name)
            if not is_code(value):
                yield f"{module.__name__}.{name}", value


def test_every_public_module_level_table_is_read_only() -> None:
    problems = []
    walked = 0
    for path, value in public_tables():
        walked += 1
        if path not in PATCHED_ON_PURPOSE:
            problems += mutable_parts(value, path)
    assert walked > 100
    assert not problems, "\n".join(problems)


def test_the_tables_patched_on_purpose_are_still_there() -> None:
    """The exceptions name real tables (a renamed one must leave the list too)."""
    paths = dict(public_tables())
    for path in PATCHED_ON_PURPOSE:
        assert isinstance(paths[path], dict)


def test_the_catalogue_is_read_only() -> None:
    """The default catalogue, shared by every game, and one loaded from a file."""
    from pathlib import Path

    import sm_env.core.catalogue as catalogue_module

    shared = load_catalogue()
    assert load_catalogue() is shared
    assert not mutable_parts(shared, "catalogue")
    loaded = load_catalogue(Path(catalogue_module.__file__).parent / "data" / "cards.json")
    assert loaded is not shared and not mutable_parts(loaded, "catalogue")
    with pytest.raises(dataclasses.FrozenInstanceError):
        shared.cards[0].count = 99  # type: ignore[misc]
    with pytest.raises(TypeError):
        shared.by_id["straight"] = 0  # type: ignore[index]


@pytest.mark.parametrize(
    "table",
    [
        "sm_env.core.INTENT_CLASSES",
        "sm_env.core.registry.BY_CLASS",
        "sm_env.core.fields.FIELDS",
        "sm_env.core.scenarios.REGISTRY",
        "sm_env.shaping.REGISTRY",
        "sm_env.layout.CELL_INDEX",
    ],
)
def test_the_registries_refuse_writes(table: str) -> None:
    """The registries that were dicts (issue 26) refuse a new entry and a deletion."""
    module, _, name = table.rpartition(".")
    mapping = getattr(importlib.import_module(module), name)
    key = next(iter(mapping))
    with pytest.raises(TypeError):
        mapping[key] = None
    with pytest.raises(TypeError):
        del mapping[key]
    assert key in mapping


def test_the_checker_finds_what_can_be_changed() -> None:
    """The walk of ``mutable_parts`` is not blind: it names each kind of mutable part."""

    @dataclasses.dataclass
    class Loose:
        x: int = 0

    @dataclasses.dataclass(frozen=True)
    class Frozen:
        items: tuple[Any, ...]

    assert mutable_parts(Frozen((1, "a", (2.0, None))), "ok") == []
    assert mutable_parts(types.MappingProxyType({"a": (1,)}), "ok") == []
    found = mutable_parts(
        (
            [1],
            {"a": 1},
            {1},
            Loose(),
            Frozen(([],)),
            types.MappingProxyType({"a": []}),
            functools.partial(max, key=abs),
            threading.Lock(),
        ),
        "t",
    )
    assert len(found) == 8, found
