"""What a subcommand of ``station-master`` is, and the options and output helpers several share.

Each job package (``play``, ``arena``, ``bench``, ``training``) declares its subcommands as
``Command`` records in its ``commands`` module; ``experiments.cli`` only assembles them.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from rich.console import Console, RenderableType

from agents import REGISTRY, BotSpecError
from experiments.arena.parallel import BACKENDS, BackendError, Workers, check_backend
from sm_env.core import ConfigError, HouseRules, ReplayError, SnapshotError

_UNBOUNDED = 100_000  # columns to measure a table's natural width in

# Bad input any command may meet: the CLI prints it as one line and exits with 2.
USAGE_ERRORS: tuple[type[Exception], ...] = (
    ConfigError,
    ReplayError,
    SnapshotError,
    BotSpecError,
    OSError,
    BackendError,
)


def _keeps_nothing(args: argparse.Namespace) -> bool:
    return False


def keeps_always(args: argparse.Namespace) -> bool:
    return True


@dataclass(frozen=True)
class Command:
    """A subcommand: its name and one-line help, the options it adds to its parser, the
    function that runs it on the parsed options (returning the exit code), the errors of its
    own that mean bad input, and whether a run of it stopped by Ctrl-C or SIGTERM on these
    options has kept what it finished for the same command with ``--resume``."""

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    errors: tuple[type[Exception], ...] = ()
    resumes: Callable[[argparse.Namespace], bool] = _keeps_nothing


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill PID``, ``timeout``), raised where Ctrl-C would be: a run stops the same
    way, its worker pool ended and what it finished kept, instead of dying mid-line."""


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM raises ``Terminated`` while inside (on the main thread: only there can it be set)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def stop_status(stop: KeyboardInterrupt) -> int:
    """The exit code of a run stopped by Ctrl-C or SIGTERM: 128 + the signal, as a shell has it."""
    return 128 + (signal.SIGTERM if isinstance(stop, Terminated) else signal.SIGINT)


def known_bots() -> str:
    """The registered bot names, for the help of the options that take bot specs."""
    return ", ".join(sorted(REGISTRY))


def positive(text: str) -> int:
    """An option's value that must be a whole number of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def add_jobs_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--jobs",
        type=positive,
        default=os.cpu_count() or 1,
        metavar="J",
        help="worker processes (default: the CPU count)",
    )


def add_backend_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default="local",
        help="where the games run: local processes (--jobs), or a Ray cluster (pip install '.[ray]')",
    )
    parser.add_argument(
        "--address",
        metavar="ADDR",
        help="the Ray cluster's address (default: RAY_ADDRESS, else a Ray instance started on this machine)",
    )


def workers_of(args: argparse.Namespace) -> Workers:
    """The workers the options ask for (``--jobs``, ``--backend``, ``--address``)."""
    if args.address and args.backend != "ray":
        raise BackendError("--address is the Ray cluster's: give it with --backend ray")
    workers = Workers(args.jobs, args.backend, args.address)
    check_backend(workers)
    return workers


def workers_text(workers: Workers) -> str:
    """How a run's games are spread, for its heading."""
    if workers.backend == "ray":
        return f"on Ray ({workers.address or os.environ.get('RAY_ADDRESS') or 'a local instance'})"
    return f"{workers.jobs} job(s)"


def add_house_rule_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--house-rule",
        action="append",
        default=[],
        choices=HouseRules.names(),
        metavar="NAME",
        help=f"switch on a house rule (repeatable): {', '.join(HouseRules.names())}",
    )


def house_rules_text(rules: HouseRules) -> str:
    """The house rules switched on, for a run's heading: ``a, b`` or ``none``."""
    return ", ".join(n for n in HouseRules.names() if getattr(rules, n)) or "none"


def output_console(piped_width: int, soft_wrap: bool = False, fits: Sequence[RenderableType] = ()) -> Console:
    """A console for a command's output: the terminal's width, or, when the output is piped,
    ``piped_width`` columns or as many as the widest of ``fits`` needs (rich assumes 80 off a
    terminal, which squeezes the tables in logs; a long bot spec cut a table's figures to
    ellipses)."""
    if sys.stdout.isatty():
        return Console(highlight=False, soft_wrap=soft_wrap)
    unbounded = Console(width=_UNBOUNDED)
    width = max([piped_width, *(unbounded.measure(renderable).maximum for renderable in fits)])
    return Console(highlight=False, soft_wrap=soft_wrap, width=width)
