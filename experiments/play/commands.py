"""The playing subcommands: ``demo`` (a game of bots, printed), ``play`` (a seat at the table)
and ``replay`` (a recorded game stepped through, or re-run and verified)."""

from __future__ import annotations

import argparse
import contextlib
import json
import secrets
import sys
from pathlib import Path

from rich.console import Console

from agents import LEVELS, WinEstimator, split_bot_list
from experiments.command import Command, add_house_rule_option, known_bots, output_console, positive
from experiments.play.demo import play_demo
from experiments.play.table.app import TableApp
from experiments.play.table.session import HUMAN, SeatError, Session, check_save_target
from experiments.play.table.viewer import Positions, run_viewer
from sm_env.core import GameConfig, HouseRules, Mode, Replay, ReplayError, load_replay

DEMO_BOTS = ("passenger", "freight", "dispatcher")
PLAY_SEATS = ("human", "passenger", "freight")
DEFAULT_SAVE = "station-master-game.json"


class PlayError(ValueError):
    """Options of ``play`` that do not fit together."""


# ---------------------------------------------------------------------------- demo


def _add_demo_arguments(demo: argparse.ArgumentParser) -> None:
    demo.add_argument("--seed", type=int, default=1, help="game seed, 0..4294967295 (default 1)")
    demo.add_argument("--offices", type=int, default=3, help="offices (seats), 1..6 (default 3)")
    demo.add_argument("--days", type=int, default=1, help="days to play (default 1)")
    demo.add_argument("--target", type=int, default=None, help="target revenue that ends the game")
    demo.add_argument("--mode", choices=[m.value for m in Mode], default=Mode.COMPETITIVE.value)
    add_house_rule_option(demo)
    demo.add_argument(
        "--bots",
        default=",".join(DEMO_BOTS),
        metavar="SPECS",
        help=f"bots for the seats, in turn (default {','.join(DEMO_BOTS)}; known: {known_bots()})",
    )
    demo.add_argument("--json", action="store_true", help="print only a JSON summary")
    demo.add_argument("--save-replay", metavar="FILE", help="write the game's replay file")


def _run_demo(args: argparse.Namespace) -> int:
    config = GameConfig(
        offices=args.offices,
        days=args.days,
        target_revenue=args.target,
        mode=Mode(args.mode),
        house_rules=HouseRules.from_names(args.house_rule),
    )
    # Piped output gets room for the final table.
    console = None if args.json else output_console(120, soft_wrap=True)
    game = play_demo(config, args.seed, split_bot_list(args.bots), console)
    if args.save_replay:
        game.replay().save(args.save_replay)
    if console is None:
        print(json.dumps(game.summary(), indent=2))
        return 0
    game.print_final(console)
    if args.save_replay:
        console.print(f"replay written to {args.save_replay}")
    return 0


DEMO = Command("demo", "play a full game of bots and print it", _add_demo_arguments, _run_demo)


# ---------------------------------------------------------------------------- play


def _add_play_arguments(play: argparse.ArgumentParser) -> None:
    play.formatter_class = argparse.RawDescriptionHelpFormatter
    levels = "\n".join(f"  {level.name:<8}{level.summary}" for level in LEVELS)
    play.epilog = f"difficulty levels, weakest first (bot specs: --seats human,easy,hard):\n{levels}"
    play.add_argument(
        "--seats",
        metavar="SPECS",
        help="who holds each seat, in turn: human or a bot spec (default human,passenger,freight; "
        f"known bots: {known_bots()})",
    )
    play.add_argument(
        "--offices", type=int, metavar="K", help="offices (seats), 1..6 (default: as many as --seats, or 3)"
    )
    play.add_argument("--days", type=int, metavar="D", help="days to play (default 1)")
    play.add_argument("--target", type=int, metavar="T", help="target revenue that ends the game")
    play.add_argument("--mode", choices=[m.value for m in Mode], help="competitive (default) or coop")
    add_house_rule_option(play)
    play.add_argument(
        "--seed", type=int, metavar="S", help="game seed, 0..4294967295 (default: a random one)"
    )
    play.add_argument(
        "--save",
        metavar="FILE",
        help=f"save after every decision to FILE (default: {DEFAULT_SAVE} in the current folder, "
        "or -2, -3, ... when taken; with --resume, the file resumed)",
    )
    play.add_argument("--resume", metavar="FILE", help="go on with a saved game")
    play.add_argument("--fast", action="store_true", help="no pauses between the bots' decisions")
    play.add_argument(
        "--pace",
        type=float,
        default=0.5,
        metavar="SECONDS",
        help="pause after each bot decision (default 0.5)",
    )


def _run_play(args: argparse.Namespace) -> int:
    if args.pace < 0:
        raise PlayError(f"--pace must be >= 0 seconds, got {args.pace}")
    pace = 0.0 if args.fast else args.pace
    session = _resumed_session(args) if args.resume else _new_session(args)
    if sys.stdin.isatty():
        with contextlib.suppress(ImportError):
            import readline  # noqa: F401  # line editing and history at the prompts
    console = Console(highlight=False)
    return TableApp(session, console, pace, resumed=bool(args.resume)).run()


def _resumed_session(args: argparse.Namespace) -> Session:
    """The saved game of ``--resume``, with the seats and save file the options give."""
    fixed = [
        f"--{name.replace('_', '-')}"
        for name in ("offices", "days", "target", "mode", "seed")
        if getattr(args, name) is not None
    ] + (["--house-rule"] if args.house_rule else [])
    if fixed:
        raise PlayError(f"{', '.join(fixed)}: the saved game fixes these; give only --seats, --save, --pace")
    replay = load_replay(args.resume)
    seats = None
    if args.seats is not None or not replay.seats:
        seats = _play_seats(args.seats, replay.config.offices)
    save = Path(args.save) if args.save else Path(args.resume)
    if args.save:
        check_save_target(save)
    session = Session.resume(replay, seats, save)
    if seats is not None or save != Path(args.resume):
        session.save()
    return session


def _new_session(args: argparse.Namespace) -> Session:
    """A new game as the options set it up, saved before its first decision."""
    offices = args.offices
    if offices is None:
        offices = len(split_bot_list(args.seats)) if args.seats is not None else len(PLAY_SEATS)
    config = GameConfig(
        offices=offices,
        days=args.days if args.days is not None else 1,
        target_revenue=args.target,
        mode=Mode(args.mode or Mode.COMPETITIVE.value),
        house_rules=HouseRules.from_names(args.house_rule),
    )
    seats = _play_seats(args.seats, config.offices)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**32)
    save = Path(args.save) if args.save else _default_save()
    check_save_target(save)
    session = Session(seed, config, seats, save)
    session.save()
    return session


def _play_seats(text: str | None, offices: int) -> list[str]:
    """The seats' holders: ``--seats`` as given (one per office), or a person and the default
    bots."""
    if text is not None:
        seats = split_bot_list(text)
        if offices != len(seats):
            raise PlayError(
                f"the game has {offices} office(s) but --seats names {len(seats)} seat(s): "
                "give one holder per office"
            )
        return seats
    bots = PLAY_SEATS[1:]
    return [HUMAN] + [bots[i % len(bots)] for i in range(offices - 1)]


def _default_save() -> Path:
    """``station-master-game.json`` in the current folder, or the first free ``-2``, ``-3``..."""
    path = Path(DEFAULT_SAVE)
    number = 2
    while path.exists():
        path = Path(f"{Path(DEFAULT_SAVE).stem}-{number}.json")
        number += 1
    return path


PLAY = Command(
    "play",
    "sit at the table: play seats yourself, bots fill the others",
    _add_play_arguments,
    _run_play,
    errors=(SeatError, PlayError),
)


# ---------------------------------------------------------------------------- replay


def _add_replay_arguments(replay: argparse.ArgumentParser) -> None:
    replay.add_argument("file", help="replay file written by play or by demo --save-replay")
    replay.add_argument("--verify", action="store_true", help="check the final state hash it records")
    view = replay.add_mutually_exclusive_group()
    view.add_argument(
        "--step", action="store_true", help="step through it at the keyboard even off a terminal"
    )
    view.add_argument("--summary", action="store_true", help="print the one-line summary even in a terminal")
    view.add_argument(
        "--chances",
        action="store_true",
        help="print each seat's revenue and estimated chance to win after every Stage",
    )
    replay.add_argument(
        "--samples",
        type=positive,
        default=16,
        metavar="N",
        help="with --chances: rollouts behind each seat's estimate (default 16)",
    )


def _run_replay(args: argparse.Namespace) -> int:
    replay = load_replay(args.file)
    step = args.step or (not args.summary and sys.stdin.isatty() and sys.stdout.isatty())
    if args.verify:
        try:
            state = replay.verify()
        except ReplayError as err:
            print(f"station-master: replay does not verify: {err}", file=sys.stderr)
            return 1
        print(f"verified: {len(replay.decisions)} decisions reproduce final state hash {state.state_hash()}")
        if not args.step:
            return 0
    if args.chances:
        print_chances(replay, args.samples)
        return 0
    if step:
        positions = Positions(replay, verify=True)
        return run_viewer(positions, Console(highlight=False), args.file)
    state = replay.run()
    revenue = list(state.revenue())
    print(f"replayed {len(replay.decisions)} decisions: revenue {revenue}, hash {state.state_hash()}")
    return 0


def print_chances(replay: Replay, samples: int) -> None:
    """Who was ahead: a line per Stage with each seat's revenue and chance to win, as someone
    watching the whole table would estimate it (``agents.WinEstimator.for_table``)."""
    n = replay.config.offices
    seats = "".join(f"  {f'seat {s} revenue':>15} {'win':>4}" for s in range(n))
    print(f"stage  decision{seats}")
    for point in WinEstimator(samples=samples).over_replay(replay):
        cells = "".join(f"  {r:>15} {c:>4.0%}" for r, c in zip(point.revenue, point.chances, strict=True))
        print(f"{point.stages:>5}  {point.decisions:>8}{cells}")


REPLAY = Command(
    "replay",
    "step through a replay file (in a terminal), or re-run it and print a summary",
    _add_replay_arguments,
    _run_replay,
)

COMMANDS = (DEMO, PLAY, REPLAY)
