"""Replay and position files: JSON that re-creates a game exactly (C-rng.2).

A replay holds the rules edition it was made under, the seed, the config, the house rules,
every accepted decision in order and the hash of the final state; optionally who held each
seat and who made each decision (labels only, see ``Replay``). Replaying applies the
decisions to a fresh game; ``verify`` also checks the final hash. A position holds the rules
edition, the config, the house rules, one state's snapshot and its hash: loading rebuilds
that state (``engine.load_snapshot``) and checks the hash. A file made under another rules
edition (format version 1 files predate editions and are edition 1) is refused with a
message naming both editions. A file that is not a valid replay or position raises
``ReplayError`` (or, for a bad snapshot, ``SnapshotError``) with a message that says what is
wrong, never a bare traceback.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sm_env.core.catalogue import Catalogue, decode_json, load_catalogue
from sm_env.core.config import RULES_EDITION, GameConfig, HouseRules
from sm_env.core.engine import load_snapshot, new_game
from sm_env.core.errors import ConfigError, IllegalIntent, ReplayError, SnapshotError, cut_line, shown_value
from sm_env.core.intents import Intent, intent_from_json, intent_to_json
from sm_env.core.state import GameState
from sm_env.core.text import describe

FORMAT = "station-master-replay"
VERSION = 2
POSITION_FORMAT = "station-master-position"
POSITION_VERSION = 2
_HEX64 = re.compile(r"[0-9a-f]{64}")
_KEYS = ("format", "version", "rules_edition", "seed", "config", "house_rules", "decisions", "final_hash")
_POSITION_KEYS = ("format", "version", "rules_edition", "config", "house_rules", "state", "hash")
_OPTIONAL_KEYS = ("seats", "holders")


@dataclass(frozen=True, slots=True)
class Replay:
    """``final_hash`` is the hash of the state after the decisions (the game may go on);
    ``seats`` optionally says who held each seat (``"human"`` or a bot spec) at the end, and
    ``holders`` who made each decision, one label per decision (written only when some seat
    changed hands during the game). Both are labels for the table, its resume and the viewer,
    which replaying and the hash ignore."""

    seed: int
    config: GameConfig
    decisions: tuple[Intent, ...]
    final_hash: str
    seats: tuple[str, ...] = ()
    holders: tuple[str, ...] = ()

    def holder(self, index: int) -> str | None:
        """Who made decision ``index``: its recorded holder, else its seat's; None when the
        file records neither."""
        if self.holders:
            return self.holders[index]
        if self.seats:
            return self.seats[self.decisions[index].seat]
        return None

    def _changed_hands(self) -> bool:
        """Whether ``holders`` says more than ``seats``: some decision's holder is not its
        seat's holder at the end."""
        if not self.holders or not self.seats:
            return bool(self.holders)
        return any(
            holder != self.seats[d.seat] for holder, d in zip(self.holders, self.decisions, strict=True)
        )

    def to_json(self, catalogue: Catalogue | None = None) -> dict[str, Any]:
        cat = catalogue or load_catalogue()
        return {
            "format": FORMAT,
            "version": VERSION,
            "rules_edition": RULES_EDITION,
            "seed": self.seed,
            "config": self.config.to_dict(),
            "house_rules": self.config.house_rules.to_dict(),
            "decisions": [intent_to_json(d, cat) for d in self.decisions],
            "final_hash": self.final_hash,
            **({"seats": list(self.seats)} if self.seats else {}),
            **({"holders": list(self.holders)} if self._changed_hands() else {}),
        }

    def save(self, path: str | os.PathLike[str], catalogue: Catalogue | None = None) -> None:
        """Write the file atomically: a crash mid-write leaves the old file whole."""
        write_atomically(path, json.dumps(self.to_json(catalogue), indent=1) + "\n")

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
    data = _checked_header(data, source, "replay", FORMAT, VERSION, _KEYS, _OPTIONAL_KEYS)
    seed = data["seed"]
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= 0xFFFFFFFF:
        raise ReplayError(f"{source}: seed must be an integer in 0..4294967295, got {shown_value(seed)}")
    config = _config(data, source)
    decisions = data["decisions"]
    if not isinstance(decisions, list):
        raise ReplayError(f"{source}: decisions must be a list, got {type(decisions).__name__}")
    intents: list[Intent] = []
    for i, item in enumerate(decisions):
        try:
            intents.append(intent_from_json(item, cat))
        except ValueError as err:
            raise ReplayError(f"{source}: decisions[{i}]: {cut_line(err)}") from None
    final_hash = data["final_hash"]
    if not isinstance(final_hash, str) or not _HEX64.fullmatch(final_hash):
        raise ReplayError(
            f"{source}: final_hash must be a 64-character hex string, got {shown_value(final_hash)}"
        )
    seats = data.get("seats", [])
    if (
        not isinstance(seats, list)
        or (seats and len(seats) != config.offices)
        or not all(isinstance(s, str) and s for s in seats)
    ):
        raise ReplayError(
            f"{source}: seats must list one non-empty name per seat ({config.offices}), "
            f"got {shown_value(seats)}"
        )
    holders = data.get("holders", [])
    if not isinstance(holders, list):
        raise ReplayError(
            f"{source}: holders must be a list, one name per decision, got {type(holders).__name__}"
        )
    if holders and len(holders) != len(intents):
        raise ReplayError(
            f"{source}: holders names {len(holders)} holder(s) for {len(intents)} decision(s): "
            "it must name one per decision"
        )
    for i, holder in enumerate(holders):
        if not isinstance(holder, str) or not holder:
            raise ReplayError(f"{source}: holders[{i}] must be a non-empty name, got {shown_value(holder)}")
    return Replay(seed, config, tuple(intents), final_hash, tuple(seats), tuple(holders))


def load_replay(path: str | os.PathLike[str], catalogue: Catalogue | None = None) -> Replay:
    return parse_replay(_read_json(path), catalogue, str(path))


def position_to_json(state: GameState) -> dict[str, Any]:
    return {
        "format": POSITION_FORMAT,
        "version": POSITION_VERSION,
        "rules_edition": RULES_EDITION,
        "config": state.config.to_dict(),
        "house_rules": state.config.house_rules.to_dict(),
        "state": state.snapshot(),
        "hash": state.state_hash(),
    }


def save_position(state: GameState, path: str | os.PathLike[str]) -> None:
    """Write one state as a position file, to be rebuilt by ``load_position`` (atomically)."""
    write_atomically(path, json.dumps(position_to_json(state), indent=1) + "\n")


def write_atomically(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write ``data`` (text is written as UTF-8) to a temporary file beside ``path``, flush it
    to disk, then rename it over ``path``: readers see the old file or the new one, never a part."""
    target = Path(path)
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        os.chmod(temp, _file_mode(target))  # mkstemp makes it 0600; keep the usual permissions
        with os.fdopen(fd, "wb") as out:
            out.write(data.encode("utf-8") if isinstance(data, str) else data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def parse_position(data: object, catalogue: Catalogue | None = None, source: str = "position") -> GameState:
    """The state a position holds, validated; its hash must be the one recorded."""
    data = _checked_header(data, source, "position", POSITION_FORMAT, POSITION_VERSION, _POSITION_KEYS)
    config = _config(data, source)
    recorded = data["hash"]
    if not isinstance(recorded, str) or not _HEX64.fullmatch(recorded):
        raise ReplayError(f"{source}: hash must be a 64-character hex string, got {shown_value(recorded)}")
    try:
        state = load_snapshot(data["state"], config, catalogue)
    except SnapshotError as err:
        raise SnapshotError(f"{source}: {err}") from None
    actual = state.state_hash()
    if actual != recorded:
        raise ReplayError(
            f"{source}: position hash mismatch: the file records {recorded}, the state gives {actual}"
        )
    return state


def load_position(path: str | os.PathLike[str], catalogue: Catalogue | None = None) -> GameState:
    return parse_position(_read_json(path), catalogue, str(path))


def _checked_header(
    data: object,
    source: str,
    what: str,
    fmt: str,
    version: int,
    keys: tuple[str, ...],
    optional: tuple[str, ...] = (),
) -> dict[str, Any]:
    """A JSON object of the given format and version with exactly ``keys``, and any of
    ``optional``."""
    if not isinstance(data, dict):
        raise ReplayError(f"{source}: a {what} must be a JSON object, got {type(data).__name__}")
    if data.get("format") != fmt:
        raise ReplayError(
            f"{source}: not a Station Master {what} "
            f"(format must be {fmt!r}, got {shown_value(data.get('format'))})"
        )
    if data.get("version") == 1:  # written before rules editions were recorded
        raise ReplayError(_edition_message(source, what, 1))
    if data.get("version") != version:
        raise ReplayError(
            f"{source}: unsupported {what} version {shown_value(data.get('version'))} "
            f"(this build reads {version})"
        )
    edition = data.get("rules_edition")
    if edition != RULES_EDITION:
        if not isinstance(edition, int) or isinstance(edition, bool) or edition < 1:
            raise ReplayError(
                f"{source}: rules_edition must be a positive integer, got {shown_value(edition)}"
            )
        raise ReplayError(_edition_message(source, what, edition))
    missing = [k for k in keys if k not in data]
    unknown = sorted(str(key) for key in set(data) - set(keys) - set(optional))
    if missing:
        raise ReplayError(f"{source}: missing key(s): {', '.join(missing)}")
    if unknown:
        raise ReplayError(f"{source}: unknown key(s): {cut_line(', '.join(unknown))}")
    return data


def _file_mode(target: Path) -> int:
    """The old file's permissions, or those a new file gets under the umask."""
    try:
        return target.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _edition_message(source: str, what: str, edition: int) -> str:
    return (
        f"{source}: this {what} was made under rules edition {edition}; this build plays rules "
        f"edition {RULES_EDITION}, whose games differ (docs/rules.md, section 1.5), so it cannot "
        f"be replayed here: use a build of rules edition {edition}"
    )


def _config(data: dict[str, Any], source: str) -> GameConfig:
    try:
        return GameConfig.from_dict(data["config"], HouseRules.from_dict(data["house_rules"]))
    except ConfigError as err:
        raise ReplayError(f"{source}: {cut_line(err)}") from None


def _read_json(path: str | os.PathLike[str]) -> object:
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReplayError(f"{source}: no such file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ReplayError(f"{source}: cannot read the file: {err}") from None
    try:
        data = decode_json(text)
    except json.JSONDecodeError as err:
        raise ReplayError(
            f"{source}: not valid JSON: {err.msg} at line {err.lineno}, column {err.colno}"
        ) from None
    except ValueError as err:  # a key twice, NaN, nesting too deep, a 5000-digit number
        raise ReplayError(f"{source}: not a usable JSON document: {err}") from None
    return data
