"""GameConfig and HouseRules: defaults, validation naming the field, JSON round trips
(R3.1, D-end.1, D-end.2, RB)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from conftest import HOUSE_RULES, new_state
from hypothesis import given, settings
from hypothesis import strategies as st

from sm_env.core.config import GameConfig, HouseRules, Mode
from sm_env.core.engine import new_game
from sm_env.core.errors import ConfigError, StationMasterError


def test_defaults() -> None:
    config = GameConfig()
    assert config.offices == 2
    assert config.days == 1
    assert config.target_revenue is None
    assert config.mode is Mode.COMPETITIVE
    assert config.house_rules == HouseRules()
    assert HouseRules().to_dict() == {name: False for name in HOUSE_RULES}
    assert set(HOUSE_RULES) == {
        "reduced_visibility",
        "sister_trains",
        "employee_rotation",
        "emergency_toolbox",
        "overnight_yard",  # V-yards.1, a variant beyond the seeds
        "yard_on_demand",  # V-yards.2, likewise
        "home_signals",  # V-signals.1, likewise
    }


def test_config_error_is_a_station_master_error() -> None:
    assert issubclass(ConfigError, StationMasterError)


@pytest.mark.parametrize("offices", [1, 2, 3, 4, 5, 6])
def test_r3_1_one_to_six_offices(offices: int) -> None:
    """R3.1: 1..6 offices."""
    assert GameConfig(offices=offices).offices == offices


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"offices": 0}, "offices"),
        ({"offices": 7}, "offices"),
        ({"offices": -1}, "offices"),
        ({"offices": True}, "offices"),
        ({"offices": "2"}, "offices"),
        ({"offices": 2.0}, "offices"),
        ({"offices": None}, "offices"),
        ({"days": 0}, "days"),
        ({"days": -3}, "days"),
        ({"days": True}, "days"),
        ({"days": 1.5}, "days"),
        ({"days": "1"}, "days"),
        ({"target_revenue": 0}, "target_revenue"),
        ({"target_revenue": -5}, "target_revenue"),
        ({"target_revenue": True}, "target_revenue"),
        ({"target_revenue": "10"}, "target_revenue"),
        ({"target_revenue": 2.5}, "target_revenue"),
        ({"mode": "coop"}, "mode"),
        ({"mode": None}, "mode"),
        ({"mode": Mode.COOP}, "target_revenue"),  # D-end.2: co-op needs a target
        ({"house_rules": {"sister_trains": True}}, "house_rules"),
        ({"house_rules": None}, "house_rules"),
    ],
)
def test_invalid_config_values_name_the_field(kwargs: dict[str, Any], field: str) -> None:
    """R3.1, D-end.1, D-end.2: every invalid value raises ConfigError naming the field."""
    with pytest.raises(ConfigError, match=field):
        GameConfig(**kwargs)


def test_d_end_2_coop_with_target_is_valid() -> None:
    """D-end.2"""
    config = GameConfig(offices=3, target_revenue=20, mode=Mode.COOP)
    assert config.mode is Mode.COOP and config.target_revenue == 20


def test_config_is_frozen() -> None:
    config = GameConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.offices = 3  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.house_rules.sister_trains = True  # type: ignore[misc]


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ([], "config must be a JSON object"),
        ("offices=2", "config must be a JSON object"),
        ({"days": 1}, "missing 'offices'"),
        ({"offices": 2}, "missing 'days'"),
        ({"offices": 2, "days": 1, "colour": "red"}, "unknown key.*colour"),
        ({"offices": 2, "days": 1, "house_rules": {}}, "unknown key.*house_rules"),
        ({"offices": 2, "days": 1, "mode": "solo"}, "config.mode must be one of competitive, coop"),
        ({"offices": 2, "days": 1, "mode": 3}, "config.mode"),
        ({"offices": 2, "days": 1, "mode": ["coop"]}, "config.mode"),
        ({"offices": 2, "days": 1, "mode": {}}, "config.mode"),
        ({"offices": 9, "days": 1}, "offices"),
        ({"offices": 2, "days": 0}, "days"),
        ({"offices": 2, "days": 1, "target_revenue": 0}, "target_revenue"),
        ({"offices": 2, "days": 1, "mode": "coop"}, "target_revenue"),
        ({"offices": 2, "days": 1, "mode": "coop", "target_revenue": None}, "target_revenue"),
    ],
)
def test_config_from_dict_rejects(data: object, match: str) -> None:
    """R3.1, D-end.2"""
    with pytest.raises(ConfigError, match=match):
        GameConfig.from_dict(data)


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ([], "house_rules must be a JSON object"),
        ({"sister_trains": 1}, r"house_rules\.sister_trains must be true or false"),
        ({"reduced_visibility": "yes"}, r"house_rules\.reduced_visibility"),
        ({"employee_rotation": None}, r"house_rules\.employee_rotation"),
        ({"fog": True}, "unknown key.*fog"),
    ],
)
def test_rb_house_rules_from_dict_rejects(data: object, match: str) -> None:
    """RB: house rules are four named booleans."""
    with pytest.raises(ConfigError, match=match):
        HouseRules.from_dict(data)


def test_rb_house_rules_from_names() -> None:
    """RB"""
    rules = HouseRules.from_names(["sister_trains", "emergency_toolbox"])
    assert rules.sister_trains and rules.emergency_toolbox
    assert not rules.reduced_visibility and not rules.employee_rotation
    assert HouseRules.from_names([]) == HouseRules()
    with pytest.raises(ConfigError, match="unknown house rule 'fog'.*known: reduced_visibility"):
        HouseRules.from_names(["fog"])


@settings(max_examples=40, deadline=None)
@given(
    offices=st.integers(1, 6),
    days=st.integers(1, 30),
    target=st.none() | st.integers(1, 10_000),
    coop=st.booleans(),
    rules=st.sets(st.sampled_from(HOUSE_RULES)),
)
def test_config_round_trips_through_json(
    offices: int, days: int, target: int | None, coop: bool, rules: set[str]
) -> None:
    """to_dict/from_dict (config and house rules apart, as replays store them) through JSON."""
    if coop and target is None:
        target = 5
    config = GameConfig(
        offices=offices,
        days=days,
        target_revenue=target,
        mode=Mode.COOP if coop else Mode.COMPETITIVE,
        house_rules=HouseRules.from_names(sorted(rules)),
    )
    data = json.loads(json.dumps(config.to_dict()))
    rules_data = json.loads(json.dumps(config.house_rules.to_dict()))
    assert "house_rules" not in data
    assert GameConfig.from_dict(data, HouseRules.from_dict(rules_data)) == config
    assert HouseRules.from_dict(rules_data) == config.house_rules


def test_from_dict_defaults_mode_target_and_house_rules() -> None:
    config = GameConfig.from_dict({"offices": 4, "days": 2})
    assert config == GameConfig(offices=4, days=2)


def test_game_state_new_rejects_a_non_config() -> None:
    with pytest.raises(ConfigError, match="GameConfig"):
        new_game({"offices": 2, "days": 1}, 1)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [-1, 2**32, "7", 1.0, True])
def test_c_rng_1_game_seed_out_of_range_is_a_config_error(seed: object) -> None:
    """C-rng.1: the game seed is a 32-bit unsigned integer."""
    with pytest.raises(ConfigError, match="0..4294967295"):
        new_game(GameConfig(), seed)  # type: ignore[arg-type]


def test_c_rng_1_seed_bounds_start_a_game() -> None:
    assert new_state(seed=0).phase.value == "local_operations"
    assert new_state(seed=2**32 - 1).phase.value == "local_operations"


@pytest.mark.parametrize("value", [1, 0, "yes", None])
def test_rb_house_rules_constructor_rejects_non_bool(value: object) -> None:
    """RB: a house rule is true or false, also when HouseRules is built directly (otherwise a
    game could write a replay whose house_rules cannot be read back)."""
    with pytest.raises(ConfigError, match="sister_trains"):
        HouseRules(sister_trains=value)  # type: ignore[arg-type]
