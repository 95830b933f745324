"""The statistics a board shows: noise of a mean, ratios of two means with a 95% interval, the rank
rule, trends, geometric means. Pure functions on numbers, the only place each rule is computed; the
about page states each with its formula.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

Z95 = 1.96  # two-sided 95% normal quantile, the one the sources use for their intervals
CUT = 20 * math.log(10)  # the widest a ratio's interval is drawn: 10^±20 times the ratio


def rounding_step(value: int, significant_figures: int | None = None, step_ns: int | None = None) -> int | Fraction:
    """The rounding step of a value reported to `significant_figures` and/or in multiples of
    `step_ns`: the larger, 0 for neither; exact (an int, or a Fraction below a nanosecond)."""
    step: int | Fraction = 0
    if significant_figures is not None and value > 0:
        places = len(str(int(value))) - significant_figures  # (a value of d digits: its last shown is 10^(d − sf))
        step = 10 ** places if places >= 0 else Fraction(1, 10 ** -places)
    if step_ns is not None:
        step = max(step, step_ns)
    return step


_ROUNDING_CAP = Fraction(9, 10)  # a half step as coarse as the value would put the mean at zero: kept short of that


@dataclass(frozen=True, slots=True)
class Noise:
    """A value compared on a board (ns), with its relative standard error s (0 without an interval)
    and its source's rounding: the mean may be off by `half_step` either way."""

    value: int
    relative_se: float
    half_step: int | Fraction = 0

    @classmethod
    def of(cls, value: int, ci95: tuple[int, int] | None, step: int | Fraction = 0) -> Noise:
        half_width = (ci95[1] - ci95[0]) / 2 if ci95 is not None else 0.0
        if not step:
            half_step = 0
        elif type(step) is int and type(value) is int and 5 * step <= 9 * value:  # (the usual case, in integers)
            half_step = step // 2 if step % 2 == 0 else Fraction(step, 2)
        else:
            half_step = min(Fraction(step) / 2, _ROUNDING_CAP * Fraction(value))
        return cls(value, half_width / Z95 / value, half_step)

    @property
    def rounding(self) -> float:
        """Half the rounding step over the value."""
        return float(self.half_step / self.value) if self.half_step else 0.0

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
    ci_low: float | None = None  # its interval; None when neither side has any noise or rounding
    ci_high: float | None = None
    # "ci95" (at least one side gave a 95% interval), "rounding" (bounds the rounding only), or None.
    kind: str | None = None
    # +1 when the interval (without one, the value) lies wholly above 1, −1 wholly below, 0 otherwise.
    beyond: int = 0

    @property
    def ci95(self) -> tuple[float, float] | None:
        """The 95% interval, when the ratio has one (rounding bounds are not one)."""
        return (self.ci_low, self.ci_high) if self.kind == "ci95" else None

    @property
    def bounds(self) -> tuple[float, float] | None:
        """Its interval, whatever it is (a 95% interval or rounding bounds)."""
        return None if self.ci_low is None else (self.ci_low, self.ci_high)

    @property
    def rounding_bounds(self) -> tuple[float, float] | None:
        return (self.ci_low, self.ci_high) if self.kind == "rounding" else None

    @property
    def above_1(self) -> bool:
        """Beyond noise (or rounding) above 1: the interval lies wholly above 1 (without one, the value does)."""
        return self.beyond > 0

    @property
    def below_1(self) -> bool:
        return self.beyond < 0


def ratio(numerator: Noise, denominator: Noise) -> Speedup:
    """a / b with an interval: the delta method on the log ratio, widened by each mean's rounding
    (the about page's formula). A 95% interval when either side has noise; exact rounding bounds when
    only rounding; none for neither."""
    a, b = numerator, denominator
    value = a.value / b.value
    sd = math.hypot(a.relative_se, b.relative_se)
    if sd == 0:
        if not a.half_step and not b.half_step:  # no interval: the means alone, compared exactly
            return Speedup(value, beyond=(a.value > b.value) - (a.value < b.value))
        # Exact: compared with 1 on the given nanoseconds (a + h_a < b − h_b), never in floats.
        low_num, low_den = a.value - a.half_step, b.value + b.half_step
        high_num, high_den = a.value + a.half_step, b.value - b.half_step
        beyond = 1 if low_num > low_den else -1 if high_num < high_den else 0
        return Speedup(value, float(low_num) / float(low_den), float(high_num) / float(high_den), "rounding", beyond)
    log_value = math.log(value)
    low = log_value - Z95 * sd - a.down - b.up
    high = log_value + Z95 * sd + a.up + b.down
    # An interval that says "anything" is cut at 10^±20 times the ratio, a number JSON can show.
    low, high = math.exp(max(low, log_value - CUT)), math.exp(min(high, log_value + CUT))
    return Speedup(value, low, high, "ci95", 1 if low > 1 else -1 if high < 1 else 0)


def faster_beyond_noise(a: Noise, b: Noise) -> bool:
    """A is faster than B beyond noise (or rounding): the interval of A / B lies wholly below 1."""
    return ratio(a, b).beyond < 0


def ranks(values: list[Noise]) -> list[tuple[int, bool]]:
    """(rank, tied) for each value: rank(i) = 1 + the number of values faster beyond noise than i or
    than any value at most i's; tied when another shares that rank. Any order in, same order out."""
    n = len(values)
    order = sorted(range(n), key=lambda i: values[i].value)
    widest = max((v.relative_se for v in values), default=0.0)
    highest = max((v.up for v in values), default=0.0)
    counted = bytearray(n)  # by position in `order`: faster beyond noise than some value so far
    prefix = 0  # positions below this are all counted
    total = 0
    result = [0] * n
    start = 0
    while start < n:
        end = start
        while end < n and values[order[end]].value == values[order[start]].value:
            end += 1
        for position in range(start, end):
            me = values[order[position]]
            for back in range(start - 1, prefix - 1, -1):  # from the next slower value down to the fastest
                if counted[back]:
                    continue
                other = values[order[back]]
                # Beyond this gap every faster value is faster beyond noise: count them all at once.
                if math.log(me.value / other.value) > Z95 * math.hypot(me.relative_se, widest) + highest + me.down + 1e-9:
                    for q in range(prefix, back + 1):
                        if not counted[q]:
                            counted[q] = 1
                            total += 1
                    prefix = back + 1
                    break
                if faster_beyond_noise(other, me):
                    counted[back] = 1
                    total += 1
            while prefix < start and counted[prefix]:
                prefix += 1
        for position in range(start, end):
            result[order[position]] = total + 1
        start = end
    sizes: dict[int, int] = {}
    for r in result:
        sizes[r] = sizes.get(r, 0) + 1
    return [(r, sizes[r] > 1) for r in result]


TREND_VERDICTS = ("regressed", "improved", "unchanged")


def trend_verdict(change: Speedup) -> str:
    """current / previous: regressed when its interval lies wholly above 1, improved when below, else unchanged."""
    if change.above_1:
        return "regressed"
    if change.below_1:
        return "improved"
    return "unchanged"


def geometric_mean(values: list[float]) -> float | None:
    """exp(mean of ln v); None for no values, and a lone value is itself (exp(ln v) may miss it by an ulp)."""
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return math.exp(math.fsum(math.log(v) for v in values) / len(values))
