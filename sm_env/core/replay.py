"""Replay files: JSON that re-creates a game exactly (C-rng.2).

A replay holds the seed, the config, the house rules, every accepted decision in order and
the hash of the final state. Replaying applies the decisions to a fresh game; ``verify``
also checks the final hash. A file that is not a valid replay raises ``ReplayError`` with
a message that says what is wrong, never a bare traceback.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sm_env.core.catalogue import Catalogue, load_catalogue
from sm_env.core.config import GameConfig, HouseRules
from sm_env.core.engine import new_game
from sm_env.core.errors import ConfigError, IllegalIntent, ReplayError
from sm_env.core.intents import Intent, intent_from_json, intent_to_json
from sm_env.core.state import GameState
from sm_env.core.text import describe

FORMAT = "station-master-replay"
VERSION = 1
_HEX64 = re.compile(r"[0-9a-f]{64}")
_KEYS = ("format", "version", "seed", "config", "house_rules", "decisions", "final_hash")


@dataclass(frozen=True, slots=True)
class Replay:
    seed: int
    config: GameConfig
    decisions: tuple[Intent, ...]
    final_hash: str

    def to_json(self, catalogue: Catalogue | None = None) -> dict[str, Any]:
        cat = catalogue or load_catalogue()
        return {
            "format": FORMAT,
            "version": VERSION,
            "seed": self.seed,
            "config": self.config.to_dict(),
            "house_rules": self.config.house_rules.to_dict(),
            "decisions": [intent_to_json(d, cat) for d in self.decisions],
            "final_hash": self.final_hash,
        }

    def save(self, path: str | os.PathLike[str], catalogue: Catalogue | None = None) -> None:
        Path(path).write_text(json.dumps(self.to_json(catalogue), indent=1) + "\n", encoding="utf-8")

    def run(self, catalogue: Catalogue | None = None) -> GameState:
        """Play the decisions on a fresh game; ReplayError names the first that fails."""
        state = new_game(self.config, self.seed, catalogue)
        for i, decision in enumerate(self.decisions):
            try:
                state.apply(decision)
            except IllegalIntent as err:
                raise ReplayError(f"decision {i} ({describe(state, decision)}) is illegal: {err}") from None
        return state

    def verify(self, catalogue: Catalogue | None = None) -> GameState:
        """Replay, then check the recorded final hash."""
        state = self.run(catalogue)
        actual = state.state_hash()
        if actual != self.final_hash:
            raise ReplayError(
                f"final state hash mismatch: the file records {self.final_hash}, the replay gives {actual}"
            )
        return state


def parse_replay(data: object, catalogue: Catalogue | None = None, source: str = "replay") -> Replay:
    cat = catalogue or load_catalogue()
    if not isinstance(data, dict):
        raise ReplayError(f"{source}: a replay must be a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise ReplayError(
            f"{source}: not a Station Master replay (format must be {FORMAT!r}, got {data.get('format')!r})"
        )
    if data.get("version") != VERSION:
        raise ReplayError(
            f"{source}: unsupported replay version {data.get('version')!r} (this build reads {VERSION})"
        )
    missing = [k for k in _KEYS if k not in data]
    unknown = sorted(set(data) - set(_KEYS))
    if missing:
        raise ReplayError(f"{source}: missing key(s): {', '.join(missing)}")
    if unknown:
        raise ReplayError(f"{source}: unknown key(s): {', '.join(unknown)}")
    seed = data["seed"]
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= 0xFFFFFFFF:
        raise ReplayError(f"{source}: seed must be an integer in 0..4294967295, got {seed!r}")
    try:
        config = GameConfig.from_dict(data["config"], HouseRules.from_dict(data["house_rules"]))
    except ConfigError as err:
        raise ReplayError(f"{source}: {err}") from None
    decisions = data["decisions"]
    if not isinstance(decisions, list):
        raise ReplayError(f"{source}: decisions must be a list, got {type(decisions).__name__}")
    intents: list[Intent] = []
    for i, item in enumerate(decisions):
        try:
            intents.append(intent_from_json(item, cat))
        except ValueError as err:
            raise ReplayError(f"{source}: decisions[{i}]: {err}") from None
    final_hash = data["final_hash"]
    if not isinstance(final_hash, str) or not _HEX64.fullmatch(final_hash):
        raise ReplayError(f"{source}: final_hash must be a 64-character hex string, got {final_hash!r}")
    return Replay(seed, config, tuple(intents), final_hash)


def load_replay(path: str | os.PathLike[str], catalogue: Catalogue | None = None) -> Replay:
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReplayError(f"{source}: no such file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ReplayError(f"{source}: cannot read the file: {err}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ReplayError(
            f"{source}: not valid JSON: {err.msg} at line {err.lineno}, column {err.colno}"
        ) from None
    except (ValueError, RecursionError) as err:  # e.g. a 5000-digit number, or nesting too deep
        raise ReplayError(f"{source}: not a usable JSON document: {err}") from None
    return parse_replay(data, catalogue, source)
