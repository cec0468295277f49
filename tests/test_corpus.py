"""The replay corpus (tests/data/replays.jsonl.gz, experiments/devtools/record_corpus.py): games
recorded under the current rules edition, over 1-6 offices, 1-3 days, every combination of
house rules and variants, competitive and co-op. Each must replay to the very final state hash it
recorded (C-rng.2): a refactor that changes any rule, any random draw or any state field
fails here."""

from __future__ import annotations

from collections import Counter

import pytest
from conftest import CORPUS, corpus_replays

from sm_env.core.config import HouseRules

REPLAYS = corpus_replays()


def test_c_rng_2_corpus_covers_every_configuration() -> None:
    assert len(REPLAYS) >= 200
    assert {r.config.offices for r in REPLAYS} == set(range(1, 7))
    assert {r.config.days for r in REPLAYS} == {1, 2, 3}
    assert {r.config.mode.value for r in REPLAYS} == {"competitive", "coop"}
    combos = Counter(tuple(r.config.house_rules.to_dict().values()) for r in REPLAYS)
    assert len(combos) == 2 ** len(HouseRules.names())


@pytest.mark.parametrize("index", range(len(REPLAYS)))
def test_c_rng_2_corpus_game_replays_to_its_final_hash(index: int) -> None:
    REPLAYS[index].verify()


def test_c_rng_2_the_recorder_writes_this_corpus_and_records_its_games_again() -> None:
    """``python -m experiments.devtools.record_corpus`` writes the file these tests read, and
    plays every eighth of its games again to the recorded hash (the rest follow from these)."""
    from experiments.devtools.record_corpus import CORPUS as RECORDED_TO
    from experiments.devtools.record_corpus import corpus_configs, record

    assert CORPUS.resolve() == RECORDED_TO
    configs = corpus_configs()
    assert len(configs) == len(REPLAYS)
    for index in range(0, len(configs), 8):
        seed, config, bot = configs[index]
        assert record(seed, config, bot).final_hash == REPLAYS[index].final_hash
