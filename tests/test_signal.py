"""Signals to learn from (docs/signals.md): potential-based shaping that leaves the game and the
revenue reward alone, and named starting scenarios that are legal positions of the same rules."""

from __future__ import annotations

import random
from typing import Any

import gymnasium
import numpy as np
import pytest
from conftest import new_state, put_train_at_office, put_train_on_line, set_mainline_regions

import sm_env
from sm_env.core.cars import COACH
from sm_env.core.catalogue import CardKind
from sm_env.core.config import GameConfig, HouseRules
from sm_env.core.engine import load_snapshot, new_game
from sm_env.core.errors import ConfigError
from sm_env.core.pieces import OFFICE_CELL
from sm_env.core.queries import reachable
from sm_env.core.rng import Rng
from sm_env.core.scenarios import REGISTRY as SCENARIOS
from sm_env.core.scenarios import apply_scenarios
from sm_env.core.state import GameState
from sm_env.shaping import DISCOUNT, exposure, prospects
from sm_env.shaping import REGISTRY as POTENTIALS
from sm_env.single_agent import SingleAgentEnv

WRAPPED_WARNING = "ignore:.*is different from the unwrapped version:UserWarning"


def made(gym_id: str = sm_env.GYM_ID_V1, **kwargs: Any) -> gymnasium.Env[np.ndarray, np.int64]:
    return gymnasium.make(gym_id, **kwargs)


def inner(env: gymnasium.Env[np.ndarray, np.int64]) -> SingleAgentEnv:
    unwrapped = env.unwrapped
    assert isinstance(unwrapped, SingleAgentEnv)
    return unwrapped


def episode(
    env: gymnasium.Env[np.ndarray, np.int64], seed: int
) -> tuple[list[dict[str, Any]], list[float], str]:
    """A whole episode of random legal actions (from a generator seeded with ``seed``): the
    reset info then every step's info, the rewards, and the final state hash."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    infos, rewards = [info], []
    done = False
    while not done:
        masks = inner(env).action_masks()
        _, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(masks))))
        infos.append(info)
        rewards.append(float(reward))
        done = terminated or truncated
    game = inner(env).aec.game
    assert game is not None
    return infos, rewards, game.state_hash()


# --------------------------------------------------------------------------- shaping


@pytest.mark.parametrize("gym_id", [sm_env.GYM_ID_V1, sm_env.GYM_ID_V0])
def test_shaping_leaves_the_game_and_the_revenue_reward_alone(gym_id: str) -> None:
    """Same seed and actions with and without shaping: the same game, bit for bit, and
    ``info["revenue_reward"]`` is the unshaped env's reward at every step (R2.4.7)."""
    plain = episode(made(gym_id, num_offices=2, scenario="upgraded_office"), seed=5)
    shaped = episode(
        made(gym_id, num_offices=2, scenario="upgraded_office", shaping="prospects", shaping_scale=2.0),
        seed=5,
    )
    assert plain[2] == shaped[2]
    assert [i["revenue_reward"] for i in shaped[0][1:]] == plain[1]
    assert [i["revenue_reward"] for i in plain[0][1:]] == plain[1]
    assert all(i["shaping"] == 0.0 for i in plain[0][1:])
    assert any(i["shaping"] != 0.0 for i in shaped[0][1:])


@pytest.mark.parametrize("name", sorted(POTENTIALS))
def test_shaped_return_telescopes(name: str) -> None:
    """With gamma = 1 an episode's shaped return is its revenue return minus scale * Φ(s0)
    (Φ = 0 at the end), from a scenario start where Φ(s0) is not 0."""
    for seed in range(3):
        env = made(
            num_offices=2, shaping=name, shaping_scale=0.5, scenario=("upgraded_office", "early_trains")
        )
        rng = np.random.default_rng(seed)
        _, info = env.reset(seed=seed)
        shaper = inner(env).shaper
        assert shaper is not None
        phi0 = shaper.last
        shaped = revenue = 0.0
        done = False
        while not done:
            masks = inner(env).action_masks()
            _, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(masks))))
            shaped += float(reward)
            revenue += info["revenue_reward"]
            assert float(reward) == pytest.approx(info["revenue_reward"] + info["shaping"])
            done = terminated or truncated
        assert terminated and shaper.last == 0.0
        assert revenue == info["revenue"]
        assert shaped == pytest.approx(revenue - 0.5 * phi0, abs=1e-9)


def test_gamma_below_one_discounts_the_potential() -> None:
    """gamma < 1: a step that changes nothing (a masked action) costs (gamma - 1) * Φ(s)."""
    env = made(num_offices=2, shaping="prospects", shaping_gamma=0.9, scenario="upgraded_office")
    env.reset(seed=1)
    raw = inner(env)
    # play until the potential is positive
    rng = np.random.default_rng(0)
    while raw.shaper is not None and raw.shaper.last <= 0.0:
        env.step(int(rng.choice(np.flatnonzero(raw.action_masks()))))
    assert raw.shaper is not None
    phi = raw.shaper.last
    _, reward, _, _, info = env.step(int(np.flatnonzero(~raw.action_masks())[0]))
    assert info["illegal_action"] and info["revenue_reward"] == 0.0
    assert info["shaping"] == pytest.approx(-0.1 * phi)
    assert float(reward) == pytest.approx(-1.0 - 0.1 * phi)


@pytest.mark.parametrize("name", sorted(POTENTIALS))
def test_d_view_1_potential_reads_only_the_seats_view(name: str) -> None:
    """D-view.1: Φ is the same on the state, on the seat's view board, and on two states dealt
    from that view with different hidden cards (other hands, the Home Office)."""
    phi = POTENTIALS[name]
    for seed in range(4):
        state = new_game(GameConfig(offices=3), seed)
        apply_scenarios(state, tuple(SCENARIOS), 1)
        rng = random.Random(seed)
        for _ in range(rng.randrange(60, 200)):
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_intents()))
        for seat in range(3):
            view = state.view(seat)
            a, b = view.determinize(Rng(1)), view.determinize(Rng(2))
            assert a.hands != b.hands or a.home_office != b.home_office
            assert phi(state, seat) == phi(view.board, seat) == phi(a, seat) == phi(b, seat)


def test_prospects_tracks_what_earns_revenue() -> None:
    """R9.2.1: a loaded coach in the green box is worth more with a train there holding an
    empty coach; below the point boarding it earns."""
    state = new_game(GameConfig(offices=2), 3)
    apply_scenarios(state, "upgraded_office", 0)
    office = state.office_of_seat[0]
    base = prospects(state, 0)
    state.stations[office].boxes[OFFICE_CELL].outbound.append(COACH * 2 + 1)
    state.division[COACH * 2 + 1] -= 1
    waiting = prospects(state, 0)
    tray = state.trays[0]
    tray.office, tray.cell, tray.consist, tray.direction = office, OFFICE_CELL, (-1, COACH * 2), 1
    tray.train = state.catalogue.cards[26].index  # any train card: the potential reads the consist
    state.division[COACH * 2] -= 1
    boardable = prospects(state, 0)
    assert base < waiting < boardable < base + 1.0


def test_unknown_names_raise_config_error() -> None:
    with pytest.raises(ConfigError, match="known: prospects"):
        made(shaping="nope")
    with pytest.raises(ConfigError, match="known: upgraded_office"):
        made(scenario="nope")
    with pytest.raises(ConfigError, match="known: upgraded_office"):
        made(scenario=("built_spur", "nope"))
    with pytest.raises(ConfigError, match="scenario_prob"):
        made(scenario="built_spur", scenario_prob=1.5)


def test_signal_options_for_metadata() -> None:
    env = made(
        shaping="prospects", shaping_gamma=0.99, scenario=("built_spur", "early_trains"), scenario_prob=0.5
    )
    assert inner(env).signal_options() == {
        "shaping": "prospects",
        "shaping_gamma": 0.99,
        "shaping_scale": 1.0,
        "scenario": ["built_spur", "early_trains"],
        "scenario_prob": 0.5,
    }
    assert inner(made()).signal_options()["shaping"] is None
    applied = [env.reset(seed=s)[1]["scenario"] for s in range(40)]
    assert 5 < sum(applied) < 35
    assert applied == [env.reset(seed=s)[1]["scenario"] for s in range(40)]


# --------------------------------------------------------------------------- scenarios


def _started(name: str, seed: int, offices: int = 3, seat: int = 1, **rules: bool) -> GameState:
    state = new_game(GameConfig(offices=offices, house_rules=HouseRules(**rules)), seed)
    apply_scenarios(state, name, seat)
    return state


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_is_a_legal_deterministic_position_that_plays_out(name: str) -> None:
    """Each scenario: ``load_snapshot`` accepts it (every card once, C-stock.1 cars, R4.1
    grid), the same seed, config, scenario and seat give the same hash, and random play
    finishes the game."""
    for offices, seed, rules in ((3, 0, {}), (2, 7, {"sister_trains": True}), (1, 2, {}), (6, 4, {})):
        seat = seed % offices
        state = _started(name, seed, offices, seat, **rules)
        config = state.config
        assert load_snapshot(state.snapshot(), config).state_hash() == state.state_hash()
        assert _started(name, seed, offices, seat, **rules).state_hash() == state.state_hash()
        assert state.state_hash() != new_game(config, seed).state_hash()
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_intents()))


def test_d_play_3_upgraded_office() -> None:
    """D-play.3: the seat's office is a Depot (tier 1, a Control Point with Porters, R2.1.5),
    the Whistle Post set aside; the other offices are unchanged."""
    state = _started("upgraded_office", 5)
    cards = state.catalogue.cards
    for seat in range(3):
        office = cards[state.stations[state.office_of_seat[seat]].grid[OFFICE_CELL][0]].office
        assert office is not None
        assert office.tier == (1 if seat == 1 else 0)
    assert state.is_control_point(state.office_of_seat[1])
    assert OFFICE_CELL in state.stations[state.office_of_seat[1]].boxes
    assert [len(h) for h in state.hands] == [3, 3, 3]


def test_d_grid_6_built_spur() -> None:
    """D-grid.6, D-grid.7, D-grid.4: a turnout on the Running Track, Secondary Track off it and a
    freight facility, with boxes, reachable from the Office."""
    state = _started("built_spur", 9)
    office = state.office_of_seat[1]
    station = state.stations[office]
    cards = state.catalogue.cards
    facilities = [cell for cell in station.boxes if cell != OFFICE_CELL]
    assert len(facilities) == 1 and facilities[0][0] != 0
    assert cards[station.grid[facilities[0]][0]].kind is CardKind.FACILITY
    assert any(r != 0 and cards[c].kind is CardKind.TRACK for (r, _), (c, _) in station.grid.items())
    assert facilities[0] in reachable(state, office)
    assert len(station.grid) == 7 and [len(h) for h in state.hands] == [3, 3, 3]


@pytest.mark.parametrize("sisters", [False, True])
def test_r7_2_early_trains(sisters: bool) -> None:
    """R7.2: timetabled trains on the chart at Stages 1 and 2, one each way (RB.2: the odd
    train's sister with it); the first is built in Stage 1's New Train Phase (R7.1)."""
    state = _started("early_trains", 11, sister_trains=sisters)
    cards = state.catalogue.cards
    due = [state.timetable[0], state.timetable[1]]
    assert all(card >= 0 for card in due)
    directions = {t.direction for t in (cards[c].train for c in due) if t is not None}
    assert directions == {"east", "west"}
    rng = random.Random(0)
    while state.stage == 0 and not any(t.train == due[0] for t in state.trays):
        state.apply(rng.choice(state.legal_intents()))
    assert any(t.train == due[0] for t in state.trays)


def test_scenarios_in_order_and_through_the_env() -> None:
    """Several scenarios apply in order; the env applies them to the learner's seat at every
    reset, and its AEC env takes them as reset options."""
    env = made(num_offices=3, learner="office_2", scenario=("upgraded_office", "built_spur", "early_trains"))
    env.reset(seed=4)
    raw = inner(env).aec
    game = raw.game
    assert game is not None
    direct = new_game(raw.config, 4)
    apply_scenarios(direct, ("upgraded_office", "built_spur", "early_trains"), game.seat_of_office[2])
    direct.legal_cache = None
    assert game.stations[2].grid == direct.stations[2].grid
    assert game.timetable == direct.timetable


# --------------------------------------------------------------------------- the Gymnasium contract


@pytest.mark.filterwarnings(WRAPPED_WARNING)
@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("gym_id", [sm_env.GYM_ID_V1, sm_env.GYM_ID_V0])
def test_check_env_with_the_options_on(gym_id: str) -> None:
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    options = {"shaping": "prospects", "scenario": tuple(SCENARIOS), "scenario_prob": 0.5, "num_offices": 2}
    check_env(made(gym_id, **options).unwrapped)
    sb3_check_env(made(gym_id, **options), warn=True)


def test_exposure_counts_an_arrival_at_a_full_office() -> None:
    """R8.2.3 (edition 3): a train standing on a Whistle Post's one A/D track and another due
    next Mainline Phase (its ETA is 1): the seat risks the 5 Revenue at weight ``DISCOUNT``;
    with the track free there is nothing to lose."""
    state = new_state(3, 4)
    seat = state.seat_of_office[1]
    set_mainline_regions(state, 1, 2)
    put_train_on_line(state, 1, 1, "train-2")  # eastbound, arrives at office 1 next
    assert exposure(state, seat) == 0.0
    put_train_at_office(state, 1, "train-4")
    assert exposure(state, seat) == -5 * DISCOUNT
