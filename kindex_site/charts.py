"""Charts drawn at build time as inline SVG: numbers in, escaped markup out. No I/O, no JavaScript.

Every chart is `role="img"` with a `<title>` and a `<desc>`; the table beside it stays the accessible
source of the numbers. Labels sit in the chart's own pixels; the graphics, one `<path>` per kind of
mark, in a plot layer whose WIDTH user units stretch across the column (`preserveAspectRatio="none"`),
so the chart fills any width without scaling its text. Colours come from CSS classes, never inline.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from markupsafe import Markup

from .leaderboard import primary_value
from .numbers import format_date, format_ms, format_ratio
from .safetext import escape

WIDTH = 1000  # user units across the plot; the plot is PLOT_PCT of the chart's width
PLOT_PCT = 96  # room on the right for a whisker or a label
LINE = 15  # px per line of a label
LABEL_CHARS = 40  # a label longer than this is broken into lines (at 360 px a chart is about 44 characters wide)
HIST_H = 36  # px of the tallest bin of a histogram (under its label and note lines)
BINS_PER_OCTAVE = 4


@dataclass(frozen=True)
class Point:
    label: str  # the run's rank and implementation, e.g. "=2 torch.compile (inductor, default)"
    value: float  # the point (a speedup, or a latency in any unit; > 0)
    ci: tuple[float, float] | None = None  # its 95% interval, same unit
    reference: bool = False  # the reference run itself (its speedup is exactly 1)
    beyond: bool = True  # drawn filled: beyond noise from the reference (speedup charts); hollow otherwise


@dataclass(frozen=True)
class Series:
    label: str
    values: list[float]  # speedups, > 0
    note: str = ""  # shown after the label, e.g. "250 problems, geometric mean 0.87×"


def _n(x: float) -> str:
    """A coordinate with at most one decimal: 63.25 → '63.2', 40.0 → '40'."""
    if type(x) is int:
        return int.__repr__(x)
    text = f"{x:.1f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _open(kind: str, height: int, title: str, desc: str) -> list[str]:
    """A chart's opening: its width is style.css's (the whole column), its height given."""
    return [f'<svg class="chart {kind}" height="{height}" role="img">',
            f"<title>{escape(title)}</title><desc>{escape(desc)}</desc>"]


def _plot(height: int) -> str:
    """The graphics layer: WIDTH user units over PLOT_PCT of the chart, 1 unit = 1 px down."""
    return f'<svg width="{PLOT_PCT}%" viewBox="0 0 {WIDTH} {height}" preserveAspectRatio="none">'


def _axis_title(text: str, y: float) -> str:
    """An axis's title, right-aligned under its tick labels."""
    return f'<text class="xt" x="100%" y="{_n(y)}">{escape(text)}</text>'


def wrap(text: str, limit: int = LABEL_CHARS) -> list[str]:
    """A label as lines of at most `limit` characters, broken at spaces (a longer word keeps its line)."""
    if len(text) <= limit:  # (most labels: the words would join up again as they are)
        return [text]
    lines: list[str] = []
    for word in text.split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= limit:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


def _text_lines(lines: list[str], y: float, cls: str = "") -> str:
    attr = f' class="{cls}"' if cls else ""
    return "".join(f'<text{attr} y="{_n(y + LINE * i)}">{escape(line)}</text>' for i, line in enumerate(lines))


def nice_ticks(lo: float, hi: float, most: int = 6) -> list[float]:
    """Round values within [lo, hi] (0 < lo < hi) for a logarithmic axis: 1, 2, 5 × 10^k over a wide
    span (fewer when they would crowd), else evenly spaced round steps (1, 2, 2.5, 5 × 10^k)."""
    if hi / lo >= 4:
        decades = range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
        for mantissas in ((1, 2, 5), (1, 3), (1,)):
            ticks = [m * 10.0 ** k for k in decades for m in mantissas if lo <= m * 10.0 ** k <= hi]
            if len(ticks) <= most:
                return ticks
        step = math.ceil(len(ticks) / most)
        return ticks[::step]
    raw = (hi - lo) / (most - 1)
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    first = math.ceil(lo / step - 1e-9)
    return [round(i * step, 12) for i in range(first, math.floor(hi / step + 1e-9) + 1)]


def tick_label(value: float) -> str:
    """A tick's round value as written: 1.02, 0.5, 2, 1.005."""
    return f"{value:.6g}"


def _anchored(at_pct: float, text: str) -> str:
    """A tick label's attributes: centred on its tick, but kept inside the chart at either end."""
    if at_pct < len(text) + 1:
        return f'class="tick s" x="{_n(at_pct)}%"'
    if at_pct > 100 - len(text) - 1:
        return f'class="tick e" x="{_n(at_pct)}%"'
    return f'class="tick" x="{_n(at_pct)}%"'


def dot_chart(points: list[Point], title: str, desc: str, unit: str = "×", one: float | None = 1.0,
              scale: float = 1.0, axis: str = "") -> Markup:
    """One row per point: its label, then the point and its interval on a logarithmic axis spanning
    every value shown and `one` (dashed); tick labels are values / `scale` + `unit`. '' without points."""
    if not points:
        return Markup("")
    a, b = _log_span(points, one)

    def x(v: float) -> int:
        return round(WIDTH * (min(max(math.log(v), a), b) - a) / (b - a))

    marks, texts, axis_y = _dot_rows(points, x)
    height = axis_y + 18 + (16 if axis else 0)
    ticks = nice_ticks(math.exp(a), math.exp(b))
    marks["grid"] = [f"M{x(t)} 0V{axis_y}" for t in ticks if one is None or abs(x(t) - x(one)) > 1]
    shown = [t for t in ticks if one is None or abs(x(t) - x(one)) > 60] + ([one] if one is not None else [])
    for t in sorted(shown):
        label = tick_label(t / scale) + unit
        texts.append(f'<text {_anchored(PLOT_PCT * x(t) / WIDTH, label)} y="{axis_y + 14}">{escape(label)}</text>')
    if axis:
        texts.append(_axis_title(axis, height - 4))
    refline = None if one is None else f"M{x(one)} 0V{axis_y}"
    out = _open("dots", height, title, desc) + [_plot(height)] + _dot_marks(marks, axis_y, refline)
    out.append("</svg>")
    out += texts
    out.append("</svg>")
    return Markup("".join(out))


def _log_span(points: list[Point], one: float | None) -> tuple[float, float]:
    """The axis's ends (natural logarithms): every value and interval shown, and `one`, padded a little."""
    values = [p.value for p in points]
    ends = [v for p in points if p.ci for v in p.ci] + values + ([one] if one is not None else [])
    # An interval far wider than the values (a run whose noise dwarfs its mean) is drawn to the edge.
    lo = max(min(ends), min(values) / 16)
    hi = min(max(ends), max(values) * 16)
    a, b = math.log(lo), math.log(hi)
    span = max(b - a, 0.004)  # at least ±0.2%: a board of equal values still gets an axis
    mid = (a + b) / 2
    return mid - span / 2 - span * 0.06, mid + span / 2 + span * 0.06


def _dot_rows(points: list[Point], x) -> tuple[dict[str, list[str]], list[str], int]:
    """Each point's row: its label's lines, its band (every other row), interval and point; the axis's y."""
    texts: list[str] = []
    marks: dict[str, list[str]] = {"band": [], "ci": [], "pt": [], "open": [], "ref": []}
    y = 2
    for i, p in enumerate(points):
        lines = wrap(p.label)
        rows = LINE * len(lines) + 14
        if i % 2:  # so that a label and its point read as one
            marks["band"].append(f"M0 {y - 2}h{WIDTH}v{rows}H0z")
        texts.append(_text_lines(lines, y + 12))
        my = y + LINE * len(lines) + 6
        if p.ci is not None and p.ci[0] != p.ci[1]:
            marks["ci"].append(f"M{x(p.ci[0])} {my}H{x(p.ci[1])}")
        marks["ref" if p.reference else "pt" if p.beyond else "open"].append(f"M{x(p.value)} {my}h0")
        y += rows
    return marks, texts, y + 2


def _dot_marks(marks: dict[str, list[str]], axis_y: int, refline: str | None) -> list[str]:
    """The plot's paths, one per kind of mark: bands, grid, axis, the reference's line, then the points."""
    out = []
    if marks["band"]:
        out.append(f'<path class="band" d="{"".join(marks["band"])}"/>')
    if marks["grid"]:
        out.append(f'<path class="grid" d="{"".join(marks["grid"])}"/>')
    out.append(f'<path class="axis" d="M0 {axis_y}H{WIDTH}"/>')
    if refline is not None:
        out.append(f'<path class="refline" d="{refline}"/>')
    for cls in ("ci", "pt", "open", "ref"):
        if marks[cls]:
            d = "".join(marks[cls])
            out.append(f'<path class="{cls}" d="{d}"/>')
            if cls == "open":  # a hollow point: the dot, then its middle in the background colour
                out.append(f'<path class="hole" d="{d}"/>')
    return out


def _octave_range(bins: list[int]) -> tuple[int, int]:
    """Bin indices (quarter octaves) covering every value's bin and 1×, with a bin of room each side."""
    ks = bins + [0]
    lo, hi = min(ks) - 1, max(ks) + 2
    if hi - lo < 2 * BINS_PER_OCTAVE:  # at least about 0.5× to 2×, so that ticks show
        pad = (2 * BINS_PER_OCTAVE - (hi - lo) + 1) // 2
        lo, hi = lo - pad, hi + pad
    return lo, hi


def _tick_label(octave: int) -> str:
    v = 2.0 ** octave
    return f"{v:g}×" if v >= 1 else f"1/{2 ** -octave:g}×"


def distribution_chart(series: list[Series], title: str, desc: str, axis: str = "speedup (×, log scale)") -> Markup:
    """One histogram row per series over a shared log-2 axis of speedups, its title `axis` under the
    ticks; above the rows, what a bar's height counts (each row to its tallest bin); '' without values."""
    series = [s for s in series if s.values]
    if not series:
        return Markup("")
    bins_of = [[math.floor(math.log2(v) * BINS_PER_OCTAVE) for v in s.values] for s in series]
    lo, hi = _octave_range([k for ks in bins_of for k in ks])
    unit = WIDTH / (hi - lo)  # user units per bin

    def x(k: float) -> float:  # bin edge k (in quarter octaves) → user units
        return unit * (k - lo)

    parts: list[str] = ['<text class="yt" y="12">bar height: problems per bin, scaled per row</text>']
    bins, gms, axes, ones = [], [], [], []
    y = 18.0
    for i, s in enumerate(series):
        counts: dict[int, int] = {}
        for k in bins_of[i]:
            counts[k] = counts.get(k, 0) + 1
        most = max(counts.values())
        lines = wrap(s.label)
        parts.append(_text_lines(lines, y + 14))
        notes = wrap(s.note, LABEL_CHARS + 4) if s.note else []  # (smaller type)
        parts.append(_text_lines(notes, y + 14 + LINE * len(lines) + 1, "note"))
        base = round(y + LINE * (len(lines) + len(notes)) + 8 + HIST_H)
        for k in sorted(counts):
            h = _n(max(3.0, HIST_H * counts[k] / most))  # a lone problem stays visible beside a crowded bin
            bins.append(f"M{_n(x(k))} {base}v-{h}h{_n(unit)}v{h}z")
        gm = math.exp(math.fsum(math.log(v) for v in s.values) / len(s.values))
        gms.append(f"M{_n(x(math.log2(gm) * BINS_PER_OCTAVE))} {base - HIST_H - 2}V{base + 3}")
        axes.append(f"M0 {base}H{WIDTH}")
        ones.append(f"M{_n(x(0))} {base - HIST_H - 4}V{base}")
        y = base + 12
    axis_y = round(y)
    height = axis_y + 32
    first, last = math.ceil(lo / BINS_PER_OCTAVE), math.floor(hi / BINS_PER_OCTAVE)
    # Octaves far enough apart for their labels at the narrowest chart, 300 px.
    widest = max(len(_tick_label(o)) for o in range(first, last + 1)) * 7 * 1.5 + 8
    step = next(k for k in range(1, 64) if k * 300 * PLOT_PCT / 100 * BINS_PER_OCTAVE / (hi - lo) >= widest)
    for octave in range(first, last + 1):
        if octave % step == 0:
            at = PLOT_PCT * x(octave * BINS_PER_OCTAVE) / WIDTH
            parts.append(f'<text {_anchored(at, _tick_label(octave))} y="{axis_y + 12}">{escape(_tick_label(octave))}</text>')
    parts.append(_axis_title(axis, height - 4))
    parts = _open("dist", height, title, desc) + parts
    parts.append(_plot(height))
    parts.append(f'<path class="axis" d="{"".join(axes)}"/><path class="bar" d="{"".join(bins)}"/>'
                 f'<path class="gm" d="{"".join(gms)}"/><path class="refline" d="{"".join(ones)}"/>')
    parts.append("</svg></svg>")
    return Markup("".join(parts))


# --- From the leaderboard to charts (the template filters) -----------------------------------


def rank_text(entry) -> str:
    """A ranked entry's rank as tables show it: "2", or "=2" when shared."""
    return f"={entry.rank}" if entry.tied else str(entry.rank)


def board_chart(board, reference: str, host_title: str) -> Markup:
    """A board's ranked runs as a `dot_chart`: each run's speedup vs the reference run when there is
    one, else its value of the ranking statistic; '' when fewer than two runs are ranked."""
    ranked = [e for e in board.entries if e.rank is not None]
    if len(ranked) < 2:
        return Markup("")

    def label(e) -> str:
        return f"{rank_text(e)} {e.implementation}{' (reference)' if e is board.reference else ''}"

    if board.reference is not None and all(e.speedup is not None for e in ranked):
        points = [Point(label(e), e.speedup.value, e.speedup.bounds, reference=e is board.reference,
                        beyond=e.speedup.above_1 or e.speedup.below_1) for e in ranked]
        kinds = {e.speedup.kind for e in ranked if e.speedup.kind is not None}
        lines = {frozenset({"ci95"}): "lines: 95% intervals", frozenset({"rounding"}): "lines: the sources' rounding bounds",
                 frozenset(): "no intervals"}.get(frozenset(kinds), "lines: 95% intervals or, where a run gave none, rounding bounds")
        within = "within noise" if kinds == {"ci95"} else "within rounding" if kinds == {"rounding"} else "within noise or rounding"
        return dot_chart(points, f"Speedup vs {reference} on {host_title}",
                         f"Points: speedups; {lines}; log axis; dashed: 1×; hollow: {within} of it. Numbers: the table.",
                         axis="speedup (×, log scale)")
    stat = board.statistic
    use_ci = stat == "mean"  # intervals are of the mean
    points = [Point(label(e), primary_value(e, stat), e.ci95 if use_ci else None) for e in ranked]
    return dot_chart(points, f"{stat.capitalize()} latency on {host_title}",
                     f"Points: {stat} latencies{'; lines: 95% intervals' if use_ci else ''}; "
                     "log axis, not from zero; left is faster. Numbers: the table below.",
                     unit=" ms", one=None, scale=1_000_000, axis=f"{stat} latency (ms, log scale)")


def _note(t) -> str:
    n = t.geomean_over
    return f"{n} problem{'s' if n != 1 else ''} of {t.suite} passed, geometric mean {format_ratio(t.geomean_speedup)}×"


def host_speedup_chart(summaries, reference: str, host_title: str) -> Markup:
    """On a host page: per implementation, the distribution of its speedups over the problems it passed."""
    series = [Series(s.implementation, list(s.all.speedups), _note(s.all)) for s in summaries]
    return distribution_chart(
        series,
        f"Speedups vs {reference} on {host_title}, per implementation",
        f"For each implementation, how many problems reached each speedup over {reference} on this host, "
        "on a logarithmic scale in quarter-octave bins; the dashed line marks 1× (as fast as the reference), "
        "the short line each geometric mean. The table gives the numbers.", f"speedup vs {reference} (×, log scale)",
    )


def implementation_speedup_chart(implementation, summaries, environments, reference: str) -> Markup:
    """On an implementation page: per host, the distribution of its speedups over the problems it passed there."""
    series = [Series(environments[s.host].metadata.title, list(s.all.speedups), _note(s.all)) for s in summaries]
    return distribution_chart(
        series,
        f"Speedups of {implementation.label} vs {reference}, per timing host",
        f"For each timing host, how many problems reached each speedup over {reference}, on a logarithmic scale "
        "in quarter-octave bins; the dashed line marks 1× (as fast as the reference), the short line the "
        "geometric mean. Speedups are within-host ratios. The table gives the numbers.",
        f"speedup vs {reference} (×, log scale)",
    )


TREND_W, TREND_H, TREND_PAD = 320, 96, 14  # px; a small multiple per implementation


def trend_chart(label: str, points: list[tuple[str, int, tuple[int, int] | None]]) -> Markup:
    """One implementation's runs on a board over time: each run's mean with its 95% interval, oldest
    left, on a latency axis not from zero. points: (observedAt, mean ns, interval or None)."""
    if len(points) < 2:
        return Markup("")
    points = [(format_date(when), mean, ci) for when, mean, ci in points]
    lows = [ci[0] if ci else mean for _, mean, ci in points]
    highs = [ci[1] if ci else mean for _, mean, ci in points]
    bottom, top = min(lows), max(highs)
    span = (top - bottom) or max(top * 0.01, 1)
    bottom, top = bottom - span * 0.1, top + span * 0.1
    left, right = 64, TREND_W - 8
    plot_top, plot_bottom = TREND_PAD, TREND_H - TREND_PAD - 8

    def x(i: int) -> float:
        return left + (right - left) * i / (len(points) - 1)

    def y(ns: float) -> float:  # slower is higher
        return plot_bottom - (plot_bottom - plot_top) * (ns - bottom) / (top - bottom)

    line = "M" + " L".join(f"{_n(x(i))} {_n(y(mean))}" for i, (_, mean, _ci) in enumerate(points))
    whiskers = " ".join(f"M{_n(x(i))} {_n(y(ci[0]))} V{_n(y(ci[1]))}" for i, (_, _m, ci) in enumerate(points) if ci)
    dots = "".join(f'<circle cx="{_n(x(i))}" cy="{_n(y(mean))}" r="3"/>' for i, (_, mean, _ci) in enumerate(points))
    first, last = points[0], points[-1]
    desc = (f"{len(points)} runs from {first[0]} to {last[0]}: mean {format_ms(first[1])} ms first, "
            f"{format_ms(last[1])} ms last; whiskers are 95% intervals; the axis does not start at zero.")
    return Markup(
        f'<svg class="chart trend" viewBox="0 0 {TREND_W} {TREND_H}" width="{TREND_W}" height="{TREND_H}" '
        f'role="img"><title>{escape(label)}: mean latency per run over time</title>'
        f'<desc>{escape(desc)}</desc>'
        f'<text class="axis" x="{left - 4}" y="{_n(y(top) + 10)}" text-anchor="end">{format_ms(top)} ms</text>'
        f'<text class="axis" x="{left - 4}" y="{_n(y(bottom))}" text-anchor="end">{format_ms(bottom)} ms</text>'
        f'<path class="trend-line" d="{line}"/>'
        + (f'<path class="ci" d="{whiskers}"/>' if whiskers else "")
        + f'<g class="dots">{dots}</g>'
        f'<text class="axis" x="{left}" y="{TREND_H - 4}">{escape(first[0])}</text>'
        f'<text class="axis" x="{right}" y="{TREND_H - 4}" text-anchor="end">{escape(last[0])}</text>'
        "</svg>")


FASTP_STYLES = 6  # line styles (colour, dash and marker: style.css .fp0–.fp5, MARKERS), cycled
FP_TOP, FP_BOTTOM, FP_H = 34, 214, 252  # px: the plot's y of 100% and of 0%, the chart's height
FP_MIN_PX = 260  # px: the narrowest plot drawn (a 360 px screen); labels clear the curves there, so wider too
FP_LABEL_H, FP_DIGIT_W = 15, 9  # px of a curve's number label: its box's height, a digit's width (12px bold)
FP_GAP = 3  # px between a label's box and any curve
MARKERS = ("M-3.5 0a3.5 3.5 0 1 0 7 0a3.5 3.5 0 1 0-7 0z", "M-3-3h6v6h-6z", "M0-4.5l4.5 8h-9z",
           "M0-5l5 5-5 5-5-5z", "M0 4.5l4.5-8h-9z", "M-1.5-5h3v3.5h3.5v3h-3.5v3.5h-3v-3.5h-3.5v-3h3.5z")
MARKER_R = 5  # px: a marker's reach from its centre


@dataclass(frozen=True)
class Curve:
    """A fast_p line in plot units: each step starts at (xs[k], ys[k]), xs ascending; it ends at WIDTH."""
    xs: list[float]
    ys: list[float]

    def y_range(self, a: float, b: float) -> tuple[float, float]:
        """The least and greatest y of the line over x in [a, b] (its vertical segments included): the
        steps from the one under a (or starting at a) to the last one starting at or before b."""
        ys = self.ys[max(bisect_left(self.xs, a) - 1, 0):bisect_right(self.xs, b)]
        return min(ys), max(ys)

    def y_at(self, x: float) -> float:
        return self.ys[bisect_right(self.xs, x) - 1]


def _fp_curve(t, x, y, right: float) -> Curve:
    """A tally's fast_p as steps: the share above p falls by one problem at each speedup."""
    left = len(t.speedups)
    xs, ys = [0.0], [y(left / t.suite)]
    for v in t.speedups:  # ascending
        if v >= right:
            break
        left -= 1
        xs.append(x(v))
        ys.append(y(left / t.suite))
    return Curve(xs, ys)


def _fp_markers(curves: list[Curve]) -> list[tuple[float, float]]:
    """Where each curve's three markers go (plot units), staggered so that curves together do not share them."""
    n = len(curves)
    return [(x, c.y_at(x)) for i, c in enumerate(curves) for j in range(3) for x in [WIDTH * (j + (i + 0.5) / n) / 3]]


def place_labels(curves: list[Curve], marks: list[list[tuple[float, float]]], avoid_x: list[float]) -> list:
    """Each curve's number label: (x, baseline y) of a box beside its curve, clear of every curve,
    marker, other label and line in `avoid_x` at the narrowest width; farthest from the other curves
    wins; None where no place is clear (the legend still names the line)."""
    unit = WIDTH / FP_MIN_PX  # plot units per px at the narrowest
    placed: list[tuple[float, float, float, float]] = []  # boxes: x0, x1, y0, y1
    out = []
    beside = _beside(curves, [m for ms in marks for m in ms], unit)
    for i in range(len(curves)):
        w = (FP_DIGIT_W * len(str(i + 1)) + 2) * unit
        best, best_score = None, -1.0
        for x0 in range(4, int(WIDTH - w), 8):
            a, b = x0, x0 + w
            if any(a - 2 * unit <= v <= b + 2 * unit for v in avoid_x):
                continue  # (both boxes meet the line)
            ranges, dot_ys = beside(a, b)
            lo, hi = ranges[i]
            for top in (lo - FP_GAP - FP_LABEL_H, hi + FP_GAP):
                box = (a, b, top, top + FP_LABEL_H)
                score = _clearance(box, ranges, i, unit, dot_ys, placed)
                if score >= 0 and score + (0.5 if lo == hi else 0) > best_score:  # (flat beside its line: better)
                    best, best_score = box, score + (0.5 if lo == hi else 0)
        if best is None:
            out.append(None)
            continue
        placed.append(best)
        out.append((best[0], best[2] + 12))
    return out


def _beside(curves: list[Curve], dots: list[tuple[float, float]], unit: float):
    """For a label's box over x in [a, b]: each curve's y range beside it and the y of each marker within
    reach; kept per (a, b), since the labels of one width try the same places."""
    kept: dict[tuple[float, float], tuple[list[tuple[float, float]], list[float]]] = {}
    reach = (MARKER_R + 1) * unit

    def at(a: float, b: float) -> tuple[list[tuple[float, float]], list[float]]:
        found = kept.get((a, b))
        if found is None:
            found = kept[(a, b)] = ([c.y_range(a - FP_GAP * unit, b + FP_GAP * unit) for c in curves],
                                    [my for mx, my in dots if a - reach < mx < b + reach])
        return found

    return at


def _clearance(box, ranges: list[tuple[float, float]], own: int, unit: float, dot_ys: list[float], placed) -> float:
    """How far (px, at most 20) a label's box stays from the other curves (`ranges`: each one's y beside
    the box); -1 where it meets anything."""
    a, b, y0, y1 = box
    if y0 < FP_TOP - 17 or y1 > FP_BOTTOM - 1:
        return -1
    if any(a - 2 * unit < p1 and p0 < b + 2 * unit and y0 - 2 < q1 and q0 < y1 + 2 for p0, p1, q0, q1 in placed):
        return -1
    r = MARKER_R + 1
    if any(y0 - r < my < y1 + r for my in dot_ys):
        return -1
    room = 20.0
    for j, (lo, hi) in enumerate(ranges):
        gap = max(lo - y1, y0 - hi)  # < FP_GAP: the box meets or grazes the line
        if gap < FP_GAP:
            return -1
        if j != own:
            room = min(room, gap)
    return room


def fast_p_chart(summaries, reference: str, host_title: str) -> Markup:
    """On a host page: fast_p against p, one line per implementation over the whole suite, p from 0 to
    the smallest of 2, 3, 4, 6, 8 and 10 past 95% of the speedups; '' without summaries."""
    summaries = [s for s in summaries if s.all.suite]
    if not summaries:
        return Markup("")
    speedups = sorted(v for s in summaries for v in s.all.speedups)
    typical = speedups[int(0.95 * (len(speedups) - 1))] if speedups else 1.0
    right = next((m for m in (2, 3, 4, 6, 8) if m > typical), 10)

    def x(p: float) -> float:
        return WIDTH * min(p, right) / right

    def y(share: float) -> float:
        return FP_BOTTOM - (FP_BOTTOM - FP_TOP) * share

    curves = [_fp_curve(s.all, x, y, right) for s in summaries]
    spots = _fp_markers(curves)
    marks = [spots[3 * i:3 * i + 3] for i in range(len(curves))]
    labels = place_labels(curves, marks, [x(1)])
    suite = summaries[0].all.suite
    names = "; ".join(f"{i + 1}, {s.implementation}: fast_0 {s.all.fast_p[0.0]} and fast_1 {s.all.fast_p[1.0]} of {s.all.suite}"
                      for i, s in enumerate(summaries))
    desc = (f"fast_p, the share of the suite's {suite} problems passed with a speedup over {reference} above p, "
            f"for p from 0 to {right:g}, one numbered line per implementation; dashed: p = 1. {names}.")
    out = _open("fastp", FP_H, f"fast_p against p on {host_title}", desc)
    out.append("<defs>" + "".join(f'<path id="fpm{k}" d="{d}"/>' for k, d in enumerate(MARKERS)) + "</defs>")
    out.append(_plot(FP_H))
    grid = "".join(f"M0 {_n(y(q / 4))}H{WIDTH}" for q in range(5))
    out.append(f'<path class="grid" d="{grid}"/><path class="refline" d="M{_n(x(1))} {FP_TOP}V{FP_BOTTOM}"/>')
    for i, c in enumerate(curves):
        d = f"M0 {_n(c.ys[0])}" + "".join(f"H{_n(sx)}V{_n(sy)}" for sx, sy in zip(c.xs[1:], c.ys[1:])) + f"H{WIDTH}"
        out.append(f'<path class="fp fp{i % FASTP_STYLES}" d="{d}"/>')
    out.append("</svg>")
    out += _fp_texts(curves, marks, labels, x, y, right, suite, reference)
    out.append("</svg>")
    return Markup(f'<figure class="fastp">{"".join(out)}<figcaption>{_fp_legend(summaries)}</figcaption></figure>')


def _fp_texts(curves, marks, labels, x, y, right: float, suite: int, reference: str) -> list[str]:
    """The markers and every text of a fast_p chart, in the chart's pixels."""
    out = []
    for i, ms in enumerate(marks):
        out += [f'<use class="fp fp{i % FASTP_STYLES}" href="#fpm{i % FASTP_STYLES}" x="{_n(PLOT_PCT * mx / WIDTH)}%" '
                f'y="{_n(my)}"/>' for mx, my in ms]
    out.append(f'<text class="yt" x="-42" y="12">fast_p (% of the {suite} problems)</text>')
    out += [f'<text class="tick e" x="-5" y="{_n(y(q / 4) + 4)}">{q * 25}%</text>' for q in range(5)]
    step = 0.5 if right <= 4 else 1 if right <= 6 else 2
    for p in (k * step for k in range(int(right / step) + 1)):
        label = f"{p:g}"
        out.append(f'<text {_anchored(PLOT_PCT * x(p) / WIDTH, label)} y="{FP_BOTTOM + 16}">{label}</text>')
    out.append(_axis_title(f"p: speedup over {reference} (×)", FP_H - 4))
    for i, spot in enumerate(labels):
        if spot is not None:
            out.append(f'<text class="fp-n" x="{_n(PLOT_PCT * spot[0] / WIDTH)}%" y="{_n(spot[1])}">{i + 1}</text>')
    return out


def _fp_legend(summaries) -> str:
    """The legend under the chart: each line's number, its sample (dash and marker) and its name."""
    items = "".join(
        f'<li><strong>{i + 1}</strong> <svg width="32" height="12" aria-hidden="true"><path class="fp fp{i % FASTP_STYLES}" '
        f'd="M0 6H32"/><use class="fp fp{i % FASTP_STYLES}" href="#fpm{i % FASTP_STYLES}" x="16" y="6"/></svg> '
        f"{escape(s.implementation)} <small>fast_0 {s.all.fast_p[0.0]}, fast_1 {s.all.fast_p[1.0]} of {s.all.suite}</small></li>"
        for i, s in enumerate(summaries))
    return f'<ul class="fp-legend">{items}</ul>'


# --- Speed of light (about page, "Physics") ------------------------------------------------------
# A run's fraction of its GPU's speed of light is the one number comparable across GPUs.


def format_sol(sol: float | None) -> str:
    """A fraction of the speed of light as a percentage to 2 significant figures (0.0052 → '0.52%'),
    without thousands separators: tables sort by the leading number."""
    if sol is None or not sol > 0 or sol == math.inf:
        return "—"
    pct = sol * 100
    ndigits = 1 - math.floor(math.log10(pct))
    value = round(pct, ndigits)
    if value >= 10 ** (2 - ndigits):  # rounding carried into a new digit (99.6 → 100)
        ndigits -= 1
        value = round(pct, ndigits)
    return f"{value:.{max(0, ndigits)}f}%"


_SI = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def format_si(value: float | None, unit: str) -> str:
    """A GPU figure or a count to 3 significant figures with an SI prefix: 2e12, 'B/s' → '2 TB/s'."""
    if value is None:
        return "—"
    for size, prefix in _SI:
        if value >= size:
            return f"{value / size:.3g} {prefix}{unit}"
    return f"{value:.3g} {unit}"


@dataclass(frozen=True)
class Strip:
    label: str
    values: list[float]  # fractions of the speed of light, > 0
    note: str = ""  # shown under the label, e.g. "16 hosts, from 4.1% (T4) to 48% (H100)"


SOL_AXIS = "% of the GPU's speed of light (log scale)"


def _sol_ticks(x, lo: float, hi: float, y: int) -> list[str]:
    """A percentage axis's tick labels at round values, 100% always among them."""
    ticks = [t for t in nice_ticks(lo, hi) if abs(x(t) - x(1.0)) > 60] + [1.0]
    return [f'<text {_anchored(PLOT_PCT * x(t) / WIDTH, label)} y="{y}">{escape(label)}</text>'
            for t in sorted(ticks) for label in [f"{t * 100:.6g}%"]]


def _sol_span(values: list[float]) -> tuple[float, float]:
    """The axis's ends (natural logarithms): every value and 100%, padded a little."""
    a, b = math.log(min(values + [1.0])), math.log(max(values + [1.0]))
    span = max(b - a, 0.7)
    return a - span * 0.06, b + span * 0.06


def strip_chart(rows: list[Strip], title: str, desc: str) -> Markup:
    """One row per series: each value a point and a line from the least to the greatest, on a shared
    logarithmic axis of the speed of light's percentage, 100% dashed; '' without values."""
    rows = [r for r in rows if r.values]
    if not rows:
        return Markup("")
    a, b = _sol_span([v for r in rows for v in r.values])

    def x(v: float) -> int:
        return round(WIDTH * (min(max(math.log(v), a), b) - a) / (b - a))

    marks: dict[str, list[str]] = {"band": [], "grid": [], "ci": [], "pt": [], "open": [], "ref": []}
    texts, y = [], 2
    for i, r in enumerate(rows):
        lines, notes = wrap(r.label), wrap(r.note, LABEL_CHARS + 4) if r.note else []
        height = LINE * (len(lines) + len(notes)) + 14
        if i % 2:
            marks["band"].append(f"M0 {y - 2}h{WIDTH}v{height}H0z")
        texts.append(_text_lines(lines, y + 12) + _text_lines(notes, y + 12 + LINE * len(lines), "note"))
        my = y + height - 8
        xs = sorted({x(v) for v in r.values})
        if xs[0] != xs[-1]:
            marks["ci"].append(f"M{xs[0]} {my}H{xs[-1]}")
        marks["pt"] += [f"M{v} {my}h0" for v in xs]
        y += height
    axis_y = y + 2
    marks["grid"] = [f"M{x(t)} 0V{axis_y}" for t in nice_ticks(math.exp(a), math.exp(b)) if abs(x(t) - x(1.0)) > 1]
    height = axis_y + 34
    out = _open("dots sol", height, title, desc) + [_plot(height)]
    out += _dot_marks(marks, axis_y, f"M{x(1.0)} 0V{axis_y}") + ["</svg>"] + texts
    out += _sol_ticks(x, math.exp(a), math.exp(b), axis_y + 14) + [_axis_title(SOL_AXIS, height - 4), "</svg>"]
    return Markup("".join(out))


@dataclass(frozen=True)
class Box:
    label: str
    values: list[float]  # fractions of the speed of light, > 0, ascending
    note: str = ""


def quartiles(values: list[float]) -> tuple[float, float, float]:
    """The lower quartile, the median and the upper quartile (the middle values' means where even)."""
    def middle(part: list[float]) -> float:
        n = len(part)
        return part[n // 2] if n % 2 else math.sqrt(part[n // 2 - 1] * part[n // 2])  # (a log axis: the geometric mean)
    n = len(values)
    return middle(values[:n // 2] or values), middle(values), middle(values[(n + 1) // 2:] or values)


BOX_H = 12  # px of a box's height


def box_chart(rows: list[Box], title: str, desc: str) -> Markup:
    """One row per series: its values' range, quartile box and median on a shared logarithmic axis of
    the speed of light's percentage, 100% dashed; '' without values."""
    rows = [r for r in rows if r.values]
    if not rows:
        return Markup("")
    a, b = _sol_span([v for r in rows for v in (r.values[0], r.values[-1])])

    def x(v: float) -> int:
        return round(WIDTH * (min(max(math.log(v), a), b) - a) / (b - a))

    whiskers, boxes, medians, texts, y = [], [], [], [], 2
    for r in rows:
        lines, notes = wrap(r.label), wrap(r.note, LABEL_CHARS + 4) if r.note else []
        texts.append(_text_lines(lines, y + 12) + _text_lines(notes, y + 12 + LINE * len(lines), "note"))
        my = y + LINE * (len(lines) + len(notes)) + BOX_H // 2 + 4
        q1, q2, q3 = (x(q) for q in quartiles(r.values))
        whiskers.append(f"M{x(r.values[0])} {my}H{x(r.values[-1])}")
        boxes.append(f"M{q1} {my - BOX_H // 2}H{max(q3, q1 + 2)}v{BOX_H}H{q1}z")
        medians.append(f"M{q2} {my - BOX_H // 2 - 2}v{BOX_H + 4}")
        y = my + BOX_H // 2 + 8
    axis_y, grid = y, "".join(f"M{x(t)} 0V{y}" for t in nice_ticks(math.exp(a), math.exp(b)))
    height = axis_y + 34
    out = _open("box", height, title, desc) + [_plot(height)]
    out.append(f'<path class="grid" d="{grid}"/><path class="axis" d="M0 {axis_y}H{WIDTH}"/>'
               f'<path class="ci" d="{"".join(whiskers)}"/><path class="qbox" d="{"".join(boxes)}"/>'
               f'<path class="gm" d="{"".join(medians)}"/><path class="refline" d="M{x(1.0)} 0V{axis_y}"/></svg>')
    out += texts + _sol_ticks(x, math.exp(a), math.exp(b), axis_y + 14) + [_axis_title(SOL_AXIS, height - 4), "</svg>"]
    return Markup("".join(out))


def problem_sol_chart(strips: list[Strip], problem_title: str) -> Markup:
    """On a problem page, per workload: each implementation's fraction of the speed of light per host."""
    return strip_chart(
        strips, f"{problem_title}: fraction of the speed of light per implementation, across timing hosts",
        "For each implementation, its latest passed run on each timing host as a point: the share of its GPU's "
        "speed of light (the reference's roofline time on that GPU) it reaches, on a logarithmic axis; the line "
        "spans its hosts; dashed: 100%. Each GPU is measured against its own figures, so this view compares "
        "across hosts. Numbers: the tables below.")


def host_sol_chart(boxes: list[Box], host_title: str) -> Markup:
    """On a host page: per implementation, the distribution of its fractions of the speed of light."""
    return box_chart(
        boxes, f"Fraction of the speed of light per implementation on {host_title}",
        "For each implementation, its latest passed runs on this host's tables as shares of the speed of light "
        "(each workload's roofline time on this GPU): the line spans them, the box holds the middle half, the "
        "tick is the median; logarithmic axis, 100% dashed. The tables give each number.")
