"""Statistics for tournaments, as pure functions: intervals and ratings.

- ``mean_ci``: the mean with a Student t interval (the t quantile computed exactly from the
  regularized incomplete beta function, since scipy is not a dependency).
- ``wilson``: a proportion with its Wilson score interval, which stays inside [0, 1] and is
  sound for small counts, unlike the normal (Wald) interval.
- ``skill_share``: the share of the within-deal variance of seat revenue the bot explains;
  ``paired_difference``: one bot's revenue less another's, paired by deal.
- ``rate_games``: openskill Plackett-Luce ratings, with the package's defaults
  (mu 25, sigma 25/3, beta 25/6, tau 25/300), from games rated in the order given.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist, fmean, stdev

import numpy as np
from openskill.models import PlackettLuce

_MAX_TERMS = 10_000  # the continued fraction needs about sqrt(df) terms


def mean_ci(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """(mean, low, high): the Student t interval of the mean; low and high are nan for one value."""
    _check_confidence(confidence)
    if not values:
        raise ValueError("mean_ci needs at least one value")
    mean = fmean(values)
    n = len(values)
    if n == 1:
        return mean, math.nan, math.nan
    half = t_quantile((1 + confidence) / 2, n - 1) * stdev(values) / math.sqrt(n)
    return mean, mean - half, mean + half


def wilson(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float, float]:
    """(p, low, high): the proportion successes/n and its Wilson score interval."""
    _check_confidence(confidence)
    if n < 1 or not 0 <= successes <= n:
        raise ValueError(f"wilson needs 0 <= successes <= n and n >= 1, got {successes}/{n}")
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    p = successes / n
    shrink = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / shrink
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / shrink
    # at 0 or n the bound is exactly 0 or 1; the formula leaves rounding dust
    low = 0.0 if successes == 0 else centre - half
    high = 1.0 if successes == n else centre + half
    return p, low, high


def t_quantile(p: float, df: float) -> float:
    """The p-quantile of Student's t distribution with df degrees of freedom."""
    if not 0 < p < 1 or df <= 0:
        raise ValueError(f"t_quantile needs 0 < p < 1 and df > 0, got p={p}, df={df}")
    if p < 0.5:
        return -t_quantile(1 - p, df)
    low, high = 0.0, 1.0
    while t_cdf(high, df) < p:
        high *= 2
    for _ in range(200):  # bisection: the bracket halves to float precision long before
        mid = (low + high) / 2
        if mid in (low, high):
            break
        low, high = (mid, high) if t_cdf(mid, df) < p else (low, mid)
    return (low + high) / 2


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with df degrees of freedom."""
    tail = 0.5 * _betainc(df / 2, 0.5, df / (df + t * t))
    return 1 - tail if t >= 0 else tail


def _betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b) (Numerical Recipes, 6.4)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1) / (a + b + 2):  # where the continued fraction converges fast
        return front * _beta_fraction(a, b, x) / a
    return 1 - front * _beta_fraction(b, a, 1 - x) / b


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b), by the modified Lentz method."""
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, _MAX_TERMS):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= c * d
        if abs(c * d - 1) < 1e-15:
            return h
    raise ArithmeticError(f"incomplete beta did not converge for a={a}, b={b}, x={x}")


def _check_confidence(confidence: float) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """A conservative skill: mu - 3 sigma."""
        return self.mu - 3 * self.sigma


def rate_games(games: Iterable[Sequence[tuple[str, float]]]) -> dict[str, Rating]:
    """Ratings of the players in games given as (player, score) per seat, a higher score better.

    Seats are ranked by score, equal scores sharing a rank. A game with one seat rates nothing.
    A player in several seats of one game gets the sum of its seats' mu changes and the product
    of their variance factors, as if it had played each seat alone (Weng-Lin updates add up).
    Players are listed in the order first seen.
    """
    model = PlackettLuce()
    prior = Rating(model.mu, model.sigma)
    ratings: dict[str, Rating] = {}
    for game in games:
        players = [player for player, _ in game]
        for player in players:
            ratings.setdefault(player, prior)
        if len(game) < 2:
            continue
        scores = [score for _, score in game]
        ranks = [1.0 + sum(other > score for other in scores) for score in scores]
        teams = [[model.rating(mu=ratings[p].mu, sigma=ratings[p].sigma)] for p in players]
        after = [team[0] for team in model.rate(teams, ranks=ranks)]
        for player in dict.fromkeys(players):
            old = ratings[player]
            seats = [i for i, p in enumerate(players) if p == player]
            mu = old.mu + sum(after[i].mu - old.mu for i in seats)
            variance = old.sigma**2 * math.prod(after[i].sigma ** 2 / old.sigma**2 for i in seats)
            ratings[player] = Rating(mu, math.sqrt(variance))
    return ratings


SeatResult = tuple[str, float]  # (bot label, revenue) of one seat


@dataclass(frozen=True)
class SkillShare:
    """How much of the spread of a seat's revenue within a deal the bot in it explains.

    ``bot`` is SS(bot | deal, seat) / SS(within deal): the sum of squares the bot adds to an
    additive within-deal model of seat and bot, over the total sum of squares about each
    deal's mean; ``seat`` is the same for the seat given the bot. ``low``/``high`` bound
    ``bot`` by a bootstrap over deals; ``chance`` is its mean when the bots are shuffled among
    the seats of each game (what noise alone gives), so skill shows as ``bot`` above ``chance``.
    """

    bot: float
    low: float
    high: float
    chance: float
    seat: float
    deals: int


def _dummies(keys: Sequence[object]) -> np.ndarray:
    levels = {key: i for i, key in enumerate(dict.fromkeys(keys))}
    out = np.zeros((len(keys), len(levels)))
    out[np.arange(len(keys)), [levels[k] for k in keys]] = 1.0
    return out


def _demean(x: np.ndarray, groups: list[np.ndarray]) -> np.ndarray:
    out = x.copy()
    for rows in groups:
        out[rows] -= x[rows].mean(axis=0)
    return out


def _rss(y: np.ndarray, x: np.ndarray) -> float:
    if x.shape[1] == 0:
        return float(y @ y)
    coef, *_ = np.linalg.lstsq(x, y, rcond=None)
    r = y - x @ coef
    return float(r @ r)


def _shares(
    y: np.ndarray, seats: np.ndarray, bots: np.ndarray, groups: list[np.ndarray]
) -> tuple[float, float]:
    yd, sd, bd = _demean(y, groups), _demean(seats, groups), _demean(bots, groups)
    total = float(yd @ yd)
    if total == 0:
        return 0.0, 0.0
    full = _rss(yd, np.hstack([sd, bd]))
    return (_rss(yd, sd) - full) / total, (_rss(yd, bd) - full) / total


def skill_share(
    games: Sequence[tuple[int, Sequence[SeatResult]]],
    confidence: float = 0.95,
    resamples: int = 400,
    seed: int = 0,
) -> SkillShare:
    """The share of the within-deal variance of seat revenue that the bot explains, from
    games given as (deal, (bot label, revenue) per seat). Deterministic for a ``seed``."""
    _check_confidence(confidence)
    rows = [
        (deal, seat, label, revenue) for deal, game in games for seat, (label, revenue) in enumerate(game)
    ]
    deal_ids = sorted({r[0] for r in rows})
    if len(deal_ids) < 2:
        raise ValueError("skill_share needs games of at least two deals")
    y = np.array([r[3] for r in rows], dtype=float)
    seats = _dummies([r[1] for r in rows])
    bots = _dummies([r[2] for r in rows])
    by_deal: dict[int, list[int]] = {}
    for i, r in enumerate(rows):
        by_deal.setdefault(r[0], []).append(i)
    deal_rows = {d: np.array(by_deal[d]) for d in deal_ids}  # one pass: a big run has many deals
    groups = list(deal_rows.values())
    bot, seat = _shares(y, seats, bots, groups)
    rng = np.random.default_rng(seed)
    boot = []
    for _ in range(resamples):
        picked = [deal_rows[deal_ids[i]] for i in rng.integers(0, len(deal_ids), len(deal_ids))]
        index = np.concatenate(picked)
        offsets = np.cumsum([0] + [len(p) for p in picked])
        regrouped = [np.arange(offsets[k], offsets[k + 1]) for k in range(len(picked))]
        boot.append(_shares(y[index], seats[index], bots[index], regrouped)[0])
    # shuffle labels among the seats of each game (a game's seats are consecutive rows)
    starts = np.cumsum([0] + [len(game) for _, game in games])
    chance = []
    for _ in range(max(1, resamples // 4)):
        order = np.arange(len(rows))
        for g in range(len(games)):
            order[starts[g] : starts[g + 1]] = rng.permutation(order[starts[g] : starts[g + 1]])
        chance.append(_shares(y, seats, bots[order], groups)[0])
    tail = (1 - confidence) / 2
    low, high = np.quantile(boot, [tail, 1 - tail])
    return SkillShare(bot, float(low), float(high), float(np.mean(chance)), seat, len(deal_ids))


def paired_difference(
    games: Sequence[tuple[int, Sequence[SeatResult]]], a: str, b: str, confidence: float = 0.95
) -> tuple[float, float, float, int]:
    """(mean, low, high, deals): per deal, bot ``a``'s mean seat revenue less bot ``b``'s, then
    the Student t interval over the deals where both sat."""
    per_deal: dict[int, dict[str, list[float]]] = {}
    for deal, game in games:
        for label, revenue in game:
            per_deal.setdefault(deal, {}).setdefault(label, []).append(revenue)
    diffs = [fmean(d[a]) - fmean(d[b]) for d in per_deal.values() if a in d and b in d]
    if not diffs:
        raise ValueError(f"no deal holds both {a} and {b}")
    mean, low, high = mean_ci(diffs, confidence)
    return mean, low, high, len(diffs)
