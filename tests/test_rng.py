"""The one random stream (C-rng.1): mulberry32 checked against an independent reference,
unbiased bounded draws (a rejected draw among them), the D12, Fisher-Yates shuffles, copies
and seed validation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sm_env.core.rng import Rng

SEEDS = [0, 1, 2, 42, 123456789, 0x7FFFFFFF, 0x80000000, 0xDEADBEEF, 0xFFFFFFFF]


def reference_stream(seeds: list[int], count: int) -> np.ndarray:
    """mulberry32 written with numpy uint32 arrays (wrap-around arithmetic), one row per seed:

    t = a += 0x6D2B79F5; t = imul(t ^ t >>> 15, t | 1);
    t ^= t + imul(t ^ t >>> 7, t | 61); return (t ^ t >>> 14) >>> 0
    """
    a = np.array(seeds, dtype=np.uint32)
    out = np.zeros((len(seeds), count), dtype=np.uint32)
    for i in range(count):
        a = a + np.uint32(0x6D2B79F5)
        t = a.copy()
        t = (t ^ (t >> np.uint32(15))) * (t | np.uint32(1))
        t = t ^ (t + (t ^ (t >> np.uint32(7))) * (t | np.uint32(61)))
        out[:, i] = t ^ (t >> np.uint32(14))
    return out


class ReferenceRng:
    """Plain-Python reference with explicit modular arithmetic, for below() and shuffle()."""

    def __init__(self, seed: int) -> None:
        self.a = seed

    def u32(self) -> int:
        self.a = (self.a + 0x6D2B79F5) % 2**32
        t = self.a
        t = ((t ^ (t >> 15)) * (t | 1)) % 2**32
        t = t ^ ((t + ((t ^ (t >> 7)) * (t | 61)) % 2**32) % 2**32)
        return t ^ (t >> 14)

    def below(self, n: int) -> int:
        # Rejection sampling: accept x only below the largest multiple of n that fits in 2**32.
        limit = (2**32 // n) * n
        while True:
            x = self.u32()
            if x < limit:
                return x % n

    def shuffle(self, items: list[int]) -> None:
        for i in reversed(range(1, len(items))):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def test_c_rng_1_mulberry32_matches_reference_for_fixed_seeds() -> None:
    """C-rng.1: the generator is mulberry32, bit for bit."""
    expected = reference_stream(SEEDS, 64)
    for row, seed in enumerate(SEEDS):
        rng = Rng(seed)
        assert [rng.next_u32() for _ in range(64)] == [int(x) for x in expected[row]]


def test_c_rng_1_both_references_agree() -> None:
    """The two reference implementations agree with each other (guards the references)."""
    expected = reference_stream(SEEDS, 16)
    for row, seed in enumerate(SEEDS):
        ref = ReferenceRng(seed)
        assert [ref.u32() for _ in range(16)] == [int(x) for x in expected[row]]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_c_rng_1_mulberry32_matches_reference_for_any_seed(seed: int) -> None:
    """C-rng.1"""
    rng = Rng(seed)
    ref = ReferenceRng(seed)
    assert [rng.next_u32() for _ in range(8)] == [ref.u32() for _ in range(8)]


def test_c_rng_1_state_is_one_u32_advanced_by_the_weyl_step() -> None:
    """C-rng.1: the whole state is one int; each draw adds 0x6D2B79F5 mod 2**32."""
    rng = Rng(0xFFFFFFFF)
    assert rng.state == 0xFFFFFFFF
    rng.next_u32()
    assert rng.state == (0xFFFFFFFF + 0x6D2B79F5) % 2**32
    assert all(0 <= rng.next_u32() <= 0xFFFFFFFF for _ in range(1000))


@pytest.mark.parametrize("n", [1, 2, 3, 7, 12, 1000, 3_000_000_000, 2**32])
def test_c_rng_1_below_in_range_and_as_reference(n: int) -> None:
    """C-rng.1: below(n) rejection-samples; values in [0, n) and equal to the reference
    (n = 3e9 rejects about a third of the raw draws)."""
    rng = Rng(99)
    ref = ReferenceRng(99)
    values = [rng.below(n) for _ in range(500)]
    assert all(0 <= v < n for v in values)
    assert values == [ref.below(n) for _ in range(500)]
    assert rng.state == ref.a


def test_c_rng_1_below_rejection_keeps_values_unbiased() -> None:
    """C-rng.1: with n = 3e9 a plain modulo would put x in [0, 2**32 - 3e9) twice as often;
    rejection sampling keeps the low third as likely as the rest."""
    rng = Rng(5)
    n = 3_000_000_000
    low = sum(rng.below(n) < 2**32 - n for _ in range(6000))
    share = low / 6000
    expected = (2**32 - n) / n  # about 0.43
    assert abs(share - expected) < 0.04


@pytest.mark.parametrize("n", [2, 6, 12])
def test_c_rng_1_below_is_roughly_uniform(n: int) -> None:
    """C-rng.1: a chi-square check over a few thousand draws (fixed seed, no flakiness)."""
    rng = Rng(2024)
    draws = 600 * n
    counts = [0] * n
    for _ in range(draws):
        counts[rng.below(n)] += 1
    expected = draws / n
    chi2 = sum((c - expected) ** 2 / expected for c in counts)
    # 99.9% quantile of chi-square with n-1 <= 11 degrees of freedom is below 32.
    assert chi2 < 32, counts


@pytest.mark.parametrize("n", [0, -1, -12, 2**32 + 1, 2**70])
def test_c_rng_1_below_rejects_n_outside_the_u32_range(n: int) -> None:
    """Beyond 2**32 every draw would be rejected: refused rather than looping forever."""
    rng = Rng(1)
    with pytest.raises(ValueError, match=r"n in 1\.\.2\*\*32"):
        rng.below(n)
    assert rng.state == 1


def test_c_rng_1_d12_faces() -> None:
    """C-rng.1: d12() = below(12) + 1, every face 1..12 appears."""
    rng = Rng(7)
    twin = rng.copy()
    rolls = [rng.d12() for _ in range(2400)]
    assert all(1 <= r <= 12 for r in rolls)
    assert set(rolls) == set(range(1, 13))
    assert rolls == [twin.below(12) + 1 for _ in range(2400)]
    counts = [rolls.count(face) for face in range(1, 13)]
    assert min(counts) > 140 and max(counts) < 260


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.lists(st.integers(-5, 50), max_size=40))
def test_c_rng_1_shuffle_is_a_deterministic_fisher_yates_permutation(seed: int, items: list[int]) -> None:
    """C-rng.1: shuffle is Fisher-Yates from the last index down with j = below(i + 1)."""
    first, second, ref_items = items[:], items[:], items[:]
    rng = Rng(seed)
    rng.shuffle(first)
    Rng(seed).shuffle(second)
    ref = ReferenceRng(seed)
    ref.shuffle(ref_items)
    assert sorted(first) == sorted(items)
    assert first == second == ref_items
    assert rng.state == ref.a


# The state (after its Weyl step) that mixes to the draw 2**32 - 1, which ``below(n)`` rejects
# for every n but a power of two: found by computing the first draw of all 2**32 states (numpy,
# about two minutes)
REJECTED_DRAW_STATE = 1080371100


def rejecting_shuffle_seed(n: int, at: int) -> int:
    """A seed whose shuffle of ``n`` items draws ``REJECTED_DRAW_STATE``'s value at ``below(at)``
    (draws run from ``below(n)`` down, so that draw is the (n - at + 1)th)."""
    return (REJECTED_DRAW_STATE - (n - at + 1) * 0x6D2B79F5) % 2**32


def test_c_rng_1_below_redraws_a_rejected_draw() -> None:
    """A shuffle that meets a rejected draw redraws it, as the reference does: one draw more."""
    n = 60
    seed = rejecting_shuffle_seed(n, at=3)
    items, ref_items = list(range(n)), list(range(n))
    rng, ref = Rng(seed), ReferenceRng(seed)
    rng.shuffle(items)
    ref.shuffle(ref_items)
    draws = (rng.state - seed) * pow(0x6D2B79F5, -1, 2**32) % 2**32
    assert draws == n  # n - 1 draws of the shuffle and one redraw
    assert items == ref_items and rng.state == ref.a


def test_c_rng_1_below_takes_the_whole_u32_range() -> None:
    """below(2**32) rejects nothing: it is the raw draw."""
    seed = rejecting_shuffle_seed(2, at=2)  # its first draw is 2**32 - 1
    rng, raw = Rng(seed), Rng(seed)
    assert rng.below(2**32) == raw.next_u32() == 2**32 - 1
    assert rng.state == raw.state


def test_c_rng_1_shuffle_of_short_lists_draws_nothing() -> None:
    rng = Rng(3)
    for items in ([], [9]):
        rng.shuffle(items)
        assert rng.state == 3


def test_c_rng_1_shuffle_reaches_every_permutation_of_three() -> None:
    seen = set()
    rng = Rng(11)
    for _ in range(600):
        items = [0, 1, 2]
        rng.shuffle(items)
        seen.add(tuple(items))
    assert len(seen) == 6


def test_c_rng_1_copy_is_independent() -> None:
    rng = Rng(31337)
    rng.next_u32()
    clone = rng.copy()
    assert clone is not rng and clone.state == rng.state
    ahead = [clone.next_u32() for _ in range(5)]
    assert rng.state != clone.state
    assert [rng.next_u32() for _ in range(5)] == ahead
    assert rng.state == clone.state


@pytest.mark.parametrize("seed", [-1, 2**32, 2**40, 1.0, "1", None, True, False])
def test_c_rng_1_bad_seeds_are_rejected_naming_the_range(seed: object) -> None:
    """C-rng.1: the seed is a 32-bit unsigned integer."""
    with pytest.raises(ValueError, match="0..4294967295"):
        Rng(seed)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [0, 0xFFFFFFFF])
def test_c_rng_1_seed_bounds_are_accepted(seed: int) -> None:
    assert Rng(seed).state == seed


def test_c_rng_1_a_state_is_a_seed_that_restores_the_stream() -> None:
    rng = Rng(77)
    rng.next_u32()
    restored = Rng(rng.state)
    assert [restored.next_u32() for _ in range(4)] == [rng.next_u32() for _ in range(4)]
