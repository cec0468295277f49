"""``station-master train --algo rllib-ppo``: RLlib's PPO on the PettingZoo env, every seat learning.

For users who already live in RLlib (``pip install '.[rllib]'``; it pins its own Gymnasium).
The env is ``station_master_v1``'s AEC env through RLlib's ``PettingZooEnv``, its observation
dict renamed to the keys RLlib's action masking reads (``observations``, ``action_mask``); the
module is RLlib's default PPO module with masked tokens' logits pushed to the lowest float.
Every seat is a learner: one policy shared by all seats, or one per seat (``--policies``).

The run directory is ``train``'s (``RunDir``): ``meta.json``, ``progress.csv`` and ``curve.png``
with the same columns (``pool`` empty: there is no snapshot pool), ``tb/``, ``best*.npz`` and
``final*.npz`` policy files that the ``policy`` bot plays, and ``checkpoints/``: RLlib's own
checkpoint of the whole algorithm (learner, optimizer, env runners), one directory per segment
named in ``checkpoint.json``, which is replaced only after the new directory is complete. Each
segment ends with the same evaluation as MaskablePPO's (``evaluate``), so their curves compare.

Env runners are Ray actors: on a cluster (``--address`` or ``RAY_ADDRESS``) they spread over
its nodes and the learner stays with the driver. A resumed run goes on from the last
checkpoint; unlike MaskablePPO's it is not the same bit for bit as an unbroken run, as RLlib's
env runners keep their generators' states in the actors, not in the checkpoint.
"""

from __future__ import annotations

import importlib
import math
import shutil
import sys
import time
from contextlib import closing
from numbers import Real
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from agents.policy import write_policy
from experiments.arena.parallel import ray_session
from experiments.training.train import (
    RunDir,
    TrainError,
    TrainSettings,
    append_progress,
    check_new,
    derived_seed,
    evaluate,
    evaluation_cells,
    plot_curve,
    policy_files,
    policy_ids,
    policy_meta,
    resumed_state,
    started_state,
    write_json,
    write_progress,
)
from sm_env.core import scenario_names

ENV_NAME = "station_master_v1_rllib"


def _agent_policy(agent_id: str, *args: Any, **kwargs: Any) -> str:
    return agent_id


def _shared_policy(agent_id: str, *args: Any, **kwargs: Any) -> str:
    return "shared"


def make_rllib_env(env_config: dict[str, Any]) -> Any:
    """RLlib's env creator: the AEC env of ``env_config`` (``num_offices``, ``days``; optional
    ``scenario`` names and ``scenario_prob``) as a ``PettingZooEnv`` with RLlib's keys."""
    from pettingzoo.utils import BaseWrapper
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from sm_env import station_master_v1

    config = dict(env_config)
    scenario = tuple(config.pop("scenario", ()))
    scenario_prob = float(config.pop("scenario_prob", 1.0))

    class RLlibSeats(BaseWrapper):  # type: ignore[misc]
        """The v1 observation under ``observations``, the mask as float32 ``action_mask``. Games
        follow from the first reset's seed (RLlib seeds only that one); a ``scenario_prob``
        share of them start from the scenario at a seat drawn at random."""

        def __init__(self, env: Any) -> None:
            super().__init__(env)
            self.draws = np.random.default_rng()

        def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
            if seed is not None:
                self.draws = np.random.default_rng(seed)
            options = dict(options or {})
            if scenario and self.draws.random() < scenario_prob:
                agents = self.env.possible_agents
                options.update(
                    scenario=scenario, scenario_agent=agents[int(self.draws.integers(len(agents)))]
                )
            self.env.reset(seed=int(self.draws.integers(2**32)), options=options)

        def observation_space(self, agent: str) -> gymnasium.spaces.Dict:
            inner = self.env.observation_space(agent)
            mask = gymnasium.spaces.Box(0.0, 1.0, inner["action_mask"].shape, np.float32)
            return gymnasium.spaces.Dict({"observations": inner["observation"], "action_mask": mask})

        def observe(self, agent: str) -> dict[str, np.ndarray]:
            seen = self.env.observe(agent)
            return {
                "observations": seen["observation"],
                "action_mask": seen["action_mask"].astype(np.float32),
            }

    return PettingZooEnv(RLlibSeats(station_master_v1.env(**config)))


def masked_module_class() -> type:
    """RLlib's default PPO torch module on ``{"observations", "action_mask"}``: the networks
    see the observations; a masked token's logit becomes the lowest float, so it is never
    sampled and adds nothing to the entropy."""
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
    from ray.rllib.core.columns import Columns
    from ray.rllib.utils.torch_utils import FLOAT_MIN

    def split(batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        seen = batch[Columns.OBS]
        return seen["action_mask"], {**batch, Columns.OBS: seen["observations"]}

    def masked(out: dict[str, Any], mask: Any) -> dict[str, Any]:
        logits = out[Columns.ACTION_DIST_INPUTS]
        out[Columns.ACTION_DIST_INPUTS] = logits.masked_fill(mask < 0.5, FLOAT_MIN)
        return out

    class MaskedPPOModule(DefaultPPOTorchRLModule):  # type: ignore[misc]
        def __init__(self, *, observation_space: gymnasium.spaces.Dict, **kwargs: Any) -> None:
            self.masked_space = observation_space
            super().__init__(observation_space=observation_space["observations"], **kwargs)

        def setup(self) -> None:
            super().setup()  # the networks are built for the observations alone
            self.observation_space = self.masked_space  # the env runners pass the dict

        def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            mask, inner = split(batch)
            return masked(super()._forward(inner, **kwargs), mask)

        def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            mask, inner = split(batch)
            return masked(super()._forward_train(inner, **kwargs), mask)

        def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
            if isinstance(batch[Columns.OBS], dict):
                batch = split(batch)[1]
            return super().compute_values(batch, embeddings)

    return MaskedPPOModule


def env_config(settings: TrainSettings) -> dict[str, Any]:
    config: dict[str, Any] = {"num_offices": settings.offices, "days": settings.days}
    if settings.scenario:
        config.update(
            scenario=scenario_names(settings.scenario.split(",")), scenario_prob=settings.scenario_prob
        )
    return config


def ppo_config(settings: TrainSettings) -> Any:
    """The PPOConfig of a run: MaskablePPO's hyperparameters under RLlib's names; a train
    batch of ``n_steps`` per env runner (``envs`` runners; with one, the driver samples)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    register_env(ENV_NAME, make_rllib_env)
    model = {
        "fcnet_hiddens": list(settings.net),
        "fcnet_activation": "tanh",
        "head_fcnet_hiddens": [],
        "vf_share_layers": False,
    }
    module = masked_module_class()
    specs = {pid: RLModuleSpec(module_class=module, model_config=model) for pid in policy_ids(settings)}
    return (
        PPOConfig()
        .environment(ENV_NAME, env_config=env_config(settings))
        .multi_agent(
            policies=set(specs),
            policy_mapping_fn=_shared_policy if settings.policies == "shared" else _agent_policy,
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .env_runners(
            num_env_runners=0 if settings.envs == 1 else settings.envs,
            num_envs_per_env_runner=1,
            rollout_fragment_length=settings.n_steps,
        )
        .training(
            train_batch_size_per_learner=settings.n_steps * settings.envs,
            minibatch_size=settings.batch_size,
            num_epochs=settings.n_epochs,
            lr=settings.learning_rate,
            gamma=settings.gamma,
            lambda_=settings.gae_lambda,
            clip_param=settings.clip_range,
            entropy_coeff=settings.ent_coef,
        )
        .fault_tolerance(restart_failed_env_runners=True)  # a runner lost with its node comes back
        .debugging(seed=derived_seed(settings.seed, 0), log_level="ERROR")
    )


def export_module(module: Any, path: Path, meta: dict[str, Any]) -> None:
    """A policy file of the actor of a ``MaskedPPOModule``: its encoder's tanh layers (the
    actor's own, or the one it shares with the value head) and the logits layer, as the
    ``policy`` bot reads them."""
    state = {k: v.detach().cpu().numpy() for k, v in module.state_dict().items()}
    for prefix in ("encoder.actor_encoder.net.mlp.", "encoder.encoder.net.mlp."):
        hidden = sorted(
            int(k[len(prefix) :].split(".")[0])
            for k in state
            if k.startswith(prefix) and k.endswith("weight")
        )
        if hidden:
            break
    names = [f"{prefix}{index}" for index in hidden] + ["pi.net.mlp.0"]
    write_policy([(state[f"{name}.weight"], state[f"{name}.bias"]) for name in names], path, meta)


def _require_rllib() -> None:
    """Fail with the install command when RLlib or torch is missing, before a file is written."""
    try:
        for module in ("torch", "ray.rllib"):
            importlib.import_module(module)
    except ImportError as err:
        raise TrainError(
            f"--algo rllib-ppo needs RLlib ({err.name} is missing): "
            "pip install torch==2.13.0, then '.[rllib]'"
        ) from None


def train_rllib(
    settings: TrainSettings,
    out: str | Path,
    resume: bool = False,
    progress: bool = True,
    stop_after: int | None = None,
    address: str | None = None,
) -> RunDir:
    """Train (or go on with) an RLlib run in ``out``, on a local Ray instance or the cluster at
    ``address``; ``stop_after`` ends this call after that many segments."""
    _require_rllib()
    from tqdm import tqdm

    run = RunDir(out)
    recorded = resumed_state(run, settings) if resume else None
    if recorded is None:
        check_new(run)  # before Ray starts, which takes seconds
    with ray_session(address):
        state = recorded or started_state(run, settings)
        algo = _algorithm(run, settings, state)
        try:
            if not run.progress.exists():
                write_progress(run, settings, [])
            segments = -(-settings.timesteps // settings.segment)
            last = segments if stop_after is None else min(segments, state["segment"] + stop_after)
            started = time.perf_counter() - float(state.get("elapsed_s", 0.0))
            with (
                closing(_tensorboard(run)) as board,
                tqdm(
                    total=segments * settings.segment,
                    initial=state["timesteps"],
                    unit="step",
                    file=sys.stderr,
                    disable=not progress,
                ) as bar,
            ):
                while state["segment"] < last:
                    _segment(algo, run, settings, state, bar, board, started)
            if state["segment"] == segments:
                _export(algo, run, settings, "final", state["timesteps"])
        finally:
            algo.stop()
    return run


def _algorithm(run: RunDir, settings: TrainSettings, state: dict[str, Any]) -> Any:
    """The algorithm at the checkpoint named in ``checkpoint.json``, or a new one."""
    if state.get("algorithm"):
        from ray.rllib.algorithms.algorithm import Algorithm

        return Algorithm.from_checkpoint(str((run.checkpoints / state["algorithm"]).resolve()))
    return ppo_config(settings).build_algo()


def _segment(
    algo: Any,
    run: RunDir,
    settings: TrainSettings,
    state: dict[str, Any],
    bar: Any,
    board: Any,
    started: float,
) -> None:
    """Train until the segment's timesteps are sampled, evaluate, log and checkpoint."""
    segment = state["segment"] + 1
    target = segment * settings.segment
    sampled = state["timesteps"]
    returns: list[float] = []
    episodes = 0
    while sampled < target:
        result = algo.train()
        runners = result.get("env_runners", {})
        # RLlib's count (restored with a checkpoint); NaN when no runner reported, then a batch
        now = _finite(result.get("num_env_steps_sampled_lifetime"))
        step = int(now) - sampled if now is not None and now > sampled else settings.n_steps * settings.envs
        bar.update(step)
        sampled += step
        episodes += int(_finite(runners.get("num_episodes")) or 0)
        mean = _finite(runners.get("episode_return_mean"))  # the seats' returns summed
        if mean is not None:
            returns.append(mean)
        for name, value in _scalars(result).items():
            board.add_scalar(name, value, sampled)
    files = _export(algo, run, settings, "snapshot", sampled)
    evaluation = evaluate(files if len(files) > 1 else files[0], settings)
    score = evaluation.score()
    if state["best_eval"] is None or score > state["best_eval"]:
        state["best_eval"] = score
        for snapshot, best in zip(files, policy_files(run, settings, "best"), strict=True):
            snapshot.replace(best)
    for snapshot in files:
        snapshot.unlink(missing_ok=True)
    for bot in settings.eval_bots:
        board.add_scalar(f"eval/{bot}_revenue", evaluation.revenue[bot], sampled)
        board.add_scalar(f"eval/{bot}_wins", evaluation.wins[bot], sampled)
    board.add_scalar("eval/score", score, sampled)
    elapsed = time.perf_counter() - started
    per_seat = float(np.mean(returns)) / settings.offices if returns else None  # the reward is revenue
    row = {
        "segment": segment,
        "timesteps": sampled,
        "episodes": episodes,
        "train_revenue": "" if per_seat is None else f"{per_seat:.4f}",
        "train_return": "" if per_seat is None else f"{per_seat:.4f}",
        "elapsed_s": f"{elapsed:.1f}",
        "pool": "",
    }
    append_progress(run, settings, row | evaluation_cells(settings, evaluation, score))
    plot_curve(run.progress, run.curve, settings.eval_bots)
    _checkpoint(algo, run, state, segment=segment, timesteps=sampled, elapsed_s=elapsed)
    bar.set_postfix(eval=f"{score:.2f}")
    print(
        f"segment {segment}: {sampled} steps, eval "
        + ", ".join(f"{bot} {evaluation.revenue[bot]:.2f}" for bot in settings.eval_bots),
        file=sys.stderr,
    )


def _export(algo: Any, run: RunDir, settings: TrainSettings, kind: str, timesteps: int) -> list[Path]:
    files = policy_files(run, settings, kind)
    meta = policy_meta(settings, run, timesteps)
    for pid, path in zip(policy_ids(settings), files, strict=True):
        export_module(algo.get_module(pid), path, meta | {"policy_id": pid})
    return files


def _checkpoint(algo: Any, run: RunDir, state: dict[str, Any], **progress: Any) -> None:
    """RLlib's checkpoint into a new directory, then ``checkpoint.json`` naming it (replaced
    whole), then the previous directory deleted: a stop at any moment leaves one complete."""
    name = f"algorithm_{progress['timesteps']:010d}"
    target = run.checkpoints / name
    shutil.rmtree(target, ignore_errors=True)  # a partial one, from a run stopped while saving
    algo.save_to_path(str(target.resolve()))
    previous = state.get("algorithm")
    state.update(progress, algorithm=name)
    write_json(run.checkpoint, state)
    if previous and previous != name:
        shutil.rmtree(run.checkpoints / previous, ignore_errors=True)


def _finite(value: Any) -> float | None:
    return float(value) if isinstance(value, Real) and math.isfinite(float(value)) else None


def _scalars(result: dict[str, Any]) -> dict[str, float]:
    """The training figures of an iteration worth a TensorBoard curve."""
    runners = result.get("env_runners", {})
    out = {
        f"rllib/{key}": runners[key] for key in ("episode_return_mean", "episode_len_mean") if key in runners
    }
    for pid, figures in result.get("learners", {}).items():
        for key in ("policy_loss", "vf_loss", "entropy", "mean_kl_loss"):
            if key in figures:
                out[f"rllib/{pid}/{key}"] = figures[key]
    return {name: number for name, value in out.items() if (number := _finite(value)) is not None}


def _tensorboard(run: RunDir) -> Any:
    from torch.utils.tensorboard import SummaryWriter

    return SummaryWriter(str(run.tb / "rllib"))


__all__ = ["export_module", "make_rllib_env", "masked_module_class", "ppo_config", "train_rllib"]
