"""The number formats readers see, for templates and charts: every rounding the site does is here.

Latencies arrive as integer nanoseconds and are shown in milliseconds, never finer than a nanosecond;
intervals are rounded outwards. Standard library only.
"""

from __future__ import annotations

from datetime import datetime, timezone
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Context, Decimal
from functools import lru_cache, update_wrapper

NS_PER_MS = Decimal(1_000_000)
MAX_DECIMALS = 6  # one nanosecond in milliseconds
DASH = "—"


def _decimals_for(value: Decimal, significant: int, least: int | None = 0) -> int:
    """Decimals to show `significant` figures; never fewer than `least` (None: tens, hundreds… too)."""
    if value == 0:
        return 0
    decimals = significant - 1 - value.adjusted()
    return decimals if least is None else max(least, decimals)


def _to_ms(ns: int | float) -> Decimal:
    return Decimal(ns) / NS_PER_MS


# Room for the widest interval a ratio is drawn with (stats.CUT), and for any finite number in ms.
_WIDE = Context(prec=400)


def _fixed(value: Decimal, decimals: int, rounding=ROUND_HALF_UP) -> str:
    return f"{_rounded(value, decimals, rounding):f}"


def _rounded(value: Decimal, decimals: int, rounding=ROUND_HALF_UP) -> Decimal:
    quantum = _QUANTA[decimals] if 0 <= decimals < len(_QUANTA) else Decimal(1).scaleb(-decimals)
    return value.quantize(quantum, rounding=rounding, context=_WIDE)


_QUANTA = [Decimal(1).scaleb(-decimals) for decimals in range(32)]  # 1, 0.1, 0.01, …


def _memo(fn):
    """A formatter that remembers its last few thousand answers (tables repeat numbers). Keys are
    typed (4.0 may be finer than 4); zeros are not remembered (0.0 and -0.0 print differently)."""
    cached = lru_cache(maxsize=1 << 12, typed=True)(fn)

    def call(*args, **kwargs):
        return fn(*args, **kwargs) if kwargs or 0 in args else cached(*args)

    call.cache_clear = cached.cache_clear
    return update_wrapper(call, fn)


@_memo
def format_ms(ns: int | float | None, significant: int = 3) -> str:
    """4940000 → '4.94'; 123456789 → '123'; 33179000000 → '33,200': `significant` figures at every
    magnitude, zeros standing for the digits beyond them, grouped in thousands from 1,000 ms."""
    if ns is None:
        return DASH
    if type(ns) is int and significant > 0 and -_FAST_LIMIT < ns < _FAST_LIMIT:
        return grouped(_ms_of_int(ns, significant))
    return grouped(_significant(_to_ms(ns), significant, MAX_DECIMALS if isinstance(ns, int) else 12, None))


def grouped(text: str) -> str:
    """'33200' → '33,200', '-1234.5' → '-1,234.5': a number's whole part in groups of three."""
    sign = "-" if text[:1] == "-" else ""
    whole, dot, decimals = text[len(sign):].partition(".")
    if len(whole) <= 3 or not whole.isdigit():
        return text
    return f"{sign}{int(whole):,}{dot}{decimals}"


_FAST_LIMIT = 10**18  # well within Decimal's 28 digits


def _ms_of_int(ns: int, significant: int) -> str:
    """format_ms for whole nanoseconds in integer arithmetic (tests/test_render_fast.py compares them)."""
    if ns == 0:
        return "0"
    a = -ns if ns < 0 else ns
    digits = len(str(a))  # the value in ms is a × 10⁻⁶: its leading digit is at 10^(digits - 7)
    decimals = significant - digits + 6  # below 0: whole milliseconds beyond the figures become zeros
    q = _round_half_up(a, decimals)
    if len(str(q)) - decimals > digits - 6:  # rounding carried into a new digit (999999 → 1.00)
        decimals = significant - 1 - (len(str(q)) - 1 - decimals)
    decimals = min(decimals, MAX_DECIMALS)
    text = str(_round_half_up(a, decimals) if decimals >= 0 else _round_half_up(a, decimals) * 10**-decimals)
    if decimals > 0:
        text = text.rjust(decimals + 1, "0")
        text = f"{text[:-decimals]}.{text[-decimals:]}"
    return "-" + text if ns < 0 else text


def _round_half_up(a: int, decimals: int) -> int:
    """a ns (a ≥ 0) in units of 10^-decimals ms (decimals may be negative: tens, hundreds…), rounded half up."""
    if decimals >= 6:
        return a * 10 ** (decimals - 6)
    unit = 10 ** (6 - decimals)
    q, r = divmod(a, unit)
    return q + 1 if 2 * r >= unit else q


def _significant(value: Decimal, significant: int, max_decimals: int, least: int | None = 0) -> str:
    decimals = _decimals_for(value, significant, least)
    rounded = _rounded(value, decimals)
    shown = decimals
    if rounded != 0 and rounded.adjusted() > value.adjusted():  # 0.999999 rounds up to 1.00, not 1.000
        decimals = _decimals_for(rounded, significant, least)
    decimals = min(decimals, max_decimals)
    return f"{rounded if decimals == shown else _rounded(value, decimals):f}"


def _interval(lo: Decimal, hi: Decimal, center: Decimal | None, max_decimals: int, figures: int | None = None) -> str:
    """Enough digits to show the width to two figures (and the center to three), rounded outwards;
    never the center to more than `figures` significant figures (the source's, plus one)."""
    decimals = _decimals_for(hi - lo, 2)
    if center is not None:
        decimals = max(decimals, _decimals_for(center, 3))
        if figures and center != 0:
            decimals = min(decimals, _decimals_for(center, figures))
    decimals = min(decimals, max_decimals)
    return f"{_fixed(lo, decimals, ROUND_FLOOR)}–{_fixed(hi, decimals, ROUND_CEILING)}"


def format_ci_ms(ci: list[int] | tuple[int, int] | None, mean_ns: int | None = None, figures: int | None = None) -> str:
    """[4931062, 4948938] → '4.931–4.949'; with figures=3, never the mean to more than three: '4.93–4.95'."""
    if ci is None:
        return DASH
    return _ci_ms(ci[0], ci[1], mean_ns, figures)


@_memo
def _ci_ms(lo: int, hi: int, mean_ns: int | None, figures: int | None = None) -> str:
    if type(lo) is int and type(hi) is int and (mean_ns is None or type(mean_ns) is int) and \
            max(abs(lo), abs(hi), abs(mean_ns or 0)) < _FAST_LIMIT:
        text = _ci_ms_of_ints(lo, hi, mean_ns, figures)
    else:
        text = _interval(_to_ms(lo), _to_ms(hi), _to_ms(mean_ns) if mean_ns is not None else None, MAX_DECIMALS, figures)
    return "–".join(grouped(end) for end in text.split("–"))  # as the mean beside it: 33,100–33,260


def _ci_ms_of_ints(lo: int, hi: int, mean_ns: int | None, figures: int | None = None) -> str:
    """_interval for whole nanoseconds in integer arithmetic (tests/test_render_fast.py compares them)."""
    width = abs(hi - lo)
    decimals = 0 if width == 0 else max(0, 8 - len(str(width)))  # the width to two figures
    if mean_ns:
        decimals = max(decimals, 9 - len(str(abs(mean_ns))))  # the center to three
        if figures:
            decimals = min(decimals, max(0, figures + 6 - len(str(abs(mean_ns)))))  # to `figures` at most
    decimals = min(decimals, MAX_DECIMALS)
    unit = 10 ** (6 - decimals)
    return f"{_fixed_of_int(lo // unit, decimals, lo < 0)}–{_fixed_of_int(-(-hi // unit), decimals, hi < 0)}"


def _fixed_of_int(q: int, decimals: int, negative: bool) -> str:
    """q units of 10^-decimals as Decimal prints it: a negative value keeps its sign even at zero."""
    text = str(abs(q))
    if decimals:
        text = text.rjust(decimals + 1, "0")
        text = f"{text[:-decimals]}.{text[-decimals:]}"
    return "-" + text if negative else text


@_memo
def format_ratio(value: float | None) -> str:
    """A speedup to three significant figures: 1.2345 → '1.23', 12.345 → '12.3'."""
    if value is None:
        return DASH
    value = Decimal(repr(value))
    if value != 0 and value.adjusted() < -4:  # below 0.0001, six decimals would drop figures: 5.48e-10
        return _scientific(value, 3)
    return _significant(value, 3, 6)


def _scientific(value: Decimal, significant: int) -> str:
    """`value` to `significant` figures (half up) as mantissa and power of ten: 5.4812e-10 → '5.48e-10'."""
    exponent = value.adjusted()
    mantissa = _rounded(value.scaleb(-exponent), significant - 1)
    if abs(mantissa) >= 10:  # 9.9951e-5 rounds to 10.0: 1.00e-4
        exponent += 1
        mantissa = _rounded(value.scaleb(-exponent), significant - 1)
    return f"{mantissa:f}e{exponent}"


def format_ratio_ci(ci: list[float] | tuple[float, float] | None, value: float | None = None,
                    figures: int | None = None) -> str:
    if ci is None:
        return DASH
    return _ratio_ci(ci[0], ci[1], value, figures)


@_memo
def _ratio_ci(lo: float, hi: float, value: float | None, figures: int | None = None) -> str:
    ci = (lo, hi)
    center = Decimal(repr(value)) if value is not None else None
    return _interval(Decimal(repr(ci[0])), Decimal(repr(ci[1])), center, 6, figures)


@_memo
def format_share(share: float | None) -> str:
    """0.4567 → '46%'."""
    return DASH if share is None else f"{Decimal(repr(share * 100)).quantize(Decimal(1), ROUND_HALF_UP)}%"


@_memo
def format_date(timestamp: str | None) -> str:
    """The UTC calendar date of an ISO 8601 time stamp."""
    if not timestamp:
        return DASH
    return datetime.fromisoformat(timestamp).astimezone(timezone.utc).date().isoformat()


def format_of_suite(count: int | None, suite: int | None) -> str:
    """A count of the suite's problems with its share to two significant figures, more decimals where
    those would read as 0% or 100%: 1 of 250 → '1 (0.4%)', 249 of 250 → '249 (99.6%)'."""
    if count is None or not suite:
        return DASH
    share = Decimal(count) * 100 / Decimal(suite)
    if share == share.to_integral_value():
        return f"{count} ({share.to_integral_value()}%)"
    decimals = max(0, 1 - share.adjusted())
    while decimals < 6 and _rounded(share, decimals) in (0, 100):
        decimals += 1
    shown = _rounded(share, decimals)
    if shown == share:  # (exact: no trailing zeros)
        shown = shown.normalize()
    return f"{count} ({shown:f}%)"
