"""The MCTS bot: information-set Monte Carlo tree search from its own seat view.

One tree per decision, for the seat deciding (single-observer IS-MCTS). Each iteration

1. deals what the seat cannot see afresh (``view.determinize`` from the bot's seeded ``Rng``:
   the other hands, the Home Office and the dice stream), so chance is sampled too;
2. walks down the tree from the root, a node per history of decisions, by PUCT for the seat
   acting there: ``Q + c_puct * P * sqrt(A) / (1 + N)``, where ``Q`` is that seat's mean value
   through the edge, ``P`` the prior renormalised over the intents legal in this deal, ``N``
   the edge's visits and ``A`` how often it was available (an opponent's options depend on
   the hand it was dealt, so an edge counts only the iterations in which it was legal);
   decisions with one legal intent are applied without a node;
3. expands the first node it reaches for the first time and values it, for every seat: with
   a network (``net``), its win and margin heads and its policy as the prior; without, a
   rollout of the ``passenger`` bot at every seat for ``horizon`` Stage ends and the
   heuristic's choice as the prior (``leaf=prospects`` values the position as it stands);
4. backs that value vector up the path; each seat's decisions maximise its own component.

Values are utilities in 0..1: ``w_win`` times the chance to win (exact at the game's end,
a shared top shares the win; co-op: the team wins or nobody) plus ``1 - w_win`` times
``(1 + tanh(margin / MARGIN_SCALE)) / 2``, the margin being the seat's revenue less the mean of
the others' (co-op: the team's total less the target), with the ``prospects`` potential added
to revenue when a rollout stops short. Without a network a cut rollout has no win chance to
read, so its value is the margin part alone.

The root's most visited intent is played (``temperature`` > 0 samples by visits instead,
and ``noise`` mixes Dirichlet noise into the root's prior: both for self-play). It never reads
the game state: ``choose`` gets a ``SeatView``; everything hidden is sampled.
"""

from __future__ import annotations

import math
import time
from typing import Any, ClassVar

import numpy as np

from agents.net import (
    MARGIN_SCALE,
    NetEvaluator,
    load_net,
    one_blas_thread,
    seat_margins,
    win_shares,
)
from agents.passenger import PassengerBot
from agents.search import play_passengers
from sm_env.core import GameState, Intent, Rng, SeatView
from sm_env.shaping import prospects

_MASK = 0xFFFFFFFF
LEAVES = ("net", "rollout", "prospects")  # how a new node is valued
MAX_WALK_STEPS = 5000  # a guard: a whole 5-day game at 6 offices takes fewer decisions


class _Edge:
    __slots__ = ("prior", "visits", "avail", "total", "child")

    def __init__(self, prior: float, seats: int) -> None:
        self.prior = prior
        self.visits = 0
        self.avail = 0
        self.total = [0.0] * seats  # the sum of the values backed up through it, per seat
        self.child: _Node | None = None


class _Node:
    __slots__ = ("edges", "visits", "total")

    def __init__(self, seats: int) -> None:
        self.edges: dict[Intent, _Edge] = {}
        self.visits = 0
        self.total = [0.0] * seats


def margin_utility(margin: float) -> float:
    """A revenue margin as a utility in 0..1 (``MARGIN_SCALE`` points is most of the way)."""
    return 0.5 * (1.0 + math.tanh(margin / MARGIN_SCALE))


def outcome_values(state: GameState, w_win: float, cut: bool) -> list[float]:
    """Each seat's utility at ``state``: exact at the game's end; when ``cut`` short, each
    seat's ``prospects`` count as revenue and only the margin part is read."""
    revenue = [float(r) for r in state.revenue_by_seat]
    if cut:
        revenue = [r + prospects(state, s) for s, r in enumerate(revenue)]
    margins = [margin_utility(m) for m in seat_margins(state, revenue)]
    if cut:
        return margins
    wins = win_shares(state)
    return [w_win * w + (1.0 - w_win) * m for w, m in zip(wins, margins, strict=True)]


class MCTSBot:
    """IS-MCTS bot (see the module docstring).

    Parameters (constructor keywords, defaults in ``DEFAULTS``):

    - ``iterations`` (200): iterations per decision, the deterministic budget.
    - ``seconds`` (0.0): when > 0, also stop once this much wall time is spent on the decision
      (at least one iteration runs). Timing makes choices depend on the machine.
    - ``net`` (""): a network file (``agents.net``) for priors and leaf values; ``"shipped"``
      is the one in agents/data/. Empty: heuristic priors and rollouts.
    - ``leaf`` (""): how a new node is valued: ``net`` (the network's heads; the default with a
      network), ``rollout`` (the default without), or ``prospects`` (no rollout: the position
      as it stands, each seat's ``prospects`` counted as revenue). The prior is the network's
      whenever there is one.
    - ``c_puct`` (1.5): the weight of the prior against the values found.
    - ``w_win`` (0.5): the weight of the chance to win in a value (the rest is the margin's).
    - ``horizon`` (1): without a network, Stage ends a leaf rollout plays through (the rest of
      this Stage counts as one); 0 plays to the end of the game.
    - ``prior_weight`` (0.5): without a network, the prior mass on the heuristic's choice; the
      rest is spread evenly over every legal intent.
    - ``noise`` (0.0), ``noise_alpha`` (0.3): the share of Dirichlet(``noise_alpha``) noise
      mixed into the root's prior.
    - ``temperature`` (0.0): 0 plays the most visited intent; above 0 samples in proportion to
      ``visits ** (1 / temperature)``.

    After each decision: ``last_visits`` (root visits per legal intent), ``last_values`` (the
    root's mean value per seat: with ``w_win`` 1, each seat's chance to win as this seat sees
    it), ``last_iterations`` and ``reason``.
    """

    name: str = "mcts"
    version: str = "1"
    DEFAULTS: ClassVar[dict[str, int | float | str]] = {
        "iterations": 200,
        "seconds": 0.0,
        "net": "",
        "c_puct": 1.5,
        "w_win": 0.5,
        "leaf": "",
        "horizon": 1,
        "prior_weight": 0.5,
        "noise": 0.0,
        "noise_alpha": 0.3,
        "temperature": 0.0,
    }
    _INTS: ClassVar[tuple[str, ...]] = ("iterations", "horizon")

    def __init__(self, seed: int, **params: Any) -> None:
        unknown = sorted(set(params) - set(self.DEFAULTS))
        if unknown:
            raise TypeError(f"MCTSBot has no parameter(s) {', '.join(unknown)}")
        merged = {**self.DEFAULTS, **params}
        for key in self._INTS:
            value = merged[key]
            if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value:
                raise ValueError(f"{key} must be an integer, got {value!r}")
            merged[key] = int(value)
        if merged["iterations"] < 1:
            raise ValueError("iterations must be at least 1")
        for key in ("seconds", "horizon", "c_puct", "noise_alpha", "temperature"):
            if merged[key] < 0:
                raise ValueError(f"{key} must not be negative, got {merged[key]!r}")
        for key in ("w_win", "prior_weight", "noise"):
            if not 0.0 <= float(merged[key]) <= 1.0:
                raise ValueError(f"{key} must be within 0..1, got {merged[key]!r}")
        self.params: dict[str, Any] = merged
        self.iterations = int(merged["iterations"])
        self.seconds = float(merged["seconds"])
        self.c_puct = float(merged["c_puct"])
        self.w_win = float(merged["w_win"])
        self.horizon = int(merged["horizon"])
        self.prior_weight = float(merged["prior_weight"])
        self.noise = float(merged["noise"])
        self.noise_alpha = float(merged["noise_alpha"])
        self.temperature = float(merged["temperature"])
        leaf = str(merged["leaf"]) or ("net" if merged["net"] else "rollout")
        if leaf not in LEAVES or (leaf == "net" and not merged["net"]):
            raise ValueError(f"leaf must be one of {', '.join(LEAVES)} (net needs a net file), got {leaf!r}")
        self.leaf = leaf
        self.evaluator = NetEvaluator(load_net(str(merged["net"]))) if merged["net"] else None
        self.seed = seed & _MASK
        self.rng = Rng(self.seed)
        self.prior_bot = PassengerBot(self.rng.next_u32())
        self._rollout_memo: dict[tuple[object, ...], Any] = {}  # shared by every rollout bot
        self.last_visits: dict[Intent, int] = {}
        self.last_values: tuple[float, ...] = ()
        self.last_iterations = 0
        self.reason: str | None = None

    # ------------------------------------------------------------------ the decision

    def choose(self, view: SeatView) -> Intent:
        legal = view.legal_intents()
        if not legal:
            raise ValueError(f"seat {view.seat} has no decision to make now")
        self.last_visits, self.last_values, self.last_iterations = {}, (), 0
        if len(legal) == 1:
            self.reason = "the only decision there is"
            return legal[0]
        with one_blas_thread():
            root = self.search(view)
        visits = [root.edges[i].visits if i in root.edges else 0 for i in legal]
        self.last_visits = dict(zip(legal, visits, strict=True))
        self.last_values = tuple(t / root.visits for t in root.total)
        best = self._pick(root, legal, visits)
        self.reason = self._explain(root, legal, visits, best, view.seat)
        return legal[best]

    def search(self, view: SeatView) -> _Node:
        """The tree of one decision, grown within the budgets."""
        start = time.perf_counter()
        root = _Node(view.board.n)
        noise_rng = np.random.default_rng(self.rng.next_u32()) if self.noise else None
        for done in range(self.iterations):
            if done and self.seconds and time.perf_counter() - start >= self.seconds:
                break
            self._iterate(view, root)
            if noise_rng is not None and done == 0:
                self._add_noise(root, noise_rng)
            self.last_iterations = done + 1
        return root

    def _iterate(self, view: SeatView, root: _Node) -> None:
        sim = view.determinize(Rng(self.rng.next_u32()))
        rollout_seed = self.rng.next_u32()
        node = root
        path: list[tuple[_Node, _Edge]] = []
        for _ in range(MAX_WALK_STEPS):
            legal = _advance(sim)
            if not legal:
                values = outcome_values(sim, self.w_win, cut=False)
                break
            actor = sim.current_player()
            fresh = node.visits == 0
            if fresh or any(i not in node.edges for i in legal):
                prior, leaf_values = self._evaluate(sim, actor, legal, fresh, rollout_seed)
                for intent, p in zip(legal, prior, strict=True):
                    if intent not in node.edges:
                        node.edges[intent] = _Edge(p, sim.n)
                if fresh:
                    values = leaf_values
                    break
            intent = legal[self._select(node, legal, actor)]
            sim.apply(intent, validate=False)
            chosen = node.edges[intent]
            path.append((node, chosen))
            if chosen.child is None:
                chosen.child = _Node(sim.n)
            node = chosen.child
        else:
            values = outcome_values(sim, self.w_win, cut=True)
        _add(node, values)
        for parent, edge in path:
            _add(parent, values)
            edge.visits += 1
            for s, v in enumerate(values):
                edge.total[s] += v

    def _select(self, node: _Node, legal: list[Intent], actor: int) -> int:
        """The index in ``legal`` of the edge PUCT picks for ``actor``; counts availability."""
        edges = [node.edges[i] for i in legal]
        prior_sum = sum(e.prior for e in edges) or 1.0
        first_play = node.total[actor] / node.visits  # an unvisited edge's value: the node's
        best, best_score = 0, -math.inf
        for index, edge in enumerate(edges):
            edge.avail += 1
            q = edge.total[actor] / edge.visits if edge.visits else first_play
            score = q + self.c_puct * (edge.prior / prior_sum) * math.sqrt(edge.avail) / (1 + edge.visits)
            if score > best_score:
                best, best_score = index, score
        return best

    def _evaluate(
        self, sim: GameState, actor: int, legal: list[Intent], value_needed: bool, rollout_seed: int
    ) -> tuple[list[float], list[float]]:
        """(prior over ``legal``, each seat's value) at a node; the value only when needed."""
        values: list[float] = []
        if self.evaluator is not None:
            net_prior, win, margin = self.evaluator.evaluate(sim, actor, legal)
            prior = [float(p) for p in net_prior]
            if self.leaf == "net":  # the margin head reads margins over MARGIN_SCALE
                values = [
                    self.w_win * float(w) + (1.0 - self.w_win) * margin_utility(float(m) * MARGIN_SCALE)
                    for w, m in zip(win, margin, strict=True)
                ]
        else:
            choice = self.prior_bot.choose(sim.view(actor))
            even = (1.0 - self.prior_weight) / len(legal)
            prior = [even + (self.prior_weight if intent == choice else 0.0) for intent in legal]
        if value_needed and not values:
            if self.leaf == "rollout":
                values = self._rollout(sim.clone(), rollout_seed)
            else:  # prospects: the position as it stands, what each seat can soon earn counted in
                values = outcome_values(sim, self.w_win, cut=True)
        return prior, values

    def _rollout(self, sim: GameState, seed: int) -> list[float]:
        """The passenger bot plays every seat for ``horizon`` Stage ends (0: to the end)."""
        stop = sim.stages_played + self.horizon if self.horizon else 1 << 30
        play_passengers(sim, stop, seed, self._rollout_memo)
        return outcome_values(sim, self.w_win, cut=not sim.is_terminal())

    def _add_noise(self, root: _Node, rng: np.random.Generator) -> None:
        edges = list(root.edges.values())
        for edge, eta in zip(edges, rng.dirichlet([self.noise_alpha] * len(edges)), strict=True):
            edge.prior = (1.0 - self.noise) * edge.prior + self.noise * float(eta)

    def _pick(self, root: _Node, legal: list[Intent], visits: list[int]) -> int:
        if self.temperature > 0:
            weights = np.array(visits, dtype=float) ** (1.0 / self.temperature)
            draw = (self.rng.next_u32() + 0.5) / 2**32 * weights.sum()
            return int(min(np.searchsorted(np.cumsum(weights), draw), len(legal) - 1))
        priors = [root.edges[i].prior if i in root.edges else 0.0 for i in legal]
        return max(range(len(legal)), key=lambda i: (visits[i], priors[i], -i))

    def _explain(self, root: _Node, legal: list[Intent], visits: list[int], best: int, seat: int) -> str:
        def value(i: int) -> float:
            edge = root.edges[legal[i]]
            return edge.total[seat] / edge.visits if edge.visits else 0.0

        runner = max((i for i in range(len(legal)) if i != best), key=lambda i: (visits[i], -i))
        return (
            f"searched {self.last_iterations} deals of the hidden cards: this was tried {visits[best]} "
            f"times and scored {value(best):.2f}, the next best {visits[runner]} times, {value(runner):.2f} "
            f"(1 is a sure win by a wide margin)"
        )


def _advance(sim: GameState) -> list[Intent]:
    """Apply decisions that have one legal intent; the next real choice (empty at the end)."""
    for _ in range(MAX_WALK_STEPS):
        if sim.is_terminal():
            return []
        legal = sim.legal_intents()
        if len(legal) > 1:
            return legal
        sim.apply(legal[0], validate=False)
    raise RuntimeError("a game ran past MAX_WALK_STEPS forced decisions")


def _add(node: _Node, values: list[float]) -> None:
    node.visits += 1
    for s, v in enumerate(values):
        node.total[s] += v


__all__ = ["MCTSBot", "margin_utility", "outcome_values"]
