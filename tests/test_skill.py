"""The skill measure: the share of within-deal variance the bot explains, and paired differences."""

from __future__ import annotations

import math
import random

import pytest

from experiments.arena.stats import paired_difference, skill_share


def rotations(
    deals: int, strength: dict[str, float], seat_effect: tuple[float, ...], noise: float, seed: int
):
    """Games of every rotation of the bots on each deal: revenue = deal + seat + bot + noise."""
    rng = random.Random(seed)
    bots = list(strength)
    games = []
    for deal in range(deals):
        base = rng.gauss(0, 3)
        for r in range(len(bots)):
            seated = [bots[(s + r) % len(bots)] for s in range(len(bots))]
            games.append(
                (
                    deal,
                    [
                        (b, base + seat_effect[s] + strength[b] + rng.gauss(0, noise))
                        for s, b in enumerate(seated)
                    ],
                )
            )
    return games


def test_without_noise_the_bot_and_the_seat_explain_everything_between_them():
    games = rotations(10, {"a": 2.0, "b": 0.0, "c": -2.0}, (0.0, 0.0, 0.0), 0.0, 1)
    share = skill_share(games, resamples=50)
    assert share.bot == pytest.approx(1.0) and share.seat == pytest.approx(0.0)
    games = rotations(10, {"a": 0.0, "b": 0.0, "c": 0.0}, (1.0, 0.0, -1.0), 0.0, 1)
    share = skill_share(games, resamples=50)
    assert share.bot == pytest.approx(0.0, abs=1e-12) and share.seat == pytest.approx(1.0)


def test_equal_bots_explain_what_chance_gives_and_a_strong_one_much_more():
    same = skill_share(rotations(60, {"a": 0.0, "b": 0.0, "c": 0.0}, (0.5, 0.0, 0.0), 1.0, 2), seed=3)
    assert same.low <= same.chance + 0.02 and same.bot < 0.1
    strong = skill_share(rotations(60, {"a": 1.5, "b": 0.0, "c": 0.0}, (0.5, 0.0, 0.0), 1.0, 2), seed=3)
    assert strong.low > strong.chance and 0.3 < strong.bot < 0.7
    assert strong.deals == 60
    assert (
        skill_share(rotations(60, {"a": 1.5, "b": 0.0, "c": 0.0}, (0.5, 0.0, 0.0), 1.0, 2), seed=3) == strong
    )


def test_the_paired_difference_is_taken_per_deal():
    games = [(0, [("a", 5.0), ("b", 1.0)]), (0, [("b", 3.0), ("a", 3.0)]), (1, [("a", 2.0), ("b", 2.0)])]
    mean, low, high, deals = paired_difference(games, "a", "b")
    assert deals == 2 and mean == pytest.approx(1.0)  # deal 0: 4 - 2; deal 1: 0
    assert low < 1.0 < high
    assert math.isnan(paired_difference(games[:2], "a", "b")[1])
    with pytest.raises(ValueError, match="no deal holds both"):
        paired_difference(games, "a", "z")
    with pytest.raises(ValueError, match="two deals"):
        skill_share(games[:2])


def test_a_tournament_reports_the_skill_share_and_every_pair():
    from experiments.arena import tournament as tour
    from sm_env.core import GameConfig

    match = tour.Tournament(("passenger", "random"), GameConfig(offices=2, days=1), 3, 11)
    seatings = match.seatings()
    results = tour.play(match, 1)
    found = tour.skill(match, seatings, results)
    data = tour.skill_json(found)
    assert data["share"]["deals"] == 3 and 0 <= data["share"]["bot"] <= 1
    labels = match.labels()
    (pair,) = data["pairs"]
    assert (pair["a"], pair["b"], pair["deals"]) == (labels["passenger"], labels["random"], 3)
    games = [
        (r.deal, list(zip([labels[b] for b in seatings[r.seating].bots], r.revenue, strict=True)))
        for r in results
    ]
    assert pair["mean"] == pytest.approx(paired_difference(games, pair["a"], pair["b"])[0])
