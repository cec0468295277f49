"""The MCTS bot (agents.mcts): always legal, within its budgets, deterministic for a seed,
deciding on its seat view only, with rollouts or a network at its leaves, and made from spec
text by the registry."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from conftest import new_state
from rich.console import Console
from test_net import random_net

from agents import REGISTRY, Agent, BotSpecError, make_bot, play_game, seat_seed
from agents.mcts import MCTSBot, margin_utility, outcome_values
from experiments.play.table.app import TableApp
from experiments.play.table.session import Session
from sm_env.core import GameConfig, Intent, Mode, Rng, SeatView, new_game
from sm_env.core.state import GameState

SMALL = "mcts:iterations=12"


class Watched:
    """Asserts every choice is legal, the budget is kept and the root's numbers add up."""

    def __init__(self, bot: MCTSBot) -> None:
        self.bot = bot
        self.name = bot.name
        self.searched = 0

    def choose(self, view: SeatView) -> Intent:
        legal = view.legal_intents()
        intent = self.bot.choose(view)
        assert intent in legal
        bot = self.bot
        assert isinstance(bot.reason, str) and bot.reason and "\n" not in bot.reason
        if len(legal) == 1:
            assert bot.last_iterations == 0 and not bot.last_visits
            return intent
        self.searched += 1
        assert 1 <= bot.last_iterations <= bot.iterations
        assert set(bot.last_visits) == set(legal)
        # the first iteration values the root itself; each later one passes through an edge
        assert sum(bot.last_visits.values()) == bot.last_iterations - 1
        assert len(bot.last_values) == view.board.n
        assert all(0.0 <= v <= 1.0 for v in bot.last_values)
        return intent


def mcts_bot(text: str, seed: int) -> MCTSBot:
    bot = make_bot(text, seed)
    assert isinstance(bot, MCTSBot)
    return bot


def first_choice(seed: int, stages: int) -> GameState:
    """A 3-office, 1-day game played by the passenger bot for ``stages`` Stages, then on to the
    next decision with more than one legal intent."""
    state = new_state(3, seed, days=1)
    bots = [make_bot("passenger", seat_seed(seed, s)) for s in range(3)]
    while state.stages_played < stages or len(state.legal_intents()) < 2:
        seat = state.current_player()
        state.apply(bots[seat].choose(state.view(seat)))
    return state


@pytest.mark.parametrize("seed", [1, 2])
def test_mcts_always_legal_and_within_budget(seed: int) -> None:
    """Whole one-day games at 3 offices, an MCTS seat among heuristics (seed 2 with a house
    rule): every choice is legal, no decision spends more than its iterations, and the root's
    visits add up."""
    state = new_state(3, seed, days=1, emergency_toolbox=seed == 2)
    watched = Watched(mcts_bot(SMALL, seat_seed(seed, 0)))
    agents: list[Agent] = [watched, make_bot("freight", 2), make_bot("dispatcher", 3)]
    play_game(state, agents)
    assert state.is_terminal()
    assert watched.searched > 10


def test_mcts_with_a_network_at_the_leaves(tmp_path: Path) -> None:
    """``net=path`` takes priors and leaf values from a network file: the game stays legal,
    and two bots with the same seed and network choose alike."""
    random_net(3, seed=4).save(tmp_path / "n.npz")
    spec = f"mcts:iterations=16,net={tmp_path / 'n.npz'}"

    def game() -> list[Intent]:
        state = new_state(3, 5, days=1)
        watched = Watched(mcts_bot(spec, 9))
        return play_game(state, [make_bot("passenger", 1), watched, make_bot("random", 2)])

    assert game() == game()
    with pytest.raises(BotSpecError, match="no network file"):
        make_bot(f"mcts:net={tmp_path / 'missing.npz'}", 1)


def test_mcts_is_deterministic_for_a_seed() -> None:
    def game(bot_seed: int, extra: str = "") -> tuple[list[Intent], str]:
        state = new_state(3, 11, days=1)
        agents: list[Agent] = [make_bot("passenger", seat_seed(11, s)) for s in range(3)]
        agents[1] = mcts_bot(SMALL + extra, bot_seed)
        return play_game(state, agents), state.state_hash()

    assert game(42) == game(42)
    assert game(42, ",leaf=prospects") == game(42, ",leaf=prospects")
    noisy = ",noise=0.25,temperature=1.0"
    assert game(42, noisy) == game(42, noisy)  # self-play's noise and sampling are seeded too


@pytest.mark.parametrize(("seed", "stages"), [(5, 3), (6, 5)])
def test_mcts_never_reads_hidden_information(seed: int, stages: int) -> None:
    """Two games that show the deciding seat the same view but differ in what it cannot see
    (the other hands, the Home Office, the random stream) get the same choice and the same
    root values from two bots with the same seed."""
    state = first_choice(seed, stages)
    seat = state.current_player()
    view = state.view(seat)
    one, two = view.determinize(Rng(1)), view.determinize(Rng(2))
    assert one.hands != two.hands or one.home_office != two.home_office
    assert one.view(seat) == two.view(seat) == view
    real, twin = mcts_bot(SMALL, 99), mcts_bot(SMALL, 99)
    assert real.choose(one.view(seat)) == twin.choose(two.view(seat))
    assert real.last_values == twin.last_values and real.last_visits == twin.last_visits


def test_mcts_leaves_the_state_alone() -> None:
    state = first_choice(6, 2)
    view = state.view(state.current_player())
    before = state.state_hash()
    assert mcts_bot(SMALL, 7).choose(view) in view.legal_intents()
    assert state.state_hash() == before


def test_mcts_time_budget_stops_early() -> None:
    """``seconds`` stops a large iteration budget after the first iterations."""
    state = first_choice(8, 2)
    bot = mcts_bot("mcts:iterations=100000,seconds=0.000001", 3)
    assert bot.choose(state.view(state.current_player())) in state.legal_intents()
    assert 1 <= bot.last_iterations <= 2


def test_mcts_from_the_registry() -> None:
    spec = REGISTRY["mcts"]
    assert spec.version >= 1 and spec.summary
    bot = mcts_bot("mcts:iterations=4,c_puct=2.5", 1)
    assert bot.iterations == 4 and bot.c_puct == 2.5 and bot.params["horizon"] == spec.params["horizon"]
    for bad in (
        "mcts:nope=1",
        "mcts:iterations=0",
        "mcts:iterations=1.5",
        "mcts:horizon=-1",
        "mcts:w_win=2",
        "mcts:noise=-0.1",
        "mcts:seconds=-1",
        "mcts:leaf=net",  # no network to read
        "mcts:leaf=guess",
    ):
        with pytest.raises(BotSpecError):
            make_bot(bad, 1)
    with pytest.raises(TypeError, match="no parameter"):
        MCTSBot(1, nope=1)


def test_outcome_values_at_the_end_share_the_win_and_read_the_margin() -> None:
    """A shared top shares the win; the margin is revenue less the others' mean; co-op gives
    the team one value; a cut game reads only margins (prospects counted as revenue)."""
    state = new_game(GameConfig(offices=3, days=1), 1)
    bots = [make_bot("passenger", s) for s in range(3)]
    play_game(state, bots)
    state.revenue_by_seat[:] = [4, 4, 1]
    values = outcome_values(state, 1.0, cut=False)
    assert values == [0.5, 0.5, 0.0]
    values = outcome_values(state, 0.0, cut=False)
    assert values[0] == values[1] == pytest.approx(margin_utility(4 - 2.5))
    assert values[2] == pytest.approx(margin_utility(1 - 4))
    assert margin_utility(0) == 0.5 and margin_utility(-3) < margin_utility(3)
    assert outcome_values(state, 1.0, cut=True) == outcome_values(state, 0.0, cut=True)
    coop = new_game(GameConfig(offices=2, days=1, mode=Mode.COOP, target_revenue=3), 1)
    play_game(coop, [make_bot("passenger", s) for s in range(2)])
    team = outcome_values(coop, 0.5, cut=False)
    assert team[0] == team[1]


def test_the_table_hint_can_ask_mcts(tmp_path: Path) -> None:
    """``hint mcts:...`` at the terminal table answers with the search's reason."""
    session = Session(11, GameConfig(offices=2, days=1), ["human", "random"], tmp_path / "g.json")
    out = io.StringIO()
    keys = iter(["hint mcts:iterations=8", "quit"])
    console = Console(file=out, width=160, highlight=False, color_system=None)
    app = TableApp(session, console, pace=0, read=lambda _prompt: next(keys))
    app.run()
    text = out.getvalue()
    assert re.search(r"mcts@\d+\(iterations=8\) would ", text)
    assert "why: searched" in text
