"""The shared base of Station Master's PettingZoo AEC environments, every version.

A version is a ``Spaces`` class (its action codec and mask, its observation encoder, and how
it spells a decision that takes more than one action) and a short module,
``sm_env.station_master_v<N>``, whose ``raw_env`` is ``StationMasterBase`` on those spaces
and whose ``env`` is that behind ``ClassicWrapper``. Everything else is here, once: the
configuration, the agents and their seats, rewards and revenue events, reset (with starting
scenarios), truncation, rendering, the checks of an action, ``step_intent`` for bots, and
the wrapper.

Agents are ``office_0`` ... ``office_{n-1}``: agent ``office_k`` is the seat that holds office
``k`` (west to east) when the game starts. With Employee Rotation (RB.3) a seat moves to the
next station every day and its agent moves with it. The observation is a dict of
``"observation"`` and ``"action_mask"``. The reward is the change of the agent's revenue,
accumulated between its turns as PettingZoo does; in co-op every agent gets the change of the
team's total.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, Protocol

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from sm_env.core import (
    Catalogue,
    ConfigError,
    GameConfig,
    GameState,
    HouseRules,
    IllegalIntent,
    Intent,
    Mode,
    MoveTray,
    apply_scenarios,
    board_text,
    describe,
    load_catalogue,
    new_game,
)
from sm_env.layout import IllegalActionError

RENDER_MODES = ("ansi", "human")


def version_metadata(name: str) -> dict[str, Any]:
    """A version's PettingZoo metadata: its name; every version renders and steps alike."""
    return {"render_modes": list(RENDER_MODES), "name": name, "is_parallelizable": False, "render_fps": 1}


class Encoder(Protocol):
    """A version's observation encoder (``ObservationEncoder``, ``ObservationEncoderV1``)."""

    size: int


class Codec(Protocol):
    """A version's action layout (``ActionTable``, ``TokenTable``)."""

    size: int

    def describe(self, action: int) -> str: ...


class Spaces(Protocol):
    """One version's spaces, for one environment: built from the configuration, told of each
    new game and of each intent applied, it answers the mask of the agent to act, takes its
    actions one at a time and encodes what a seat sees. An action is ``take``-n only while the
    mask offers it; the game moves only when an intent is complete."""

    @property
    def table(self) -> Codec: ...

    @property
    def encoder(self) -> Encoder: ...

    def __init__(self, config: GameConfig, catalogue: Catalogue) -> None: ...

    def new_game(self, game: GameState) -> None:
        """Forget the last game's decision and caches: ``game`` begins (or begins again)."""

    def mask(self) -> np.ndarray:
        """The mask of the agent to act now (int8, 1 = legal), the spaces' own array."""

    def take(self, action: int) -> Intent | None:
        """Take an action in ``[0, table.size)``: the intent it completes, or None while the
        decision goes on. KeyError, changing nothing, when the mask does not offer it."""

    def applied(self) -> None:
        """The game moved on by one intent (taken, or given to ``step_intent``)."""

    def observe(self, seat: int, acting: bool) -> dict[str, np.ndarray]:
        """``seat``'s observation and mask, new arrays (the mask all zeros unless ``acting``)."""

    def spelling(self) -> str | None:
        """What the agent to act has begun to spell in several actions, or None."""

    def completes(self, seat: int, action: int, acting: bool) -> Intent | None:
        """The intent that ``action`` of ``seat`` completes, when that alone names one."""

    def spell(self, intent: Intent) -> list[int]:
        """The actions that make ``intent``: in v1 from those of the decision taken so far; in
        v0 a Move's whole spelling, even mid-Move (the caller skips the tokens already taken)."""


def wrap(raw: AECEnv, illegal_action: str, illegal_reward: float) -> AECEnv:
    """A raw environment (of any version) behind the checks every version's ``env`` does: a
    masked action, by default (``illegal_action="terminate"``), ends the game for every agent,
    the offender rewarded ``illegal_reward`` (-1) and the others 0 (PettingZoo's
    ``TerminateIllegalWrapper``, which the classic games use); the game itself is left as it
    was. ``"raise"`` raises ``IllegalActionError`` instead and changes nothing, to catch a
    bot's mistakes early. An action outside the space fails the bounds assertion of
    ``AssertOutOfBoundsWrapper``. The three wrappers' behaviour comes from one layer,
    ``ClassicWrapper``."""
    if illegal_action not in ("terminate", "raise"):
        raise ConfigError(f"illegal_action must be 'terminate' or 'raise', got {illegal_action!r}")
    return ClassicWrapper(raw, illegal_reward if illegal_action == "terminate" else None)


def _after_reset(name: str) -> Any:
    """The raw env's attribute ``name``, read through the wrapper; an AttributeError before
    reset, as ``OrderEnforcingWrapper`` says."""

    def read(wrapper: ClassicWrapper) -> Any:
        if not wrapper._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(wrapper._raw, name)

    return property(read)


class ClassicWrapper(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """The three wrappers of PettingZoo's classic games in one layer, with their behaviour:
    ``OrderEnforcingWrapper`` (which it is), ``AssertOutOfBoundsWrapper`` and, unless
    ``illegal_reward`` is None, ``TerminateIllegalWrapper``. The stack of three reached the
    raw env's attributes through three ``__getattr__`` calls each, about 30 µs of an 80 µs step
    (``station-master bench``); here they are properties one level deep. A masked action is
    judged by the raw env's own mask of the agent to act, which is what that agent's last
    observation showed."""

    def __init__(self, env: AECEnv, illegal_reward: float | None) -> None:
        super().__init__(env)
        self._raw = env
        self._illegal_reward = illegal_reward
        self._terminated = False  # ended by a masked action
        self._sizes = {
            agent: space.n
            for agent in env.possible_agents
            if isinstance(space := env.action_space(agent), spaces.Discrete) and space.start == 0
        }

    agent_selection = _after_reset("agent_selection")
    agents = _after_reset("agents")
    rewards = _after_reset("rewards")
    terminations = _after_reset("terminations")
    truncations = _after_reset("truncations")
    infos = _after_reset("infos")

    @property
    def num_agents(self) -> int:
        return len(self.agents)

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        return self._raw._cumulative_rewards  # type: ignore[no-any-return]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._terminated = False
        self._has_reset = True
        self._has_updated = True
        self._raw.reset(seed=seed, options=options)

    def observe(self, agent: str) -> Any:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self._raw.observe(agent)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        raw = self._raw
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        agent = raw.agent_selection
        return (
            raw.observe(agent) if observe else None,
            raw._cumulative_rewards[agent],
            raw.terminations[agent],
            raw.truncations[agent],
            raw.infos[agent],
        )

    def step(self, action: Any) -> None:
        raw = self._raw
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        self._has_updated = True
        if not raw.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = raw.agent_selection
        done = raw.terminations[agent] or raw.truncations[agent]
        in_space = type(action) is int and 0 <= action < self._sizes.get(agent, 0)
        if not (in_space or (action is None and done) or raw.action_space(agent).contains(action)):
            raise AssertionError("action is not in action space")
        if done:
            if self._terminated:
                raw._was_dead_step(action)
            else:
                raw.step(action)
        elif self._illegal_reward is not None and not raw.action_mask()[action]:
            self._end_on_masked_action(agent, self._illegal_reward)
        else:
            raw.step(action)

    def _end_on_masked_action(self, offender: str, illegal_reward: float) -> None:
        """TerminateIllegalWrapper's ending: every agent done, the offender rewarded
        ``illegal_reward``, the game left as it was."""
        EnvLogger.warn_on_illegal_move()
        raw = self._raw
        raw._cumulative_rewards[offender] = 0
        raw.terminations = dict.fromkeys(raw.agents, True)
        raw.truncations = dict.fromkeys(raw.agents, True)
        raw.rewards = dict.fromkeys(raw.agents, 0)
        raw.rewards[offender] = float(illegal_reward)
        raw._accumulate_rewards()
        raw._deads_step_first()
        self._terminated = True

    def __str__(self) -> str:
        return str(self._raw)


class StationMasterBase(AECEnv):  # type: ignore[misc]
    """The raw AEC environment on a version's ``spaces_class``; a masked action raises
    ``IllegalActionError`` and changes nothing."""

    metadata: ClassVar[dict[str, Any]]  # each version's, with its name
    spaces_class: ClassVar[type[Spaces]]

    # Bound to the spaces' own method at construction: asking the mask (the wrapper does at
    # every step) goes through no layer of the env's.
    action_mask: Callable[[], np.ndarray]

    def __init__(
        self,
        num_offices: int = 3,
        days: int = 1,
        target_revenue: int | None = None,
        mode: str = "competitive",
        house_rules: Iterable[str] | Mapping[str, bool] = (),
        max_stages: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        rules = dict(house_rules) if isinstance(house_rules, Mapping) else dict.fromkeys(house_rules, True)
        unknown = sorted(set(rules) - set(HouseRules.names()))
        if unknown:
            known = ", ".join(HouseRules.names())
            raise ConfigError(f"unknown house rule(s) {', '.join(unknown)} (known: {known})")
        try:
            mode_value = Mode(mode)
        except ValueError:
            raise ConfigError(f"mode must be 'competitive' or 'coop', got {mode!r}") from None
        self.config = GameConfig(
            offices=num_offices,
            days=days,
            target_revenue=target_revenue,
            mode=mode_value,
            house_rules=HouseRules(**rules),
        )
        if max_stages is not None and (type(max_stages) is not int or max_stages < 1):
            raise ConfigError(f"max_stages must be a positive int or None, got {max_stages!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ConfigError(
                f"render_mode must be one of {', '.join(RENDER_MODES)} or None, got {render_mode!r}"
            )
        self.max_stages = max_stages
        self.render_mode = render_mode
        self.catalogue = load_catalogue()
        self.possible_agents = [f"office_{k}" for k in range(self.config.offices)]
        self.agents = self.possible_agents[:]
        self.spaces = self.spaces_class(self.config, self.catalogue)
        self.action_mask = self.spaces.mask
        self.table = self.spaces.table
        self.encoder = self.spaces.encoder
        self._size = size = self.table.size
        self.action_spaces = {a: spaces.Discrete(size) for a in self.possible_agents}
        obs_box = spaces.Box(low=-1.0, high=1.0, shape=(self.encoder.size,), dtype=np.float32)
        mask_box = spaces.Box(low=0, high=1, shape=(size,), dtype=np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": obs_box, "action_mask": mask_box}) for a in self.possible_agents
        }
        self.game: GameState | None = None
        self.decision_done = False  # whether the last step completed a decision (and moved the game)
        self._seat_of: dict[str, int] = {}
        self._agent_of: list[str] = []
        self._ledger_seen = 0

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ episode

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game. ``options={"scenario": names, "scenario_agent": agent}`` starts it from
        the named starting scenarios (``sm_env.core.scenarios``) for that agent's seat
        (``office_0`` by default), applied in order before the first decision."""
        if seed is None:
            seed = int(np.random.default_rng().integers(2**32))
        self.game = game = new_game(self.config, seed & 0xFFFFFFFF, self.catalogue)
        scenario = (options or {}).get("scenario")
        if scenario:
            agent = (options or {}).get("scenario_agent", self.possible_agents[0])
            if agent not in self.possible_agents:
                raise ConfigError(f"scenario_agent must be one of {self.possible_agents}, got {agent!r}")
            apply_scenarios(game, scenario, game.seat_of_office[self.possible_agents.index(agent)])
        self.spaces.new_game(game)
        game.events.clear()
        self.agents = self.possible_agents[:]
        self._agent_of = [""] * self.config.offices
        for office, agent in enumerate(self.possible_agents):
            seat = game.seat_of_office[office]
            self._seat_of[agent] = seat
            self._agent_of[seat] = agent
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {"revenue_events": []} for a in self.agents}
        self._ledger_seen = 0
        self.decision_done = False
        self._refresh()

    def seat_of(self, agent: str) -> int:
        return self._seat_of[agent]

    def agent_of_seat(self, seat: int) -> str:
        return self._agent_of[seat]

    # ------------------------------------------------------------------ decisions

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if type(action) is not int:
            if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
                action = action.item()  # a 0-d integer array, as Discrete.contains accepts
            if not isinstance(action, int | np.integer) or isinstance(action, bool):
                raise IllegalActionError(
                    f"{agent}: action must be an int in [0, {self._size}), got {action!r}"
                )
            action = int(action)
        if not 0 <= action < self._size:
            raise IllegalActionError(f"{agent}: action must be an int in [0, {self._size}), got {action!r}")
        try:
            intent = self.spaces.take(action)
        except KeyError:
            if self.action_mask()[action]:
                raise  # not a masked action: a fault of the spaces
            raise IllegalActionError(
                f"{agent}: {self.action_to_str(agent, action)} is masked out now"
            ) from None
        if intent is None:
            self.decision_done = False
        else:
            self._apply(intent)
        self._after_step(agent)

    def step_intent(self, intent: Intent) -> None:
        """Apply a core intent for the agent to act (bots that decide on their seat view);
        the same bookkeeping as ``step``. An illegal intent raises ``IllegalIntent``."""
        agent = self.agent_selection
        spelling = self.spaces.spelling()
        if spelling is not None:
            raise IllegalActionError(f"{agent} is in the middle of spelling {spelling}")
        if intent.seat != self._seat_of[agent]:
            raise IllegalIntent("R5.0.1", f"{agent} is seat {self._seat_of[agent]}, not seat {intent.seat}")
        self._apply(intent)
        self._after_step(agent)

    def _apply(self, intent: Intent) -> None:
        game = self.game
        assert game is not None
        game.apply(intent)
        self.spaces.applied()
        self.decision_done = True

    def _after_step(self, agent: str) -> None:
        """Rewards and revenue events from the ledger entries this step added (R2.4.7)."""
        game = self._game()
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        # Like the rewards, an agent's revenue events gather until it acts again.
        self.infos[agent] = {"revenue_events": []}
        ledger = game.ledger
        if len(ledger) > self._ledger_seen:  # else every reward is 0: nothing to accumulate
            coop = self.config.mode is Mode.COOP
            for entry in ledger[self._ledger_seen :]:
                for a in self.agents if coop else (self._agent_of[entry.seat],):
                    self.rewards[a] += entry.amount
                    self.infos[a]["revenue_events"].append(entry._asdict())
            self._ledger_seen = len(ledger)
            self._accumulate_rewards()
        game.events.clear()  # the ledger keeps what matters; the log would grow all game
        if game.is_terminal():
            self.terminations = dict.fromkeys(self.agents, True)
        elif self.max_stages is not None and game.stages_played >= self.max_stages:
            self.truncations = dict.fromkeys(self.agents, True)
        self._refresh()
        if self.render_mode == "human":
            self.render()

    def _refresh(self) -> None:
        game = self._game()
        if not game.is_terminal():
            self.agent_selection = self._agent_of[game.current_player()]
        elif not hasattr(self, "agent_selection") or self.agent_selection not in self.agents:
            self.agent_selection = self.agents[0]

    # ------------------------------------------------------------------ observations

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        game = self.game
        if game is None:
            raise RuntimeError("call reset() before using the environment")
        return self.spaces.observe(
            self._seat_of[agent], not game.is_terminal() and agent == self.agent_selection
        )

    def action_to_str(self, agent: str, action: int) -> str:
        """A readable action: the layout's entry, then the core's wording of the intent it
        completes, when it alone names one."""
        action = int(action)
        text = self.table.describe(action)
        game = self.game
        if game is None:
            return text
        acting = not game.is_terminal() and agent == self.agent_selection
        intent = self.spaces.completes(self._seat_of[agent], action, acting)
        return text if intent is None else f"{text}: {describe(game, intent)}"

    def spell(self, intent: Intent) -> list[int]:
        """The actions that make ``intent`` (for bots and tests; ``Spaces.spell`` says from
        where in each version); ValueError when the version can tell it is not legal now."""
        return self.spaces.spell(intent)

    def spell_move(self, move: MoveTray) -> list[int]:
        """The actions that make a switching Move (``spell`` of a ``MoveTray``)."""
        return self.spaces.spell(move)

    # ------------------------------------------------------------------ text

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = board_text(self._game(), self._agent_of)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    def _game(self) -> GameState:
        if self.game is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game


__all__ = [
    "RENDER_MODES",
    "ClassicWrapper",
    "IllegalActionError",
    "Spaces",
    "StationMasterBase",
    "version_metadata",
    "wrap",
]
