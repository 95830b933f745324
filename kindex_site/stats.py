"""The statistics a board shows: noise of a mean, ratios of two means with a 95% interval, the rank
rule, trends, geometric means. Pure functions on numbers; the about page states each rule with its
formula, and these functions are the only place it is computed.

One comparison, used everywhere (rank, tie, speedup, trend, fast_1): the ratio of two means with a
95% interval by the delta method on the log ratio, each mean widened by half the source's rounding
step (`ratio`). "A is faster than B beyond noise" means that interval of A / B lies wholly below 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.96  # two-sided 95% normal quantile, the one the sources use for their intervals
CUT = 20 * math.log(10)  # the widest a ratio's interval is drawn: 10^±20 times the ratio


def rounding_step(value: int, significant_figures: int | None = None, step_ns: int | None = None) -> float:
    """The rounding step of a value the source reported to `significant_figures` (of any unit: a
    power of ten either way) and/or in multiples of `step_ns`; the larger of the two, 0 for neither.

    3 significant figures: 4_940_000 ns (4.94 ms) → 10_000 ns; 26_600_000 ns → 100_000 ns.
    """
    step = 0.0
    if significant_figures is not None and value > 0:
        step = 10.0 ** (len(str(int(value))) - significant_figures)  # (a value of d digits: its last shown is 10^(d − sf))
    if step_ns is not None:
        step = max(step, float(step_ns))
    return step


@dataclass(frozen=True, slots=True)
class Noise:
    """A value compared on a board (ns), with what makes it uncertain: its 95% interval, as a
    relative standard error se / value with se = (hi − lo) / 2 / 1.96 (0 without an interval), and
    the source's rounding, as half the rounding step over the value (the mean may be off by that much,
    either way: a bound, not a spread)."""

    value: int
    relative_se: float
    rounding: float = 0.0  # half the rounding step / value

    @classmethod
    def of(cls, value: int, ci95: tuple[int, int] | None, step: float = 0.0) -> Noise:
        half_width = (ci95[1] - ci95[0]) / 2 if ci95 is not None else 0.0
        # (A step as coarse as the value itself would put the mean at zero: kept short of that.)
        return cls(value, half_width / Z95 / value, min(step / 2 / value, 0.9))

    @property
    def up(self) -> float:
        """ln of the factor the mean may be above its value by rounding."""
        return math.log1p(self.rounding)

    @property
    def down(self) -> float:
        """−ln of the factor the mean may be below its value by rounding."""
        return -math.log1p(-self.rounding)


@dataclass(frozen=True, slots=True)
class Speedup:
    """A ratio of two means (a speedup: reference / run; a trend: current / previous)."""

    value: float
    ci_low: float | None = None  # its 95% interval; None when neither side has any noise
    ci_high: float | None = None

    @property
    def ci95(self) -> tuple[float, float] | None:
        return None if self.ci_low is None else (self.ci_low, self.ci_high)

    @property
    def above_1(self) -> bool:
        """Beyond noise above 1: the interval lies wholly above 1 (without one, the value does)."""
        return self.above(1.0)

    def above(self, p: float) -> bool:
        """Beyond noise above p (fast_p: faster than p × the reference)."""
        return (self.ci_low if self.ci_low is not None else self.value) > p

    @property
    def below_1(self) -> bool:
        return (self.ci_high if self.ci_high is not None else self.value) < 1


def ratio(numerator: Noise, denominator: Noise) -> Speedup:
    """a / b with a 95% interval: the delta method on the log ratio for the intervals, widened by
    each mean's rounding (a as high as a + h_a, b as low as b − h_b, and the other way round):

        sd = √((se_a / a)² + (se_b / b)²)
        interval = [(a − h_a) / (b + h_b) · exp(−1.96 · sd), (a + h_a) / (b − h_b) · exp(+1.96 · sd)]

    Asymmetric, never below 0; the interval of b / a is that of a / b inverted.
    """
    value = numerator.value / denominator.value
    sd = math.hypot(numerator.relative_se, denominator.relative_se)
    if sd == 0 and numerator.rounding == 0 and denominator.rounding == 0:
        return Speedup(value)
    log_value = math.log(value)
    low = log_value - Z95 * sd - numerator.down - denominator.up
    high = log_value + Z95 * sd + numerator.up + denominator.down
    # An interval many orders of magnitude wide (a run whose noise dwarfs its mean) is cut at
    # 10^±20 times the ratio: it says "anything" either way, and stays a number JSON and pages can show.
    return Speedup(value, math.exp(max(low, log_value - CUT)), math.exp(min(high, log_value + CUT)))


def faster_beyond_noise(a: Noise, b: Noise) -> bool:
    """A is faster than B beyond noise: the interval of A / B lies wholly below 1."""
    return ratio(a, b).below_1


def ranks(values: list[Noise]) -> list[tuple[int, bool]]:
    """(rank, tied) for each value: rank = 1 + the number of others faster beyond noise;
    tied when another shares that rank. Any order in, same order out."""
    order = sorted(range(len(values)), key=lambda i: values[i].value)
    widest = max((v.relative_se for v in values), default=0.0)
    highest = max((v.up for v in values), default=0.0)
    result = [0] * len(values)
    for position, i in enumerate(order):
        me = values[i]
        faster = 0
        for back in range(position - 1, -1, -1):  # from the next slower value down to the fastest
            other = values[order[back]]
            if other.value == me.value:
                continue
            # Beyond this gap every faster value is faster beyond noise (the widest noise cannot
            # cover it): count them all at once. The margin keeps the shortcut on the safe side.
            if math.log(me.value / other.value) > Z95 * math.hypot(me.relative_se, widest) + highest + me.down + 1e-9:
                faster += back + 1
                break
            if faster_beyond_noise(other, me):
                faster += 1
        result[i] = faster + 1
    sizes: dict[int, int] = {}
    for r in result:
        sizes[r] = sizes.get(r, 0) + 1
    return [(r, sizes[r] > 1) for r in result]


TREND_VERDICTS = ("regressed", "improved", "unchanged")


def trend_verdict(change: Speedup) -> str:
    """current / previous: regressed when its interval lies wholly above 1 (slower beyond noise),
    improved when wholly below 1, else unchanged."""
    if change.above_1:
        return "regressed"
    if change.below_1:
        return "improved"
    return "unchanged"


def geometric_mean(values: list[float]) -> float | None:
    if not values:
        return None
    return math.exp(math.fsum(math.log(v) for v in values) / len(values))
