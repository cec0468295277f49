"""The search network shipped in agents/data/ (docs/training.md, "The shipped network"): it
loads for the current rules, and the search plays whole games with it, the same every time."""

from __future__ import annotations

from agents import make_bot, play_game, seat_seed
from agents.net import Net, shipped_net_path
from sm_env.core import RULES_EDITION, GameConfig, new_game


def test_the_shipped_network_is_for_these_rules_and_three_offices() -> None:
    net = Net.load(shipped_net_path())
    assert net.meta["kind"] == "net" and net.meta["offices"] == 3
    assert net.meta["rules_edition"] == RULES_EDITION
    assert net.meta["command"].startswith("station-master selfplay")


def test_the_search_plays_a_whole_game_with_it_deterministically() -> None:
    config = GameConfig(offices=3, days=1)
    finals = []
    for _ in range(2):
        state = new_game(config, 31)
        bots = [
            make_bot("mcts:net=shipped,iterations=4", seat_seed(31, 0)),
            make_bot("passenger", 1),
            make_bot("freight", 2),
        ]
        decisions = play_game(state, bots)
        assert state.is_terminal() and decisions
        finals.append(state.state_hash())
    assert finals[0] == finals[1]
