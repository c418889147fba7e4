"""The verdict rule (`experiments.checks`): sub-claims judged on their own, a claim built from
its sub-claims, directional words judged against the noise, printed numbers on magnitude, and
points that cannot discriminate left untested."""

from __future__ import annotations

import math

from rampup.experiments.checks import FAILS, HOLDS, PARTLY, UNTESTED, Check, about, at_least, count, higher, lower, sub_verdict, verdict


def _c(part: str, x: float, ok: bool | None) -> Check:
    return Check(part, x, ok)


def test_a_sub_claim_holds_on_every_tested_point_partly_on_three_quarters() -> None:
    assert sub_verdict([_c("p", 1, True), _c("p", 2, True)]) == HOLDS
    assert sub_verdict([_c("p", x, x != 3) for x in range(4)]) == PARTLY
    assert sub_verdict([_c("p", 1, True), _c("p", 2, False)]) == FAILS, "half is not enough"
    assert sub_verdict([_c("p", 1, True), _c("p", 2, None)]) == HOLDS, "an untested point does not count"
    assert sub_verdict([_c("p", 1, None)]) == UNTESTED


def test_a_claim_is_its_sub_claims_not_a_pool_of_checks() -> None:
    # 30 points of a padding sub-claim pass, the claim's core fails at its 5: not "partly".
    padded = [_c("padding", x, True) for x in range(30)] + [_c("core", x, False) for x in range(5)]
    assert verdict(padded) == FAILS and count(padded) == "1/2 sub-claims"
    assert verdict([_c("a", 1, True), _c("b", 1, True)]) == HOLDS
    assert verdict([_c("a", x, x != 3) for x in range(4)] + [_c("b", 1, True)]) == PARTLY
    assert count([_c("a", x, x != 3) for x in range(4)] + [_c("b", 1, True)]) == "1/2 sub-claims, 1 partly"
    assert verdict([_c("a", 1, True), _c("b", 1, None)]) == HOLDS
    assert count([_c("a", 1, True), _c("b", 1, None)]) == "1/1 sub-claims, 1 not testable"
    assert verdict([_c("a", 1, None), _c("b", 2, None)]) == UNTESTED
    assert count([_c("a", 1, None), _c("b", 2, None)]) == "2 sub-claims, none testable"
    assert verdict([]) == UNTESTED


def test_fewer_means_the_intervals_lie_apart() -> None:
    assert lower("fewer", 1, 1.0, 0.2, 2.0, 0.2, "q", "").ok is True
    assert lower("fewer", 1, 1.0, 0.6, 2.0, 0.6, "q", "").ok is False, "a difference inside the noise is not fewer"
    assert lower("fewer", 1, 2.0, 0.1, 1.0, 0.1, "q", "").ok is False, "the other way round"
    assert lower("fewer", 1, 1.0, 0.0, 1.0, 0.1, "q", "").ok is False, "a tie is not fewer"
    tie = lower("fewer", 1, 0.0, 0.0, 0.0, 0.0, "q", "")
    assert tie.ok is None and "identical" in tie.note, "0 against 0 cannot tell"
    assert lower("fewer", 1, math.nan, 0.0, 1.0, 0.0, "q", "").ok is None
    up = higher("more", 1, 3.0, 0.5, 1.0, 0.5, "q", "")
    assert up.ok is True and up.ours == 2.0
    assert higher("more", 1, 1.0, 0.5, 3.0, 0.5, "q", "").ok is False


def test_a_printed_number_is_checked_on_its_magnitude_both_ways() -> None:
    assert about("7.9×", 1, 7.0, 7.9, "q", "7.9").ok is True
    assert about("7.9×", 1, 2.0, 7.9, "q", "7.9").ok is False, "the right direction, a quarter of the size"
    assert about("7.9×", 1, 12.0, 7.9, "q", "7.9").ok is False, "two-sided"
    assert about("≈ 3%", 1, 0.045, 0.03, "q", "", rel=0.67).ok is True
    assert at_least("bound", 1, 0.08, 0.08, "q", "", strict=True).ok is False
    assert at_least("bound", 1, 0.0801, 0.08, "q", "", strict=True).ok is True
