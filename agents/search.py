"""The search bot: determinized rollouts over its own seat view.

At each decision with more than one legal intent, the bot

1. asks a heuristic prior (by default the ``passenger`` bot, deciding on the same view) what it would
   choose and how it values the options, and keeps the prior's choice plus the next best
   options, ``top_k`` candidates in all;
2. deals the hidden cards at random (``view.determinize`` from its own seeded ``Rng``): one
   determinization per round, shared by every candidate of the round (common random numbers:
   the same hidden cards, the same dice stream and the same rollout bots' seeds);
3. on a clone of the round's determinization applies each candidate (and, in the switching
   turn a candidate starts or goes on with, the prior's remembered plan for it:
   ``follow_plan``) and lets the ``passenger`` bot play every seat (each on its own
   ``sim.view(seat)``) for ``horizon`` Stage ends, or to the end of the game;
4. scores the candidate: the seat's revenue change less ``rival`` times the best opponent's
   (co-op: the team's total change), plus, when the rollout stopped before the game's end,
   ``w_progress`` per Laborer step spent on loads still underway at the seat's office and
   ``w_prospects`` times the seat's ``prospects`` potential (what its position can still earn),
   blended, with a network (``net``), with the network's value of the cut-off position;
5. takes the best mean; the prior's choice stays unless another candidate beats it by more
   than ``margin`` (ties and near-ties go to the heuristic, so rollout noise does not override
   it for nothing).

It never reads the game state: ``choose`` gets a ``SeatView``, which holds no reference to the
state; everything hidden is sampled.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from contextlib import nullcontext
from typing import Any, ClassVar

from agents.base import Agent
from agents.common import HeuristicBot, cargo_progress, office_of
from agents.dispatcher import DispatcherBot
from agents.freight import FreightBot
from agents.net import MARGIN_SCALE, NetEvaluator, load_net, one_blas_thread, win_shares
from agents.passenger import PassengerBot
from agents.planning import station_key
from agents.policy import PolicyBot
from agents.safety import StationSafety
from sm_env.core import (
    MAX_OFFICES,
    OFFICE_CELL,
    CardKind,
    Discard,
    DrawDepartment,
    DrawHomeOffice,
    EndSwitching,
    EndTurn,
    GameState,
    Intent,
    Mode,
    MoveTray,
    Phase,
    PlaceCard,
    PlaceModifier,
    PlayCard,
    Rng,
    SeatView,
)
from sm_env.shaping import prospects

_MASK = 0xFFFFFFFF
MAX_ROLLOUT_STEPS = 5000  # a guard: a whole 5-day game at 6 offices takes fewer decisions


def play_passengers(
    sim: GameState, stop: int, seed: int, memo: dict[tuple[object, ...], Any], **params: float
) -> None:
    """A rollout: the passenger bot (with ``params``) plays every seat of ``sim`` (each on its
    own view, with its own seed from ``seed``) until ``stop`` Stages have been played or the
    game ends."""
    play_until(sim, stop, heuristic_bots(PassengerBot, sim.n, seed, memo, **params))


def heuristic_bots(
    kind: type[HeuristicBot], seats: int, seed: int, memo: dict[tuple[object, ...], Any], **params: float
) -> list[Agent]:
    """A rollout's bots of the heuristic ``kind`` (with ``params``), one a seat, each with its
    own seed from ``seed``. They share ``memo`` (one a kind): a station in danger recurs in
    rollout after rollout."""
    bots = [kind((seed + s * 0x9E3779B9) & _MASK, **params) for s in range(seats)]
    for bot in bots:
        bot.share_memo(memo)
    return list(bots)


def has_industry(board: GameState, seat: int) -> bool:
    """Has the seat an industry (a facility card) laid at its station?"""
    return any(cell != OFFICE_CELL for cell in board.stations[office_of(board, seat)].boxes)


def play_until(sim: GameState, stop: int, bots: Sequence[Agent]) -> None:
    """``bots[seat]`` decides for each seat, on its own view, until ``stop`` Stages have been
    played or the game ends. The views share the simulation's containers (the rollout bots
    write nothing to a view's board: tests/test_bots.py checks it), since copying the state at
    every decision cost a tenth of a search."""
    for _ in range(MAX_ROLLOUT_STEPS):
        if sim.is_terminal() or sim.stages_played >= stop:
            break
        legal = sim.legal_intents()
        if len(legal) == 1:
            intent = legal[0]
        else:
            actor = sim.current_player()
            intent = bots[actor].choose(SeatView.of_simulation(sim, actor))
        sim.apply(intent, validate=False)


def follow_plan(
    sim: GameState, seat: int, steps: Sequence[tuple[tuple[object, ...], MoveTray]], final: bool
) -> None:
    """Play a prior's remembered switching ``steps`` in the seat's switching turn of ``sim``
    while the station matches them, as the prior would (``HeuristicBot.switching``), and end
    the turn after them, or where they stop matching, when the plan is ``final``. Left to
    the rollout bots, the turn would be planned with their own goals, and a guard's parking
    of a train before an arrival would be lost."""
    for key, move in steps:
        if sim.phase is not Phase.SWITCHING or sim.current_player() != seat:
            return
        if station_key(sim, seat) != key or move not in sim.legal_intents():
            break
        sim.apply(move, validate=False)
    if final and sim.phase is Phase.SWITCHING and sim.current_player() == seat:
        sim.apply(EndSwitching(seat), validate=False)


# the heuristics a search may ask for its candidates (``prior``)
PRIORS: dict[str, type[HeuristicBot]] = {cls.name: cls for cls in (PassengerBot, FreightBot, DispatcherBot)}

# what ``keep`` may name, several joined by "+": an industry laid, any card laid on the
# station, a card drawn
KEEPS = ("industry", "layout", "draw")

# where a ``rollout`` player plays: every seat, the searching seat alone, the others, or the
# others whose stations show an industry
ROLLOUT_SEATS = ("all", "own", "others", "builders")


class SearchBot:
    """Search bot: determinized rollouts with the ``passenger`` bot as rollout policy (by default).

    Strategy: see the module docstring. The prior's values order the candidates: in Local
    Operations and when making up a train they are the heuristic's own option values; in
    card play its value of playing a card, the discards ranked by how little the card is
    worth to it; elsewhere (Cargo, Clearance, Extras, RED FLAG) the prior's choice comes first
    and the others in listed order.

    Parameters (constructor keywords, defaults in ``DEFAULTS``):

    - ``prior`` ("passenger"): the heuristic asked for the candidates, whose choice stands
      unless a rollout beats it: ``passenger``, ``freight`` or ``dispatcher``. The rollouts are
      played by the passenger bot whatever the prior (the fastest heuristic), unless
      ``rollout`` names another player.

    - ``rollouts`` (16): rollouts per decision, in all candidates together — the budget. It is
      spent in whole rounds (one rollout per candidate on one determinization), so a decision
      uses ``rollouts // candidates * candidates`` of them, never more. ``last_rollouts`` is
      the count of the last decision (0 when only one intent was legal).
    - ``seconds`` (0.0): when > 0, also stop starting rounds once this much wall time is spent
      on the decision (at least one round is run). Timing makes choices depend on the machine:
      not bit-for-bit deterministic. 0 leaves only the rollout budget (deterministic).
    - ``horizon`` (4): Stage ends a rollout plays through (the rest of this Stage counts as
      one); 0 plays to the end of the game.
    - ``top_k`` (4): candidates searched (the prior's choice and its next best).
    - ``rival`` (0.5): weight of the best opponent's revenue change, subtracted (competitive).
    - ``w_win`` (0.0): weight, in revenue, of the seat's chance to win, added to a score
      (competitive): its share of the win when a rollout reaches the game's end (a shared top
      shares it), and with a network (``net``) its win head's chance when a rollout is cut
      off. The rest of the score values the margin, of which a win needs only the sign. 0:
      the margin alone.
    - ``margin`` (0.1): revenue by which a candidate must beat the prior's choice on the mean.
    - ``w_progress`` (0.2): value of one Laborer step spent on a load still underway when a
      rollout is cut off.
    - ``w_prospects`` (1.0): weight of the revenue the seat's position can still earn when a
      rollout is cut off: the ``prospects`` potential of ``sm_env.shaping`` (docs/signals.md),
      read from the public board only. It tells apart candidates that earn nothing within the
      horizon but leave a coach boarded, a load spotted or a car on the Running Track.
    - ``keep`` (""): which of the prior's choices stand without rollouts. ``industry``: its
      choice to lay an industry (a facility card). An industry earns through loads that take
      more Stages than the horizon, and the cut-off score values no industry without a load or
      an empty car at it: the rollouts cannot see what laying one is worth, and an option that
      changes something small they do see (a card kept, a turn ended) beats it. ``layout``:
      its choice to lay any card on the station (track, an industry or a modifier), for the
      same reason: a turnout or a modifier pays through the industries it serves. ``draw``:
      its choice to draw a card (from a Department or the Home Office): the cut-off score
      values no card in hand. Several join with "+" (``industry+draw``). Empty: every choice
      is searched.
    - ``halve`` (0): after this many rounds, only the prior's choice and the candidate with
      the best mean after it go on, for the rest of the budget (the others had their rounds:
      the budget then buys more rounds on the one question that decides, whether the best
      challenger beats the heuristic). 0: every candidate in every round.
    - ``patience`` (2): after this many rounds in which every candidate scored exactly as the
      prior's choice, stop: nothing it tries changes the outcome within the horizon, and the
      prior's choice stands (0: always spend the whole budget). Deterministic.
    - ``net`` (""): a network file (``agents.net``; ``"shipped"`` is the one in agents/data/,
      trained for 3 offices and the default rules: another office count raises ``NetFileError``
      at the first decision). Empty: no network, the search as it always was. With one, a
      rollout cut off before the game's end is also valued by the network, read on the
      rollout's end state from the searching seat's observation: its margin head, the seat's
      expected final revenue less the mean of the others', in revenue (× ``MARGIN_SCALE``).
    - ``w_net`` (0.15): with a network, the weight of its value in a cut-off score; the rest
      is the hand-made score above (``w_progress``, ``w_prospects``). 1 is the network alone.
    - ``rollout`` (""): who plays the rollouts. Empty: the passenger bot at every seat. A
      heuristic's name (``passenger``, ``freight`` or ``dispatcher``): that heuristic, fresh
      bots each rollout with the guard below, at the seats ``rollout_seats`` says. A policy
      file (``agents.policy``; or a shipped one's name, ``SHIPPED_POLICIES``; or several joined
      by ``+``): that trained policy, its likeliest intent on each seat's own view, at the seats
      ``rollout_seats`` says.
    - ``rollout_seats`` ("all"): with a ``rollout`` player, ``all`` seats play it; ``own``: only
      the searching seat, the passenger bot the others (opponents modelled as before);
      ``others``: every seat but the searching one, the passenger bot that one; ``builders``:
      the other seats whose stations have an industry laid (public: a seat that builds
      industries plays freight), the passenger bot the rest.
    - ``guard_plans`` (4) and ``guard_stages`` (2): the rollout heuristics' station guard,
      their ``danger_plans`` and ``plan_stages`` (``agents.safety``): candidate plans rolled
      out, and over how many Stages, when a station is in danger. The guard takes a third of
      a rollout's time in a 4-day game (docs/agents.md); fewer plans or Stages make rollouts
      cheaper and their opponents less careful. The defaults are the passenger bot's own.

    Two budgets make sense: ``search`` (16 rollouts, the low budget, for tournaments) and
    ``search:rollouts=64`` (the high budget, about four times slower).
    """

    name: str = "search"
    # 2: the prospects potential at the cut-off; 3: passenger@2, guarding its station; 4: passenger@3;
    # 5: a rollout plays the prior's switching plan for the turn a candidate starts
    version: str = "5"
    DEFAULTS: ClassVar[dict[str, int | float | str]] = {
        "prior": "passenger",
        "rollouts": 16,
        "seconds": 0.0,
        "horizon": 4,
        "top_k": 4,
        "rival": 0.5,
        "w_win": 0.0,
        "margin": 0.1,
        "w_progress": 0.2,
        "w_prospects": 1.0,
        "keep": "",
        "halve": 0,
        "patience": 2,
        "net": "",
        "w_net": 0.15,
        "rollout": "",
        "rollout_seats": "all",
        "guard_plans": int(StationSafety.DEFAULTS["danger_plans"]),
        "guard_stages": int(StationSafety.DEFAULTS["plan_stages"]),
    }
    _INTS: ClassVar[tuple[str, ...]] = (
        "rollouts",
        "horizon",
        "top_k",
        "halve",
        "patience",
        "guard_plans",
        "guard_stages",
    )

    def __init__(self, seed: int, **params: Any) -> None:
        unknown = sorted(set(params) - set(self.DEFAULTS))
        if unknown:
            raise TypeError(f"SearchBot has no parameter(s) {', '.join(unknown)}")
        merged = {**self.DEFAULTS, **params}
        for key in self._INTS:
            value = merged[key]
            if isinstance(value, bool) or int(value) != value:
                raise ValueError(f"{key} must be an integer, got {value!r}")
            merged[key] = int(value)
        if min(merged["rollouts"], merged["top_k"], merged["guard_plans"], merged["guard_stages"]) < 1:
            raise ValueError("rollouts, top_k, guard_plans and guard_stages must be at least 1")
        if merged["prior"] not in PRIORS:
            raise ValueError(f"prior must be one of {', '.join(PRIORS)}, got {merged['prior']!r}")
        keep = tuple(filter(None, str(merged["keep"]).split("+")))
        if any(what not in KEEPS for what in keep):
            raise ValueError(
                f"keep must be {', '.join(KEEPS)}, or several joined by '+': got {merged['keep']!r}"
            )
        if merged["rollout_seats"] not in ROLLOUT_SEATS:
            raise ValueError(
                f"rollout_seats must be {', '.join(ROLLOUT_SEATS)}, got {merged['rollout_seats']!r}"
            )
        if (
            min(merged["horizon"], merged["seconds"], merged["halve"], merged["patience"], merged["w_win"])
            < 0
        ):
            raise ValueError("horizon, seconds, halve, patience and w_win must not be negative")
        if not 0.0 <= float(merged["w_net"]) <= 1.0:
            raise ValueError(f"w_net must be within 0..1, got {merged['w_net']!r}")
        self.params: dict[str, int | float | str] = merged
        self.rollouts = int(merged["rollouts"])
        self.seconds = float(merged["seconds"])
        self.horizon = int(merged["horizon"])
        self.top_k = int(merged["top_k"])
        self.rival = float(merged["rival"])
        self.w_win = float(merged["w_win"])
        self.margin = float(merged["margin"])
        self.w_progress = float(merged["w_progress"])
        self.w_prospects = float(merged["w_prospects"])
        self.keep = keep
        self.halve = int(merged["halve"])
        self.patience = int(merged["patience"])
        self.w_net = float(merged["w_net"])
        self.evaluator: NetEvaluator | None = None
        if merged["net"]:
            self.evaluator = NetEvaluator(load_net(str(merged["net"])))
        # the rollout policy's bots, one a seat, reused: they take the likeliest intent, so
        # they keep nothing from one rollout to the next (and set up their encoders once)
        self._rollout_bots: list[PolicyBot] = []
        self.rollout_seats = str(merged["rollout_seats"])
        rollout = str(merged["rollout"])
        self._rollout_kind = PRIORS.get(rollout or "passenger")  # None: a policy file
        if self._rollout_kind is None:
            self._rollout_bots = [PolicyBot(0, rollout) for _ in range(MAX_OFFICES)]  # one read
        self.seed = seed & _MASK
        self.rng = Rng(self.seed)
        self.prior = PRIORS[str(merged["prior"])](self.rng.next_u32())
        # shared by every rollout bot of a kind (bots of one kind share a memo)
        self._rollout_memo: dict[tuple[object, ...], Any] = {}
        self._passenger_memo: dict[tuple[object, ...], Any] = {}
        self.rollout_guard = {
            "danger_plans": float(merged["guard_plans"]),
            "plan_stages": float(merged["guard_stages"]),
        }
        self.last_rollouts = 0  # rollouts spent on the last decision
        self.reason: str | None = None

    # ------------------------------------------------------------------ the decision

    def choose(self, view: SeatView) -> Intent:
        legal = view.legal_intents()
        if not legal:
            raise ValueError(f"seat {view.seat} has no decision to make now")
        self.last_rollouts = 0
        if len(legal) == 1:
            self.reason = "the only decision there is"
            return legal[0]
        with one_blas_thread() if self.evaluator is not None else nullcontext():  # small products
            return self._search(view, legal)

    def _search(self, view: SeatView, legal: list[Intent]) -> Intent:
        start = time.perf_counter()
        candidates = self.candidates(view, legal)
        heuristic = candidates[0]
        board = view.board
        if len(candidates) == 1:
            self.reason = f"the heuristic's choice ({self.prior.reason})"
            return heuristic
        kept = next((what for what in self.keep if self.is_kind(board, heuristic, what)), None)
        if kept is not None:
            self.reason = f"the heuristic's {kept}, kept unsearched ({self.prior.reason})"
            return heuristic
        seat = view.seat
        steps, final = self.prior.remembered_plan(board, seat)  # the plan candidates() left it
        stop = board.stages_played + self.horizon if self.horizon else 1 << 30
        totals = [0.0] * len(candidates)
        active = list(range(len(candidates)))  # the candidates still rolled out
        rounds = spent = 0
        differ = False  # has any candidate scored unlike the prior's choice in some round?
        while True:
            if self.halve and rounds == self.halve and len(active) > 2:
                # the prior's choice against its best challenger so far, on the rest of the budget
                active = [0, max(active[1:], key=lambda c: (totals[c], -c))]
            if spent + len(active) > self.rollouts:
                break
            if rounds and self.seconds and time.perf_counter() - start >= self.seconds:
                break
            if self.patience and rounds >= self.patience and not differ:
                break  # nothing it tries changes anything within the horizon
            deal = view.determinize(Rng(self.rng.next_u32()))
            policy_seed = self.rng.next_u32()
            base = self.score(deal, seat, True)
            scores = []
            for c in active:
                # fresh players for each rollout, chosen on what the decision's deal shows
                # (before the candidate): the same seats for every candidate
                players = self.rollout_players(deal, seat, policy_seed)
                sim = deal.clone()
                sim.apply(candidates[c], validate=False)
                if steps or final:
                    follow_plan(sim, seat, steps, final)
                scores.append(self.play_out(sim, seat, stop, players) - base)
            differ = differ or any(v != scores[0] for v in scores)
            for c, v in zip(active, scores, strict=True):
                totals[c] += v
            rounds += 1
            spent += len(active)
        self.last_rollouts = spent
        means = {c: totals[c] / rounds for c in active}  # the active ones ran every round
        best = max(active, key=lambda c: (means[c], -c))
        if best != 0 and means[best] <= means[0] + self.margin:
            best = 0
        runner = max((c for c in active if c != best), key=lambda c: (means[c], -c))
        which = "the heuristic's choice" if best == 0 else "overrides the heuristic"
        self.reason = (
            f"{which}, best of {len(candidates)} candidates over {self.last_rollouts} rollouts: "
            f"{means[best]:+.2f} against {means[runner]:+.2f}"
        )
        return candidates[best]

    def candidates(self, view: SeatView, legal: list[Intent]) -> list[Intent]:
        """The prior's choice first, then its next best options, ``top_k`` in all (fewer when
        the budget cannot give each of them a rollout)."""
        prior = self.prior
        prior.last_options = []
        choice = prior.choose(view)
        values: dict[Intent, float] = {}
        if view.board.phase is Phase.CARD_PLAY:
            board = view.board
            plays = [i for i in legal if isinstance(i, PlayCard | PlaceCard | PlaceModifier)]
            values = dict(zip(plays, prior.play_values(view, board, plays), strict=True))
            for intent in legal:
                if isinstance(intent, Discard):
                    values[intent] = -prior.card_value(board, view.seat, intent.card) - 0.5
                elif isinstance(intent, EndTurn):
                    values[intent] = 0.0
        else:
            values = {intent: value for value, intent in prior.last_options}
        order = sorted(
            (i for i in range(len(legal)) if legal[i] != choice),
            key=lambda i: (-values.get(legal[i], float("-inf")), i),
        )
        k = min(self.top_k, self.rollouts)
        return [choice, *(legal[i] for i in order)][:k]

    @staticmethod
    def is_kind(board: GameState, intent: Intent, what: str) -> bool:
        """Is ``intent`` a choice of the kind ``keep`` names (``what``, one of ``KEEPS``)?"""
        if what == "draw":
            return isinstance(intent, DrawHomeOffice | DrawDepartment)
        if what == "layout":
            return isinstance(intent, PlaceCard | PlaceModifier)
        return isinstance(intent, PlaceCard) and board.catalogue.cards[intent.card].kind is CardKind.FACILITY

    # ------------------------------------------------------------------ rollouts

    def play_out(self, sim: GameState, seat: int, stop: int, players: Sequence[Agent]) -> float:
        """Let ``players`` (``rollout_players``) play every seat of ``sim`` until ``stop``
        Stages have been played (or the game ends); the seat's score at the end."""
        play_until(sim, stop, players)
        return self.score(sim, seat, not sim.is_terminal())

    def rollout_players(self, board: GameState, seat: int, policy_seed: int) -> list[Agent]:
        """A rollout's player at each seat: the ``rollout`` player where ``rollout_seats`` puts
        it, reading the public ``board`` of the decision, the passenger bot elsewhere."""
        guard = self.rollout_guard
        if self._rollout_kind is not None:
            bots = heuristic_bots(self._rollout_kind, board.n, policy_seed, self._rollout_memo, **guard)
        else:
            bots = list(self._rollout_bots)
        if self.rollout_seats == "all" or self._rollout_kind is PassengerBot:
            return bots
        passengers = heuristic_bots(PassengerBot, board.n, policy_seed, self._passenger_memo, **guard)
        if self.rollout_seats == "own":
            passengers[seat] = bots[seat]
            return passengers
        if self.rollout_seats == "builders":
            return [
                bots[s] if s != seat and has_industry(board, s) else passengers[s] for s in range(board.n)
            ]
        bots[seat] = passengers[seat]
        return bots

    def score(self, state: GameState, seat: int, cut: bool) -> float:
        """The seat's revenue (co-op: the team's), less ``rival`` times the best opponent's;
        plus the load progress at its office and its prospects when the rollout was ``cut``
        short; plus ``w_win`` times its chance to win. With a network, a ``cut`` score is
        ``w_net`` parts the network's margin and the rest the hand-made one, and the chance to
        win is the network's."""
        if not cut or self.evaluator is None:
            return self.hand_score(state, seat, cut)
        # the network's values of the state for the seat, read from the seat's observation:
        # its chance to win and its expected final margin (revenue less the mean of the others')
        _, win, margin = self.evaluator.heads(state, seat)
        value = float(margin[seat]) * MARGIN_SCALE
        if self.w_net < 1.0:
            value = self.w_net * value + (1.0 - self.w_net) * self.hand_score(state, seat, cut)
        if self.w_win and state.config.mode is not Mode.COOP:
            value += self.w_win * float(win[seat])
        return value

    def hand_score(self, state: GameState, seat: int, cut: bool) -> float:
        """The hand-made score (see ``score``), with ``w_win`` for the share of a finished game's
        win."""
        revenue = state.revenue_by_seat
        if state.config.mode is Mode.COOP:
            value = float(sum(revenue))
        else:
            others = [r for s, r in enumerate(revenue) if s != seat]
            value = revenue[seat] - (self.rival * max(others) if others else 0.0)
            if self.w_win and not cut:
                value += self.w_win * win_shares(state)[seat]
        if cut and self.w_progress:
            value += self.w_progress * cargo_progress(state, state.office_of_seat[seat])
        if cut and self.w_prospects:
            value += self.w_prospects * prospects(state, seat)
        return value


__all__ = ["SearchBot", "play_passengers"]
