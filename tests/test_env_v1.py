"""``station_master_v1``: PettingZoo's and Gymnasium's checks, the exact token mask over random
games of 1, 3 and 6 offices, the observation telling apart exactly what a seat can tell
apart, the single-agent view and a short MaskablePPO run."""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterator
from typing import Any

import gymnasium
import numpy as np
import pytest
from conftest import hide_differently
from pettingzoo import AECEnv
from pettingzoo.test import api_test, seed_test

import sm_env
from sm_env import IllegalActionError
from sm_env.actions_v1 import Speller, TokenTable
from sm_env.core.intents import Intent
from sm_env.core.phases import Phase
from sm_env.core.rng import Rng
from sm_env.core.state import GameState, SeatView
from sm_env.single_agent import StationMasterEnvV1
from sm_env.station_master_v1 import raw_env as raw_env_v1

pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be:UserWarning"),
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning"),
]

QUIET = ("pass", "end_switching", "end_turn", "discard", "end_consist", "end_cargo")


def quiet_tokens(raw: raw_env_v1) -> np.ndarray:
    quiet = np.zeros(raw.table.size, dtype=bool)
    for name in QUIET:
        block = raw.table.blocks[name]
        quiet[block.start : block.start + block.size] = True
    return quiet


def lively(mask: np.ndarray, quiet: np.ndarray, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    assert legal.size, "the acting agent has no unmasked token"
    busy = legal[~quiet[legal]]
    return int(rng.choice(busy if busy.size and rng.random() < 0.9 else legal))


def lively_turns(env: AECEnv, seed: int) -> Iterator[tuple[str, dict[str, np.ndarray], int]]:
    """Every live turn of a reset v1 env as (agent, observation, token): a random unmasked
    token, mostly not a quiet one (``lively``); the caller steps it. Finished agents are
    stepped with None here."""
    raw: raw_env_v1 = env.unwrapped
    quiet, rng = quiet_tokens(raw), np.random.default_rng(seed)
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        yield agent, obs, lively(obs["action_mask"], quiet, rng)


def completions(table: TokenTable, legal: list[Intent]) -> dict[tuple[int, ...], Intent]:
    """The reference, computed apart from ``Speller``: each legal intent's token sequence is
    the shortest prefix of its full spelling that no other legal intent's spelling shares."""
    spelled = {intent: table.spell(intent) for intent in legal}
    assert len(set(spelled.values())) == len(spelled), "two intents share a spelling"
    out: dict[tuple[int, ...], Intent] = {}
    for intent, tokens in spelled.items():
        for k in range(1, len(tokens) + 1):
            prefix = tokens[:k]
            if not any(o[:k] == prefix for other, o in spelled.items() if other != intent):
                out[prefix] = intent
                break
        else:
            raise AssertionError(f"{intent!r}'s spelling is a prefix of another")
    return out


# --------------------------------------------------------------------------- PettingZoo


@pytest.mark.parametrize("offices", [1, 3, 6])
def test_pettingzoo_api_test(offices: int) -> None:
    api_test(sm_env.env_v1(num_offices=offices), num_cycles=1000)


@pytest.mark.parametrize("offices", [1, 3])
def test_pettingzoo_seed_test(offices: int) -> None:
    seed_test(lambda: sm_env.env_v1(num_offices=offices), num_cycles=500)


def test_metadata_and_sizes() -> None:
    """v1 is its own version beside v0: a few hundred tokens and a compact observation."""
    raw = sm_env.raw_env_v1(num_offices=3)
    assert raw.metadata["name"] == "station_master_v1"
    assert sm_env.station_master_v0.raw_env(num_offices=3).metadata["name"] == "station_master_v0"
    assert 300 < raw.table.size < 1000
    assert raw.encoder.size < 4000
    assert raw.action_space("office_0").n == raw.table.size


# --------------------------------------------------------------------------- the mask


class TokenChecker:
    """At every step of one game: the env's mask is exactly the next tokens of the reference
    completions that continue the tokens taken so far; the acting agent's mask is never empty;
    a completing token applies exactly its intent; masked tokens raise and change nothing."""

    def __init__(self, env: AECEnv, seed: int) -> None:
        self.env = env
        self.raw: raw_env_v1 = env.unwrapped
        self.rng = np.random.default_rng(seed)
        self.prefix: list[int] = []
        self.reference: dict[tuple[int, ...], Intent] = {}
        self.counts: Counter[str] = Counter()

    def before(self, agent: str, obs: dict[str, np.ndarray]) -> None:
        raw, game = self.raw, self.raw.game
        assert game is not None
        mask = raw.action_mask()
        assert np.array_equal(obs["action_mask"], mask)
        assert mask.any(), f"{agent} must act but every token is masked"
        if not self.prefix:
            legal = game.legal_intents()
            self.reference = completions(raw.table, legal)
            assert sorted(map(repr, self.reference.values())) == sorted(map(repr, legal))
            self._walk_all(legal)
        depth = len(self.prefix)
        expected = {seq[depth] for seq in self.reference if list(seq[:depth]) == self.prefix}
        assert set(np.flatnonzero(mask).tolist()) == expected
        started = obs["observation"][raw.encoder.sections["prefix"].start]
        assert started == float(bool(self.prefix))
        self._masked_raise(agent, mask)
        self.counts[game.phase.name] += 1

    def after(self, agent: str, token: int, before_hash: str, expected: Intent | None) -> None:
        raw, game = self.raw, self.raw.game
        assert game is not None
        self.prefix.append(token)
        seq = tuple(self.prefix)
        if seq in self.reference:
            assert raw.decision_done
            self.prefix = []
            self.counts["decisions"] += 1
            self.counts["tokens"] += len(seq)
        else:
            assert not raw.decision_done
            assert game.state_hash() == before_hash, "a token in the middle of a decision changed the game"
            assert raw.agent_selection == agent

    def _walk_all(self, legal: list[Intent]) -> None:
        """Every legal intent's sequence walks a fresh speller through offered tokens to it,
        and ``spell`` gives that sequence; one, on a copy of the env, applies exactly it."""
        raw = self.raw
        by_intent = {intent: seq for seq, intent in self.reference.items()}
        for intent in legal:
            speller = Speller(raw.table.spell_all(legal))
            seq = by_intent[intent]
            for i, token in enumerate(seq):
                assert token in speller.options()
                done = speller.advance(token)
                assert (done is None) == (i < len(seq) - 1)
            assert done == intent
            self.counts["intents walked"] += 1
        pick = legal[int(self.rng.integers(len(legal)))]
        assert raw.spell(pick) == list(by_intent[pick])
        twin = copy.deepcopy(raw, {id(raw.catalogue): raw.catalogue, id(raw.table): raw.table})
        assert twin.game is not None and raw.game is not None
        expected = raw.game.clone()
        expected.apply(pick)
        for token in by_intent[pick]:
            twin.step(token)
        assert twin.game.state_hash() == expected.state_hash()

    def _masked_raise(self, agent: str, mask: np.ndarray) -> None:
        raw = self.raw
        assert raw.game is not None
        masked = np.flatnonzero(mask == 0)
        tries = [int(a) for a in self.rng.choice(masked, size=min(2, masked.size), replace=False)]
        tries.append([-1, raw.table.size][self.counts.total() % 2])
        state_hash, kept = raw.game.state_hash(), mask.copy()
        for action in tries:
            with pytest.raises(IllegalActionError) as info:
                raw.step(action)
            assert agent in str(info.value)
            assert raw.game.state_hash() == state_hash
            assert np.array_equal(raw.action_mask(), kept)


@pytest.mark.parametrize(
    ("offices", "rules", "seed"), [(1, (), 11), (3, ("emergency_toolbox",), 12), (6, (), 13)]
)
def test_mask_is_exact_at_every_token(offices: int, rules: tuple[str, ...], seed: int) -> None:
    """Over two-day games: at every token the mask is exactly the next tokens of the legal
    intents' sequences (every unmasked token leads on to a legal intent, every legal intent is
    reached, by exactly one sequence), a decision completes with the token that names one legal
    intent, and the tokens before it change nothing."""
    counts: Counter[str] = Counter()
    for game_seed in range(seed, seed + 4):
        env = sm_env.env_v1(num_offices=offices, days=2, house_rules=rules)
        env.reset(seed=game_seed)
        raw: raw_env_v1 = env.unwrapped
        checker = TokenChecker(env, game_seed)
        for agent, obs, token in lively_turns(env, game_seed):
            checker.before(agent, obs)
            assert raw.game is not None
            before = raw.game.state_hash()
            env.step(token)
            checker.after(agent, token, before, None)
        counts += checker.counts
        if counts["SWITCHING"] > 20 and counts["decisions"] > 150:
            break
    assert counts["SWITCHING"] and counts["CARD_PLAY"] and counts["LOCAL_OPS"], counts
    assert counts["tokens"] > counts["decisions"] > 150, counts


def test_every_kind_spells_and_reads() -> None:
    """Over lively games every decision kind turns up; ``action_to_str`` names the intent a
    completing token makes, as the core describes it."""
    kinds: Counter[str] = Counter()
    for seed in range(6):
        env = sm_env.env_v1(num_offices=3, days=2, house_rules=("emergency_toolbox",))
        env.reset(seed=seed)
        raw: raw_env_v1 = env.unwrapped
        for agent, _obs, token in lively_turns(env, seed):
            text = raw.action_to_str(agent, token)
            assert text.startswith(raw.table.describe(token))
            speller = raw.speller
            assert speller is not None
            if len(speller.groups[token]) == 1:
                intent = speller.groups[token][0][1]
                assert text.endswith(f": seat {intent.seat}: " + text.split(f": seat {intent.seat}: ", 1)[1])
                kinds[intent.kind.value] += 1
            env.step(token)
    assert len(kinds) >= 15, kinds


def test_illegal_tokens_terminate_in_the_wrapped_env() -> None:
    """As v0: a masked token ends the game in ``env_v1()`` (the offender -1); raise with
    ``illegal_action="raise"``."""
    env = sm_env.env_v1(num_offices=3)
    env.reset(seed=1)
    obs, *_ = env.last()
    agent = env.agent_selection
    masked = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    env.step(masked)
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1
    raising = sm_env.env_v1(num_offices=3, illegal_action="raise")
    raising.reset(seed=1)
    with pytest.raises(IllegalActionError, match="masked out"):
        raising.step(masked)


# --------------------------------------------------------------------------- the observation


def seen(state: GameState, seat: int) -> str:
    """What ``seat`` can tell apart, from its view: the view's board without the random stream
    and the ledger's history (its sums are the revenue), with the order of cards under the top
    of each Department, of the Salvage Yard and in the boxes left out (the rules never use it)."""
    snap = state.view(seat).board.snapshot()
    for key in ("rng", "ledger"):
        del snap[key]
    snap["departments"] = [[d[-1] if d else None, sorted(d[:-1])] for d in snap["departments"]]
    snap["salvage"] = sorted(snap["salvage"])
    for station in snap["stations"]:
        station["boxes"] = [[cell, sorted(o), sorted(i), w, u] for cell, o, i, w, u in station["boxes"]]
    if snap["collision"]:
        snap["collision"] = snap["collision"][:5]  # the rule id and place are its text
    if snap["phase"] != "cargo":
        snap["workers_used"] = []
    return repr((seat, snap))


@pytest.mark.parametrize("offices", [1, 3, 6])
def test_observation_tells_apart_what_the_seat_can(offices: int) -> None:
    """Over the positions of lively games (at the start of each decision), for every seat: two
    positions get the same observation exactly when the seat can tell them apart no more (by
    ``seen``); and redealing what the seat cannot see (the other hands, the Home Office) keeps
    its observation."""
    by_obs: dict[bytes, set[str]] = {}
    by_seen: dict[str, set[bytes]] = {}
    budgets_used = [0, 0, 0]
    positions = 0
    for seed in range(2):
        env = sm_env.env_v1(num_offices=offices, days=2, house_rules=("emergency_toolbox",))
        env.reset(seed=seed)
        raw: raw_env_v1 = env.unwrapped
        for agent, obs, token in lively_turns(env, seed):
            game = raw.game
            assert game is not None
            speller = raw.speller
            if speller is None or not speller.started:
                positions += 1
                for other in env.possible_agents:
                    seat = raw.seat_of(other)
                    seen_key = seen(game, seat)
                    vector = raw.observe(other)["observation"]
                    if other == agent:
                        assert np.array_equal(vector, obs["observation"])
                    vector = vector.copy()
                    vector[raw.encoder.sections["prefix"]] = 0
                    key = vector.tobytes()
                    by_obs.setdefault(key, set()).add(seen_key)
                    by_seen.setdefault(seen_key, set()).add(key)
                    overflow = vector[raw.encoder.sections["overflow"]]
                    assert not overflow.any(), "a budget was short"
                if positions % 15 == 0:
                    seat = game.current_player()
                    hidden = hide_differently(game, seat, Rng(positions))
                    fresh = type(raw.encoder)(raw.config, raw.catalogue, raw.table)
                    a = fresh.encode(game, seat, None, np.empty(fresh.size, np.float32))
                    b = fresh.encode(hidden, seat, None, np.empty(fresh.size, np.float32))
                    assert np.array_equal(a, b)
                    assert seen(hidden, seat) == seen(game, seat)
                sections = raw.encoder.sections
                for k, name in enumerate(("cards", "cars", "boxes")):
                    width = (raw.encoder.card_features, raw.encoder.car_features, raw.encoder.box_features)[k]
                    used = np.flatnonzero(obs["observation"][sections[name]].reshape(-1, width).any(axis=1))
                    budgets_used[k] = max(budgets_used[k], int(used.max()) + 1 if used.size else 0)
            env.step(token)
    assert all(len(v) == 1 for v in by_obs.values()), "two positions the seat tells apart look the same"
    assert all(len(v) == 1 for v in by_seen.values()), "one position the seat sees looks two ways"
    assert len(by_seen) >= positions  # many positions, seen by every seat
    assert budgets_used[0] > 0 and budgets_used[2] > 0, budgets_used


def test_prefix_shows_the_tokens_so_far() -> None:
    """While a decision is spelled the observation's ``prefix`` changes with each token and
    the rest stays as it was; the cached encoding equals a fresh one."""
    env = sm_env.env_v1(num_offices=2, days=2)
    env.reset(seed=3)
    raw: raw_env_v1 = env.unwrapped
    rng = np.random.default_rng(3)
    prefix = raw.encoder.sections["prefix"]
    spelled = 0
    last: np.ndarray | None = None
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        fresh = type(raw.encoder)(raw.config, raw.catalogue, raw.table)
        assert raw.game is not None
        expected = fresh.encode(raw.game, raw.seat_of(agent), raw.speller, np.empty(fresh.size, np.float32))
        assert np.array_equal(obs["observation"], expected)
        speller = raw.speller
        if speller is not None and speller.started:
            assert last is not None
            spelled += 1
            rest = np.ones(raw.encoder.size, dtype=bool)
            rest[prefix] = False
            assert np.array_equal(obs["observation"][rest], last[rest])
            assert not np.array_equal(obs["observation"][prefix], last[prefix])
        last = obs["observation"]
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert spelled >= 3


# --------------------------------------------------------------------------- Gymnasium


def made(**kwargs: Any) -> gymnasium.Env[np.ndarray, np.int64]:
    return gymnasium.make(sm_env.GYM_ID_V1, **kwargs)


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("config", [{}, {"num_offices": 1}, {"num_offices": 6, "days": 2}])
def test_gymnasium_check_env(config: dict[str, Any]) -> None:
    from gymnasium.utils.env_checker import check_env

    check_env(made(**config).unwrapped)


@pytest.mark.filterwarnings("error")
def test_sb3_check_env() -> None:
    from stable_baselines3.common.env_checker import check_env

    check_env(made(), warn=True)
    check_env(made().unwrapped, warn=True)


def test_made_env_is_v1_and_v0_makes_no_warning() -> None:
    import warnings

    env = made()
    assert isinstance(env.unwrapped, StationMasterEnvV1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gymnasium.make(sm_env.GYM_ID_V0)


def test_single_agent_masked_tokens_are_penalized_and_rewards_add_up() -> None:
    """A masked token costs -1, changes nothing and is flagged (also in the middle of a
    decision); the rewards of the legal steps add up to the learner's revenue; ``decision_done``
    marks the steps that completed a decision."""
    penalties = mid = decisions = 0
    moved = False
    for seed in range(6):
        env = made(num_offices=2, days=2)
        _, info = env.reset(seed=seed)
        inner = env.unwrapped
        assert isinstance(inner, StationMasterEnvV1)
        raw = inner.aec
        rng = np.random.default_rng(seed)
        quiet = quiet_tokens(raw)  # type: ignore[arg-type]
        total, done = 0.0, False
        while not done:
            masks = inner.action_masks()
            speller = raw.speller  # type: ignore[attr-defined]
            spelling = speller is not None and speller.started
            if spelling or rng.random() < 0.1:
                assert raw.game is not None
                state_hash = raw.game.state_hash()
                _, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(~masks))))
                assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, False, False, True)
                assert info["decision_done"] is False and raw.game.state_hash() == state_hash
                penalties += 1
                mid += spelling
            _, reward, terminated, truncated, info = env.step(lively(masks, quiet, rng))
            decisions += info["decision_done"]
            total += float(reward)
            done = terminated or truncated
        assert total == info["revenue"]
        moved |= bool(info["revenue"])
    assert penalties > 20 and mid > 3 and decisions > 100 and moved


class FirstIntentGuard:
    """A learner's guard that takes the Local Operations decisions of even Stages with their
    first intent (a Pass: taking them all would leave the learner no decision at all)."""

    def __init__(self) -> None:
        self.seats: set[int] = set()
        self.taken = 0

    def decide(self, view: SeatView) -> Intent | None:
        self.seats.add(view.seat)
        if view.board.phase is not Phase.LOCAL_OPS or view.board.stages_played % 2:
            return None
        self.taken += 1
        return view.legal_intents()[0]


def test_a_learners_guard_takes_the_decisions_it_wants_and_the_rewards_still_add_up() -> None:
    """``set_seats(..., learner_guard=)``: the guard is asked on the learner's view at the start
    of each of its decisions; those it takes are played inside ``step()`` (the learner never
    spells one), and the learner's rewards still add up to its revenue."""
    for seed in range(4):
        env = made(num_offices=2, days=2)
        inner = env.unwrapped
        assert isinstance(inner, StationMasterEnvV1)
        guard = FirstIntentGuard()
        inner.set_seats("office_1", None, learner_guard=guard)
        env.reset(seed=seed)
        raw = inner.aec
        rng = np.random.default_rng(seed)
        total, done, steps = 0.0, False, 0
        while not done:
            game = raw.game
            assert game is not None and not (game.phase is Phase.LOCAL_OPS and game.stages_played % 2 == 0)
            _, reward, terminated, truncated, info = env.step(
                int(rng.choice(np.flatnonzero(inner.action_masks())))
            )
            total += float(reward)
            steps += 1
            done = terminated or truncated
        assert total == info["revenue"]
        assert guard.seats == {raw.seat_of("office_1")} and guard.taken > 10 and steps > 20


def test_maskable_ppo_learns_on_v1(one_torch_thread: None) -> None:
    """A short MaskablePPO run on ``StationMaster-v1``: every token it took was unmasked."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    class Watch(BaseCallback):
        illegal = decisions = 0

        def _on_step(self) -> bool:
            for info in self.locals["infos"]:
                Watch.illegal += info["illegal_action"]
                Watch.decisions += info["decision_done"]
            return True

    model = MaskablePPO("MlpPolicy", made(), n_steps=128, batch_size=64, n_epochs=1, seed=0)
    model.learn(total_timesteps=256, callback=Watch())
    assert model.num_timesteps == 256
    assert Watch.illegal == 0 and Watch.decisions > 100
    env = made()
    obs, _ = env.reset(seed=0)
    inner = env.unwrapped
    assert isinstance(inner, StationMasterEnvV1)
    action, _ = model.predict(obs, action_masks=inner.action_masks(), deterministic=True)
    assert inner.action_masks()[int(action)]
