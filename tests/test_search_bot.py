"""The search bot (agents.search): always legal, within its rollout budget, deterministic for a
seed, deciding on its seat view only, and made from spec text by the registry."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from conftest import new_state

from agents import REGISTRY, Agent, BotSpecError, make_bot, play_game, seat_seed
from agents.freight import FreightBot
from agents.net import NetFileError
from agents.passenger import PassengerBot
from agents.policy import PolicyBot, PolicyFileError
from agents.search import SearchBot
from sm_env.core.catalogue import CardKind
from sm_env.core.intents import DrawDepartment, DrawHomeOffice, Intent, PlaceCard
from sm_env.core.pieces import OFFICE_CELL
from sm_env.core.rng import Rng
from sm_env.core.state import GameState, SeatView

SMALL = "search:rollouts=4,horizon=2"


class Watched:
    """Asserts every choice is legal and the budget is kept; records the decisions."""

    def __init__(self, bot: SearchBot) -> None:
        self.bot = bot
        self.name = bot.name
        self.log: list[tuple[Intent, int]] = []

    def choose(self, view: SeatView) -> Intent:
        legal = view.legal_intents()
        intent = self.bot.choose(view)
        assert intent in legal, f"{intent} is not a legal intent"
        spent = self.bot.last_rollouts
        assert 0 <= spent <= self.bot.rollouts
        if len(legal) == 1:
            assert spent == 0
        reason = self.bot.reason
        assert isinstance(reason, str) and reason and "\n" not in reason
        self.log.append((intent, spent))
        return intent


def search_bot(text: str, seed: int) -> SearchBot:
    bot = make_bot(text, seed)
    assert isinstance(bot, SearchBot)
    return bot


def mid_game(seed: int, stages: int) -> GameState:
    """A 3-office game played by the passenger bot until ``stages`` Stages are done."""
    state = new_state(3, seed, days=1)
    bots = [make_bot("passenger", seat_seed(seed, s)) for s in range(3)]
    while state.stages_played < stages:
        seat = state.current_player()
        state.apply(bots[seat].choose(state.view(seat)))
    return state


@pytest.mark.parametrize("seed", [1, 2])
def test_search_bot_always_legal_and_within_budget(seed: int) -> None:
    """Whole one-day games at 3 offices, the search bot mixed with heuristics: every choice is
    one of the view's legal intents, and no decision spends more rollouts than the budget
    (none when one intent is legal)."""
    state = new_state(3, seed, days=1, emergency_toolbox=seed == 2)
    watched = Watched(search_bot(SMALL, seat_seed(seed, seed % 3)))
    kinds = ["passenger", "freight", "dispatcher"]
    agents: list[Agent] = [make_bot(kinds[s], seat_seed(seed, s)) for s in range(3)]
    agents[seed % 3] = watched
    play_game(state, agents)
    assert state.is_terminal()
    assert len(watched.log) > 20
    assert any(spent > 0 for _, spent in watched.log)


def test_search_bot_legal_in_a_two_day_game_at_a_larger_budget() -> None:
    """A 2-day game, two search seats and a random one: legal, within 6 rollouts a decision."""
    seed = 3
    state = new_state(3, seed, days=2)
    bots = [Watched(search_bot("search:rollouts=6,horizon=1,top_k=3", seat_seed(seed, s))) for s in (0, 1)]
    play_game(state, [bots[0], make_bot("random", seat_seed(seed, 2)), bots[1]])
    assert state.is_terminal()
    assert max(spent for bot in bots for _, spent in bot.log) <= 6


def test_search_bot_is_deterministic_for_a_seed() -> None:
    """Two bots with the same seed in the same game make the same decisions; another seed may
    not (and the game stays legal either way)."""

    def game(bot_seed: int) -> tuple[list[Intent], str]:
        state = new_state(3, 11, days=1)
        agents: list[Agent] = [make_bot("passenger", seat_seed(11, s)) for s in range(3)]
        agents[1] = search_bot(SMALL, bot_seed)
        return play_game(state, agents), state.state_hash()

    first = game(42)
    assert game(42) == first
    game(43)  # a different seed: its own stream, possibly other choices


@pytest.mark.parametrize(("seed", "stages"), [(5, 3), (6, 5), (7, 8)])
def test_search_bot_never_reads_hidden_information(seed: int, stages: int) -> None:
    """Two full games that give the deciding seat the same view but differ in what it cannot
    see (the other hands, the Home Office order, the random stream), built with
    ``determinize`` from two rngs, get the same choices from two bots with the same seed, for
    as long as the two games still show the seat the same view."""
    state = mid_game(seed, stages)
    seat = state.current_player()
    view = state.view(seat)
    one, two = view.determinize(Rng(1)), view.determinize(Rng(2))
    assert one.hands != two.hands or one.home_office != two.home_office
    assert one.view(seat) == two.view(seat) == view
    real, twin = search_bot(SMALL, 99), search_bot(SMALL, 99)
    checked = 0
    while not one.is_terminal() and one.view(seat) == two.view(seat):
        actor = one.current_player()
        if actor == seat:
            intent = real.choose(one.view(seat))
            assert twin.choose(two.view(seat)) == intent
            assert real.reason == twin.reason
            checked += 1
        else:
            intent = one.legal_intents()[0]  # the other seats play alike in both games
        one.apply(intent)
        two.apply(intent)
    assert checked >= 1


def test_search_bot_view_holds_no_state() -> None:
    """A seat view holds no reference to the state behind it: the bot cannot reach it."""
    state = mid_game(6, 2)
    view = state.view(state.current_player())
    assert set(SeatView.__slots__) == {"seat", "board", "_legal", "_rules"}
    assert view.board is not state
    with pytest.raises(TypeError):
        view.board.legal_intents()  # the board copy cannot be played
    bot = search_bot(SMALL, 7)
    before = state.state_hash()
    assert bot.choose(view) in view.legal_intents()
    assert state.state_hash() == before


def test_search_bot_from_the_registry() -> None:
    """``make_bot`` parses the spec text into the bot's keywords; a bad parameter or value is a
    BotSpecError."""
    spec = REGISTRY["search"]
    assert spec.version >= 1 and spec.summary
    words = ("prior", "net", "rollout", "rollout_seats", "keep")
    numbers = {k: v for k, v in spec.params.items() if k not in words}
    assert all(isinstance(v, int | float) and not isinstance(v, bool) for v in numbers.values())
    assert spec.params["prior"] == "passenger" and spec.params["net"] == spec.params["rollout"] == ""
    assert spec.params["keep"] == "" and search_bot("search", 1).keep == ()
    assert search_bot("search:keep=layout", 1).keep == ("layout",)
    assert search_bot("search:keep=industry+draw", 1).keep == ("industry", "draw")
    bot = search_bot("search:rollouts=4", 1)
    assert bot.rollouts == 4 and bot.params["horizon"] == spec.params["horizon"]
    assert search_bot("search", 1).rollouts == spec.params["rollouts"]
    for bad in (
        "search:nope=1",
        "search:rollouts=x",
        "search:rollouts=0",
        "search:horizon=-1",
        "search:top_k=1.5",
        "search:prior=random",
        "search:rollout_seats=some",
        "search:keep=track",
        "search:keep=industry+track",
        "search:guard_plans=0",
        "search:guard_stages=1.5",
        "search:w_win=-1",
    ):
        with pytest.raises(BotSpecError):
            make_bot(bad, 1)
    with pytest.raises(TypeError, match="no parameter"):
        SearchBot(1, nope=1)


def test_w_win_adds_the_seats_chance_to_win_its_share_at_the_end_the_networks_at_a_cut_off() -> None:
    """``w_win`` adds, weighted, the seat's share of the win to the score of a finished game (a
    shared top shares it) and, with a network, its win head's chance to a rollout cut short;
    without a network a cut-off score is the margin's alone."""
    state = new_state(3, 5, days=1)
    play_game(state, [make_bot("passenger", seat_seed(5, s)) for s in range(3)])
    revenue = state.revenue_by_seat
    plain, bonus = search_bot("search:rival=1", 1), search_bot("search:rival=1,w_win=2.5", 1)
    tops = [seat for seat in range(3) if revenue[seat] == max(revenue)]
    assert 0 < len(tops) < 3
    for seat in range(3):
        margin = revenue[seat] - max(r for s, r in enumerate(revenue) if s != seat)
        assert plain.score(state, seat, False) == margin
        assert bonus.score(state, seat, False) == margin + (2.5 / len(tops) if seat in tops else 0.0)
    middle = mid_game(6, 3)
    net_plain = search_bot("search:net=shipped,rival=1", 1)
    net_bonus = search_bot("search:net=shipped,rival=1,w_win=2.5", 1)
    assert net_bonus.evaluator is not None
    for seat in range(3):
        assert bonus.score(middle, seat, True) == plain.score(middle, seat, True)
        _, win, _ = net_bonus.evaluator.heads(middle, seat)
        expected = net_plain.score(middle, seat, True) + 2.5 * float(win[seat])
        assert net_bonus.score(middle, seat, True) == pytest.approx(expected)


def test_search_bot_time_budget_stops_early() -> None:
    """``seconds`` stops a large rollout budget after the first round."""
    state = mid_game(8, 2)
    bot = search_bot("search:rollouts=1000,seconds=0.000001,patience=0,horizon=1", 3)
    while len(state.legal_intents()) < 2:
        state.apply(state.legal_intents()[0])
    view = state.view(state.current_player())
    assert bot.choose(view) in view.legal_intents()
    assert 0 < bot.last_rollouts <= bot.top_k


@pytest.mark.parametrize("prior", ["freight", "dispatcher"])
def test_search_bot_asks_the_prior_it_is_given(prior: str) -> None:
    """``search:prior=NAME``: the candidates start with that heuristic's choice (a bot of the
    same seed as the search's prior decides alike), and a whole game stays legal."""
    seed = 12
    state = new_state(3, seed, days=1)
    watched = Watched(search_bot(f"search:prior={prior},rollouts=4,horizon=1", seat_seed(seed, 0)))
    play_game(state, [watched, make_bot("passenger", 1), make_bot("freight", 2)])
    assert state.is_terminal()
    state = mid_game(13, 3)
    while len(state.legal_intents()) < 2:
        state.apply(state.legal_intents()[0])
    view = state.view(state.current_player())
    bot = search_bot(f"search:prior={prior}", 5)
    twin = make_bot(prior, Rng(5).next_u32())
    assert bot.candidates(view, view.legal_intents())[0] == twin.choose(view)


def test_rollout_plans_are_never_replayed_into_a_locked_industry_track() -> None:
    """A regression: the rollout bots' shared cache keyed a switching plan by the cars and
    trays alone, so a plan made while an industry track was free was replayed once loads were
    worked there (R9.3.3 locks the track), and this game raised IllegalIntent at decision
    168. Plans are now cached by everything they read, locks included (``plan_key``)."""
    seed = 100176
    state = new_state(3, seed, days=2)
    specs = ("freight", "freight", "search:prior=freight")
    agents = [make_bot(spec, seat_seed(seed, s)) for s, spec in enumerate(specs)]
    for _ in range(175):
        seat = state.current_player()
        state.apply(agents[seat].choose(state.view(seat)))


def test_search_bot_without_a_network_ignores_the_network_parameters() -> None:
    """``net=""`` (the default) is the search without a network: no network is read, and
    ``w_net`` changes nothing."""

    def game(text: str) -> tuple[list[Intent], str]:
        state = new_state(3, 14, days=1)
        agents: list[Agent] = [make_bot("freight", seat_seed(14, s)) for s in range(3)]
        agents[2] = search_bot(text, 8)
        return play_game(state, agents), state.state_hash()

    assert search_bot(SMALL, 1).evaluator is None
    assert game(SMALL) == game(SMALL + ",net=,w_net=0.3")


def test_search_bot_with_the_shipped_network_is_legal_and_deterministic() -> None:
    """``net=shipped``: a whole 3-office game stays legal and within the budget, and two bots of
    the same seed make the same decisions."""
    text = "search:prior=freight,rollouts=4,horizon=1,net=shipped"

    def game() -> tuple[list[Intent], list[tuple[Intent, int]], str]:
        seed = 15
        state = new_state(3, seed, days=1)
        watched = Watched(search_bot(text, seat_seed(seed, 1)))
        assert watched.bot.evaluator is not None
        agents: list[Agent] = [make_bot("freight", seat_seed(seed, s)) for s in range(3)]
        agents[1] = watched
        log = play_game(state, agents)
        assert state.is_terminal()
        assert any(spent > 0 for _, spent in watched.log)
        return log, watched.log, state.state_hash()

    assert game() == game()


@pytest.mark.parametrize(
    ("param", "what", "error"),
    [("net", "network file", NetFileError), ("rollout", "policy file", PolicyFileError)],
)
def test_search_bot_network_and_rollout_policy_errors_are_clear(
    param: str, what: str, error: type[ValueError]
) -> None:
    """A network (``net``) or rollout policy (``rollout``) file that is not there is a one-line
    BotSpecError naming it; the shipped one at another office count is a one-line error of its
    file kind at the first decision."""
    with pytest.raises(BotSpecError, match=f"no {what} at /nonexistent/file.npz"):
        make_bot(f"search:{param}=/nonexistent/file.npz", 1)
    with pytest.raises(BotSpecError, match="w_net"):
        make_bot("search:net=shipped,w_net=2", 1)
    state = new_state(4, 16, days=1)
    while len(state.legal_intents()) < 2:
        state.apply(state.legal_intents()[0])
    bot = search_bot(f"search:rollouts=4,horizon=1,patience=0,{param}=shipped", 2)
    with pytest.raises(error, match="trained for 3 offices") as raised:
        bot.choose(state.view(state.current_player()))
    assert "\n" not in str(raised.value)


def searched_game(
    text: str, seed: int, searcher: int, table: str
) -> tuple[list[Intent], list[tuple[Intent, int]], str]:
    """A whole 1-day game of ``table`` bots with the search ``text`` at seat ``searcher``, which
    rolls out at least once: its intents, the search's choices and rollouts, its final hash."""
    state = new_state(3, seed, days=1)
    watched = Watched(search_bot(text, seat_seed(seed, searcher)))
    agents: list[Agent] = [make_bot(table, seat_seed(seed, s)) for s in range(3)]
    agents[searcher] = watched
    log = play_game(state, agents)
    assert state.is_terminal()
    assert any(spent > 0 for _, spent in watched.log)
    return log, watched.log, state.state_hash()


@pytest.mark.parametrize("seats", ["all", "own", "others"])
def test_search_bot_with_policy_rollouts_is_legal_deterministic_and_rolls_out_the_policy(
    seats: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``rollout=shipped``: the shipped policy plays the rollouts, at every seat
    (``rollout_seats=all``), at the searching seat alone, the passenger bot at the others
    (``own``), or the other way round (``others``); a whole 3-office game among freight bots
    stays legal and within the budget, and is the same for the same seed."""
    text = f"search:prior=freight,rollouts=4,horizon=1,rollout=shipped,rollout_seats={seats}"
    searcher = 1
    moves = {"policy": set[int](), "passenger": set[int]()}  # the seats each rollout bot played

    def counted(cls: type[Agent], kind: str) -> None:
        choose = cls.choose

        def choose_counted(bot: Agent, view: SeatView) -> Intent:
            moves[kind].add(view.seat)
            return choose(bot, view)

        monkeypatch.setattr(cls, "choose", choose_counted)

    counted(PolicyBot, "policy")
    counted(PassengerBot, "passenger")  # at this table only in rollouts

    game = (text, 17, searcher, "freight")
    assert searched_game(*game) == searched_game(*game)
    if seats == "all":
        assert moves == {"policy": {0, 1, 2}, "passenger": set()}
    elif seats == "own":
        assert moves == {"policy": {searcher}, "passenger": {0, 2}}
    else:
        assert moves == {"policy": {0, 2}, "passenger": {searcher}}


@pytest.mark.parametrize("seats", ["all", "own", "others", "builders"])
def test_search_bot_with_heuristic_rollouts_rolls_out_that_heuristic_with_its_guard(
    seats: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``rollout=freight``: the freight bot plays the rollouts, with the search's guard, at
    every seat (``rollout_seats=all``), at the searching seat alone, the passenger bot at the
    others (``own``), or the other way round (``others``); a whole game stays legal and within
    the budget, and is the same for the same seed. Random bots sit at the table and the prior
    is the dispatcher, so every freight and plain passenger bot that decides is a rollout's.
    With ``builders`` the freight bot plays only other seats (which, the next test)."""
    text = f"search:prior=dispatcher,rollouts=4,horizon=1,rollout=freight,rollout_seats={seats},guard_plans=2"
    searcher = 1
    moves: dict[type[Agent], set[int]] = {FreightBot: set(), PassengerBot: set()}
    guards: set[float] = set()

    def counted(cls: type[FreightBot | PassengerBot]) -> None:
        choose = cls.choose

        def choose_counted(bot: FreightBot | PassengerBot, view: SeatView) -> Intent:
            if type(bot) is cls:  # the dispatcher prior is a kind of passenger bot
                moves[cls].add(view.seat)
                guards.add(bot.p("danger_plans"))
            return choose(bot, view)

        monkeypatch.setattr(cls, "choose", choose_counted)

    counted(FreightBot)
    counted(PassengerBot)

    game = (text, 19, searcher, "random")
    assert searched_game(*game) == searched_game(*game)
    assert guards == {2.0}
    if seats == "all":
        assert moves == {FreightBot: {0, 1, 2}, PassengerBot: set()}
    elif seats == "own":
        assert moves == {FreightBot: {searcher}, PassengerBot: {0, 2}}
    elif seats == "others":
        assert moves == {FreightBot: {0, 2}, PassengerBot: {searcher}}
    else:
        assert moves[FreightBot] <= {0, 2} and searcher in moves[PassengerBot]


@pytest.mark.parametrize("rollout", ["freight", "shipped", "expert-clone"])
def test_builders_rollouts_model_the_other_seats_that_have_laid_an_industry(rollout: str) -> None:
    """``rollout_seats=builders``: at every decision of a whole game of freight bots, the
    ``rollout`` player (a heuristic or a policy) plays each other seat whose station has an
    industry laid, the passenger bot the searching seat and the seats without one."""
    seed, searcher = 25, 1
    state = new_state(3, seed, days=2)
    bot = search_bot(f"search:rollout={rollout},rollout_seats=builders", 5)
    rolled = FreightBot if rollout == "freight" else PolicyBot
    table = [FreightBot(seat_seed(seed, s)) for s in range(3)]
    seen = set()
    while not state.is_terminal():
        stations = [state.stations[state.office_of_seat[s]] for s in range(3)]
        built = tuple(any(cell != OFFICE_CELL for cell in station.boxes) for station in stations)
        expected = [rolled if s != searcher and built[s] else PassengerBot for s in range(3)]
        assert [type(player) for player in bot.rollout_players(state, searcher, 7)] == expected
        seen.add(built)
        seat = state.current_player()
        state.apply(table[seat].choose(state.view(seat)))
    assert (False, False, False) in seen and any(b[0] != b[2] for b in seen) and any(b[1] for b in seen)


@pytest.mark.parametrize(("text", "guard"), [("", (4.0, 2.0)), (",guard_plans=1,guard_stages=3", (1.0, 3.0))])
def test_search_bot_gives_its_rollout_bots_the_guard_it_is_given(
    text: str, guard: tuple[float, float], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``guard_plans`` and ``guard_stages`` are the rollout passenger bots' ``danger_plans``
    and ``plan_stages`` (by default the passenger bot's own); a game stays legal with them."""
    seen: set[tuple[float, float]] = set()
    choose = PassengerBot.choose

    def choose_seen(bot: PassengerBot, view: SeatView) -> Intent:
        seen.add((bot.p("danger_plans"), bot.p("plan_stages")))
        return choose(bot, view)

    monkeypatch.setattr(PassengerBot, "choose", choose_seen)  # at this table only in rollouts
    seed = 18
    state = new_state(3, seed, days=1)
    watched = Watched(search_bot(f"search:prior=freight,rollouts=4,horizon=1{text}", seat_seed(seed, 0)))
    play_game(
        state, [watched, make_bot("freight", seat_seed(seed, 1)), make_bot("freight", seat_seed(seed, 2))]
    )
    assert state.is_terminal()
    assert seen == {guard}


def before_choice(seed: int, what: str) -> tuple[GameState, int]:
    """A game of freight bots at the first decision where a freight bot seeded as the prior of
    ``search_bot(..., 5)`` would make a choice ``keep=what`` keeps, and the seat deciding."""
    state = new_state(3, seed, days=1)
    bots = [make_bot("freight", seat_seed(seed, s)) for s in range(3)]
    prior_seed = Rng(5).next_u32()
    while not state.is_terminal():
        seat = state.current_player()
        view = state.view(seat)
        # a fresh twin each time, as a fresh search asks a fresh prior (no remembered plans)
        if len(view.legal_intents()) > 1 and SearchBot.is_kind(
            state, make_bot("freight", prior_seed).choose(view), what
        ):
            return state, seat
        state.apply(bots[seat].choose(view))
    raise AssertionError(f"no freight bot makes a choice of {what} in game {seed}")


@pytest.mark.parametrize(
    ("keep", "what", "kind"),
    [
        ("industry", "industry", CardKind.FACILITY),
        ("layout", "layout", CardKind.TRACK),
        ("industry+draw", "draw", None),
    ],
)
def test_keep_lets_the_priors_choice_stand_without_rollouts(
    keep: str, what: str, kind: CardKind | None
) -> None:
    """``keep``: the freight prior's choice to lay an industry (``industry``), any card on the
    station (``layout``: here a card of track, which ``industry`` does not keep) or to draw a
    card (``draw``, here with ``industry`` beside it) stands unsearched (the rollouts' horizon
    and cut-off score do not see what it earns); without it the same decision is searched."""
    state, seat = before_choice(3, what)
    view = state.view(seat)
    prior_choice = make_bot("freight", Rng(5).next_u32()).choose(view)
    if kind is None:
        assert isinstance(prior_choice, DrawHomeOffice | DrawDepartment)
    else:
        assert isinstance(prior_choice, PlaceCard) and state.catalogue.cards[prior_choice.card].kind is kind
    assert SearchBot.is_kind(state, prior_choice, "industry") == (kind is CardKind.FACILITY)
    kept = search_bot(f"search:prior=freight,keep={keep},rollouts=8,horizon=1", 5)
    assert kept.choose(view) == prior_choice and kept.last_rollouts == 0
    assert kept.reason is not None and f"{what}, kept unsearched" in kept.reason
    searched = search_bot("search:prior=freight,rollouts=8,horizon=1", 5)
    searched.choose(view)
    assert searched.last_rollouts > 0


@pytest.mark.parametrize(("scores", "chosen"), [((0.0, 1.0, 3.0, 2.0), 2), ((2.0, 1.0, 2.05, 0.0), 0)])
def test_halve_rolls_out_the_priors_choice_and_its_best_challenger_only_after_its_rounds(
    scores: tuple[float, ...], chosen: int
) -> None:
    """``halve=2``: two rounds of all four candidates, then only the prior's choice and the
    challenger with the best mean, in rounds of two, for the rest of the 14 rollouts; the
    challenger overrides the prior's choice only by more than ``margin``. Each rollout's
    score is scripted by the candidate it played."""
    state = mid_game(8, 2)
    spec = "search:rollouts=14,halve=2,patience=0,horizon=1"
    while True:
        view = state.view(state.current_player())
        candidates = search_bot(spec, 3).candidates(view, view.legal_intents())
        if len(candidates) == 4:
            break
        state.apply(candidates[0])
    challenger = max((1, 2, 3), key=lambda c: scores[c])
    order = [0, 1, 2, 3] * 2 + [0, challenger] * 3  # 8 + 6 = 14 rollouts
    played: list[int] = []

    def scripted(sim: GameState, seat: int, stop: int, players: Sequence[Agent]) -> float:
        played.append(order[len(played)])
        return scores[played[-1]]

    bot = search_bot(spec, 3)
    bot.play_out = scripted  # type: ignore[method-assign]
    assert bot.choose(view) == candidates[chosen]
    assert len(played) == bot.last_rollouts == 14
    assert bot.reason is not None and "over 14 rollouts" in bot.reason
    unhalved = search_bot("search:rollouts=14,patience=0,horizon=1", 3)
    unhalved.play_out = lambda sim, seat, stop, players: 0.0  # type: ignore[method-assign]
    unhalved.choose(view)
    assert unhalved.last_rollouts == 12  # three whole rounds of four
