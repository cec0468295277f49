"""``station-master train``: MaskablePPO on ``StationMaster-v1`` against bots and past selves.

A run lives in one directory (``--out``):

- ``meta.json``: the settings, the command that reruns the run, the versions and rules edition;
- ``progress.csv`` and ``curve.png``: the learning curve, one row per segment;
- ``tb/``: TensorBoard logs (SB3's training scalars and the evaluations);
- ``checkpoints/``: the model (with its optimizer) after every segment, and ``checkpoint.json``;
- ``pool/``: the learner's frozen snapshots that joined the opponent pool;
- ``best.npz`` (the best evaluation so far) and ``final.npz``: policy files for the ``policy`` bot.

The run is cut into segments of ``segment`` timesteps. Each segment starts from freshly seeded
envs and generators (seed and segment number), then trains, evaluates, checkpoints and may add
a snapshot to the pool. So a run resumed from a checkpoint is the same, bit for bit, as one that
never stopped, and the whole run follows from its command and seed.

Each episode seats the learner at a random seat; every other seat draws an opponent: a frozen
snapshot from the pool with probability ``snapshot_prob`` (when the pool has one), otherwise
one of the ``opponents`` bots. The pool rule: after each segment's evaluation the learner's
policy is frozen into ``pool/`` when its evaluation revenue is at least the best any snapshot
had when taken; the pool keeps the newest ``pool_size``. The workers load the files.

``warm_start`` (a bot name) first clones that bot: its decisions over ``warm_episodes``
episodes are spelled as tokens, and the policy (and its value head, on the returns) is fitted to
them for ``warm_epochs`` epochs before PPO starts. ``dagger_rounds`` then aim at the clone's
compounding errors (DAgger): in each round the clone plays ``dagger_episodes`` episodes, the
warm-start bot labels the states the clone reached, and the fit is redone on all the tokens so
far. Each round's tokens are kept in ``warm/``, so a run killed in its warm start goes on from
its last whole round. docs/training.md describes it all.
"""

from __future__ import annotations

import csv
import dataclasses
import importlib
import io
import json
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from agents import make_bot, play_game, seat_seed
from agents.policy import GUARDS, PolicyBot, PolicyNet, StationGuard, export_policy
from experiments.arena.parallel import worker_pool
from sm_env.core import RULES_EDITION, ConfigError, GameConfig, new_game, scenario_names, write_atomically
from sm_env.shaping import potential

EVAL_SEED = 1_000_000  # evaluation deals are seeds EVAL_SEED.. (training never uses them)
SEED_LIMIT = 2**32  # numpy's and SB3's generators take seeds below it
ALGOS = ("maskable-ppo", "rllib-ppo")
POLICIES = ("shared", "per-seat")  # rllib-ppo: one policy for every seat, or one each
# MaskablePPO's single learner plays against these; RLlib's run has every seat learn
MASKABLE_PPO_ONLY = (
    "opponents",
    "snapshot_prob",
    "pool_size",
    "warm_start",
    "warm_episodes",
    "warm_epochs",
    "dagger_rounds",
    "dagger_episodes",
    "shaping",
    "shaping_gamma",
    "shaping_scale",
    "guard",
)


class TrainError(ValueError):
    """Settings or a run directory that cannot be trained from."""


@dataclass(frozen=True)
class TrainSettings:
    """Everything that decides a run (recorded in meta.json; ``--resume`` reads it back)."""

    offices: int = 3
    days: int = 2
    timesteps: int = 1_000_000
    seed: int = 0
    envs: int = field(default_factory=lambda: os.cpu_count() or 1)  # all cores
    opponents: tuple[str, ...] = ("passenger", "freight", "dispatcher")
    segment: int = 32_768
    eval_bots: tuple[str, ...] = ("random", "passenger", "freight", "dispatcher")
    eval_deals: int = 2
    snapshot_prob: float = 0.25
    pool_size: int = 4
    warm_start: str = ""
    warm_episodes: int = 400
    warm_epochs: int = 6
    dagger_rounds: int = 0
    dagger_episodes: int = 200
    shaping: str = ""
    shaping_gamma: float = 1.0
    shaping_scale: float = 1.0
    scenario: str = ""
    scenario_prob: float = 1.0
    guard: str = ""
    n_steps: int = 1024
    batch_size: int = 256
    n_epochs: int = 4
    learning_rate: float = 1e-4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.0
    net: tuple[int, ...] = (128, 128)
    algo: str = "maskable-ppo"
    policies: str = "shared"

    def __post_init__(self) -> None:
        if not 1 <= self.offices <= 6:
            raise TrainError(f"offices must be 1..6, got {self.offices}")
        if self.algo not in ALGOS:
            raise TrainError(f"algo must be one of {', '.join(ALGOS)}, got {self.algo!r}")
        if self.policies not in POLICIES:
            raise TrainError(f"policies must be one of {', '.join(POLICIES)}, got {self.policies!r}")
        self._check_algo_settings()
        positive = (
            "days",
            "timesteps",
            "envs",
            "n_steps",
            "batch_size",
            "n_epochs",
            "eval_deals",
            "pool_size",
            "dagger_episodes",
        )
        for name in positive:
            if getattr(self, name) < 1:
                raise TrainError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.dagger_rounds < 0:
            raise TrainError(f"dagger_rounds must be at least 0, got {self.dagger_rounds}")
        if self.dagger_rounds and not self.warm_start:
            raise TrainError(
                "dagger_rounds relabel the clone's games with the warm-start bot: name --warm-start"
            )
        if not 0 <= self.seed < SEED_LIMIT:
            raise TrainError(f"seed must be 0..{SEED_LIMIT - 1}, got {self.seed}")
        rollout = self.n_steps * self.envs
        if self.segment < rollout or self.segment % rollout:
            raise TrainError(
                f"segment ({self.segment}) must be a multiple of n_steps x envs "
                f"({self.n_steps} x {self.envs})"
            )
        if not 0.0 <= self.snapshot_prob <= 1.0 or not 0.0 <= self.scenario_prob <= 1.0:
            raise TrainError("snapshot_prob and scenario_prob must lie in [0, 1]")
        if not self.opponents:
            raise TrainError("name at least one opponent bot")
        for spec in (*self.opponents, *self.eval_bots, *([self.warm_start] if self.warm_start else [])):
            make_bot(spec, 0)  # BotSpecError names what is wrong
        try:
            if self.shaping:
                potential(self.shaping)  # names the known potentials
            if self.scenario:
                scenario_names(self.scenario.split(","))  # names the known scenarios
        except ConfigError as err:
            raise TrainError(str(err)) from None
        if self.guard and self.guard not in GUARDS:
            raise TrainError(f"guard must be one of {', '.join(GUARDS)} or empty, got {self.guard!r}")
        if not self.net or min(self.net) < 1:
            raise TrainError(f"net must list layer sizes >= 1, got {self.net}")

    def _check_algo_settings(self) -> None:
        """Refuse settings the chosen algorithm has no use for: RLlib's run trains every seat
        (no opponents, pool, warm start, shaping or scenarios); MaskablePPO's has one learner."""
        defaults = TrainSettings.defaults()
        if self.algo == "rllib-ppo":
            given = [name for name in MASKABLE_PPO_ONLY if getattr(self, name) != defaults[name]]
            if given:
                flags = ", ".join("--" + name.replace("_", "-") for name in given)
                raise TrainError(f"--algo rllib-ppo trains every seat itself; drop {flags}")
        elif self.policies != defaults["policies"]:
            raise TrainError("--policies is RLlib's (--algo rllib-ppo); MaskablePPO trains one learner seat")

    def env_kwargs(self) -> dict[str, Any]:
        """The keywords of ``gymnasium.make("StationMaster-v1", ...)`` for this run."""
        kwargs: dict[str, Any] = {"num_offices": self.offices, "days": self.days}
        if self.shaping:
            kwargs.update(
                shaping=self.shaping, shaping_gamma=self.shaping_gamma, shaping_scale=self.shaping_scale
            )
        if self.scenario:
            kwargs.update(scenario=scenario_names(self.scenario.split(",")), scenario_prob=self.scenario_prob)
        return kwargs

    @staticmethod
    def defaults() -> dict[str, Any]:
        """Every setting's default, read from the fields (nothing is checked or built)."""
        return {
            f.name: f.default if f.default_factory is dataclasses.MISSING else f.default_factory()
            for f in dataclasses.fields(TrainSettings)
        }

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TrainSettings:
        names = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - set(names))
        if unknown:
            raise TrainError(f"unknown settings {', '.join(unknown)}")
        values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
        return cls(**values)


# ---------------------------------------------------------------------------- the seats


class SeatPool(gymnasium.Wrapper[np.ndarray, np.int64, np.ndarray, np.int64]):
    """Seats the learner at random and gives every other seat a new opponent at every reset,
    as a tournament does: one of the bots, or a snapshot from the pool. Bots are made for one
    game; they keep plans and caches for the seat they play. A seeded reset reseeds the draws,
    so a segment plays the same whatever came before it."""

    def __init__(
        self,
        env: gymnasium.Env[np.ndarray, np.int64],
        bots: Sequence[str],
        snapshot_prob: float,
        guard: str = "",
    ) -> None:
        super().__init__(env)
        self.bots = tuple(bots)
        self.snapshot_prob = snapshot_prob
        self.guard = guard
        self.pool: list[str] = []
        self._nets: dict[str, PolicyNet] = {}
        self._rng = np.random.default_rng(0)

    def set_pool(self, paths: Sequence[str]) -> None:
        """The snapshot files opponents are drawn from (each loaded once, here)."""
        self.pool = list(paths)
        self._nets = {path: self._nets.get(path) or PolicyNet.load(path) for path in self.pool}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        rng = self._rng
        base = self.env.unwrapped
        agents = list(base.aec.possible_agents)  # type: ignore[attr-defined]
        learner = agents[int(rng.integers(len(agents)))]
        opponents: dict[str, Any] = {}
        for agent in agents:
            if agent == learner:
                continue
            bot_seed = int(rng.integers(2**32))
            if self.pool and rng.random() < self.snapshot_prob:
                path = self.pool[int(rng.integers(len(self.pool)))]
                opponents[agent] = PolicyBot.with_net(bot_seed, self._nets[path], path, guard=self.guard)
            else:
                opponents[agent] = make_bot(self.bots[int(rng.integers(len(self.bots)))], bot_seed)
        game_seed = int(rng.integers(2**32))
        # drawn last, and only with a guard: the same seats and deals with a guard as without
        guard = StationGuard(int(rng.integers(2**32)), self.guard) if self.guard else None
        base.set_seats(learner, opponents, guard)  # type: ignore[attr-defined]
        return self.env.reset(seed=game_seed, options=options)


def derived_seed(seed: int, offset: int) -> int:
    """The seed of one part of a run (a segment, the warm start's games), below SEED_LIMIT. For
    run seeds below 4,295 it is ``seed * 1_000_003 + offset`` itself, as before the wrap."""
    return (seed * 1_000_003 + offset) % SEED_LIMIT


def make_env(settings: TrainSettings, pool: Sequence[str] = ()) -> gymnasium.Env[np.ndarray, np.int64]:
    """One training env: ``StationMaster-v1`` with the run's options, the seat pool, and SB3's
    ``Monitor`` (episode returns, lengths and revenue)."""
    from stable_baselines3.common.monitor import Monitor

    env = gymnasium.make("sm_env:StationMaster-v1", **settings.env_kwargs())
    seated = SeatPool(env, settings.opponents, settings.snapshot_prob, settings.guard)
    seated.set_pool(pool)
    return Monitor(seated, info_keywords=("revenue",))


class _EnvFactory:
    """A picklable env builder for ``SubprocVecEnv``'s spawned workers."""

    def __init__(self, settings: TrainSettings) -> None:
        self.settings = settings

    def __call__(self) -> gymnasium.Env[np.ndarray, np.int64]:
        return make_env(self.settings)


def _vec_env(settings: TrainSettings) -> Any:
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    factories = [_EnvFactory(settings) for _ in range(settings.envs)]
    if settings.envs == 1:
        return DummyVecEnv(factories)  # type: ignore[arg-type]
    return SubprocVecEnv(factories, start_method="spawn")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- warm start


def _demonstrations(task: tuple[TrainSettings, int, int, str]) -> dict[str, np.ndarray]:
    """The warm-start bot's decisions as tokens, in ``count`` episodes from ``first_seed`` on:
    observations, masks (packed), tokens and each step's discounted return. Without a
    ``student`` the bot plays the learner's seat; with one (a policy file, DAgger) the student
    plays it, taking its most likely token, and the bot names at each decision the tokens it
    would take, for as long as the student's tokens agree with them."""
    settings, first_seed, count, student_path = task
    student = PolicyNet.load(student_path) if student_path else None
    env = make_env(settings)  # no pool: the opponents are bots
    obs_rows: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    tokens: list[int] = []
    returns: list[float] = []
    for episode in range(count):
        observation, _ = env.reset(seed=first_seed + episode)
        teacher = make_bot(settings.warm_start, seat_seed(first_seed + episode, 99))  # one a game
        inner = env.unwrapped
        aec = inner.aec  # type: ignore[attr-defined]
        seat = aec.seat_of(inner.learner)  # type: ignore[attr-defined]
        rewards: list[float] = []
        labelled: list[int] = []  # the steps with a label, for their returns
        done = False
        while not done:
            labels = aec.spell(teacher.choose(aec.game.view(seat)))
            for label in labels:
                mask = inner.action_masks()  # type: ignore[attr-defined]
                obs_rows.append(observation)
                masks.append(np.packbits(mask))
                tokens.append(label)
                labelled.append(len(rewards))
                token = label if student is None else _most_likely(student, observation, mask)
                observation, reward, terminated, truncated, _ = env.step(np.int64(token))
                rewards.append(float(reward))
                done = terminated or truncated
                if done or token != label:
                    break
            # a student that left the bot's spelling finishes its decision alone
            while student is not None and not done and not aec.decision_done:
                token = _most_likely(student, observation, inner.action_masks())  # type: ignore[attr-defined]
                observation, reward, terminated, truncated, _ = env.step(np.int64(token))
                rewards.append(float(reward))
                done = terminated or truncated
        running = 0.0
        back: list[float] = []
        for reward in reversed(rewards):
            running = reward + settings.gamma * running
            back.append(running)
        back.reverse()
        returns.extend(back[step] for step in labelled)
    return {
        "obs": np.asarray(obs_rows, dtype=np.float32),
        "masks": np.asarray(masks, dtype=np.uint8),
        "tokens": np.asarray(tokens, dtype=np.int64),
        "returns": np.asarray(returns, dtype=np.float32),
    }


def _most_likely(student: PolicyNet, observation: np.ndarray, mask: np.ndarray) -> int:
    logits = student.logits(observation)
    return int(np.argmax(np.where(mask, logits, -np.inf)))


WARM_CHUNK = 8  # episodes a worker plays between progress updates


def _play_round(
    settings: TrainSettings, first: int, episodes: int, student: str, desc: str, progress: bool
) -> dict[str, np.ndarray]:
    """One round's tokens: episodes ``first``, ``first + 1``, ... in order, however they are
    split over the workers."""
    from tqdm import tqdm

    tasks = [
        (settings, first + start, min(WARM_CHUNK, episodes - start), student)
        for start in range(0, episodes, WARM_CHUNK)
    ]
    parts: list[dict[str, np.ndarray]] = []
    with (
        tqdm(total=episodes, unit="game", desc=desc, file=sys.stderr, disable=not progress) as bar,
        worker_pool(min(settings.envs, len(tasks))) as pool,
    ):
        for task, demonstrations in zip(tasks, pool.imap(_demonstrations, tasks), strict=True):
            parts.append(demonstrations)
            bar.update(task[2])
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def _warm_round(
    run: RunDir, settings: TrainSettings, round_: int, log: Callable[[str], None], progress: bool
) -> dict[str, np.ndarray]:
    """Round ``round_``'s tokens: read from ``warm/`` when a run killed later made them, else
    played (round 0 by the warm-start bot; a later round by the clone of the round before it)
    and kept there."""
    path = run.warm / f"round_{round_}.npz"
    if path.exists():
        with np.load(path) as kept:
            return {k: kept[k] for k in kept.files}
    started = time.perf_counter()
    if round_ == 0:
        first, episodes, student = derived_seed(settings.seed, 500_000), settings.warm_episodes, ""
        desc = f"cloning {settings.warm_start}"
    else:
        first = derived_seed(settings.seed, 500_000 + round_ * 100_000)
        episodes, student = settings.dagger_episodes, str(run.warm_clone(round_ - 1))
        desc = f"DAgger round {round_}/{settings.dagger_rounds}"
    data = _play_round(settings, first, episodes, student, desc, progress)
    run.warm.mkdir(exist_ok=True)
    packed = io.BytesIO()
    np.savez_compressed(
        packed, obs=data["obs"], masks=data["masks"], tokens=data["tokens"], returns=data["returns"]
    )
    write_atomically(path, packed.getvalue())
    took = time.perf_counter() - started
    log(f"warm start round {round_}: {len(data['tokens'])} tokens of {settings.warm_start} in {took:.0f} s")
    return data


def warm_start(
    model: Any, run: RunDir, settings: TrainSettings, log: Callable[[str], None], progress: bool = True
) -> dict[str, float]:
    """Clone ``settings.warm_start``: fit the policy to its tokens (cross-entropy through the
    mask) and the value head to the discounted returns; then each DAgger round adds the tokens
    the bot names on the clone's own games and fits again, on all of them. Every round's clone
    is kept as ``warm/clone_N.npz``. Returns the last fit's figures, each round's tokens and,
    for each DAgger round, the clone's accuracy on its tokens before it was fitted to them."""
    figures: dict[str, float] = {}
    parts: list[dict[str, np.ndarray]] = []
    for round_ in range(settings.dagger_rounds + 1):
        parts.append(_warm_round(run, settings, round_, log, progress))
        figures[f"round_{round_}_tokens"] = float(len(parts[-1]["tokens"]))
        if round_:
            # tokens the clone has not been fitted to, on the states it reaches itself
            unseen = _accuracy(model, parts[-1]["obs"], _masks(model, parts[-1]), parts[-1]["tokens"])
            figures[f"round_{round_}_accuracy_before_fit"] = unseen
            log(f"DAgger round {round_}: the clone picked the bot's token {unseen:.1%} of the time")
        data = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
        # round 0 keeps the generator of the runs before DAgger, so they replay as they were
        generator = np.random.default_rng(settings.seed if round_ == 0 else [settings.seed, round_])
        figures |= _fit_clone(model, settings, data, generator, log)
        export_policy(model.policy, run.warm_clone(round_), policy_meta(settings, run, 0))
    return figures


def _masks(model: Any, data: dict[str, np.ndarray]) -> np.ndarray:
    """``data``'s packed masks, unpacked to the action space."""
    return np.unpackbits(data["masks"], axis=1)[:, : model.action_space.n].astype(bool)


def _accuracy(model: Any, obs: np.ndarray, masks: np.ndarray, tokens: np.ndarray) -> float:
    """The share of ``tokens`` that the policy finds most likely."""
    import torch

    correct = 0
    with torch.no_grad():
        for start in range(0, len(masks), 4096):
            part = slice(start, start + 4096)
            dist = model.policy.get_distribution(torch.as_tensor(obs[part]), action_masks=masks[part])
            correct += int((dist.distribution.probs.argmax(dim=1).numpy() == tokens[part]).sum())
    return correct / len(masks)


def _fit_clone(
    model: Any,
    settings: TrainSettings,
    data: dict[str, np.ndarray],
    generator: np.random.Generator,
    log: Callable[[str], None],
) -> dict[str, float]:
    import torch

    torch.set_num_threads(settings.envs)  # no worker plays while the clone is fitted
    size = len(data["tokens"])
    masks = _masks(model, data)
    policy = model.policy
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
    obs_t = torch.as_tensor(data["obs"])
    mask_t = torch.as_tensor(masks)
    tok_t = torch.as_tensor(data["tokens"])
    ret_t = torch.as_tensor(data["returns"])
    figures: dict[str, float] = {"warm_tokens": float(size)}
    policy.set_training_mode(True)
    for epoch in range(settings.warm_epochs):
        order = torch.as_tensor(generator.permutation(size))
        total = 0.0
        for start in range(0, size, settings.batch_size):
            batch = order[start : start + settings.batch_size]
            values, log_prob, _ = policy.evaluate_actions(
                obs_t[batch], tok_t[batch], action_masks=mask_t[batch]
            )
            loss = -log_prob.mean() + 0.5 * torch.nn.functional.mse_loss(values.flatten(), ret_t[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(batch)
        accuracy = figures["warm_accuracy"] = _accuracy(model, data["obs"], masks, data["tokens"])
        figures["warm_loss"] = total / size
        log(f"warm start epoch {epoch + 1}: loss {total / size:.3f}, token accuracy {accuracy:.1%}")
    policy.set_training_mode(False)
    torch.set_num_threads(1)
    return figures


# ---------------------------------------------------------------------------- evaluation


@dataclass
class Evaluation:
    """The policy's games against each evaluation bot: it sits at every seat in turn with that
    bot at all the others, over ``deals`` fixed deals."""

    revenue: dict[str, float] = field(default_factory=dict)  # the policy's mean, per bot
    bot_revenue: dict[str, float] = field(default_factory=dict)  # the bot's own mean, same games
    wins: dict[str, float] = field(default_factory=dict)  # share of games the policy tops

    def score(self) -> float:
        """The mean revenue against the bots other than random (all, when only random)."""
        keys = [k for k in self.revenue if not k.startswith("random")] or list(self.revenue)
        return float(np.mean([self.revenue[k] for k in keys]))


def evaluate(policy: str | Path | Sequence[str | Path], settings: TrainSettings) -> Evaluation:
    """``policy``: one file that plays at every seat in turn, or one file per seat, each
    playing only at its own seat."""
    files = [policy] if isinstance(policy, (str, Path)) else list(policy)
    result = Evaluation()
    config = GameConfig(offices=settings.offices, days=settings.days)
    for spec in settings.eval_bots:
        mine: list[float] = []
        theirs: list[float] = []
        wins = 0
        for deal in range(settings.eval_deals):
            seed = EVAL_SEED + deal
            for seat in range(settings.offices):
                bots = [make_bot(spec, seat_seed(seed, s)) for s in range(settings.offices)]
                bots[seat] = PolicyBot(
                    seat_seed(seed, seat), str(files[seat % len(files)]), guard=settings.guard
                )
                state = new_game(config, seed=seed)
                play_game(state, bots)
                revenue = state.revenue()
                mine.append(revenue[seat])
                theirs.extend(r for s, r in enumerate(revenue) if s != seat)
                wins += revenue[seat] == max(revenue)
        result.revenue[spec] = float(np.mean(mine))
        result.bot_revenue[spec] = float(np.mean(theirs)) if theirs else 0.0
        result.wins[spec] = wins / len(mine)
    return result


# ---------------------------------------------------------------------------- the run


class RunDir:
    """The files of one run."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.meta = self.root / "meta.json"
        self.progress = self.root / "progress.csv"
        self.curve = self.root / "curve.png"
        self.tb = self.root / "tb"
        self.checkpoints = self.root / "checkpoints"
        self.checkpoint = self.checkpoints / "checkpoint.json"
        self.pool = self.root / "pool"
        self.best = self.root / "best.npz"
        self.final = self.root / "final.npz"
        self.clone = self.root / "clone.npz"  # the warm start's clone, before any PPO
        self.warm = self.root / "warm"  # each warm-start round's tokens and clone

    def warm_clone(self, round_: int) -> Path:
        return self.warm / f"clone_{round_}.npz"

    def model_at(self, timesteps: int) -> Path:
        return self.checkpoints / f"model_{timesteps:010d}.zip"


def policy_ids(settings: TrainSettings) -> list[str]:
    """The learners: ``shared`` (every seat's), or one per seat named after its agent."""
    if settings.policies == "shared":
        return ["shared"]
    return [f"office_{seat}" for seat in range(settings.offices)]


def policy_files(run: RunDir, settings: TrainSettings, kind: str) -> list[Path]:
    """The run's ``kind`` (best, final) policy files: ``kind.npz`` of a shared policy, or
    ``kind_office_N.npz`` per seat."""
    return [
        run.root / (f"{kind}.npz" if pid == "shared" else f"{kind}_{pid}.npz") for pid in policy_ids(settings)
    ]


def _versions() -> dict[str, str]:
    """The versions of Python and of the packages a run may use that are installed."""
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    packages = ("numpy", "torch", "stable-baselines3", "sb3-contrib", "gymnasium", "pettingzoo", "ray")
    for package in packages:
        try:
            out[package] = version(package)
        except PackageNotFoundError:
            continue
    return out


def _command(settings: TrainSettings, out: Path) -> str:
    defaults = TrainSettings.defaults()
    parts = ["station-master", "train", "--out", str(out)]
    for f in dataclasses.fields(TrainSettings):
        value = getattr(settings, f.name)
        if value == defaults[f.name] and f.name != "envs":  # envs: the machine's default
            continue
        flag = "--" + f.name.replace("_", "-")
        if isinstance(value, tuple):
            value = ",".join(str(v) for v in value)
        parts += [flag, str(value)]
    return " ".join(parts)


def policy_meta(settings: TrainSettings, run: RunDir, timesteps: int) -> dict[str, Any]:
    return {
        "offices": settings.offices,
        "days": settings.days,
        "net": list(settings.net),
        "timesteps": timesteps,
        "command": json.loads(run.meta.read_text())["command"],
        "signal": {k: v for k, v in settings.env_kwargs().items() if k not in ("num_offices", "days")},
        "guard": settings.guard,  # play it as policy:guard=NAME, as it was trained and evaluated
    }


PROGRESS_FIELDS = ("segment", "timesteps", "episodes", "train_revenue", "train_return", "elapsed_s", "pool")


def progress_fields(settings: TrainSettings) -> list[str]:
    fields = list(PROGRESS_FIELDS)
    for bot in settings.eval_bots:
        fields += [f"eval_{bot}_revenue", f"eval_{bot}_bot_revenue", f"eval_{bot}_wins"]
    return fields + ["eval_score"]


def plot_curve(progress: Path, out: Path, eval_bots: Sequence[str]) -> None:
    """The learning curve: training revenue per episode and the evaluations, by timesteps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(progress, newline="") as f:
        rows = list(csv.DictReader(f))
    steps = [int(r["timesteps"]) for r in rows]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.plot(
        steps, [float(r["train_revenue"] or "nan") for r in rows], label="training episodes", color="black"
    )
    for bot in eval_bots:
        (line,) = ax.plot(
            steps, [float(r[f"eval_{bot}_revenue"]) for r in rows], marker="o", label=f"vs {bot}"
        )
        own = [float(r[f"eval_{bot}_bot_revenue"]) for r in rows]
        ax.plot(steps, own, linestyle="--", color=line.get_color(), label=f"{bot} itself, same games")
    ax.set_xlabel("timesteps (tokens)")
    ax.set_ylabel("the learner's revenue a game")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", ncol=2)
    fig.tight_layout()
    image = io.BytesIO()
    fig.savefig(image, dpi=100, format="png")
    plt.close(fig)
    write_atomically(out, image.getvalue())


class _SegmentCallback:
    """Gathers finished episodes and drives the progress bar during one segment."""

    def __init__(self, bar: Any) -> None:
        from stable_baselines3.common.callbacks import BaseCallback

        outer = self
        self.revenue: list[float] = []
        self.returns: list[float] = []

        class Callback(BaseCallback):
            def _on_step(self) -> bool:
                for info in self.locals["infos"]:
                    episode = info.get("episode")
                    if episode is not None:
                        outer.revenue.append(float(episode["revenue"]))
                        outer.returns.append(float(episode["r"]))
                bar.update(self.training_env.num_envs)
                return True

        self.callback = Callback()


def train(
    settings: TrainSettings,
    out: str | Path,
    resume: bool = False,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
    stop_after: int | None = None,
) -> RunDir:
    """Train (or go on with) the run in ``out``; returns its files. ``stop_after`` ends this
    call after that many segments (the run is then resumed later); ``final.npz`` is written
    only when the run is complete."""
    if settings.algo != "maskable-ppo":
        raise TrainError(
            f"train() trains MaskablePPO; --algo {settings.algo} is experiments.training.rllib.train_rllib"
        )
    _require_rl_stack()
    import torch
    from tqdm import tqdm

    say = log or (lambda text: print(text, file=sys.stderr))
    run = RunDir(out)
    torch.set_num_threads(1)  # the workers take the other cores; one thread is fastest here
    state = resumed_state(run, settings) if resume else started_state(run, settings)
    venv = _vec_env(settings)
    try:
        model = _model(run, settings, state, venv, say, progress)
        if not run.progress.exists():
            write_progress(run, settings, [])
        segments = -(-settings.timesteps // settings.segment)
        bar = tqdm(
            total=segments * settings.segment,
            initial=state["timesteps"],
            unit="step",
            file=sys.stderr,
            disable=not progress,
        )
        started = time.perf_counter() - float(state.get("elapsed_s", 0.0))
        last = segments if stop_after is None else min(segments, state["segment"] + stop_after)
        while state["segment"] < last:
            segment = state["segment"]
            gather = _learn_segment(model, venv, settings, state, bar)
            timesteps = int(model.num_timesteps)
            evaluation, score = _judge(model, run, settings, state, timesteps)
            elapsed = time.perf_counter() - started
            row = _progress_row(settings, segment + 1, timesteps, gather, len(state["pool"]), elapsed)
            append_progress(run, settings, row | evaluation_cells(settings, evaluation, score))
            plot_curve(run.progress, run.curve, settings.eval_bots)
            _save_model(model, run.model_at(timesteps))
            previous = run.model_at(state["timesteps"])
            state.update(segment=segment + 1, timesteps=timesteps, elapsed_s=elapsed)
            write_json(run.checkpoint, state)
            previous.unlink(missing_ok=True)  # only once the checkpoint names the new one
            bar.set_postfix(eval=f"{score:.2f}", pool=len(state["pool"]))
            say(
                f"segment {segment + 1}/{segments}: {timesteps} steps, eval "
                + ", ".join(f"{bot} {evaluation.revenue[bot]:.2f}" for bot in settings.eval_bots)
            )
        bar.close()
        if state["segment"] == segments:
            export_policy(model.policy, run.final, policy_meta(settings, run, int(model.num_timesteps)))
    finally:
        venv.close()
    return run


def _require_rl_stack() -> None:
    """Fail with the install command when the rl extra is missing, before any file is written."""
    try:
        for module in ("torch", "sb3_contrib", "stable_baselines3"):
            importlib.import_module(module)
    except ImportError as err:
        raise TrainError(
            f"train needs the rl extra ({err.name} is missing): pip install torch==2.13.0, then '.[rl]'"
        ) from None


def resumed_state(run: RunDir, settings: TrainSettings) -> dict[str, Any]:
    """The checkpoint of a run to go on with, which must have been trained with ``settings``
    (a run stopped after its ``meta.json`` and before its first checkpoint starts over). Only
    ``timesteps`` may differ: a larger budget extends the run, recorded in ``meta.json``, and
    the extended run equals one given that budget from the start (a segment's learning does not
    depend on the budget)."""
    if not run.meta.exists():
        raise TrainError(f"{run.root} has no checkpoint to resume from")
    meta = json.loads(run.meta.read_text())
    recorded = TrainSettings.from_json(meta["settings"])
    if dataclasses.replace(recorded, timesteps=settings.timesteps) != settings:
        raise TrainError(f"{run.root} was trained with other settings; resume takes the recorded ones")
    if settings.timesteps < recorded.timesteps:
        raise TrainError(
            f"{run.root} has a budget of {recorded.timesteps} timesteps: "
            f"--timesteps {settings.timesteps} cannot extend it"
        )
    if settings.timesteps > recorded.timesteps:
        meta["extended_from"] = [*meta.get("extended_from", []), recorded.timesteps]
        write_json(run.meta, meta | {"settings": settings.to_json(), "command": _command(settings, run.root)})
    if not run.checkpoint.exists():
        return _first_state(run)
    state: dict[str, Any] = json.loads(run.checkpoint.read_text())
    return state


def check_new(run: RunDir) -> None:
    """Refuse to start a run in a directory that holds anything but a write cut short."""
    if run.root.exists() and any(not _cut_short(path) for path in run.root.iterdir()):
        raise TrainError(f"{run.root} is not empty: pick a new --out, or --resume it")


def started_state(run: RunDir, settings: TrainSettings) -> dict[str, Any]:
    """A new run in an empty (or new) directory: its ``meta.json``, and the state before its
    first segment."""
    check_new(run)
    run.root.mkdir(parents=True, exist_ok=True)
    meta = {
        "settings": settings.to_json(),
        "command": _command(settings, run.root),
        "rules_edition": RULES_EDITION,
        "versions": _versions(),
        "cpus": os.cpu_count(),
    }
    write_json(run.meta, meta)  # the first file: a run is resumable from here on
    return _first_state(run)


def _first_state(run: RunDir) -> dict[str, Any]:
    """The state before the first segment, written as the checkpoint (so a run killed in its
    first segment resumes from the start)."""
    run.checkpoints.mkdir(parents=True, exist_ok=True)
    state: dict[str, Any] = {
        "segment": 0,
        "timesteps": 0,
        "pool": [],
        "best_snapshot": None,
        "best_eval": None,
    }
    write_json(run.checkpoint, state)
    return state


def _cut_short(path: Path) -> bool:
    """A temporary file of ``write_atomically`` that a kill left behind (``meta.json``'s)."""
    return path.name.startswith(".") and path.name.endswith(".tmp")


def _model(
    run: RunDir,
    settings: TrainSettings,
    state: dict[str, Any],
    venv: Any,
    say: Callable[[str], None],
    progress: bool,
) -> Any:
    """The model at the checkpoint's timesteps, or a new one (cloned from the warm-start bot,
    when the settings name one, and saved so a resume need not clone again)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.utils import set_random_seed

    if run.model_at(state["timesteps"]).exists():
        return MaskablePPO.load(run.model_at(state["timesteps"]), env=venv, device="cpu")
    set_random_seed(settings.seed)
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=settings.n_steps,
        batch_size=settings.batch_size,
        n_epochs=settings.n_epochs,
        learning_rate=settings.learning_rate,
        gamma=settings.gamma,
        gae_lambda=settings.gae_lambda,
        clip_range=settings.clip_range,
        ent_coef=settings.ent_coef,
        policy_kwargs={"net_arch": {"pi": list(settings.net), "vf": list(settings.net)}},
        tensorboard_log=str(run.tb),
        seed=settings.seed,
        device="cpu",
        verbose=0,
    )
    if settings.warm_start:
        figures = warm_start(model, run, settings, say, progress)
        meta = json.loads(run.meta.read_text())
        meta["warm_start"] = figures
        write_json(run.meta, meta)
        _save_model(model, run.model_at(0))
        export_policy(model.policy, run.clone, policy_meta(settings, run, 0))
        write_json(run.checkpoint, state)
    return model


def _learn_segment(
    model: Any, venv: Any, settings: TrainSettings, state: dict[str, Any], bar: Any
) -> _SegmentCallback:
    """One segment of PPO from freshly seeded envs and generators (the run's seed and the
    segment number), against the pool as it stands; returns its finished episodes."""
    from stable_baselines3.common.utils import set_random_seed

    segment = state["segment"]
    set_random_seed(derived_seed(settings.seed, segment))
    venv.env_method("set_pool", state["pool"])
    venv.seed(derived_seed(settings.seed, segment * 1_000))
    model._last_obs = None  # a segment starts from fresh episodes
    gather = _SegmentCallback(bar)
    model.learn(
        settings.segment,
        callback=gather.callback,
        reset_num_timesteps=False,
        tb_log_name="ppo",
        progress_bar=False,
    )
    return gather


def _judge(
    model: Any, run: RunDir, settings: TrainSettings, state: dict[str, Any], timesteps: int
) -> tuple[Evaluation, float]:
    """Evaluate the learner's snapshot; it joins the pool when it scores at least the best
    snapshot so far, and becomes ``best.npz`` when it beats every evaluation so far. Logs the
    evaluation to TensorBoard; returns it and its score."""
    snapshot = run.pool / f"snapshot_{timesteps:010d}.npz"
    export_policy(model.policy, snapshot, policy_meta(settings, run, timesteps))
    evaluation = evaluate(snapshot, settings)
    score = evaluation.score()
    if state["best_snapshot"] is None or score >= state["best_snapshot"]:
        state["best_snapshot"] = score
        state["pool"] = [*state["pool"], str(snapshot)][-settings.pool_size :]
    else:
        snapshot.unlink()
    if state["best_eval"] is None or score > state["best_eval"]:
        state["best_eval"] = score
        export_policy(model.policy, run.best, policy_meta(settings, run, timesteps))
    for bot in settings.eval_bots:
        model.logger.record(f"eval/{bot}_revenue", evaluation.revenue[bot])
        model.logger.record(f"eval/{bot}_wins", evaluation.wins[bot])
    model.logger.record("eval/score", score)
    model.logger.dump(timesteps)
    return evaluation, score


def _progress_row(
    settings: TrainSettings, segment: int, timesteps: int, gather: _SegmentCallback, pool: int, elapsed: float
) -> dict[str, Any]:
    """The training cells of segment ``segment``'s row in ``progress.csv``."""
    return {
        "segment": segment,
        "timesteps": timesteps,
        "episodes": len(gather.revenue),
        "train_revenue": f"{np.mean(gather.revenue):.4f}" if gather.revenue else "",
        "train_return": f"{np.mean(gather.returns):.4f}" if gather.returns else "",
        "elapsed_s": f"{elapsed:.1f}",
        "pool": pool,
    }


def evaluation_cells(settings: TrainSettings, evaluation: Evaluation, score: float) -> dict[str, str]:
    """The evaluation cells of a segment's row in ``progress.csv``."""
    cells = {"eval_score": f"{score:.4f}"}
    for bot in settings.eval_bots:
        cells[f"eval_{bot}_revenue"] = f"{evaluation.revenue[bot]:.4f}"
        cells[f"eval_{bot}_bot_revenue"] = f"{evaluation.bot_revenue[bot]:.4f}"
        cells[f"eval_{bot}_wins"] = f"{evaluation.wins[bot]:.4f}"
    return cells


def append_progress(run: RunDir, settings: TrainSettings, row: dict[str, Any]) -> None:
    """Rewrite ``progress.csv`` (atomically) with ``row`` in place of any row of its segment or
    later: those were left by a run killed before its checkpoint, and are being played again."""
    with open(run.progress, newline="") as f:
        kept = [r for r in csv.DictReader(f) if int(r["segment"]) < int(row["segment"])]
    write_progress(run, settings, [*kept, row])


def write_progress(run: RunDir, settings: TrainSettings, rows: Sequence[dict[str, Any]]) -> None:
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=progress_fields(settings))
    writer.writeheader()
    writer.writerows(rows)
    write_atomically(run.progress, text.getvalue())


def _save_model(model: Any, path: Path) -> None:
    """The model's zip, written atomically: a run killed mid-save keeps the last whole one."""
    data = io.BytesIO()
    model.save(data)
    write_atomically(path, data.getvalue())


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write atomically (``write_atomically``), so a run stopped mid-write keeps the last whole
    file (the last checkpoint, a stage's record)."""
    write_atomically(path, json.dumps(data, indent=2) + "\n")


__all__ = [
    "ALGOS",
    "Evaluation",
    "RunDir",
    "SeatPool",
    "TrainError",
    "TrainSettings",
    "append_progress",
    "check_new",
    "evaluate",
    "make_env",
    "plot_curve",
    "policy_files",
    "policy_ids",
    "train",
    "warm_start",
    "write_json",
    "write_progress",
]
