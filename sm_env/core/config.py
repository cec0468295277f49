"""Game configuration: frozen, validated, JSON round-trippable (R3, RB, D-end).

Which seats a person plays is not the core's concern: a config only says how many offices
(seats) there are, how the game ends and which house rules are on.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, fields
from typing import Any

from sm_env.core.errors import ConfigError

MIN_OFFICES, MAX_OFFICES = 1, 6

# The edition of the rules the engine plays (docs/rules.md §1.5): bumped whenever a rule
# changes what a seed and its decisions make, so a saved game names the rules it was made under.
RULES_EDITION = 3


class Mode(enum.Enum):
    COMPETITIVE = "competitive"
    COOP = "coop"


@dataclass(frozen=True, slots=True)
class HouseRules:
    """The optional rules of Appendix B (RB.1-RB.4) and the project's variants that go beyond
    the seeds (V-...), all off by default."""

    reduced_visibility: bool = False
    sister_trains: bool = False
    employee_rotation: bool = False
    emergency_toolbox: bool = False
    overnight_yard: bool = False  # V-yards.1
    yard_on_demand: bool = False  # V-yards.2
    home_signals: bool = False  # V-signals.1

    def __post_init__(self) -> None:
        for name in self.names():
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise ConfigError(f"house rule {name} must be true or false, got {value!r}")

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    def to_dict(self) -> dict[str, bool]:
        return {name: getattr(self, name) for name in self.names()}

    @classmethod
    def from_dict(cls, data: object, where: str = "house_rules") -> HouseRules:
        mapping = _mapping(data, where)
        _no_unknown_keys(mapping, cls.names(), where)
        values: dict[str, bool] = {}
        for name, value in mapping.items():
            if not isinstance(value, bool):
                raise ConfigError(f"{where}.{name} must be true or false, got {value!r}")
            values[name] = value
        return cls(**values)

    @classmethod
    def from_names(cls, names: list[str] | tuple[str, ...]) -> HouseRules:
        """House rules switched on by name, e.g. ['sister_trains']."""
        for name in names:
            if name not in cls.names():
                raise ConfigError(f"unknown house rule {name!r} (known: {', '.join(cls.names())})")
        return cls(**{name: True for name in names})


@dataclass(frozen=True, slots=True)
class GameConfig:
    """offices: 1-6 seats; days: how many days at most; target_revenue: optional goal (D-end.1)."""

    offices: int = 2
    days: int = 1
    target_revenue: int | None = None
    mode: Mode = Mode.COMPETITIVE
    house_rules: HouseRules = field(default_factory=HouseRules)

    def __post_init__(self) -> None:
        if not _is_int(self.offices) or not MIN_OFFICES <= self.offices <= MAX_OFFICES:
            raise ConfigError(
                f"offices must be an integer {MIN_OFFICES}..{MAX_OFFICES}, got {self.offices!r}"
            )
        if not _is_int(self.days) or self.days < 1:
            raise ConfigError(f"days must be an integer >= 1, got {self.days!r}")
        if self.target_revenue is not None and (not _is_int(self.target_revenue) or self.target_revenue < 1):
            raise ConfigError(f"target_revenue must be an integer >= 1 or null, got {self.target_revenue!r}")
        if not isinstance(self.mode, Mode):
            raise ConfigError(f"mode must be a Mode, got {self.mode!r}")
        if self.mode is Mode.COOP and self.target_revenue is None:
            raise ConfigError("co-op mode needs a target_revenue: the team's shared goal (D-end.2)")
        if not isinstance(self.house_rules, HouseRules):
            raise ConfigError(f"house_rules must be a HouseRules, got {self.house_rules!r}")

    def to_dict(self) -> dict[str, Any]:
        """The config without its house rules (replays store those apart)."""
        return {
            "offices": self.offices,
            "days": self.days,
            "target_revenue": self.target_revenue,
            "mode": self.mode.value,
        }

    @classmethod
    def from_dict(
        cls, data: object, house_rules: HouseRules | None = None, where: str = "config"
    ) -> GameConfig:
        mapping = _mapping(data, where)
        _no_unknown_keys(mapping, ("offices", "days", "target_revenue", "mode"), where)
        for key in ("offices", "days"):
            if key not in mapping:
                raise ConfigError(f"{where} is missing {key!r}")
        mode_name = mapping.get("mode", Mode.COMPETITIVE.value)
        try:
            mode = Mode(mode_name)
        except ValueError:
            known = ", ".join(m.value for m in Mode)
            raise ConfigError(f"{where}.mode must be one of {known}, got {mode_name!r}") from None
        return cls(
            offices=mapping["offices"],
            days=mapping["days"],
            target_revenue=mapping.get("target_revenue"),
            mode=mode,
            house_rules=house_rules or HouseRules(),
        )


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _mapping(data: object, where: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ConfigError(f"{where} must be a JSON object, got {type(data).__name__}")
    return data


def _no_unknown_keys(mapping: dict[str, Any], known: tuple[str, ...], where: str) -> None:
    unknown = sorted(set(mapping) - set(known))
    if unknown:
        raise ConfigError(f"unknown key(s) in {where}: {', '.join(unknown)} (known: {', '.join(known)})")
