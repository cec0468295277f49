"""``station-master freight-chain``: the freight chain's links (R9.3.1, R9.3.2, C-yards.1)
counted over bot games."""

from __future__ import annotations

import json

import pytest

from experiments.arena.freight_chain import LINKS, ChainTask, chain_counts, play_chain
from experiments.cli import main
from sm_env.core import STAGES_PER_DAY, GameConfig

THREE_FREIGHT = GameConfig(offices=3, days=2)
WHOLE_CHAIN_SEED = 500004  # three freight bots: a load made, carried to another office, unloaded


def test_a_game_with_the_whole_chain_counts_every_link_once_it_happens() -> None:
    """R9.3.1 → pickup → delivery to an industry that unloads it → R9.3.2, in one game."""
    counts = play_chain(ChainTask(WHOLE_CHAIN_SEED, THREE_FREIGHT, ("freight",)))
    assert counts["loads"] >= 1 and counts["pickups"] >= 1
    assert counts["arrivals_carrying"] >= counts["arrivals_for_inbound"] >= 1
    assert counts["unloads"] == 1
    assert counts["stages"] == THREE_FREIGHT.days * STAGES_PER_DAY


def test_the_links_narrow_along_the_chain_and_agree_with_the_ledger() -> None:
    counts = chain_counts(["freight", "passenger"], THREE_FREIGHT, 3, 50000)
    assert set(counts) >= {key for key, _ in LINKS}
    assert counts["arrivals"] >= counts["arrivals_load_waits"] >= counts["arrivals_with_room"]
    assert counts["arrivals_carrying"] >= counts["arrivals_for_inbound"]
    assert counts["stages_load_on_inbound"] >= counts["stages_blocked_by_yard"]
    assert all(0.0 <= counts[f"stages_no_empty_{t}"] <= 1.0 for t in ("boxcar", "hopper", "reefer", "tank"))
    assert counts["arrivals"] > 0 and counts["empties_forced"] + counts["empties_chosen"] > 0


def test_counts_are_the_same_in_one_process_and_in_two() -> None:
    assert chain_counts(["freight"], THREE_FREIGHT, 2, 7) == chain_counts(
        ["freight"], THREE_FREIGHT, 2, 7, jobs=2
    )


def test_the_command_prints_json_and_refuses_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["freight-chain", "--games", "1", "--seed", str(WHOLE_CHAIN_SEED), "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["unloads"] == 1 and out["bots"] == ["freight"]
    for bad, message in (
        (["--bots", "nonsense"], "unknown bot"),
        (["--games", "0"], "--games must be at least 1"),
        (["--offices", "9"], "offices must be"),
    ):
        assert main(["freight-chain", *bad, "--quiet"]) == 2
        assert message in capsys.readouterr().err
