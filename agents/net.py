"""The search's network: a policy over the v1 tokens and a value per seat, on the v1 observation.

One trunk of ReLU layers over a seat's ``StationMaster-v1`` observation (encoded from a
board exactly as the env does), then three heads:

- ``policy``: a logit per v1 token. An intent's logit is the sum of its spelling's token
  logits (``TokenTable.spell``); the prior over the legal intents is their softmax. One
  forward pass prices every legal intent, however it is spelled.
- ``win``: a logit per seat, in the observation's relative order (0 is the seat observing,
  then the seats after it); its softmax is the chance that each seat wins (a shared top
  counts as a share of a win).
- ``margin``: per seat, the final revenue less the mean of the other seats' (co-op: the
  team's total less the target: ``seat_margins``), divided by ``MARGIN_SCALE``.

The file is a ``.npz`` of the arrays and its metadata as JSON (format, rules edition, office
count, observation and token sizes, the layers, the command that trained it). Inference is
numpy, so a bot that uses it needs neither torch nor a training install.
"""

from __future__ import annotations

import json
import math
import zipfile
import zlib
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from sm_env.actions_v1 import TokenTable, token_table
from sm_env.core import RULES_EDITION, GameState, Intent, Mode, SeatView, decode_json, shown_value
from sm_env.observations_v1 import ObservationEncoderV1

FORMAT = 1
MARGIN_SCALE = 4.0  # revenue points per unit of the margin head: a typical lead at 3 offices
SHIPPED = "station_master_net_3offices.npz"  # in agents/data/
HEADS = ("policy", "win", "margin")
# What a network or policy file may claim, checked before anything is allocated: the shipped
# files hold 7 and 9 arrays and about 12 MB; a file claiming more is broken or hostile.
MAX_ARRAYS = 64
MAX_ARRAY_BYTES = 512 * 2**20  # all the arrays together


class NetFileError(ValueError):
    """A network file is missing, malformed or made for other spaces or rules."""


_BLAS: list[Any] = []  # the process's one ThreadpoolController, made on first use


def one_blas_thread() -> Any:
    """A context in which numpy's BLAS runs on one thread. A network's products are small:
    split over threads they run many times slower, worst when every core is busy (a
    tournament's workers), so the bots' forward passes run inside one."""
    if not _BLAS:
        from threadpoolctl import ThreadpoolController

        _BLAS.append(ThreadpoolController())
    return _BLAS[0].limit(limits=1, user_api="blas")


def shipped_net_path() -> Path:
    """The network shipped with the package (agents/data/)."""
    return Path(str(resources.files("agents") / "data" / SHIPPED))


class Net:
    """The network's arrays and the numpy forward pass."""

    def __init__(
        self,
        trunk: list[tuple[np.ndarray, np.ndarray]],
        heads: dict[str, tuple[np.ndarray, np.ndarray]],
        meta: dict[str, Any],
    ) -> None:
        self.trunk = trunk
        self.heads = heads
        self.meta = meta
        self.obs_size = int(trunk[0][0].shape[1])
        self.tokens = int(heads["policy"][0].shape[0])
        self.seats = int(heads["win"][0].shape[0])

    @classmethod
    def load(cls, path: str | Path) -> Net:
        meta, arrays = read_arrays(path, NetFileError, "network file", FORMAT, "net")
        count = layer_count(meta, "trunk_layers", path, NetFileError)
        names = [f"trunk_{x}{i}" for i in range(count) for x in "wb"] + [
            f"{h}_{x}" for h in HEADS for x in "wb"
        ]
        matrices = weight_arrays(arrays, names, path, NetFileError)
        trunk = [(matrices[f"trunk_w{i}"], matrices[f"trunk_b{i}"]) for i in range(count)]
        heads = {h: (matrices[f"{h}_w"], matrices[f"{h}_b"]) for h in HEADS}
        width = None
        for i, (w, b) in enumerate(trunk):
            if w.ndim != 2 or w.size == 0 or b.shape != (w.shape[0],) or w.shape[1] != (width or w.shape[1]):
                raise NetFileError(f"{path}: trunk layer {i} has shapes {w.shape} and {b.shape}")
            width = w.shape[0]
        for h, (w, b) in heads.items():
            if w.ndim != 2 or w.size == 0 or b.shape != (w.shape[0],) or w.shape[1] != width:
                raise NetFileError(f"{path}: head {h} has shapes {w.shape} and {b.shape}")
        if heads["margin"][0].shape[0] != heads["win"][0].shape[0]:
            raise NetFileError(f"{path}: the win and margin heads disagree on the seats")
        return cls(trunk, heads, meta)

    def save(self, path: str | Path) -> None:
        save_arrays(path, self.trunk, self.heads, self.meta)

    def forward(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(token logits, win logits, margins) for one observation."""
        x = obs
        for w, b in self.trunk:
            x = np.maximum(w @ x + b, 0.0)
        (pw, pb), (ww, wb), (mw, mb) = (self.heads[h] for h in HEADS)
        return pw @ x + pb, ww @ x + wb, mw @ x + mb


# ---------------------------------------------------------------------------- reading the files


_LOADED: dict[tuple[str, int], Any] = {}  # network and policy files read once per process


def load_once(path: str, load: Callable[[str], Any], error: type[ValueError], what: str) -> Any:
    """``load(path)``, read once per process (shared by every bot) and again when the file
    changes; ``error`` naming the ``what`` when there is no file."""
    try:
        key = (path, Path(path).stat().st_mtime_ns)
    except OSError:
        raise error(f"no {what} at {path}") from None
    if key not in _LOADED:
        _LOADED[key] = load(path)
    return _LOADED[key]


def load_net(path: str) -> Net:
    """The network at ``path`` (``"shipped"``: the one in agents/data/), read once per process
    and again when the file changes."""
    resolved = str(shipped_net_path()) if path == "shipped" else path
    net: Net = load_once(resolved, Net.load, NetFileError, "network file")
    return net


def read_arrays(
    path: str | Path, error: type[ValueError], what: str, fmt: int, kind: str | None = None
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The metadata (the JSON object in the array ``meta``: of format ``fmt``, ``kind`` if
    given, and this build's rules edition) and the other arrays of a network or policy file,
    an .npz. Each array's header is read and checked (numbers, its size agreeing with the bytes
    stored, all of them within ``MAX_ARRAY_BYTES``) before its data is read, so a file
    claiming gigabytes is refused without allocating them. ``error`` names the file and what
    is wrong."""
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
            if len(members) > MAX_ARRAYS:
                raise error(f"{path}: holds {len(members)} entries; a {what} holds at most {MAX_ARRAYS}")
            arrays: dict[str, np.ndarray] = {}
            room = MAX_ARRAY_BYTES
            for info in members:
                name = info.filename.removesuffix(".npy")
                if name in arrays:
                    raise error(f"{path}: holds the array {shown_value(name)} twice")
                arrays[name] = _read_member(archive, info, room, path, error, what)
                room -= arrays[name].nbytes
    except FileNotFoundError:
        raise error(f"no {what} at {path}") from None
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as err:
        raise error(f"{path} is not a {what}: not a whole .npz archive ({str(err)[:120]})") from None
    except OSError as err:
        raise error(f"{path}: cannot read the {what}: {err.strerror or err}") from None
    meta = arrays.pop("meta", None)
    if meta is None or meta.dtype.kind != "U" or meta.shape != ():
        raise error(f"{path} is not a {what}: it has no metadata (a text array 'meta')")
    try:
        data = decode_json(str(meta[()]))
    except ValueError as err:
        raise error(f"{path}: its metadata is not JSON: {str(err)[:120]}") from None
    if not isinstance(data, dict):
        raise error(f"{path}: its metadata must be a JSON object, got {type(data).__name__}")
    if data.get("format") != fmt or data.get("kind", None) != kind:
        raise error(f"{path}: {what} format {shown_value(data.get('format'))}, this build reads {fmt}")
    if data.get("rules_edition") != RULES_EDITION:
        raise error(
            f"{path} was trained under rules edition {shown_value(data.get('rules_edition'))}; "
            f"this build plays rules edition {RULES_EDITION}"
        )
    return data, arrays


def _read_member(
    archive: zipfile.ZipFile,
    info: zipfile.ZipInfo,
    room: int,
    path: str | Path,
    error: type[ValueError],
    what: str,
) -> np.ndarray:
    name = info.filename
    if not name.endswith(".npy"):
        raise error(f"{path}: {shown_value(name)} is not an array (.npy) of a {what}")
    if info.flag_bits & 0x1:  # zipfile would raise RuntimeError asking for a password
        raise error(f"{path}: {shown_value(name)} is encrypted; a {what} is not")
    with archive.open(info) as member:
        try:
            version = np.lib.format.read_magic(member)
            if version not in _HEADERS:
                raise ValueError(f".npy format version {version} (this build reads 1.0 and 2.0)")
            shape, fortran, dtype = _HEADERS[version](member)
        except ValueError as err:
            raise error(f"{path}: {name} is not a readable .npy array ({str(err)[:120]})") from None
        if dtype.kind not in "fiuU" or dtype.itemsize == 0 or any(side < 0 for side in shape):
            raise error(f"{path}: {name} holds {dtype} {shape}; a {what} holds arrays of numbers")
        size = math.prod(shape) * dtype.itemsize
        if size > room:
            raise error(
                f"{path}: {name} claims {shape} of {dtype} ({size} bytes): more than a {what} "
                f"holds ({MAX_ARRAY_BYTES} bytes in all)"
            )
        stored = info.file_size - member.tell()
        if size != stored:
            raise error(f"{path}: {name} claims {size} bytes of data but holds {stored}")
        data = member.read(size + 1)
    if len(data) != size:
        raise error(f"{path}: {name} is cut short")
    return np.frombuffer(data, dtype).reshape(shape, order="F" if fortran else "C")


def layer_count(meta: dict[str, Any], key: str, path: str | Path, error: type[ValueError]) -> int:
    """The number of layers the metadata gives under ``key`` (at least one)."""
    count = meta.get(key)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_ARRAYS // 2:
        limit = MAX_ARRAYS // 2
        raise error(
            f"{path}: its metadata's {key} must be a layer count 1..{limit}, got {shown_value(count)}"
        )
    return count


def weight_arrays(
    arrays: dict[str, np.ndarray], names: list[str], path: str | Path, error: type[ValueError]
) -> dict[str, np.ndarray]:
    """The arrays ``names`` as float32, each present, finite, and no other array in the file."""
    missing = [name for name in names if name not in arrays]
    if missing:
        raise error(f"{path}: has no array {missing[0]}")
    unknown = sorted(set(arrays) - set(names))
    if unknown:
        raise error(f"{path}: unknown array(s) {shown_value(', '.join(unknown))}")
    out: dict[str, np.ndarray] = {}
    for name in names:
        if arrays[name].dtype.kind == "U":
            raise error(f"{path}: {name} holds text, not numbers")
        with np.errstate(over="ignore"):  # a float64 too large for float32 becomes inf, refused below
            out[name] = arrays[name].astype(np.float32)
        if not np.isfinite(out[name]).all():
            raise error(f"{path}: {name} holds NaN or infinite values")
    return out


_HEADERS = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}


def save_arrays(
    path: str | Path,
    trunk: list[tuple[np.ndarray, np.ndarray]],
    heads: dict[str, tuple[np.ndarray, np.ndarray]],
    meta: dict[str, Any],
) -> None:
    """Write a network file (atomically); ``meta`` gains the format, the rules edition and the
    layer count."""
    arrays: dict[str, np.ndarray] = {}
    for i, (w, b) in enumerate(trunk):
        arrays[f"trunk_w{i}"], arrays[f"trunk_b{i}"] = w.astype(np.float32), b.astype(np.float32)
    for h in HEADS:
        w, b = heads[h]
        arrays[f"{h}_w"], arrays[f"{h}_b"] = w.astype(np.float32), b.astype(np.float32)
    full = {
        **meta,
        "kind": "net",
        "format": FORMAT,
        "rules_edition": RULES_EDITION,
        "trunk_layers": len(trunk),
    }
    arrays["meta"] = np.array(json.dumps(full, sort_keys=True))
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")  # a file at ``path`` is always whole
    with open(partial, "wb") as out:
        np.savez_compressed(out, allow_pickle=False, **arrays)
    partial.replace(target)


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max())
    out: np.ndarray = e / e.sum()
    return out


def seat_margins(state: GameState, revenue: list[float]) -> list[float]:
    """Each seat's revenue less the mean of the others' (co-op: the team's total less the
    target, for every seat; one seat alone: its revenue)."""
    n = state.n
    if state.config.mode is Mode.COOP:
        return [sum(revenue) - float(state.config.target_revenue or 0)] * n
    if n == 1:
        return [revenue[0]]
    total = sum(revenue)
    return [r - (total - r) / (n - 1) for r in revenue]


def win_shares(state: GameState) -> list[float]:
    """Each seat's share of the win of a finished game (a shared top shares it; co-op: the
    team wins or nobody)."""
    winners = state.winners()
    if state.config.mode is Mode.COOP:
        return [1.0 if winners else 0.0] * state.n
    return [1.0 / len(winners) if s in winners else 0.0 for s in range(state.n)]


class NetEvaluator:
    """A network read on boards: priors over legal intents and each seat's values.

    ``evaluate`` encodes the acting seat's observation of a board (a playable determinization
    or a view's board: only what that seat sees is read), so a search calling it on a
    determinized state never reads more than the seat it sampled for.
    """

    def __init__(self, net: Net) -> None:
        self.net = net
        self._table: TokenTable | None = None
        self._encoder: ObservationEncoderV1 | None = None
        self._obs = np.zeros(net.obs_size, dtype=np.float32)

    def spaces(self, state: GameState) -> tuple[TokenTable, ObservationEncoderV1]:
        if self._encoder is None or self._encoder.config.offices != state.config.offices:
            table = token_table(state.config, state.catalogue)
            encoder = ObservationEncoderV1(state.config, state.catalogue, table)
            if (encoder.size, table.size, state.n) != (self.net.obs_size, self.net.tokens, self.net.seats):
                raise NetFileError(
                    f"the network was trained for {self.net.meta.get('offices', '?')} offices "
                    f"(observation {self.net.obs_size}, {self.net.tokens} tokens); this game has "
                    f"{state.config.offices} offices (observation {encoder.size}, {table.size} tokens)"
                )
            self._table, self._encoder = table, encoder
            self._obs = np.zeros(encoder.size, dtype=np.float32)
        assert self._table is not None
        return self._table, self._encoder

    def observe(self, state: GameState, seat: int) -> np.ndarray:
        """The seat's v1 observation of ``state`` (at the start of a decision)."""
        _, encoder = self.spaces(state)
        return encoder.encode(state, seat, None, self._obs)

    def heads(self, state: GameState, seat: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(token logits, win chances, margins), the last two by absolute seat."""
        logits, win, margin = self.net.forward(self.observe(state, seat))
        order = [(s - seat) % state.n for s in range(state.n)]  # absolute seat -> relative
        return logits, softmax(win)[order], margin[order]

    def intent_logits(self, logits: np.ndarray, state: GameState, legal: list[Intent]) -> np.ndarray:
        table, _ = self.spaces(state)
        return np.array([float(logits[list(sp)].sum()) for sp, _ in table.spell_all(legal)])

    def evaluate(
        self, state: GameState, seat: int, legal: list[Intent]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(prior over ``legal``, win chance per seat, margin per seat) from ``seat``'s view."""
        logits, win, margin = self.heads(state, seat)
        return softmax(self.intent_logits(logits, state, legal)), win, margin


def win_chances(view: SeatView, evaluator: NetEvaluator) -> tuple[float, ...]:
    """Each seat's chance to win as ``view``'s seat can judge it (its own view only)."""
    with one_blas_thread():
        _, win, _ = evaluator.heads(view.board, view.seat)
    return tuple(float(p) for p in win)


def table_win_chances(state: GameState, evaluator: NetEvaluator) -> tuple[float, ...]:
    """Each seat's chance to win for someone watching the whole table (a replay, a finished
    game): the mean of every seat's own estimate, each read from that seat's view. Exact
    once the game is over (the winners share the win; co-op: the team wins or nobody)."""
    n = state.n
    if state.is_terminal():
        return tuple(win_shares(state))
    total = np.zeros(n)
    with one_blas_thread():
        for seat in range(n):
            total += evaluator.heads(state.view(seat).board, seat)[1]
    return tuple(float(p) for p in total / n)


__all__ = [
    "MARGIN_SCALE",
    "Net",
    "NetEvaluator",
    "NetFileError",
    "layer_count",
    "load_net",
    "one_blas_thread",
    "read_arrays",
    "save_arrays",
    "seat_margins",
    "shipped_net_path",
    "softmax",
    "table_win_chances",
    "weight_arrays",
    "win_chances",
    "win_shares",
]
