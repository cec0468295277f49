"""A trained policy as a bot: the ``policy`` bot plays a MaskablePPO policy of the v1 spaces.

The policy file is a ``.npz`` of the actor's weights (``export_policy`` writes it from a
trained model) and its metadata as JSON: the office count and the space sizes it was trained
for, the network, the rules edition and the command that trained it. The forward pass is
numpy, so the bot needs neither torch nor Stable-Baselines3 and runs in the base install.

The bot sees only its seat: it encodes its own seat's v1 observation from ``view.board``
(the view's copy with every hidden card blanked) exactly as ``station_master_v1`` would, and
spells its decision token by token through the exact mask of ``view.legal_intents()``, so
every choice is legal. ``deterministic`` (default) takes the most likely token; otherwise a
token is drawn from the masked distribution with the bot's own seeded stream.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from agents.common import office_of, with_card_laid
from agents.dispatcher import DispatcherBot
from agents.freight import FreightBot
from agents.net import layer_count, load_once, one_blas_thread, read_arrays, softmax, weight_arrays
from agents.passenger import PassengerBot
from agents.safety import StationSafety
from sm_env.actions_v1 import Speller, TokenTable, token_table
from sm_env.core import (
    RULES_EDITION,
    DrawDepartment,
    DrawHomeOffice,
    Intent,
    Phase,
    PlaceCard,
    PlaceModifier,
    Rng,
    SeatView,
    write_atomically,
)
from sm_env.observations_v1 import ObservationEncoderV1

FORMAT = 1
# the policies in agents/data/, by the name a spec's ``path`` may give instead of a file
# (docs/training.md: "The shipped policy", "The distilled search shipped", "The search with
# the network, distilled")
SHIPPED_POLICIES = {
    "shipped": "station_master_v1_3offices.npz",
    "expert-clone": "station_master_v1_3offices_expert.npz",
    "search-net-clone": "station_master_v1_3offices_search_net.npz",
}
# what a guard's heuristic may decide beside the policy (``StationGuard``'s ``defer``)
DEFERRABLE = ("lay", "draw")
GUARDS: dict[str, type[StationSafety]] = {
    "freight": FreightBot,
    "passenger": PassengerBot,
    "dispatcher": DispatcherBot,
}


def shipped_policy_path(name: str = "shipped") -> Path:
    """A policy shipped with the package (agents/data/), by its name in ``SHIPPED_POLICIES``."""
    return Path(str(resources.files("agents") / "data" / SHIPPED_POLICIES[name]))


ENSEMBLE_SEPARATOR = "+"


def policy_path(path: str) -> Path:
    """The file ``path`` names: a shipped policy's name, or a file."""
    return shipped_policy_path(path) if path in SHIPPED_POLICIES else Path(path)


class PolicyFileError(ValueError):
    """A policy file is missing, malformed or made for other spaces or rules."""


def load_policy(path: str) -> PolicyNet | PolicyEnsemble:
    """The policy at ``path`` (or the shipped one it names), read once per process; several
    joined by ``+`` (``ENSEMBLE_SEPARATOR``) are played as one, a ``PolicyEnsemble``."""
    parts = path.split(ENSEMBLE_SEPARATOR)
    if len(parts) > 1:
        if not all(parts):
            raise PolicyFileError(f"{path!r} names an empty policy beside a {ENSEMBLE_SEPARATOR!r}")
        return PolicyEnsemble([_load_one(part) for part in parts], parts)
    return _load_one(path)


def _load_one(path: str) -> PolicyNet:
    net: PolicyNet = load_once(str(policy_path(path)), PolicyNet.load, PolicyFileError, "policy file")
    return net


class PolicyNet:
    """The actor of a MaskablePPO ``MlpPolicy``: tanh layers, then the action logits."""

    def __init__(self, weights: list[tuple[np.ndarray, np.ndarray]], meta: dict[str, Any]) -> None:
        self.layers = weights
        self.meta = meta
        self.obs_size = int(weights[0][0].shape[1])
        self.actions = int(weights[-1][0].shape[0])

    @classmethod
    def load(cls, path: str | Path) -> PolicyNet:
        meta, arrays = read_arrays(path, PolicyFileError, "policy file", FORMAT)
        count = layer_count(meta, "layers", path, PolicyFileError)
        matrices = weight_arrays(
            arrays, [f"{x}{i}" for i in range(count) for x in "wb"], path, PolicyFileError
        )
        weights = [(matrices[f"w{i}"], matrices[f"b{i}"]) for i in range(count)]
        width = None
        for i, (w, b) in enumerate(weights):
            if w.ndim != 2 or w.size == 0 or b.shape != (w.shape[0],) or w.shape[1] != (width or w.shape[1]):
                raise PolicyFileError(f"{path}: layer {i} has shapes {w.shape} and {b.shape}")
            width = w.shape[0]
        return cls(weights, meta)

    def logits(self, observation: np.ndarray) -> np.ndarray:
        x = observation
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            x = w @ x + b
            if i < last:
                x = np.tanh(x)
        return x


class PolicyEnsemble:
    """Policies of the same spaces played as one: the product of their distributions, that is
    their log-probabilities summed. Students of different teachers err on different states:
    the shipped two, multiplied, outplay each of them (docs/training.md, "Two distilled
    policies as one")."""

    def __init__(self, members: list[PolicyNet], names: list[str]) -> None:
        first = members[0]
        for net, name in zip(members[1:], names[1:], strict=True):
            if (net.obs_size, net.actions) != (first.obs_size, first.actions):
                raise PolicyFileError(
                    f"{name} (observation {net.obs_size}, {net.actions} tokens) cannot join {names[0]} "
                    f"(observation {first.obs_size}, {first.actions} tokens) in an ensemble"
                )
        self.members = members
        self.meta = first.meta
        self.obs_size = first.obs_size
        self.actions = first.actions

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """The summed log-softmax over every token: restricted to the legal ones it differs
        from the summed log-probabilities there by a constant, so picks and draws agree."""
        total = np.zeros(self.actions)
        for net in self.members:
            x = net.logits(observation)
            x = x - x.max()
            total += x - np.log(np.exp(x).sum())
        return total


def export_policy(policy: Any, path: str | Path, meta: dict[str, Any]) -> None:
    """Write the actor of an sb3-contrib ``MaskableActorCriticPolicy`` (an ``MlpPolicy`` with
    tanh activations and a flat observation) as a policy file, with ``meta`` beside it."""
    state = {k: v.detach().cpu().numpy() for k, v in policy.state_dict().items()}
    hidden = sorted(
        (int(k.split(".")[2]), k.rsplit(".", 1)[0])
        for k in state
        if k.startswith("mlp_extractor.policy_net.") and k.endswith(".weight")
    )
    names = [name for _, name in hidden] + ["action_net"]
    write_policy([(state[f"{name}.weight"], state[f"{name}.bias"]) for name in names], path, meta)


def write_policy(layers: list[tuple[np.ndarray, np.ndarray]], path: str | Path, meta: dict[str, Any]) -> None:
    """A policy file of an actor's ``(weight, bias)`` layers, tanh between them, the last giving
    the logits over the v1 tokens; ``meta`` beside them."""
    arrays: dict[str, np.ndarray] = {}
    for i, (weight, bias) in enumerate(layers):
        arrays[f"w{i}"] = weight.astype(np.float32)
        arrays[f"b{i}"] = bias.astype(np.float32)
    full = {**meta, "format": FORMAT, "rules_edition": RULES_EDITION, "layers": len(layers)}
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    arrays["meta"] = np.array(json.dumps(full, sort_keys=True))
    buffer = io.BytesIO()
    np.savez_compressed(buffer, allow_pickle=False, **arrays)
    write_atomically(target, buffer.getvalue())  # a run killed mid-write keeps the old file whole


class StationGuard:
    """A heuristic bot's station safety (``StationSafety``) standing in for another decider at
    the turns it would act in: Local Operations when its station is in danger (or has a parked
    train to bring back) and it has a plan or a RED FLAG to take, the switching turn that plan
    began, and, while its station has no siding, a card play of the heuristic's that lays
    track toward one (somewhere to park a train). ``decide`` gives its decision, or None to
    leave the turn to the other. ``kind`` names the heuristic (``GUARDS``), whose goals rank
    the clean-up plans and the card plays.

    ``defer`` names choices the heuristic also makes (``DEFERRABLE``): ``lay``, a card laid on
    the station (track, an industry or a Modifier) wherever it would lay one at a card play
    (its whole card play is weighed, and its choice stands only when it lays a card; this takes
    in the siding's track); ``draw``, which card is drawn once the other has chosen to draw in
    Local Operations (the Home Office's or a Department's top card, by the heuristic's value
    of each: ``draw``)."""

    def __init__(self, seed: int, kind: str = "freight", defer: Iterable[str] = ()) -> None:
        if kind not in GUARDS:
            raise ValueError(f"no station guard {kind!r} (known: {', '.join(GUARDS)})")
        self.defer = frozenset(defer)
        unknown = sorted(self.defer - set(DEFERRABLE))
        if unknown:
            raise ValueError(f"cannot defer {', '.join(unknown)} (known: {', '.join(DEFERRABLE)})")
        self.bot = GUARDS[kind](seed)
        self.reason: str | None = None

    def decide(self, view: SeatView, legal: list[Intent] | None = None) -> Intent | None:
        board = view.board
        legal = legal or view.legal_intents()
        if board.phase is Phase.LOCAL_OPS:
            options = self.bot.guard_station(view, board, legal, [])
            if options:
                self.reason = "its station guard: a collision foreseen, or a parked train to bring back"
                return max(options, key=lambda option: option[0])[1]
        elif board.phase is Phase.CARD_PLAY:
            if "lay" in self.defer:
                if any(isinstance(intent, PlaceCard | PlaceModifier) for intent in legal):
                    return self._laid(view)
                return None
            track = self._siding(view, legal)
            if track is not None:
                self.reason = "its station guard: track toward a siding to park a train on"
                return track
        elif board.phase is Phase.SWITCHING:
            steps, final = self.bot.remembered_plan(board, view.seat)
            if steps or final:
                intent = self.bot.switching(view, board, legal)
                self.reason = f"its station guard's plan: {self.bot.reason}"
                return intent
        return None

    def draw(self, view: SeatView, legal: list[Intent]) -> Intent | None:
        """With ``draw`` deferred, the card the heuristic would draw of those ``legal`` offers:
        the Home Office's or a Department's top card, the best by its value (the first on
        ties); else None."""
        if "draw" not in self.defer:
            return None
        options = self.bot.draw_options(view, view.board, legal)
        if not options:
            return None
        best = max(options, key=lambda option: option[0])  # max keeps the first of equals
        self.reason = "its heuristic's choice of the card to draw"
        return best[1]

    def _laid(self, view: SeatView) -> Intent | None:
        """The heuristic's card play if it lays a card on the station, else None (and no
        switching plan of its own kept for the turn: the other decides it)."""
        intent = self.bot.choose(view)
        if isinstance(intent, PlaceCard | PlaceModifier):
            self.reason = f"its heuristic's choice: {self.bot.reason}"
            return intent
        self.bot.forget_plan(view.seat)
        return None

    def _siding(self, view: SeatView, legal: list[Intent]) -> PlaceCard | None:
        """The heuristic's own card play, when its station has no siding yet and that play lays
        track toward one (``siding_value`` rises: a turnout the Office reaches, then the
        siding)."""
        board = view.board
        seat = view.seat
        before = self.bot.siding_value(board, board.stations[office_of(board, seat)], 1.0)
        if before >= 1.0 or not any(isinstance(intent, PlaceCard) for intent in legal):
            return None
        intent = self.bot.choose(view)
        if not isinstance(intent, PlaceCard):
            return None
        view.skip_determinize(self.bot.rng)  # the guard's stream moves on as a deal would move it
        after = with_card_laid(board, intent)
        gained = self.bot.siding_value(after, after.stations[office_of(after, seat)], 1.0) > before
        return intent if gained else None


class PolicyBot:
    """Plays a trained v1 policy on its seat's view.

    Parameters: ``path`` (a policy file or a shipped policy's name; empty: ``shipped``; several
    joined by ``+`` play as one, their distributions multiplied: ``PolicyEnsemble``),
    ``deterministic`` (True: the most likely token; False: sampled with the bot's seed),
    ``guard`` (a heuristic's name, ``freight``, ``passenger`` or ``dispatcher``: its station
    guard, ``StationGuard``, takes the turns in which it would act, the policy all the others;
    empty: none. A policy trained on revenue alone seldom parks a train before an arrival,
    docs/training.md), ``defer`` (with a guard: choices its heuristic makes wherever it would,
    several joined by ``+``: ``lay``, the cards laid on the station; ``draw``, which card a
    draw takes; empty: none. The policy plays the passenger half and leaves the
    freight layout to the heuristic, docs/training.md).
    """

    name = "policy"
    version = 1

    def __init__(
        self, seed: int, path: str = "", deterministic: bool = True, guard: str = "", defer: str = ""
    ) -> None:
        path = path or "shipped"
        self.path = policy_path(path)  # an ensemble's names, joined, name no shipped policy
        self._setup(seed, load_policy(path), deterministic, guard, defer)  # one read per process

    @classmethod
    def with_net(
        cls,
        seed: int,
        net: PolicyNet | PolicyEnsemble,
        path: str,
        deterministic: bool = True,
        guard: str = "",
        defer: str = "",
    ) -> PolicyBot:
        """A bot of a policy already loaded from ``path`` (many games, one load)."""
        bot = cls.__new__(cls)
        bot.path = Path(path)
        bot._setup(seed, net, deterministic, guard, defer)
        return bot

    def _setup(
        self, seed: int, net: PolicyNet | PolicyEnsemble, deterministic: bool, guard: str, defer: str
    ) -> None:
        if defer and not guard:
            raise ValueError(f"defer={defer} needs a guard, whose heuristic makes those choices")
        self.net = net
        self.deterministic = bool(deterministic)
        self.guard = StationGuard(seed, guard, filter(None, defer.split("+"))) if guard else None
        self.rng = Rng(seed & 0xFFFFFFFF)
        self.reason: str | None = None
        self._table: TokenTable | None = None
        self._encoder: ObservationEncoderV1 | None = None
        self._obs = np.zeros(self.net.obs_size, dtype=np.float32)

    def _spaces(self, view: SeatView) -> tuple[TokenTable, ObservationEncoderV1]:
        board = view.board
        if self._encoder is None or self._encoder.config.offices != board.config.offices:
            table = token_table(board.config, board.catalogue)
            encoder = ObservationEncoderV1(board.config, board.catalogue, table)
            if (encoder.size, table.size) != (self.net.obs_size, self.net.actions):
                trained = self.net.meta.get("offices", "?")
                raise PolicyFileError(
                    f"{self.path} was trained for {trained} offices (observation {self.net.obs_size}, "
                    f"{self.net.actions} tokens); this game has {board.config.offices} offices "
                    f"(observation {encoder.size}, {table.size} tokens)"
                )
            self._table, self._encoder, self._obs = table, encoder, np.zeros(encoder.size, dtype=np.float32)
        assert self._table is not None
        return self._table, self._encoder

    def choose(self, view: SeatView) -> Intent:
        legal = view.legal_intents()
        if not legal:
            raise ValueError(f"seat {view.seat} has no decision to make now")
        table, encoder = self._spaces(view)
        if len(legal) == 1:
            self.reason = "the only decision there is"
            return legal[0]
        if self.guard is not None:
            guarded = self.guard.decide(view, legal)
            if guarded is not None:
                self.reason = self.guard.reason
                return guarded
        speller = Speller(table.spell_all(legal))
        with one_blas_thread():
            intent = self._spell(view, speller, encoder)
        if self.guard is not None and isinstance(intent, DrawHomeOffice | DrawDepartment):
            draw = self.guard.draw(view, legal)
            if draw is not None:
                self.reason = self.guard.reason
                return draw
        return intent

    def _spell(self, view: SeatView, speller: Speller, encoder: ObservationEncoderV1) -> Intent:
        tokens = 0
        while True:
            options = list(speller.options())
            encoder.encode(view.board, view.seat, speller, self._obs)
            logits = self.net.logits(self._obs)[options]
            token = options[self._pick(logits)]
            tokens += 1
            intent = speller.advance(token)
            if intent is not None:
                self.reason = (
                    f"the policy's {'choice' if self.deterministic else 'draw'} in {tokens} token(s)"
                )
                return intent

    def _pick(self, logits: np.ndarray) -> int:
        if self.deterministic:
            return int(np.argmax(logits))
        p = softmax(logits)
        u = self.rng.next_u32() / 2**32
        return min(int(np.searchsorted(np.cumsum(p), u, side="right")), len(p) - 1)


__all__ = [
    "PolicyBot",
    "PolicyEnsemble",
    "PolicyFileError",
    "PolicyNet",
    "SHIPPED_POLICIES",
    "StationGuard",
    "export_policy",
    "load_policy",
    "policy_path",
    "shipped_policy_path",
    "write_policy",
]
