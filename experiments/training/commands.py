"""The ``train`` and ``selfplay`` subcommands: every setting of each run is one of its options."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path
from typing import Any

from agents import split_bot_list
from experiments.arena.parallel import BackendError
from experiments.command import (
    Command,
    add_backend_options,
    add_jobs_option,
    keeps_always,
    positive,
    workers_of,
)
from experiments.training.selfplay import SelfPlayError, SelfPlaySettings, selfplay
from experiments.training.train import TrainError, TrainSettings, policy_files, train

# Every TrainSettings field is an option of `train`: its default and what it sets.
_TRAIN_DEFAULTS = TrainSettings.defaults()
TRAIN_OPTIONS = {
    name: (_TRAIN_DEFAULTS[name], text)
    for name, text in {
        "offices": "offices (seats), 1..6",
        "days": "days a game",
        "timesteps": "tokens to train on, rounded up to whole segments (with --resume: more extends the run)",
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
        "dagger_rounds": "DAgger rounds after the clone: it plays, the warm-start bot labels its states, "
        "and the fit is redone",
        "dagger_episodes": "episodes the clone plays in each DAgger round",
        "shaping": "a potential for reward shaping (docs/signals.md; empty: none)",
        "shaping_gamma": "the shaping's discount",
        "shaping_scale": "the shaping's scale",
        "scenario": "starting scenarios of the learner's seat, A,B,... (docs/signals.md; empty: none)",
        "scenario_prob": "the share of episodes that start from the scenario",
        "guard": "a heuristic whose station guard takes the learner's turns it would act in, in training "
        "and evaluation, as policy:guard=NAME plays (freight, passenger, dispatcher; empty: none)",
        "n_steps": "PPO steps per env per rollout",
        "batch_size": "PPO minibatch size",
        "n_epochs": "PPO epochs per rollout",
        "learning_rate": "Adam step size",
        "gamma": "discount",
        "gae_lambda": "GAE lambda",
        "clip_range": "PPO clip range",
        "ent_coef": "entropy bonus",
        "net": "hidden layer sizes of the policy and value networks",
        "algo": "the trainer: sb3-contrib's maskable-ppo (one learner seat against bots and past "
        "selves), or RLlib's rllib-ppo (every seat learns; pip install '.[rllib]')",
        "policies": "rllib-ppo: one policy shared by every seat, or per-seat",
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
    learn.add_argument(
        "--address",
        metavar="HOST:PORT",
        help="rllib-ppo: the Ray cluster its env runners spread over (default: RAY_ADDRESS, "
        "else a Ray instance started on this machine)",
    )
    _add_setting_options(learn, TRAIN_OPTIONS)


def _add_setting_options(parser: argparse.ArgumentParser, options: dict[str, tuple[Any, str]]) -> None:
    """An option per setting (``name: (default, what it sets)``), None when not given: a tuple
    setting takes ``A,B,...``, any other its default's type."""
    for name, (default, text) in options.items():
        kind = type(default)
        flag = "--" + name.replace("_", "-")
        if isinstance(default, tuple):
            parser.add_argument(
                flag,
                default=None,
                metavar="A,B,...",
                help=f"{text} (default {','.join(map(str, default)) or 'none'})",
            )
        else:
            parser.add_argument(
                flag,
                type=kind,
                default=None,
                metavar=kind.__name__.upper(),
                help=f"{text} (default {default!r})",
            )


def _given_values(
    args: argparse.Namespace, options: dict[str, tuple[Any, str]], numbers: str
) -> dict[str, Any]:
    """The settings given on the command line; a tuple setting is split at its commas, into
    whole numbers for the setting ``numbers`` (layer sizes), else into bot specs."""
    values: dict[str, Any] = {}
    for name, (default, _) in options.items():
        value = getattr(args, name)
        if value is None:
            continue
        if isinstance(default, tuple):
            items = [item.strip() for item in value.split(",") if item.strip()]
            value = tuple(int(i) for i in items) if name == numbers else tuple(split_bot_list(value))
        values[name] = value
    return values


def _resume_conflict(
    args: argparse.Namespace, options: dict[str, tuple[Any, str]], extends: str
) -> str | None:
    """Why ``--resume`` refuses the settings given with it (it takes the run's own, except the
    budget ``extends``, which extends the run), if any were."""
    given = [name for name in options if name != extends and getattr(args, name) is not None]
    if not given:
        return None
    flags = ", ".join("--" + name.replace("_", "-") for name in given)
    return f"--resume takes the run's recorded settings; drop {flags}"


def _run_train(args: argparse.Namespace) -> int:
    out = Path(args.out)
    settings = _recorded_settings(args, out) if args.resume else _given_settings(args)
    if settings.algo == "rllib-ppo":
        from experiments.training.rllib import train_rllib

        run = train_rllib(
            settings, out, args.resume, not args.quiet, stop_after=args.stop_after, address=args.address
        )
    elif args.address:
        raise TrainError("--address is RLlib's: give it with --algo rllib-ppo")
    else:
        run = train(settings, out, resume=args.resume, progress=not args.quiet, stop_after=args.stop_after)
    done = json.loads(run.checkpoint.read_text())["segment"]
    finals = policy_files(run, settings, "final")
    if not all(path.exists() for path in finals):
        print(f"stopped in {run.root} after segment {done}; go on: station-master train --out {out} --resume")
        return 0
    bests = policy_files(run, settings, "best")
    names = ", ".join(path.name for path in (*bests, *finals))
    print(f"trained {run.root} ({done} segments): {names}, progress.csv, curve.png")
    guard = f",guard={settings.guard}" if settings.guard else ""  # played as it was trained
    print("play it: --bots " + ",".join(f"policy:path={path}{guard}" for path in bests))
    return 0


def _recorded_settings(args: argparse.Namespace, out: Path) -> TrainSettings:
    """The settings the run in ``out`` recorded; ``--resume`` takes no others."""
    if not (out / "meta.json").exists():
        raise TrainError(f"{out} holds no run to resume (no meta.json)")
    recorded = json.loads((out / "meta.json").read_text())["settings"]
    conflict = _resume_conflict(args, TRAIN_OPTIONS, extends="timesteps")
    if conflict:
        raise TrainError(conflict)
    settings = TrainSettings.from_json(recorded)
    return settings if args.timesteps is None else dataclasses.replace(settings, timesteps=args.timesteps)


def _given_settings(args: argparse.Namespace) -> TrainSettings:
    """The settings of a new run: the options given, the defaults for the rest."""
    return TrainSettings(**_given_values(args, TRAIN_OPTIONS, "net"))


TRAIN = Command(
    "train",
    "train a MaskablePPO policy on StationMaster-v1 against bots and its past selves",
    _add_train_arguments,
    _run_train,
    errors=(TrainError, BackendError),
    resumes=keeps_always,  # its checkpoint, written before the first segment
)


# Every SelfPlaySettings field but jobs is an option of `selfplay`: its default and what it sets.
_SELFPLAY_DEFAULTS = SelfPlaySettings()
SELFPLAY_OPTIONS = {
    name: (getattr(_SELFPLAY_DEFAULTS, name), text)
    for name, text in {
        "offices": "offices (seats), 1..6",
        "days": "days a game",
        "seed": "the run's seed: every game and batch follows from it",
        "generations": "generations, the imitation one (0) included",
        "gen0_games": "games of the heuristic bots that generation 0 imitates",
        "gen0_bots": "the bots generation 0 imitates, rotated over the seats",
        "gen0_share": "the share of generation 0's decisions recorded",
        "games": "self-play games a generation",
        "iterations": "the search's iterations a decision",
        "noise": "the share of Dirichlet noise in the root's prior while self-playing",
        "temperature": "self-play picks by visits ** (1 / temperature) (0: the most visited)",
        "opponents": "bots that may take a self-play seat",
        "opponent_share": "the chance a self-play seat goes to an opponent or an earlier generation",
        "window": "generations of samples each fit reads",
        "trunk": "the network's hidden layer sizes",
        "epochs": "epochs of each fit",
        "batch_size": "samples a batch",
        "learning_rate": "Adam step size",
        "gate_deals": "fixed deals of the gate (each played in both seatings)",
        "eval_bots": "bots the best network's search is measured against each generation",
        "eval_deals": "fixed deals of each evaluation (each played in both seatings)",
    }.items()
}


def _add_selfplay_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out", required=True, metavar="DIR", help="the run's directory (new, or with --resume)"
    )
    parser.add_argument("--resume", action="store_true", help="go on with the run in --out")
    parser.add_argument(
        "--stop-after", type=positive, metavar="N", help="stop after N stages (go on later with --resume)"
    )
    add_jobs_option(parser)
    add_backend_options(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    _add_setting_options(parser, SELFPLAY_OPTIONS)


def _run_selfplay(args: argparse.Namespace) -> int:
    if args.resume:
        conflict = _resume_conflict(args, SELFPLAY_OPTIONS, extends="generations")
        if conflict:
            raise SelfPlayError(conflict)
    # a resumed run takes its recorded settings; --generations, if given, extends it
    settings = SelfPlaySettings(**_given_values(args, SELFPLAY_OPTIONS, "trunk"), jobs=workers_of(args))
    extend = args.generations if args.resume else None
    out = Path(args.out)
    done = selfplay(
        settings,
        out,
        resume=args.resume,
        generations=extend,
        stop_after=args.stop_after,
        progress=not args.quiet,
        log=lambda line: print(line, flush=True),
    )
    if done:
        print(f"done: {out}/best.npz, progress.csv, curve.png; play it: --bots mcts:net={out}/best.npz")
    else:
        print(f"go on: station-master selfplay --out {out} --resume")
    return 0


SELFPLAY = Command(
    "selfplay",
    "expert iteration: the search's network learned from its own games (docs/training.md)",
    _add_selfplay_arguments,
    _run_selfplay,
    errors=(SelfPlayError,),
    resumes=keeps_always,  # every finished stage's file
)

COMMANDS = (TRAIN, SELFPLAY)
