"""The statistics a board shows: speedups with confidence intervals, noise-aware rank groups,
geometric means. Pure functions on numbers; the formulas are spelled out on the about page.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.96  # two-sided 95% normal quantile, the one the sources use for their intervals


@dataclass(frozen=True, slots=True)
class Speedup:
    value: float
    ci_low: float | None = None  # its 95% interval, when both sides had one
    ci_high: float | None = None

    @property
    def ci95(self) -> tuple[float, float] | None:
        return None if self.ci_low is None else (self.ci_low, self.ci_high)


def standard_error(ci95: tuple[int, int] | list[int] | None) -> float | None:
    """A mean's standard error from its 95% interval: half the width over 1.96."""
    if ci95 is None:
        return None
    lo, hi = ci95
    return (hi - lo) / 2 / Z95


def speedup(reference_mean: int, reference_ci, mean: int, ci) -> Speedup:
    """reference / run, with a 95% interval by the delta method on the log ratio.

    Var(ln R/X) ≈ (se_R/R)² + (se_X/X)²; the interval is exp(ln ratio ± 1.96·sd), so it is
    asymmetric around the ratio and never crosses zero. No interval when either side lacks one.
    """
    ratio = reference_mean / mean
    se_ref, se_run = standard_error(reference_ci), standard_error(ci)
    if se_ref is None or se_run is None:
        return Speedup(ratio)
    sd = math.sqrt((se_ref / reference_mean) ** 2 + (se_run / mean) ** 2)
    log_ratio = math.log(ratio)
    return Speedup(ratio, math.exp(log_ratio - Z95 * sd), math.exp(log_ratio + Z95 * sd))


def geometric_mean(values: list[float]) -> float | None:
    if not values:
        return None
    return math.exp(math.fsum(math.log(v) for v in values) / len(values))


def rank_groups(items: list[tuple[int, tuple[int, int] | None]]) -> list[tuple[int, bool]]:
    """(rank, tied) for entries already sorted by mean, given (mean, ci95 or None) each.

    An entry joins the current group when its interval overlaps the interval of the group's first
    entry; otherwise it starts a new group ranked 1 + the entries before it. An entry without an
    interval counts as the single point of its mean.
    """
    ranks: list[int] = []
    first_interval: tuple[int, int] | None = None
    group_start = 0
    for position, (mean, ci) in enumerate(items):
        interval = tuple(ci) if ci is not None else (mean, mean)
        if first_interval is not None and interval[0] <= first_interval[1] and first_interval[0] <= interval[1]:
            ranks.append(group_start + 1)
        else:
            group_start, first_interval = position, interval
            ranks.append(position + 1)
    sizes: dict[int, int] = {}
    for r in ranks:
        sizes[r] = sizes.get(r, 0) + 1
    return [(r, sizes[r] > 1) for r in ranks]
