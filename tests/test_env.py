"""The RL environments: the PettingZoo AEC environment v0 (``sm_env.station_master_v0``), its action mask and
observation, and the single-agent Gymnasium view (``sm_env.single_agent``) with sb3-contrib.

Games are played with seeded random actions, mostly "lively" ones (not pass / end / discard),
so that trains run, collide and earn, and every kind of decision turns up."""

from __future__ import annotations

import ast
import copy
import re
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import gymnasium
import numpy as np
import pytest
from pettingzoo import AECEnv
from pettingzoo.test import api_test, seed_test

import sm_env
from agents import RandomAgent
from sm_env import IllegalActionError, station_master_v0
from sm_env.core import INTENTS
from sm_env.core.errors import ConfigError
from sm_env.core.intents import MoveTray
from sm_env.core.phases import Phase
from sm_env.core.state import GameState, SeatView
from sm_env.core.text import describe
from sm_env.single_agent import StationMasterEnvV0
from sm_env.station_master_v0 import raw_env

Obs = dict[str, np.ndarray]
GameSpec = tuple[int, int, tuple[str, ...], int]  # offices, days, house rules, seed

# A Dict observation of observation + action_mask is what PettingZoo's classic games use;
# api_test still warns about it.
pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be:UserWarning"),
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning"),
]

QUIET_BLOCKS = ("pass", "end_switching", "end_turn", "discard", "end_consist", "end_cargo")
MOVE_BLOCKS = ("move_tray", "move_step", "move_stop")
BOARD_WORDS = ("Division Point", "Mainline", "Timetable", "Division Yard")


# --------------------------------------------------------------------------- helpers


def quiet_actions(raw: raw_env) -> np.ndarray:
    """Bool per action: True for the 'do nothing more' blocks."""
    quiet = np.zeros(raw.table.size, dtype=bool)
    for name in QUIET_BLOCKS:
        block = raw.table.blocks[name]
        quiet[block.start : block.start + block.size] = True
    return quiet


def lively(mask: np.ndarray, quiet: np.ndarray, rng: np.random.Generator) -> int:
    """A random unmasked action; nine times in ten one that does something, if any does."""
    legal = np.flatnonzero(mask)
    assert legal.size, "the acting agent has no unmasked action"
    busy = legal[~quiet[legal]]
    if busy.size and rng.random() < 0.9:
        return int(rng.choice(busy))
    return int(rng.choice(legal))


def block_of(raw: raw_env, action: int) -> str:
    return raw.table.decode(int(action))[0]


def copy_env(raw: raw_env) -> raw_env:
    """An independent deep copy of a raw environment. The catalogue, action table and encoder
    are static data of the configuration and are shared (the catalogue's MappingProxyType
    indexes cannot be deep-copied, and ``GameState.clone`` shares the catalogue too)."""
    return copy.deepcopy(raw, {id(x): x for x in (raw.catalogue, raw.table, raw.encoder)})


def play(
    env: AECEnv,
    seed: int,
    before: Callable[[str, Obs], None] | None = None,
    after: Callable[[str, int], None] | None = None,
) -> dict[str, float]:
    """Reset with ``seed`` and play the whole game with lively actions; ``before(agent, obs)``
    runs before each live step and ``after(agent, action)`` after it. Returns each agent's sum
    of the rewards seen through ``last()``."""
    env.reset(seed=seed)
    raw = env.unwrapped
    quiet = quiet_actions(raw)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        if before is not None:
            before(agent, obs)
        action = lively(obs["action_mask"], quiet, rng)
        env.step(action)
        if after is not None:
            after(agent, action)
    assert not env.agents
    return totals


def cover_phases(
    configs: Iterator[GameSpec],
    wanted: set[Phase],
    before: Callable[[AECEnv, str, Obs], None] | None = None,
    after: Callable[[AECEnv, str, int], None] | None = None,
) -> Counter[Phase]:
    """Play games from ``configs`` (offices, days, house rules, seed) until every phase in
    ``wanted`` has been decided in; ``before`` and ``after`` as in ``play``, given the env."""
    seen: Counter[Phase] = Counter()
    for offices, days, rules, seed in configs:
        env = station_master_v0.env(num_offices=offices, days=days, house_rules=rules)

        def on_before(agent: str, obs: Obs, env: AECEnv = env) -> None:
            seen[env.unwrapped.game.phase] += 1
            if before is not None:
                before(env, agent, obs)

        def on_after(agent: str, action: int, env: AECEnv = env) -> None:
            if after is not None:
                after(env, agent, action)

        play(env, seed, before=on_before, after=on_after)
        if wanted <= set(seen):
            break
    assert wanted <= set(seen), f"never decided in {wanted - set(seen)}; seen {dict(seen)}"
    return seen


def game_configs(offices: tuple[int, ...], days: int, games: int) -> Iterator[GameSpec]:
    """Seeded configurations, every other one with the Emergency Toolbox (RED FLAGs in hand)."""
    for k in range(games):
        rules = ("emergency_toolbox",) if k % 2 == 0 else ()
        yield offices[k % len(offices)], days, rules, 1000 + k


def swap_with_home_office(game: GameState, seat: int, rng: np.random.Generator) -> bool:
    """Swap one card of ``seat``'s hand with a Home Office card of another type, as a different
    shuffle could have dealt it. False when there is nothing to swap."""
    hand, deck = game.hands[seat], game.home_office
    if not hand:
        return False
    i = int(rng.integers(len(hand)))
    others = [j for j, card in enumerate(deck) if card != hand[i]]
    if not others:
        return False
    j = int(rng.choice(others))
    hand[i], deck[j] = deck[j], hand[i]
    hand.sort()
    return True


# --------------------------------------------------------------------------- PettingZoo's own tests


@pytest.mark.parametrize("offices", [1, 3, 6])
def test_pettingzoo_api_test(offices: int) -> None:
    """PettingZoo's API conformance test passes for 1, 3 and 6 offices."""
    api_test(station_master_v0.env(num_offices=offices), num_cycles=1000)


@pytest.mark.parametrize("offices", [1, 3, 6])
def test_pettingzoo_seed_test(offices: int) -> None:
    """PettingZoo's seed test: two environments reset with one seed play the same game."""
    seed_test(lambda: station_master_v0.env(num_offices=offices), num_cycles=500)


# --------------------------------------------------------------------------- agents and turns


@pytest.mark.parametrize("offices", [1, 2, 3, 6])
def test_agent_names_and_seats(offices: int) -> None:
    """Agents are office_0..office_{n-1}; office_k is the seat holding office k at the start."""
    env = station_master_v0.env(num_offices=offices)
    env.reset(seed=5)
    raw = env.unwrapped
    names = [f"office_{k}" for k in range(offices)]
    assert env.possible_agents == names
    assert env.agents == names
    assert sorted(raw.seat_of(a) for a in names) == list(range(offices))
    for k, agent in enumerate(names):
        assert raw.game.seat_of_office[k] == raw.seat_of(agent)
        assert raw.agent_of_seat(raw.seat_of(agent)) == agent


def test_agent_selection_follows_the_deciding_seat_in_every_phase() -> None:
    """After every step the selected agent is the deciding seat's, through New Train, Extra,
    Mainline (clearance, RED FLAG), Switching and Cargo decisions; outside Switching its mask
    is exactly its legal intents."""
    wanted = {Phase.NEW_TRAIN, Phase.CLEARANCE, Phase.RED_FLAG, Phase.CARGO, Phase.SWITCHING}

    def exact(env: AECEnv, agent: str, obs: Obs) -> None:
        raw = env.unwrapped
        if raw.game.phase is not Phase.SWITCHING:
            legal = {raw.table.index(intent) for intent in raw.game.legal_intents()}
            assert set(np.flatnonzero(obs["action_mask"])) == legal

    def check(env: AECEnv, agent: str, action: int) -> None:
        raw = env.unwrapped
        if raw.game.is_terminal():
            assert all(env.terminations.values())
        else:
            assert raw.agent_of_seat(raw.game.current_player()) == env.agent_selection

    cover_phases(game_configs((3, 6, 2), 2, 40), wanted, before=exact, after=check)


def test_employee_rotation_moves_the_agent_with_its_seat() -> None:
    """RB.3: a seat changes office each day and its agent stays with the seat."""
    env = station_master_v0.env(num_offices=3, days=2, house_rules=("employee_rotation",))
    env.reset(seed=3)
    raw = env.unwrapped
    seats = {a: raw.seat_of(a) for a in env.possible_agents}
    offices_at_start = raw.game.office_of_seat[:]

    def after(agent: str, action: int) -> None:
        assert {a: raw.seat_of(a) for a in env.possible_agents} == seats
        if not raw.game.is_terminal():
            assert raw.agent_of_seat(raw.game.current_player()) == env.agent_selection

    play(env, 3, after=after)
    assert raw.game.day == 1
    assert raw.game.office_of_seat != offices_at_start


# --------------------------------------------------------------------------- the mask


class MaskChecker:
    """Checks the mask against the rules core at every decision of one game (see
    ``test_mask_is_exact``); counts what it checked."""

    def __init__(self, env: AECEnv, seed: int) -> None:
        self.env = env
        self.raw: raw_env = env.unwrapped
        self.rng = np.random.default_rng(seed + 1)
        self.prefix: list[int] = []  # the Move tokens taken so far in the current Move
        self.walked_this_game = 0
        self.counts: Counter[str] = Counter()

    def before(self, agent: str, obs: Obs) -> None:
        raw, game = self.raw, self.raw.game
        mask = raw.action_mask()
        assert np.array_equal(obs["action_mask"], mask)
        assert mask.any(), f"{agent} must act but every action is masked"  # (d)
        seat = raw.seat_of(agent)
        assert game.current_player() == seat
        legal = game.legal_intents()
        unmasked = [int(a) for a in np.flatnonzero(mask)]
        if game.phase is Phase.SWITCHING:
            self._switching(seat, legal, unmasked)
        else:
            assert not self.prefix
            legal_set = set(legal)
            for a in unmasked:  # (a)
                assert block_of(raw, a) not in MOVE_BLOCKS
                intent = raw.table.intent(seat, a)
                assert intent in legal_set, f"{raw.action_to_str(agent, a)} is unmasked but not legal"
            for intent in legal:  # (b)
                assert mask[raw.table.index(intent)], f"legal {describe(game, intent)} is masked"
            assert len(set(unmasked)) == len(legal_set)
        started = obs["observation"][raw.encoder.sections["move"].start]
        assert started == float(bool(self.prefix)), "the move section must show a Move being spelled"
        self.counts[game.phase.name] += 1
        self._masked_actions_raise(agent, mask)

    def after(self, agent: str, action: int) -> None:
        name = block_of(self.raw, action)
        if name == "move_stop":
            self.prefix = []
        elif name in MOVE_BLOCKS:
            self.prefix.append(action)

    def _switching(self, seat: int, legal: list[Any], unmasked: list[int]) -> None:
        raw = self.raw
        moves = [i for i in legal if isinstance(i, MoveTray)]
        others = [i for i in legal if not isinstance(i, MoveTray)]
        assert [type(i).__name__ for i in others] == ["EndSwitching"]
        spellings = {move: raw.spell_move(move) for move in moves}
        depth = len(self.prefix)
        expected = {t[depth] for t in spellings.values() if t[:depth] == self.prefix}
        if not self.prefix:  # (b): End Switching only between Moves
            expected.add(raw.table.index(others[0]))
        assert set(unmasked) == expected  # (a) and (c): exactly the next tokens of legal Moves
        if self.prefix or not moves:
            return
        # (c): walk whole spellings on copies: every token unmasked, the last applies the Move.
        budget = 25 if self.walked_this_game == 0 else 3
        order = self.rng.permutation(len(moves))[:budget]
        for k in order:
            self._walk(seat, moves[k], spellings[moves[k]])
        self.walked_this_game += len(order)

    def _walk(self, seat: int, move: MoveTray, tokens: list[int]) -> None:
        raw = self.raw
        expected = raw.game.clone()
        expected.apply(move)
        twin = copy_env(raw)
        start = twin.game.state_hash()
        agent = twin.agent_selection
        for i, token in enumerate(tokens):
            assert twin.action_mask()[token], f"token {i} of {describe(raw.game, move)} is masked"
            twin.step(token)
            if i < len(tokens) - 1:  # a Move in progress changes nothing yet
                assert twin.game.state_hash() == start
                assert twin.agent_selection == agent
        assert twin.game.state_hash() == expected.state_hash()
        self.counts["moves walked"] += 1

    def _masked_actions_raise(self, agent: str, mask: np.ndarray) -> None:  # (e)
        raw = self.raw
        masked = np.flatnonzero(mask == 0)
        tries: list[int] = [int(a) for a in self.rng.choice(masked, size=min(3, masked.size), replace=False)]
        outside = [-1, raw.table.size, raw.table.size + 17]
        tries.append(outside[self.counts.total() % 3])
        state_hash, before = raw.game.state_hash(), mask.copy()
        for action in tries:
            with pytest.raises(IllegalActionError) as info:
                raw.step(action)
            message = str(info.value)
            if 0 <= action < raw.table.size:
                assert raw.table.describe(action) in message
            else:
                assert str(action) in message
            assert agent in message
            assert raw.game.state_hash() == state_hash
            assert np.array_equal(raw.action_mask(), before)
            assert raw.agent_selection == agent
            self.counts["masked tried"] += 1


@pytest.mark.parametrize(
    ("offices", "rules", "seed"),
    [(1, (), 100), (3, ("emergency_toolbox",), 200), (6, (), 300)],
)
def test_mask_is_exact(offices: int, rules: tuple[str, ...], seed: int) -> None:
    """At every decision of two-day games: (a) each unmasked action is a legal intent (or the
    next token of a legal Move); (b) each legal intent is unmasked (End Switching only between
    Moves); (c) each legal Move's spelling walks through unmasked tokens and applies exactly that
    Move; (d) the mask is never empty; (e) masked or out-of-range actions raise
    IllegalActionError naming the action, changing nothing."""
    counts: Counter[str] = Counter()
    for game in range(8):  # a few games, until Moves have been checked
        env = station_master_v0.env(num_offices=offices, days=2, house_rules=rules)
        checker = MaskChecker(env, seed + game)
        play(env, seed + game, before=checker.before, after=checker.after)
        counts.update(checker.counts)
        if game >= 1 and counts["moves walked"] >= 10:
            break
    assert counts["LOCAL_OPS"] and counts["CARD_PLAY"] and counts["SWITCHING"], counts
    assert counts["moves walked"] >= 10, counts
    assert counts["masked tried"] > 100, counts


def test_action_to_str_for_every_unmasked_action() -> None:
    """``action_to_str`` reads every unmasked action of a state of each kind (phase and set of
    unmasked blocks, so Move tokens in the middle of a Move too) as a non-empty string."""
    seen: set[tuple[Phase, frozenset[str]]] = set()

    def before(env: AECEnv, agent: str, obs: Obs) -> None:
        raw = env.unwrapped
        mask = obs["action_mask"]
        key = (raw.game.phase, frozenset(block_of(raw, a) for a in np.flatnonzero(mask)))
        if key in seen:
            return
        seen.add(key)
        for action in np.flatnonzero(mask):
            text = raw.action_to_str(agent, int(action))
            assert isinstance(text, str) and text.strip()

    wanted = {Phase.LOCAL_OPS, Phase.CARD_PLAY, Phase.NEW_TRAIN, Phase.SWITCHING, Phase.CLEARANCE}
    cover_phases(game_configs((3, 2), 2, 20), wanted, before=before)
    assert any(phase is Phase.SWITCHING and "end_switching" not in blocks for phase, blocks in seen), seen


CARD_BLOCKS = ("play_card", "place_card", "place_modifier", "discard")


def shown(text: str) -> dict[str, str]:
    """The ``label=value`` parameters of ``name(label=value, ...)`` at the start of a string."""
    head = text.split(": ", 1)[0]
    return dict(re.findall(r"([a-z][a-z ]*)=(\([^)]*\)|[^,()]+)", head))


def test_the_card_parameter_blocks_are_the_four_card_blocks() -> None:
    """Exactly ``play_card``, ``place_card``, ``place_modifier`` and ``discard`` take a card
    (a card type, as the core's intents do: never a hand slot)."""
    table = raw_env(num_offices=3).table
    specs = {spec.name: spec for entry in INTENTS for spec in entry.blocks}
    card_blocks = (name for name in table.blocks if any(p.label == "card" for p in specs[name].params))
    assert tuple(card_blocks) == CARD_BLOCKS


@pytest.mark.parametrize("offices", [1, 6])
def test_action_to_str_names_every_actions_card_and_cell(offices: int) -> None:
    """Over the whole table, for every seat, the state-free reading of a card action names its
    intent's card (by id; ``place_card`` and ``place_modifier`` number only the cards they lay)
    and its cell, and a Modifier's facility offset leads from its cell to the intent's."""
    table = raw_env(num_offices=offices).table
    cards = table.catalogue.cards
    checked: Counter[str] = Counter()
    for seat in range(offices):
        for name in CARD_BLOCKS:
            block = table.blocks[name]
            for action in range(block.start, block.start + block.size):
                intent = table.intent(seat, action)
                params = shown(table.describe(action))
                assert intent is not None and intent.seat == seat
                assert params["card"] == cards[intent.card].id, (table.describe(action), intent)
                if name in ("place_card", "place_modifier"):
                    assert params["cell"] == str(intent.cell)
                if name == "place_modifier":
                    dr, dc = ast.literal_eval(params["facility"])
                    assert (intent.cell[0] + dr, intent.cell[1] + dc) == intent.facility
                checked[name] += 1
    assert checked == {name: offices * table.blocks[name].size for name in CARD_BLOCKS}


def test_action_to_str_agrees_with_describe_on_every_legal_action() -> None:
    """At every decision of lively games (1, 3 and 6 offices), every unmasked whole-intent
    action reads as its table entry then ``describe(state, intent)``; a card action names, in
    both parts, the card its intent plays, lays or discards, one in the seat's hand; and the
    single-agent view reads actions as the AEC env does."""
    covered: Counter[str] = Counter()

    def before(env: AECEnv, agent: str, obs: Obs) -> None:
        raw, game = env.unwrapped, env.unwrapped.game
        seat, cards = raw.seat_of(agent), raw.catalogue.cards
        for action in (int(a) for a in np.flatnonzero(obs["action_mask"])):
            intent = raw.table.intent(seat, action)
            if intent is None:  # a Move token
                continue
            text = raw.action_to_str(agent, action)
            assert text == f"{raw.table.describe(action)}: {describe(game, intent)}"
            name = block_of(raw, action)
            if name in CARD_BLOCKS:
                card = cards[intent.card]
                assert shown(text)["card"] == card.id, text
                assert card.name in describe(game, intent), text
                assert intent.card in game.hands[seat], text
                covered[name] += 1

    for offices, days, rules, seed in game_configs((1, 3, 6), 2, 12):
        env = station_master_v0.env(num_offices=offices, days=days, house_rules=rules)
        play(env, seed, before=lambda agent, obs, env=env: before(env, agent, obs))
        if min(covered[name] for name in CARD_BLOCKS) >= 20:
            break
    assert all(covered[name] >= 20 for name in CARD_BLOCKS), covered

    single = StationMasterEnvV0(num_offices=3, learner="office_1")
    single.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(40):
        masks = single.action_masks()
        for action in np.flatnonzero(masks):
            assert single.action_to_str(int(action)) == single.aec.action_to_str("office_1", int(action))
        if single.step(int(rng.choice(np.flatnonzero(masks))))[2]:
            break


# --------------------------------------------------------------------------- determinism


def trajectory(env: AECEnv, seed: int, actions_seed: int) -> tuple[list[Any], str]:
    """(agent, obs, reward, terminated, truncated, info) at every turn of a lively game."""
    out: list[Any] = []

    env.reset(seed=seed)
    raw = env.unwrapped
    quiet = quiet_actions(raw)
    rng = np.random.default_rng(actions_seed)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        out.append((agent, obs, reward, terminated, truncated, info))
        env.step(None if terminated or truncated else lively(obs["action_mask"], quiet, rng))
    return out, raw.game.state_hash()


@pytest.mark.parametrize("offices", [1, 4])
def test_same_seed_and_actions_same_trajectory(offices: int) -> None:
    """Two environments reset with one seed and fed the same actions agree on every
    observation, reward, flag and info, and on the final state; another seed differs."""
    first, first_hash = trajectory(station_master_v0.env(num_offices=offices, days=2), 8, 80)
    second, second_hash = trajectory(station_master_v0.env(num_offices=offices, days=2), 8, 80)
    assert len(first) == len(second)
    for a, b in zip(first, second, strict=True):
        assert a[0] == b[0]
        assert np.array_equal(a[1]["observation"], b[1]["observation"])
        assert np.array_equal(a[1]["action_mask"], b[1]["action_mask"])
        assert a[2:] == b[2:]
    assert first_hash == second_hash

    one, other = station_master_v0.env(num_offices=offices), station_master_v0.env(num_offices=offices)
    one.reset(seed=8)
    other.reset(seed=9)
    assert one.unwrapped.game.state_hash() != other.unwrapped.game.state_hash()
    seen_one, seen_other = one.observe("office_0"), other.observe("office_0")
    assert not np.array_equal(seen_one["observation"], seen_other["observation"])


def test_reset_with_the_same_seed_restarts_the_same_game() -> None:
    """One environment reset twice with one seed starts the same game each time."""
    env = station_master_v0.env(num_offices=3)
    env.reset(seed=4)
    start = env.unwrapped.game.state_hash()
    play(env, 4)
    env.reset(seed=4)
    assert env.unwrapped.game.state_hash() == start


def test_single_agent_same_seed_same_episode() -> None:
    """The single-agent env with the default random opponents is reproducible from its seed."""

    def episode(seed: int) -> list[tuple[np.ndarray, float, bool, bool]]:
        env = StationMasterEnvV0(num_offices=3)
        obs, _ = env.reset(seed=seed)
        quiet, rng = quiet_actions(env.aec), np.random.default_rng(0)
        out = [(obs, 0.0, False, False)]
        done = False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(lively(env.action_masks(), quiet, rng))
            out.append((obs, float(reward), terminated, truncated))
            done = terminated or truncated
        return out

    a, b = episode(6), episode(6)
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert np.array_equal(x[0], y[0]) and x[1:] == y[1:]
    one, other = StationMasterEnvV0(num_offices=3), StationMasterEnvV0(num_offices=3)
    one.reset(seed=6)
    other.reset(seed=7)
    assert one.aec.game.state_hash() != other.aec.game.state_hash()


# --------------------------------------------------------------------------- rewards


def over_games_with_revenue(check: Callable[[int], bool], start: int, wanted: int = 2, cap: int = 40) -> None:
    """Run ``check(seed)`` on seeds from ``start`` until ``wanted`` games changed some revenue
    (``check`` returns whether its game did), so that a test over whole games cannot pass
    vacuously with every revenue 0; fails after ``cap`` seeds."""
    moved = 0
    for seed in range(start, start + cap):
        moved += check(seed)
        if moved >= wanted:
            return
    raise AssertionError(f"only {moved} of {cap} games changed any revenue")


@pytest.mark.parametrize("offices", [1, 3, 6])
def test_rewards_sum_to_revenue(offices: int) -> None:
    """Over whole one-day games each agent's rewards seen through ``last()`` sum to its final
    revenue."""

    def check(seed: int) -> bool:
        env = station_master_v0.env(num_offices=offices, house_rules=("emergency_toolbox",))
        totals = play(env, seed)
        raw = env.unwrapped
        revenue = raw.game.revenue()
        for agent in env.possible_agents:
            assert totals[agent] == revenue[raw.seat_of(agent)], (seed, agent, totals, revenue)
        return any(revenue)

    over_games_with_revenue(check, 30)


@pytest.mark.parametrize("offices", [1, 3, 6])
def test_coop_rewards_sum_to_the_team_total(offices: int) -> None:
    """Co-op: every agent's rewards sum to the team's total revenue."""

    def check(seed: int) -> bool:
        env = station_master_v0.env(num_offices=offices, mode="coop", target_revenue=15)
        totals = play(env, seed)
        revenue = env.unwrapped.game.revenue()
        assert all(total == sum(revenue) for total in totals.values()), (seed, totals, revenue)
        return any(revenue)

    over_games_with_revenue(check, 40)


@pytest.mark.parametrize("offices", [1, 3, 6])
def test_single_agent_rewards_sum_to_the_learners_revenue(offices: int) -> None:
    """Single-agent: the ``step()`` rewards of a whole episode sum to the learner's final revenue
    (``info["revenue"]``)."""

    def check(seed: int) -> bool:
        env = StationMasterEnvV0(num_offices=offices, house_rules=("emergency_toolbox",))
        _, info = env.reset(seed=seed)
        assert info["revenue"] == 0
        quiet, rng = quiet_actions(env.aec), np.random.default_rng(seed)
        total, done = 0.0, False
        while not done:
            _, reward, terminated, truncated, info = env.step(lively(env.action_masks(), quiet, rng))
            total += float(reward)
            done = terminated or truncated
        revenue = env.aec.game.revenue()
        assert info["revenue"] == revenue[env.aec.seat_of(env.learner)]
        assert total == info["revenue"], (seed, total, info["revenue"])
        return bool(info["revenue"])

    over_games_with_revenue(check, 50)


def test_infos_list_the_revenue_events_since_the_agents_last_action() -> None:
    """``infos[agent]["revenue_events"]`` are the ledger entries of the agent's seat since it
    last acted (rule id, amount, ...), gathered like its reward: their amounts make the
    reward ``last()`` gives it."""
    found: Counter[str] = Counter()
    for seed in range(60, 70):
        env = station_master_v0.env(num_offices=3, days=2, house_rules=("emergency_toolbox",))
        env.reset(seed=seed)
        raw = env.unwrapped
        assert all(raw.infos[a] == {"revenue_events": []} for a in env.possible_agents)
        seen = [0]
        pending: dict[str, list[dict[str, object]]] = {a: [] for a in env.possible_agents}

        def after(
            agent: str,
            action: int,
            raw: raw_env = raw,
            seen: list[int] = seen,
            pending: dict[str, list[dict[str, object]]] = pending,
        ) -> None:
            pending[agent] = []
            for entry in raw.game.ledger[seen[0] :]:
                pending[raw.agent_of_seat(entry.seat)].append(entry._asdict())
            seen[0] = len(raw.game.ledger)
            for a in raw.possible_agents:
                events = raw.infos[a]["revenue_events"]
                assert events == pending[a]
                for event in events:
                    assert isinstance(event["rule"], str) and event["rule"]
                    assert isinstance(event["amount"], int)
                assert raw._cumulative_rewards[a] == sum(e["amount"] for e in events)

        play(env, seed, after=after)
        found.update(entry.rule for entry in raw.game.ledger)
    assert found.total() >= 5, found


def test_revenue_events_seen_through_last_explain_the_reward() -> None:
    """README: the reward is the change of the agent's revenue and ``revenue_events`` lists the
    ledger entries behind it; so what ``last()`` gives an agent agrees: the amounts of its
    revenue events sum to its reward (competitive)."""
    for seed in range(10):
        env = station_master_v0.env(num_offices=3, days=2)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            assert reward == sum(e["amount"] for e in info["revenue_events"]), (seed, agent, reward, info)
            env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


# --------------------------------------------------------------------------- ends of games


def test_all_agents_terminate_at_game_end() -> None:
    """A one-day game ends after 12 Stages with every agent terminated (not truncated), each
    seeing its end once through ``last()``."""
    env = station_master_v0.env(num_offices=3)
    env.reset(seed=2)
    raw = env.unwrapped
    quiet, rng = quiet_actions(raw), np.random.default_rng(2)
    ended: list[str] = []
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        assert not truncated
        if terminated:
            assert raw.game.is_terminal()
            assert not obs["action_mask"].any()
            ended.append(agent)
            env.step(None)
        else:
            assert not raw.game.is_terminal()
            env.step(lively(obs["action_mask"], quiet, rng))
    assert sorted(ended) == env.possible_agents
    assert raw.game.stages_played == 12
    assert not env.agents


@pytest.mark.parametrize("offices", [1, 3])
def test_max_stages_truncates_every_agent(offices: int) -> None:
    """``max_stages=2``: every agent is truncated (not terminated) once two Stages are played."""
    env = station_master_v0.env(num_offices=offices, max_stages=2)
    env.reset(seed=7)
    raw = env.unwrapped
    quiet, rng = quiet_actions(raw), np.random.default_rng(7)
    ended: list[str] = []
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        assert not terminated
        if truncated:
            assert raw.game.stages_played == 2
            ended.append(agent)
            env.step(None)
        else:
            assert raw.game.stages_played < 2
            env.step(lively(obs["action_mask"], quiet, rng))
    assert sorted(ended) == env.possible_agents
    assert not raw.game.is_terminal()


def test_single_agent_truncation() -> None:
    """The single-agent view passes ``max_stages`` on and reports the truncation."""
    env = StationMasterEnvV0(num_offices=2, max_stages=2)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    terminated = truncated = False
    while not (terminated or truncated):
        _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    assert truncated and not terminated
    assert env.aec.game.stages_played == 2
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


# --------------------------------------------------------------------------- observations


@pytest.mark.parametrize("offices", [1, 3, 6])
def test_observations_fit_their_space(offices: int) -> None:
    """Every agent's observation is a float32 vector in its space with an int8 mask; only the
    acting agent's mask is non-zero, and it is the environment's mask."""
    env = station_master_v0.env(num_offices=offices, days=2)
    raw = env.unwrapped
    checked = [0]

    def before(agent: str, obs: Obs) -> None:
        checked[0] += 1
        if checked[0] % 3:
            return
        for other in env.agents:
            seen = env.observe(other)
            space = env.observation_space(other)
            assert set(seen) == {"observation", "action_mask"}
            assert seen["observation"].dtype == np.float32
            assert seen["action_mask"].dtype == np.int8
            assert space["observation"].contains(seen["observation"])
            assert space["action_mask"].contains(seen["action_mask"])
            assert space.contains(seen)
            if other == agent:
                assert np.array_equal(seen["action_mask"], raw.action_mask())
            else:
                assert not seen["action_mask"].any()

    play(env, offices, before=before)
    assert checked[0] > 30


@contextmanager
def hidden_cards_edited(game: GameState) -> Iterator[GameState]:
    """Edit the hands and the Home Office by hand inside the block; they are put back after."""
    hands, deck, state_hash = [hand[:] for hand in game.hands], game.home_office[:], game.state_hash()
    try:
        yield game
    finally:
        for hand, old in zip(game.hands, hands, strict=True):
            hand[:] = old
        game.home_office[:] = deck
    assert game.state_hash() == state_hash


@pytest.mark.parametrize("offices", [3, 6])
def test_observation_hides_other_hands_and_the_deck_order(offices: int) -> None:
    """Privacy: swapping cards between another seat's hand and the Home Office, or shuffling the
    Home Office, leaves the viewer's observation unchanged; changing its own hand does not (and
    changes only the hand section)."""
    env = station_master_v0.env(num_offices=offices, days=2)
    raw = env.unwrapped
    rng = np.random.default_rng(offices)
    hand = raw.encoder.sections["hand"]
    checks = Counter[str]()

    def before(agent: str, obs: Obs) -> None:
        if rng.random() > 0.25:
            return
        game = raw.game
        viewer = env.possible_agents[int(rng.integers(offices))]
        base = raw.observe(viewer)["observation"]
        me = raw.seat_of(viewer)
        for seat in range(offices):
            with hidden_cards_edited(game):
                if not swap_with_home_office(game, seat, rng):
                    continue
                seen = raw.observe(viewer)["observation"]
            if seat == me:
                changed = np.flatnonzero(seen != base)
                assert changed.size, "the viewer's own hand is not in its observation"
                assert hand.start <= changed.min() and changed.max() < hand.stop
                checks["own"] += 1
            else:
                assert np.array_equal(seen, base), f"{viewer} sees a card of seat {seat}'s hand"
                checks["other"] += 1
        if len(set(game.home_office)) > 1:
            with hidden_cards_edited(game):
                order = game.home_office[:]
                while game.home_office == order:
                    rng.shuffle(game.home_office)
                seen = raw.observe(viewer)["observation"]
            assert np.array_equal(seen, base), f"{viewer} sees the Home Office order"
            checks["shuffle"] += 1

    play(env, 70 + offices, before=before)
    assert checks["own"] >= 10 and checks["other"] >= 20 and checks["shuffle"] >= 10, checks


# --------------------------------------------------------------------------- illegal actions and config


def test_masked_action_raises_and_changes_nothing() -> None:
    """``station_master_v0.env(illegal_action="raise")`` raises IllegalActionError on a masked action; the
    game, the selection and the observation stay as they were, and a legal action is then
    accepted."""
    env = station_master_v0.env(num_offices=3, illegal_action="raise")
    env.reset(seed=1)
    raw = env.unwrapped
    agent = env.agent_selection
    obs = env.observe(agent)
    masked = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    state_hash = raw.game.state_hash()
    with pytest.raises(IllegalActionError, match="masked"):
        env.step(masked)
    assert raw.game.state_hash() == state_hash
    assert env.agent_selection == agent
    again = env.observe(agent)
    assert np.array_equal(again["observation"], obs["observation"])
    assert np.array_equal(again["action_mask"], obs["action_mask"])
    assert not any(env.terminations.values()) and not any(env.truncations.values())
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"illegal_action": "terminate"}, {"illegal_action": "terminate", "illegal_reward": -3.5}],
)
def test_illegal_action_terminate(kwargs: dict[str, Any]) -> None:
    """``illegal_action="terminate"`` (the default, as in PettingZoo's classic games): a masked
    action ends the game for every agent, the offender rewarded ``illegal_reward`` (-1 by
    default), the others 0; the game is left as it was."""
    illegal_reward = kwargs.get("illegal_reward", -1.0)
    env = station_master_v0.env(num_offices=3, **kwargs)
    env.reset(seed=1)
    raw = env.unwrapped
    offender = env.agent_selection
    mask = env.observe(offender)["action_mask"]
    state_hash = raw.game.state_hash()
    env.step(int(np.flatnonzero(mask == 0)[0]))
    assert raw.game.state_hash() == state_hash
    rewards: dict[str, float] = {}
    for agent in env.agent_iter():
        _, reward, terminated, _, _ = env.last()
        assert terminated
        rewards[agent] = reward
        env.step(None)
    assert rewards == {a: (illegal_reward if a == offender else 0.0) for a in env.possible_agents}
    assert not env.agents


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"illegal_action": "bogus"}, ("illegal_action", "bogus")),
        ({"num_offices": 0}, ("offices", "0")),
        ({"num_offices": 7}, ("offices", "7")),
        ({"house_rules": ("no_such_rule",)}, ("house rule", "no_such_rule")),
        ({"house_rules": {"no_such_rule": True}}, ("house rule", "no_such_rule")),
        ({"mode": "solo"}, ("mode", "solo")),
        ({"mode": "coop"}, ("target_revenue",)),
        ({"render_mode": "rgb_array"}, ("render_mode", "rgb_array")),
        ({"max_stages": 0}, ("max_stages", "0")),
        ({"days": 0}, ("days", "0")),
    ],
)
def test_bad_configuration_raises_config_error(kwargs: dict[str, Any], words: tuple[str, ...]) -> None:
    """Bad options raise ConfigError (or a subclass) naming the problem."""
    with pytest.raises(ConfigError) as info:
        station_master_v0.env(**kwargs)
    for word in words:
        assert word in str(info.value), str(info.value)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"illegal_action": "bogus"}, ("illegal_action", "bogus")),
        ({"learner": "office_9"}, ("learner", "office_9")),
        ({"num_offices": 3, "opponents": {"office_1": None}}, ("office_2",)),
        ({"num_offices": 7}, ("offices", "7")),
        ({"render_mode": "rgb_array"}, ("render_mode", "rgb_array")),
    ],
)
def test_single_agent_bad_configuration(kwargs: dict[str, Any], words: tuple[str, ...]) -> None:
    """The single-agent view rejects bad options with a ConfigError naming the problem."""
    with pytest.raises(ConfigError) as info:
        StationMasterEnvV0(**kwargs)
    for word in words:
        assert word in str(info.value), str(info.value)


# --------------------------------------------------------------------------- rendering


@pytest.mark.parametrize("offices", [1, 3, 6])
def test_render_ansi(offices: int) -> None:
    """``render_mode="ansi"`` returns the table as text naming every agent."""
    env = station_master_v0.env(num_offices=offices, render_mode="ansi")
    env.reset(seed=3)
    texts = [env.render()]
    quiet, rng = quiet_actions(env.unwrapped), np.random.default_rng(3)
    for _ in range(20 * offices):
        env.step(lively(env.observe(env.agent_selection)["action_mask"], quiet, rng))
        assert not env.terminations[env.agent_selection]
    texts.append(env.render())
    for text in texts:
        assert isinstance(text, str)
        for word in BOARD_WORDS:
            assert word in text
        for agent in env.possible_agents:
            assert agent in text


def test_render_human_prints(capsys: pytest.CaptureFixture[str]) -> None:
    """``render_mode="human"`` prints the table (also after each step) and returns None."""
    env = station_master_v0.env(num_offices=2, render_mode="human")
    env.reset(seed=3)
    assert env.render() is None
    out = capsys.readouterr().out
    for word in (*BOARD_WORDS, "office_0", "office_1"):
        assert word in out
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert "Division Yard" in capsys.readouterr().out


def test_render_without_mode_returns_none(capsys: pytest.CaptureFixture[str]) -> None:
    """Without a render mode ``render()`` returns None and prints nothing."""
    env = station_master_v0.env(num_offices=2)
    env.reset(seed=3)
    assert env.render() is None
    assert capsys.readouterr().out == ""


# --------------------------------------------------------------------------- the single-agent view


def test_gym_make_spaces_and_action_masks() -> None:
    """``gymnasium.make("StationMaster-v0")``: a float32 Box observation, a Discrete action
    space, and ``action_masks()`` a bool array of its size matching the AEC mask."""
    env = gymnasium.make(sm_env.GYM_ID_V0, num_offices=3)
    obs, info = env.reset(seed=0)
    inner: StationMasterEnvV0 = env.unwrapped
    assert isinstance(env.action_space, gymnasium.spaces.Discrete)
    assert obs.dtype == np.float32 and env.observation_space.contains(obs)
    assert info["revenue"] == 0 and info["revenue_events"] == []
    masks = env.get_wrapper_attr("action_masks")()
    assert masks.dtype == bool and masks.shape == (int(env.action_space.n),)
    assert masks.any()
    assert np.array_equal(masks, inner.aec.action_mask().astype(bool))
    assert inner.aec.agent_selection == inner.learner


class CountingRandomAgent(RandomAgent):
    """The random bot, counting its decisions."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.calls = 0

    def choose(self, view: SeatView) -> Any:
        self.calls += 1
        return super().choose(view)


class CallablePolicy:
    """A ``(observation, mask) -> action`` opponent that checks what it is given."""

    def __init__(self, size: int, seed: int) -> None:
        self.size = size
        self.rng = np.random.default_rng(seed)
        self.calls = 0

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> int:
        self.calls += 1
        assert observation.dtype == np.float32 and observation.shape == (self.size,)
        assert mask.any()
        return int(self.rng.choice(np.flatnonzero(mask)))


def run_episode(env: StationMasterEnvV0, seed: int) -> tuple[float, dict[str, Any]]:
    """A whole lively episode; returns the reward sum and the last info."""
    obs, info = env.reset(seed=seed)
    quiet, rng = quiet_actions(env.aec), np.random.default_rng(seed)
    total, done = 0.0, False
    while not done:
        assert env.aec.agent_selection == env.learner
        assert env.observation_space.contains(obs)
        obs, reward, terminated, truncated, info = env.step(lively(env.action_masks(), quiet, rng))
        total += float(reward)
        done = terminated or truncated
    assert terminated and env.aec.game.is_terminal()
    return total, info


@pytest.mark.parametrize("kind", ["random", "choose", "callable", "dict"])
def test_single_agent_opponent_kinds(kind: str) -> None:
    """Opponents may be None (random), bots with ``choose(view)``, ``(obs, mask) -> action``
    callables, or a dict of any of these per agent; each plays its seats to the game end."""
    offices = 4
    size = station_master_v0.raw_env(num_offices=offices).encoder.size
    counted: list[Any] = []
    if kind == "random":
        opponents: Any = None
    elif kind == "choose":
        opponents = CountingRandomAgent(5)
        counted = [opponents]
    elif kind == "callable":
        opponents = CallablePolicy(size, 5)
        counted = [opponents]
    else:
        counted = [CountingRandomAgent(6), CallablePolicy(size, 6)]
        opponents = {"office_0": None, "office_1": counted[0], "office_3": counted[1]}
    env = StationMasterEnvV0(opponents=opponents, learner="office_2", num_offices=offices)
    total, info = run_episode(env, 9)
    assert total == info["revenue"]
    for opponent in counted:
        assert opponent.calls > 10


def test_single_agent_masked_action() -> None:
    """A masked action, with the default ``illegal_action="penalize"``, returns the penalty
    (-1.0 by default), changes nothing and is flagged in ``info``; with "terminate" it ends the
    episode too; with "raise" it raises. (More in tests/test_gym_contract.py.)"""
    results = {}
    for mode in ("penalize", "terminate", "raise"):
        env = StationMasterEnvV0(num_offices=2, illegal_action=mode, illegal_reward=-2.0)
        obs, _ = env.reset(seed=4)
        masks = env.action_masks()
        masked = int(np.flatnonzero(~masks)[0])
        state_hash = env.aec.game.state_hash()
        if mode == "raise":
            with pytest.raises(IllegalActionError):
                env.step(masked)
        else:
            again, reward, terminated, truncated, info = env.step(masked)
            assert reward == -2.0 and not truncated
            assert np.array_equal(again, obs)
            assert info["illegal_action"] is True
            assert env.action_to_str(masked) in info["illegal_reason"]
            assert info["revenue"] == 0 and info["revenue_events"] == []
            results[mode] = terminated
        assert env.aec.game.state_hash() == state_hash
        if mode != "terminate":
            assert np.array_equal(env.action_masks(), masks)
    assert results == {"penalize": False, "terminate": True}
    default = StationMasterEnvV0(num_offices=2)
    assert default.illegal_action == "penalize"
    default.reset(seed=4)
    assert default.step(int(np.flatnonzero(~default.action_masks())[0]))[1] == -1.0


# --------------------------------------------------------------------------- sb3-contrib


def test_maskable_ppo_learns_and_predicts_unmasked_actions(one_torch_thread: None) -> None:
    """A short MaskablePPO run completes; its predictions are unmasked actions, and a trained
    model can serve as an opponent (``predict(obs, action_masks=...)``)."""
    from sb3_contrib import MaskablePPO

    env = gymnasium.make(sm_env.GYM_ID_V0, num_offices=2)
    model = MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=64, seed=0)
    model.learn(total_timesteps=1024)
    assert model.num_timesteps >= 1024
    masks_of = env.get_wrapper_attr("action_masks")
    obs, _ = env.reset(seed=11)
    for _ in range(30):
        masks = masks_of()
        action, _ = model.predict(obs, action_masks=masks, deterministic=True)
        assert masks[int(action)]
        obs, _, terminated, truncated, _ = env.step(int(action))
        if terminated or truncated:
            obs, _ = env.reset()

    against = StationMasterEnvV0(opponents=model, num_offices=2)
    total, info = run_episode(against, 12)
    assert total == info["revenue"]


def test_maskable_ppo_with_a_dummy_vec_env(one_torch_thread: None) -> None:
    """MaskablePPO trains on a DummyVecEnv of two envs (masks through ``env_method``)."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import DummyVecEnv

    venv = DummyVecEnv([lambda: gymnasium.make(sm_env.GYM_ID_V0, num_offices=2) for _ in range(2)])
    model = MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=64, seed=0, n_epochs=2)
    model.learn(total_timesteps=512)
    obs = venv.reset()
    for _ in range(10):
        masks = get_action_masks(venv)
        assert masks.shape == (2, venv.action_space.n) and masks.dtype == bool
        actions, _ = model.predict(obs, action_masks=masks)
        assert all(masks[i, a] for i, a in enumerate(actions))
        obs, _, _, _ = venv.step(actions)
