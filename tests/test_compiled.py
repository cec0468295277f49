"""The compiled build (SM_ENV_COMPILE=1, mypyc; setup.py) and its pure-Python sources (this
checkout's) play the same games, bit for bit (C-rng.2): the whole corpus replays to the
same recorded final hashes under both, random play lists the very same legal intents, in the
same order, and ends in the same states, and the v1 environment, whose speller and encoder are
compiled too, gives the same observations and masks at every step. Skipped where nothing is
compiled."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import sm_env
import sm_env.station_master_v1  # noqa: F401  # loads the core and the env modules, compiled where they are
from sm_env.core import COMPILED, compiled_modules

ROOT = Path(__file__).resolve().parent.parent
COMPILED_NOW = compiled_modules()
ENV_COMPILED_NOW = sm_env.compiled_modules()

pytestmark = pytest.mark.skipif(
    not COMPILED_NOW, reason="the core is not compiled (SM_ENV_COMPILE=1 builds it)"
)

# Runs in a fresh interpreter: prints, as JSON, which modules ran compiled, every corpus game's
# final hash, and per random game a digest of every legal-intent list and its final hash.
PLAY = """
import gzip, hashlib, json, sys
from sm_env.core import compiled_modules
from sm_env.core.config import GameConfig, HouseRules
from sm_env.core.engine import new_game
from sm_env.core.replay import parse_replay
from sm_env.core.rng import Rng

corpus = []
recorded = []
with gzip.open(sys.argv[1], "rt", encoding="utf-8") as lines:
    for line in lines:
        replay = parse_replay(json.loads(line))
        corpus.append(replay.run().state_hash())
        recorded.append(replay.final_hash)
games = []
names = HouseRules.names()
for offices in range(1, 7):
    for seed in range(4):
        rules = HouseRules(**{name: bool((seed + offices) >> i & 1) for i, name in enumerate(names)})
        state = new_game(GameConfig(offices=offices, days=2, house_rules=rules), seed)
        rng = Rng(seed * 7919 + offices)
        digest = hashlib.sha256()
        while not state.is_terminal():
            legal = state.legal_intents()
            digest.update(repr(legal).encode())
            state.apply(legal[rng.below(len(legal))], validate=bool(seed % 2))
            digest.update(repr(state.events).encode())
            state.events.clear()
        games.append([digest.hexdigest(), state.state_hash()])
import numpy as np
import sm_env
observations = []
for offices in (1, 3, 6):
    env = sm_env.raw_env_v1(num_offices=offices, days=2)
    rng = np.random.default_rng(offices)
    digest = hashlib.sha256()
    for seed in range(3):
        env.reset(seed=seed)
        while env.agents and not env.game.is_terminal():
            for agent in env.agents:
                obs = env.observe(agent)
                digest.update(obs["observation"].tobytes() + obs["action_mask"].tobytes())
            env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
    observations.append(digest.hexdigest())
print(json.dumps({
    "compiled": compiled_modules(), "env_compiled": sm_env.compiled_modules(), "corpus": corpus,
    "recorded": recorded, "games": games, "observations": observations,
}))
"""


def play(pure: bool) -> dict[str, list[object]]:
    """The games played by the sm_env this test imported (compiled), or by the checkout's
    sources (pure)."""
    env = dict(os.environ)
    if pure:
        env["PYTHONPATH"] = str(ROOT)
    corpus = ROOT / "tests" / "data" / "replays.jsonl.gz"
    result = subprocess.run(
        [sys.executable, "-c", PLAY, str(corpus)],
        capture_output=True,
        text=True,
        check=True,
        cwd=tempfile.gettempdir(),  # not the checkout: sm_env comes from PYTHONPATH
        env=env,
        timeout=600,
    )
    out: dict[str, list[object]] = json.loads(result.stdout)
    return out


def test_every_hot_module_is_compiled() -> None:
    assert list(COMPILED) == COMPILED_NOW
    assert list(sm_env.COMPILED) == ENV_COMPILED_NOW


@pytest.mark.slow
def test_c_rng_2_compiled_and_pure_builds_play_the_same_games() -> None:
    compiled, pure = play(pure=False), play(pure=True)
    assert compiled["compiled"] == list(COMPILED)
    assert compiled["env_compiled"] == list(sm_env.COMPILED)
    assert pure["compiled"] == pure["env_compiled"] == []
    assert compiled["corpus"] == pure["corpus"] == compiled["recorded"]
    assert compiled["games"] == pure["games"]
    assert compiled["observations"] == pure["observations"]
