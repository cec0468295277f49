"""The observations of the corpus games (tests/data/replays.jsonl.gz) are pinned: each game
is played through the raw env, its recorded decisions spelled as actions, and the bytes of
each observation and mask the acting agent sees before each action, and every agent's at
the start of each decision, are hashed. v1 is checked on every corpus game, v0 on every
fourth. A refactor of an env, an encoder or a speller that changes one float fails here.

    python tests/test_observation_corpus.py --record   # re-record (only on purpose)
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import corpus_replays

from sm_env.core.replay import Replay

DIGESTS = Path(__file__).parent / "data" / "observations.json"
V0_EVERY = 4  # v0's 14,055-float observations cost more: a quarter of the games covers every size


def _raw_env(version: str, replay: Replay) -> Any:
    import sm_env

    make = sm_env.raw_env_v1 if version == "v1" else sm_env.station_master_v0.raw_env
    return make(
        num_offices=replay.config.offices,
        days=replay.config.days,
        target_revenue=replay.config.target_revenue,
        mode=replay.config.mode.value,
        house_rules=replay.config.house_rules.to_dict(),
    )


def _actions(version: str, raw: Any, intent: Any) -> list[int]:
    if version == "v1":
        return list(raw.spell(intent))
    if intent in raw.table.action_of:
        return [raw.table.action_of[intent]]
    return list(raw.spell_move(intent))


def observation_digest(version: str, replay: Replay) -> str:
    raw = _raw_env(version, replay)
    raw.reset(seed=replay.seed)
    digest = hashlib.sha256()
    for intent in replay.decisions:
        for step, action in enumerate(_actions(version, raw, intent)):
            for agent in raw.agents if step == 0 else [raw.agent_selection]:
                observation = raw.observe(agent)
                digest.update(observation["observation"].tobytes())
                digest.update(observation["action_mask"].tobytes())
            raw.step(action)
    assert raw.game.state_hash() == replay.final_hash
    return digest.hexdigest()


REPLAYS = corpus_replays()
CASES = [("v1", i) for i in range(len(REPLAYS))] + [("v0", i) for i in range(0, len(REPLAYS), V0_EVERY)]
RECORDED: dict[str, dict[str, str]] = (
    json.loads(DIGESTS.read_text(encoding="utf-8")) if DIGESTS.exists() else {}
)


@pytest.mark.parametrize(("version", "index"), CASES, ids=[f"{v}-{i}" for v, i in CASES])
def test_corpus_game_observations_are_bit_identical(version: str, index: int) -> None:
    assert observation_digest(version, REPLAYS[index]) == RECORDED[version][str(index)]


if __name__ == "__main__" and sys.argv[1:] == ["--record"]:
    digests: dict[str, dict[str, str]] = {"v1": {}, "v0": {}}
    for version, index in CASES:
        digests[version][str(index)] = observation_digest(version, REPLAYS[index])
    DIGESTS.write_text(json.dumps(digests, indent=1) + "\n", encoding="utf-8")
    print(f"recorded {len(CASES)} games to {DIGESTS}")
