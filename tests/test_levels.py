"""Difficulty levels (agents.levels): registered as bots, each playing its spec, ``easy`` with
lapses; always legal, deterministic for a seed, and listed in ``play --help``."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import new_state

from agents import REGISTRY, Agent, make_bot, play_game, seat_seed
from agents.levels import LEVELS, LevelBot
from experiments.cli import main
from sm_env.core.intents import Intent
from sm_env.core.state import SeatView

NAMES = ("easy", "medium", "hard", "expert")


class Recorder:
    """Records the bot's choices and checks each is legal."""

    def __init__(self, bot: Agent) -> None:
        self.bot = bot
        self.name = bot.name
        self.choices: list[Intent] = []

    def choose(self, view: SeatView) -> Intent:
        intent = self.bot.choose(view)
        assert intent in view.legal_intents()
        self.choices.append(intent)
        return intent


def test_levels_are_registered_in_order() -> None:
    """The four levels, weakest first, each a registered bot whose spec is a registered bot."""
    assert tuple(level.name for level in LEVELS) == NAMES
    for level in LEVELS:
        assert level.name in REGISTRY and level.name in REGISTRY[level.name].summary
        assert 0.0 <= level.lapse <= 1.0
        bot = make_bot(level.name, 1)
        assert isinstance(bot, LevelBot) and bot.name == level.name


@pytest.mark.parametrize("name", ["easy", "medium", "hard"])
def test_a_level_plays_legal_and_deterministic_games(name: str) -> None:
    """A whole 1-day game at 3 offices, the level in seat 1: every choice legal, the same game
    again for the same seed."""

    def game() -> tuple[list[Intent], str]:
        state = new_state(3, 21, days=1)
        recorder = Recorder(make_bot(name, seat_seed(21, 1)))
        play_game(state, [make_bot("passenger", 1), recorder, make_bot("freight", 2)])
        return recorder.choices, state.state_hash()

    first = game()
    assert len(first[0]) > 20
    assert game() == first


def test_medium_and_hard_play_their_specs() -> None:
    """Without lapses a level decides exactly as its spec's bot of the same seed."""
    for name, spec in (("medium", "passenger"), ("hard", "freight")):
        state = new_state(3, 22, days=1)
        level, base = make_bot(name, 9), make_bot(spec, 9)
        while not state.is_terminal():
            seat = state.current_player()
            view = state.view(seat)
            intent = level.choose(view)
            assert base.choose(view) == intent
            state.apply(intent)


def test_easy_lapses_at_about_its_rate() -> None:
    """``easy`` departs from the passenger bot at some decisions with a choice, and stays its
    equal at the rest (a lapse is a uniform legal choice, which may agree by chance)."""
    state = new_state(3, 23, days=1)
    easy, base = make_bot("easy", 4), make_bot("passenger", 4)
    assert isinstance(easy, LevelBot)
    choices = differ = 0
    while not state.is_terminal():
        seat = state.current_player()
        view = state.view(seat)
        intent = easy.choose(view)
        if len(view.legal_intents()) > 1:
            choices += 1
            differ += base.choose(view) != intent
        state.apply(intent)
    assert choices > 50
    assert 0 < differ <= 0.45 * choices


def test_play_help_lists_every_level(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    out = capsys.readouterr().out
    for level in LEVELS:
        assert f"  {level.name}" in out


def test_the_readme_has_a_line_per_level() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    for level in LEVELS:
        assert f"| `{level.name}` | {level.summary}" in readme
