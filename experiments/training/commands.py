"""The ``train`` subcommand: every ``TrainSettings`` field is one of its options."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from agents import split_bot_list
from experiments.command import Command, positive
from experiments.training.train import TrainError, TrainSettings, train

# Every TrainSettings field is an option of `train`: its default and what it sets.
_TRAIN_DEFAULTS = TrainSettings.defaults()
TRAIN_OPTIONS = {
    name: (_TRAIN_DEFAULTS[name], text)
    for name, text in {
        "offices": "offices (seats), 1..6",
        "days": "days a game",
        "timesteps": "tokens to train on, rounded up to whole segments",
        "seed": "the run's seed: envs, network and evaluation follow from it",
        "envs": "environments, one worker process each (SubprocVecEnv); the default is the CPU count",
        "opponents": "bot specs the opponent seats are drawn from",
        "segment": "timesteps between evaluations, checkpoints and snapshots (a multiple of n_steps x envs)",
        "eval_bots": "bots the policy is evaluated against after each segment",
        "eval_deals": "fixed deals per evaluation bot, each played with the policy at every seat",
        "snapshot_prob": "chance an opponent seat takes a snapshot from the pool",
        "pool_size": "snapshots the pool keeps",
        "warm_start": "a bot to clone before PPO starts (empty: none)",
        "warm_episodes": "episodes of the warm-start bot to clone",
        "warm_epochs": "epochs of the cloning fit",
        "shaping": "a potential for reward shaping (docs/signals.md; empty: none)",
        "shaping_gamma": "the shaping's discount",
        "shaping_scale": "the shaping's scale",
        "scenario": "starting scenarios of the learner's seat, A,B,... (docs/signals.md; empty: none)",
        "scenario_prob": "the share of episodes that start from the scenario",
        "n_steps": "PPO steps per env per rollout",
        "batch_size": "PPO minibatch size",
        "n_epochs": "PPO epochs per rollout",
        "learning_rate": "Adam step size",
        "gamma": "discount",
        "gae_lambda": "GAE lambda",
        "clip_range": "PPO clip range",
        "ent_coef": "entropy bonus",
        "net": "hidden layer sizes of the policy and value networks",
    }.items()
}


def _add_train_arguments(learn: argparse.ArgumentParser) -> None:
    learn.add_argument(
        "--out", required=True, metavar="DIR", help="the run's directory (new, or with --resume)"
    )
    learn.add_argument("--resume", action="store_true", help="go on from the last checkpoint in --out")
    learn.add_argument("--quiet", action="store_true", help="no progress bar")
    learn.add_argument(
        "--stop-after", type=positive, metavar="N", help="stop after N segments (go on later with --resume)"
    )
    for name, (default, text) in TRAIN_OPTIONS.items():
        kind = type(default)
        flag = "--" + name.replace("_", "-")
        if isinstance(default, tuple):
            learn.add_argument(
                flag,
                default=None,
                metavar="A,B,...",
                help=f"{text} (default {','.join(map(str, default)) or 'none'})",
            )
        else:
            learn.add_argument(
                flag,
                type=kind,
                default=None,
                metavar=kind.__name__.upper(),
                help=f"{text} (default {default!r})",
            )


def _run_train(args: argparse.Namespace) -> int:
    out = Path(args.out)
    settings = _recorded_settings(args, out) if args.resume else _given_settings(args)
    run = train(settings, out, resume=args.resume, progress=not args.quiet, stop_after=args.stop_after)
    done = json.loads(run.checkpoint.read_text())["segment"]
    if not run.final.exists():
        print(f"stopped in {run.root} after segment {done}; go on: station-master train --out {out} --resume")
        return 0
    print(f"trained {run.root} ({done} segments): best.npz, final.npz, progress.csv, curve.png")
    print(f"play it: --bots policy:path={run.best}")
    return 0


def _recorded_settings(args: argparse.Namespace, out: Path) -> TrainSettings:
    """The settings the run in ``out`` recorded; ``--resume`` takes no others."""
    if not (out / "meta.json").exists():
        raise TrainError(f"{out} holds no run to resume (no meta.json)")
    recorded = json.loads((out / "meta.json").read_text())["settings"]
    given = [name for name in TRAIN_OPTIONS if getattr(args, name) is not None]
    if given:
        flags = ", ".join("--" + name.replace("_", "-") for name in given)
        raise TrainError(f"--resume takes the run's recorded settings; drop {flags}")
    return TrainSettings.from_json(recorded)


def _given_settings(args: argparse.Namespace) -> TrainSettings:
    """The settings of a new run: the options given, the defaults for the rest."""
    values: dict[str, object] = {}
    for name, (default, _) in TRAIN_OPTIONS.items():
        value = getattr(args, name)
        if value is None:
            continue
        if isinstance(default, tuple):
            items = [item.strip() for item in value.split(",") if item.strip()]
            value = tuple(int(i) for i in items) if name == "net" else tuple(split_bot_list(value))
        values[name] = value
    return TrainSettings(**values)  # type: ignore[arg-type]


TRAIN = Command(
    "train",
    "train a MaskablePPO policy on StationMaster-v1 against bots and its past selves",
    _add_train_arguments,
    _run_train,
    errors=(TrainError,),
)

COMMANDS = (TRAIN,)
