"""Statistics for tournaments, as pure functions: intervals and ratings.

- ``mean_ci``: the mean with a Student t interval (the t quantile computed exactly from the
  regularized incomplete beta function, since scipy is not a dependency).
- ``wilson``: a proportion with its Wilson score interval, which stays inside [0, 1] and is
  sound for small counts, unlike the normal (Wald) interval.
- ``rate_games``: openskill Plackett-Luce ratings, with the package's defaults
  (mu 25, sigma 25/3, beta 25/6, tau 25/300), from games rated in the order given.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist, fmean, stdev

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
