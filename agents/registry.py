"""The bot registry: each bot's name, version, parameters and factory, and ``make_bot``.

A bot is asked for by spec text: ``"random"``, or ``"name:key=value,key=value"`` to set
parameters. Values are parsed to the type of the parameter's default (bool, int, float or
str; a str value may not hold ``,`` or ``=``). ``bot_label`` gives the canonical text that
results record, with the version and every effective parameter: ``passenger@1(coach_weight=2)``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from agents.base import Agent
from agents.common import HeuristicBot
from agents.dispatcher import DispatcherBot
from agents.freight import FreightBot
from agents.levels import LEVELS, Level, LevelBot
from agents.mcts import MCTSBot
from agents.passenger import PassengerBot
from agents.policy import PolicyBot
from agents.random_agent import RandomAgent
from agents.search import SearchBot

ParamValue = bool | int | float | str

_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")
_TRUE, _FALSE = ("true", "yes", "1"), ("false", "no", "0")


class BotSpecError(ValueError):
    """A bot spec names an unknown bot or parameter, or gives a bad value."""


@dataclass(frozen=True)
class BotSpec:
    """One registered bot. ``factory(seed, **params)`` makes it; ``params`` holds the defaults.

    Raise ``version`` whenever the bot's play changes, so old results are not mixed with new.
    ``bot_params`` are parameters that name another registered bot (a search's ``prior``):
    labels give that bot's version with its name, since its play is part of this one's.
    """

    name: str
    version: int
    summary: str
    factory: Callable[..., Agent]
    params: Mapping[str, ParamValue] = field(default_factory=dict, hash=False)
    bot_params: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise BotSpecError(f"bot name must match {_NAME.pattern}, got {self.name!r}")
        if isinstance(self.version, bool) or not isinstance(self.version, int) or self.version < 1:
            raise BotSpecError(f"bot {self.name}: version must be an integer >= 1, got {self.version!r}")
        for key, default in self.params.items():
            if not _NAME.match(key) or not isinstance(default, ParamValue):
                raise BotSpecError(f"bot {self.name}: bad parameter {key}={default!r}")
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))


REGISTRY: dict[str, BotSpec] = {}


def register(spec: BotSpec) -> BotSpec:
    """Add a bot to the registry; a name is registered once."""
    if spec.name in REGISTRY:
        raise BotSpecError(f"bot {spec.name!r} is already registered")
    REGISTRY[spec.name] = spec
    return spec


register(BotSpec("random", 1, "a uniform choice among the legal intents", RandomAgent))


def _heuristic(cls: type[HeuristicBot], summary: str) -> BotSpec:
    """A heuristic bot's spec: its parameters are the shared ones and its own, all numbers."""
    params = {key: float(value) for key, value in {**HeuristicBot.DEFAULTS, **cls.DEFAULTS}.items()}
    return register(BotSpec(cls.name, int(cls.version), summary, cls, params))


_heuristic(PassengerBot, "upgrades its office, stocks coaches, boards and detrains, plays coach trains")
_heuristic(FreightBot, "lays spurs and industries, spots cars with planned Moves, loads and unloads")
_heuristic(DispatcherBot, "a passenger game that clears only safe trains and keeps its track clear")
register(
    BotSpec(
        PolicyBot.name,
        PolicyBot.version,
        "a MaskablePPO policy trained on StationMaster-v1 (default: the one shipped, 3 offices)",
        PolicyBot,
        {"path": "", "deterministic": True, "guard": "", "defer": ""},
    )
)
register(
    BotSpec(
        SearchBot.name,
        int(SearchBot.version),
        "determinized rollouts of its top candidates, the passenger bot playing on",
        SearchBot,
        dict(SearchBot.DEFAULTS),
        bot_params=("prior", "rollout"),
    )
)
register(
    BotSpec(
        MCTSBot.name,
        int(MCTSBot.version),
        "information-set MCTS over its seat view: PUCT with a prior, rollouts or a network at the leaves",
        MCTSBot,
        dict(MCTSBot.DEFAULTS),
    )
)


def parse_bot(text: str) -> tuple[BotSpec, dict[str, ParamValue]]:
    """The spec and the effective parameters (defaults with the text's values) of spec text."""
    name, _, rest = text.strip().partition(":")
    spec = REGISTRY.get(name.strip())
    if spec is None:
        raise BotSpecError(f"unknown bot {name.strip()!r} (known: {', '.join(sorted(REGISTRY))})")
    params = dict(spec.params)
    given: set[str] = set()
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = (s.strip() for s in item.partition("="))
        if key not in spec.params:
            known = ", ".join(f"{k}={v!r}" for k, v in spec.params.items()) or "none"
            raise BotSpecError(f"bot {spec.name} has no parameter {key!r} (known: {known})")
        if not eq or key in given:
            raise BotSpecError(f"bot {spec.name}: write each parameter once as {key}=value, got {item!r}")
        given.add(key)
        params[key] = _parse_value(spec.name, key, value, spec.params[key])
    return spec, params


def _parse_value(bot: str, key: str, text: str, default: ParamValue) -> ParamValue:
    kind = type(default)
    if kind is bool:
        if text.lower() in _TRUE + _FALSE:
            return text.lower() in _TRUE
    elif kind is str:
        return text
    else:
        try:
            return kind(text)
        except ValueError:
            pass
    raise BotSpecError(f"bot {bot}: parameter {key} takes a {kind.__name__}, got {text!r}")


def bot_label(text: str) -> str:
    """The canonical name of spec text: ``name@version`` and every effective parameter (a bot
    named by one of ``bot_params`` with its version: ``search@5(prior=freight@5,...)``)."""
    spec, params = parse_bot(text)
    return _labelled(spec, params, params.keys())


def bot_name(text: str) -> str:
    """A short name of spec text for tables and plots: ``name@version`` and only the
    parameters that differ from the defaults (``bot_label`` gives them all)."""
    spec, params = parse_bot(text)
    return _labelled(spec, params, [key for key, v in params.items() if v != spec.params[key]])


def _labelled(spec: BotSpec, params: Mapping[str, ParamValue], shown: Iterable[str]) -> str:
    def value(key: str) -> str:
        named = REGISTRY.get(str(params[key])) if key in spec.bot_params else None
        return f"{named.name}@{named.version}" if named else str(params[key])

    args = ",".join(f"{key}={value(key)}" for key in shown)
    return f"{spec.name}@{spec.version}" + (f"({args})" if args else "")


def make_bot(text: str, seed: int) -> Agent:
    """The bot of spec text (``"random"``, ``"name:key=value,..."``) with its own 32-bit seed."""
    spec, params = parse_bot(text)
    try:
        return spec.factory(seed, **params)
    except ValueError as err:  # a factory refusing a parameter's value
        raise BotSpecError(f"bot {text.strip()!r}: {err}") from None


def _level_factory(level: Level) -> Callable[[int], Agent]:
    def make(seed: int) -> Agent:
        return LevelBot(level, make_bot(level.spec, seed), seed ^ 0x5BD1E995)

    return make


for _level in LEVELS:
    register(
        BotSpec(_level.name, _level.version, f"level {_level.name}: {_level.summary}", _level_factory(_level))
    )


def split_bot_list(text: str) -> list[str]:
    """Spec texts of a comma-separated list, where a ``key=value`` item belongs to the bot before it:
    ``"passenger:coach_weight=2,freight=1,random"`` is two bots."""
    bots: list[str] = []
    for item in (part.strip() for part in text.split(",")):
        if "=" in item and ":" not in item and bots and ":" in bots[-1]:
            bots[-1] += "," + item
        elif item:
            bots.append(item)
    if not bots:
        raise BotSpecError(f"no bots in {text!r} (known: {', '.join(sorted(REGISTRY))})")
    return bots
