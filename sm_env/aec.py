"""The PettingZoo AEC environment of Station Master.

``sm_env.env(**config)`` is the raw environment wrapped as PettingZoo's classic environments
are (an illegal move ends the game, bounds checking, order enforcing);
``sm_env.raw_env(**config)`` is the bare one, which raises ``IllegalActionError`` on a masked
action and changes nothing. Agents
are ``office_0`` ... ``office_{n-1}``: agent ``office_k`` is the seat that holds office ``k``
(west to east) when the game starts. With Employee Rotation (RB.3) a seat moves to the next
station every day and its agent moves with it.

Actions are one ``Discrete(N)`` per configuration (``sm_env.actions``, docs/actions.md); the
observation is a dict of ``"observation"`` (``sm_env.observations``, docs/observations.md) and
``"action_mask"``. The reward is the change of the agent's revenue, accumulated between its
turns as PettingZoo does; in co-op every agent gets the change of the team's total.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from sm_env.actions import ActionTable, IllegalActionError
from sm_env.core import (
    ConfigError,
    GameConfig,
    GameState,
    HouseRules,
    IllegalIntent,
    Intent,
    Mode,
    MoveTray,
    Phase,
    apply_scenarios,
    board_text,
    describe,
    load_catalogue,
    new_game,
)
from sm_env.moves import MoveBuilder, spell
from sm_env.observations import ObservationEncoder

NAME = "station_master_v0"


def env(illegal_action: str = "terminate", illegal_reward: float = -1.0, **config: Any) -> AECEnv:
    """The wrapped environment, as PettingZoo wraps its classic games. A masked action, by
    default (``illegal_action="terminate"``), ends the game for every agent, the offender
    rewarded ``illegal_reward`` (-1) and the others 0 (PettingZoo's ``TerminateIllegalWrapper``,
    which the classic games use); the game itself is left as it was. ``"raise"`` raises
    ``IllegalActionError`` instead and changes nothing, to catch a bot's mistakes early. An
    action outside the space fails the bounds assertion of ``AssertOutOfBoundsWrapper``. The
    three wrappers' behaviour comes from one layer, ``ClassicWrapper``."""
    return wrap(raw_env(**config), illegal_action, illegal_reward)


def wrap(raw: AECEnv, illegal_action: str, illegal_reward: float) -> AECEnv:
    """A raw environment (of any version) behind the checks ``env`` documents."""
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


RENDER_MODES = ("ansi", "human")


class raw_env(AECEnv):  # type: ignore[misc]  # noqa: N801 - PettingZoo's naming
    metadata = {
        "render_modes": list(RENDER_MODES),
        "name": NAME,
        "is_parallelizable": False,
        "render_fps": 1,
    }

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
        n = self.config.offices
        self.possible_agents = [f"office_{k}" for k in range(n)]
        self.agents = self.possible_agents[:]
        self._build_spaces()
        self.game: GameState | None = None
        self._builder: MoveBuilder | None = None
        self._mask: np.ndarray | None = None
        self._seat_of: dict[str, int] = {}
        self._agent_of: list[str] = []
        self._ledger_seen = 0

    # ------------------------------------------------------------------ spaces

    def _build_spaces(self) -> None:
        """The action table, the observation encoder and the spaces of this version."""
        self.table = ActionTable(self.config, self.catalogue)
        self.encoder = ObservationEncoder(self.config, self.catalogue, self.table)
        self.action_spaces = {a: spaces.Discrete(self.table.size) for a in self.possible_agents}
        obs_box = spaces.Box(low=-1.0, high=1.0, shape=(self.encoder.size,), dtype=np.float32)
        mask_box = spaces.Box(low=0, high=1, shape=(self.table.size,), dtype=np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": obs_box, "action_mask": mask_box}) for a in self.possible_agents
        }

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
        self.encoder.reset_cache()
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
        self._refresh()

    def seat_of(self, agent: str) -> int:
        return self._seat_of[agent]

    def agent_of_seat(self, seat: int) -> str:
        return self._agent_of[seat]

    # ------------------------------------------------------------------ decisions

    def action_mask(self) -> np.ndarray:
        """The mask of the agent to act now (int8, 1 = legal)."""
        if self._mask is None:
            self._mask = self._build_mask()
        return self._mask

    def _build_mask(self) -> np.ndarray:
        mask = np.zeros(self.table.size, dtype=np.int8)
        game = self._game()
        if game.is_terminal():
            return mask
        if game.phase is Phase.SWITCHING:
            builder = self._move_builder()
            mask[builder.options()] = 1
            if not builder.started:
                mask[self.table.blocks["end_switching"].start] = 1
            return mask
        action_of = self.table.action_of
        mask[[action_of[intent] for intent in game.legal_intents()]] = 1
        return mask

    def _move_builder(self) -> MoveBuilder:
        if self._builder is None:
            game = self._game()
            moves = [i for i in game.legal_intents() if isinstance(i, MoveTray)]
            cells = {i: t.cell for i, t in enumerate(game.trays) if t.cell is not None}
            self._builder = MoveBuilder(self.table, moves, cells)
        return self._builder

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        mask = self.action_mask()
        if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
            action = action.item()  # a 0-d integer array, as Discrete.contains accepts
        if not isinstance(action, int | np.integer) or not 0 <= int(action) < self.table.size:
            raise IllegalActionError(
                f"{agent}: action must be an int in [0, {self.table.size}), got {action!r}"
            )
        action = int(action)
        if not mask[action]:
            raise IllegalActionError(f"{agent}: {self.action_to_str(agent, action)} is masked out now")
        seat = self._seat_of[agent]
        name, _ = self.table.decode(action)
        if name.startswith("move_"):
            move = self._move_builder().advance(action)
            if move is not None:
                self._apply(move)
        else:
            intent = self.table.intent(seat, action)
            assert intent is not None
            self._apply(intent)
        self._after_step(agent)

    def step_intent(self, intent: Intent) -> None:
        """Apply a core intent for the agent to act (bots that decide on their seat view);
        the same bookkeeping as ``step``. An illegal intent raises ``IllegalIntent``."""
        agent = self.agent_selection
        spelling = self._spelling()
        if spelling is not None:
            raise IllegalActionError(f"{agent} is in the middle of spelling {spelling}")
        if intent.seat != self._seat_of[agent]:
            raise IllegalIntent("R5.0.1", f"{agent} is seat {self._seat_of[agent]}, not seat {intent.seat}")
        self._apply(intent)
        self._after_step(agent)

    def _spelling(self) -> str | None:
        """What the agent to act has begun to spell in tokens, or None."""
        return "a Move" if self._builder is not None and self._builder.started else None

    def _apply(self, intent: Intent) -> None:
        self._game().apply(intent)
        self._builder = None

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
        self._mask = None
        game = self._game()
        if not game.is_terminal():
            self.agent_selection = self._agent_of[game.current_player()]
        elif not hasattr(self, "agent_selection") or self.agent_selection not in self.agents:
            self.agent_selection = self.agents[0]

    # ------------------------------------------------------------------ observations

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        game = self._game()
        out = np.empty(self.encoder.size, dtype=np.float32)
        acting = not game.is_terminal() and agent == self.agent_selection
        builder = self._builder if acting else None
        self.encoder.encode(game, self._seat_of[agent], builder, out)
        mask = self.action_mask().copy() if acting else np.zeros(self.table.size, dtype=np.int8)
        return {"observation": out, "action_mask": mask}

    def action_to_str(self, agent: str, action: int) -> str:
        """A readable action: the core's own wording when it is a whole intent."""
        text = self.table.describe(int(action))
        if self.game is None:
            return text
        intent = self.table.intent(self._seat_of[agent], int(action))
        return text if intent is None else f"{text}: {describe(self.game, intent)}"

    def legal_actions(self) -> list[int]:
        return [int(a) for a in np.flatnonzero(self.action_mask())]

    def spell_move(self, move: MoveTray) -> list[int]:
        """The token actions that make a Move (for bots and tests)."""
        return spell(self.table, move)

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
