"""Charts drawn at build time as inline SVG: numbers in, escaped markup out. No I/O, no JavaScript.

Two kinds:

- `bar_chart`: one horizontal bar per ranked run of a board (its mean), the 95% interval as a
  whisker, the reference run's bar marked and a dashed line at the reference's mean. On problem pages
  with many tables the same chart is drawn inside the table instead (`BoardChart`: CSS classes on the
  mean cells, a few bytes a row), which keeps a page of 16 tables under 60 KB.
- `distribution_chart`: per series (an implementation on a host, or a host for an implementation)
  a histogram of per-problem speedups on a log scale, quarter-octave bins, a line at 1× and a tick at
  the geometric mean.

Every chart is `role="img"` with a `<title>` and a `<desc>`; the table beside it stays the accessible
source of the numbers. The chart fills its column at any width without scaling its text: labels
sit in the chart's own pixel coordinates, and the graphics (one `<path>` per kind of mark, which
keeps the markup small) in a plot layer whose 1000 user units stretch across the width while one
unit down stays one pixel (`preserveAspectRatio="none"`; strokes do not stretch, see style.css).
Coordinates carry at most one decimal. Colours come from CSS classes (light, dark and print themes),
never from inline styles.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from markupsafe import Markup, escape

ROW = 32  # px per bar: a label line, then the bar
BAR = 10
LABEL_Y = 14  # baseline of a bar's label within its row
WIDTH = 1000  # user units across the plot; the plot is PLOT_PCT of the chart's width
PLOT_PCT = 96  # room on the right for a whisker or a label
HIST_ROW = 78  # px per histogram series: label and note lines, then the bins
HIST_TOP = 34  # px from a series' top to its tallest bin
HIST_H = 36  # px of the tallest bin
BINS_PER_OCTAVE = 4


@dataclass(frozen=True)
class Bar:
    label: str  # implementation label
    value: float  # the bar's length (a latency, in any unit, > 0)
    text: str  # the value as the table shows it, e.g. "4.94 ms"
    ci: tuple[float, float] | None = None  # the value's 95% interval, same unit
    reference: bool = False


@dataclass(frozen=True)
class Series:
    label: str
    values: list[float]  # speedups, > 0
    note: str = ""  # shown after the label, e.g. "250 problems, geometric mean 0.87×"


def _n(x: float) -> str:
    """A coordinate with at most one decimal: 63.25 → '63.2', 40.0 → '40'."""
    text = f"{x:.1f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _open(kind: str, height: int, title: str, desc: str) -> list[str]:
    return [f'<svg class="chart {kind}" width="100%" height="{height}" role="img">',
            f"<title>{escape(title)}</title><desc>{escape(desc)}</desc>"]


def _plot(height: int) -> str:
    """The graphics layer: WIDTH user units stretched over PLOT_PCT of the chart, 1 unit = 1 px down."""
    return (f'<svg width="{PLOT_PCT}%" height="{height}" viewBox="0 0 {WIDTH} {height}" '
            'preserveAspectRatio="none">')


def bar_chart(bars: list[Bar], title: str, desc: str) -> Markup:
    """Horizontal bars from 0, the longest reaching the largest value or interval end; '' without bars.

    Labels are text in the chart's own coordinates (they never stretch); bars, whiskers and the
    reference line are one path each in a stretched plot layer, which keeps the markup small.
    """
    if not bars:
        return Markup("")
    top = max(max(b.value, b.ci[1] if b.ci else 0) for b in bars)

    def x(v: float) -> str:
        return _n(WIDTH * v / top)

    height = ROW * len(bars) + 4
    parts = _open("bars", height, title, desc)
    paths = {"bar": [], "ref": [], "ci": []}
    ref = None
    for i, b in enumerate(bars):
        y = ROW * i
        label = f"{b.label} (reference)" if b.reference else b.label
        # The number first: on a narrow screen a long label is cut at its end, never the value.
        parts.append(f'<text y="{y + LABEL_Y}">{escape(b.text)} · {escape(label)}</text>')
        paths["ref" if b.reference else "bar"].append(f"M0 {y + 18}h{x(b.value)}v{BAR}H0z")
        if b.reference and ref is None:
            ref = x(b.value)
        if b.ci is not None:
            lo, hi, mid = x(b.ci[0]), x(b.ci[1]), y + 18 + BAR // 2
            paths["ci"].append(f"M{lo} {mid}H{hi}M{lo} {mid - 4}v8M{hi} {mid - 4}v8")
    parts.append(_plot(height))
    for cls, d in paths.items():
        if d:
            parts.append(f'<path class="{cls}" d="{"".join(d)}"/>')
    if ref is not None:
        parts.append(f'<path class="refline" d="M{ref} 16V{height}"/>')
    parts.append("</svg></svg>")
    return Markup("".join(parts))


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


def distribution_chart(series: list[Series], title: str, desc: str) -> Markup:
    """One histogram row per series over a shared log-2 axis of speedups; '' without values."""
    series = [s for s in series if s.values]
    if not series:
        return Markup("")
    bins_of = [[math.floor(math.log2(v) * BINS_PER_OCTAVE) for v in s.values] for s in series]
    lo, hi = _octave_range([k for ks in bins_of for k in ks])
    unit = WIDTH / (hi - lo)  # user units per bin

    def x(k: float) -> float:  # bin edge k (in quarter octaves) → user units
        return unit * (k - lo)

    axis_y = HIST_ROW * len(series) + 4
    height = axis_y + 20
    parts = _open("dist", height, title, desc)
    bins, gms, axes = [], [], []
    for i, s in enumerate(series):
        top = HIST_ROW * i
        base = top + HIST_TOP + HIST_H
        parts.append(f'<text y="{top + LABEL_Y}">{escape(s.label)}</text>')
        if s.note:
            parts.append(f'<text class="note" y="{top + LABEL_Y + 16}">{escape(s.note)}</text>')
        counts: dict[int, int] = {}
        for k in bins_of[i]:
            counts[k] = counts.get(k, 0) + 1
        most = max(counts.values())
        for k in sorted(counts):
            h = _n(max(3.0, HIST_H * counts[k] / most))  # a lone problem stays visible beside a crowded bin
            bins.append(f"M{_n(x(k))} {base}v-{h}h{_n(unit)}v{h}z")
        gm = math.exp(math.fsum(math.log(v) for v in s.values) / len(s.values))
        gms.append(f"M{_n(x(math.log2(gm) * BINS_PER_OCTAVE))} {base - HIST_H - 2}V{base + 3}")
        axes.append(f"M0 {base}H{WIDTH}")
    first, last = math.ceil(lo / BINS_PER_OCTAVE), math.floor(hi / BINS_PER_OCTAVE)
    step = max(1, math.ceil((last - first + 1) / 7))  # at most about 7 labels, so that they fit at 360 px
    for octave in range(first, last + 1):
        if octave % step == 0:
            at = PLOT_PCT * x(octave * BINS_PER_OCTAVE) / WIDTH
            parts.append(f'<text class="tick" x="{_n(at)}%" y="{height - 4}">{escape(_tick_label(octave))}</text>')
    parts.append(_plot(height))
    parts.append(f'<path class="axis" d="{"".join(axes)}"/><path class="bar" d="{"".join(bins)}"/>'
                 f'<path class="gm" d="{"".join(gms)}"/><path class="refline" d="M{_n(x(0))} 16V{axis_y}"/>')
    parts.append("</svg></svg>")
    return Markup("".join(parts))


# --- From the leaderboard to charts (the template filters) -----------------------------------


class BoardChart:
    """A board's chart, drawn one of two ways by the problem page.

    - `{{ chart }}`: an SVG above the table (`bar_chart`): labels, whiskers, a `<title>` and `<desc>`.
    - Inside the table: `chart.table_class` on the `<table>` and `chart.cell(run)` on each ranked run's
      mean cell give CSS classes that draw, under the mean, a bar to scale (`m0`…`m100`: percent of the
      table's largest mean or interval end), the 95% interval as a whisker (`l`/`h`, rounded outwards)
      and a mark at the reference's mean (`r` on the table; `rf` colours the reference's own bar).
      Classes, not inline styles: pages carry no `style=`. A few bytes a row keep a page of 16 tables
      small; the numbers beside each bar stay the accessible source.

    False when fewer than two runs are ranked (nothing to compare). `inline` is False when the
    ranking statistic is not the mean (the bars would sit under the wrong column).
    """

    def __init__(self, bars: list[Bar], runs: list[str], title: str, desc: str, inline: bool):
        self.bars, self.title, self.desc, self.inline = bars, title, desc, inline
        self._cells: dict[str, str] = {}
        self.table_class = ""
        if not bars or not inline:
            return
        top = max(max(b.value, b.ci[1] if b.ci else 0) for b in bars)
        for run, b in zip(runs, bars):
            classes = [f"m{round(100 * b.value / top)}"]
            if b.ci is not None:
                lo = math.floor(100 * b.ci[0] / top)
                classes += [f"l{lo}", f"h{max(lo + 1, math.ceil(100 * b.ci[1] / top))}"]
            if b.reference:
                classes.append("rf")
                self.table_class = self.table_class or f" r{round(100 * b.value / top)}"
            self._cells[run] = " ".join(classes)

    def __bool__(self) -> bool:
        return bool(self.bars)

    def __html__(self) -> str:
        return str(bar_chart(self.bars, self.title, self.desc))

    def cell(self, run: str) -> Markup:
        """` class="…"` for a run's mean cell, or '' (unranked runs and SVG charts have none)."""
        classes = self._cells.get(run)
        return Markup(f' class="{classes}"') if classes else Markup("")


def board_chart(board, reference: str, host_title: str) -> BoardChart:
    """A board's ranked runs as bars of the ranking statistic (see `BoardChart`)."""
    from .leaderboard import primary_value
    from .render import format_ms

    ranked = [e for e in board.entries if e.rank is not None]
    if len(ranked) < 2:
        ranked = []
    stat = board.statistic
    use_ci = stat == "mean"  # intervals are of the mean
    bars = [Bar(label=e.implementation, value=primary_value(e, stat), text=f"{format_ms(primary_value(e, stat))} ms",
                ci=e.ci95 if use_ci and e.ci95 else None, reference=e is board.reference)
            for e in ranked]
    return BoardChart(
        bars, [e.run.name for e in ranked],
        f"{stat.capitalize()} latency on {host_title}",
        f"Shorter is faster{'; whiskers: 95% CIs' if use_ci else ''}"
        f"{f'; dashed line: {reference}' if board.reference is not None else ''}. Numbers: the table.",
        inline=use_ci,
    )


def _note(n: int, geomean: float | None) -> str:
    from .render import format_ratio

    return f"{n} problem{'s' if n != 1 else ''}, geometric mean {format_ratio(geomean)}×"


def host_speedup_chart(values: dict[str, list[float]], summaries, reference: str, host_title: str) -> Markup:
    """On a host page: per implementation, the distribution of its speedups over the host's problems
    (values: implementation slug → its best speedup on each of the host's boards with a reference)."""
    series = [Series(s.implementation, values.get(s.implementation_slug, []), _note(s.problems, s.geomean_speedup))
              for s in summaries]
    return distribution_chart(
        series,
        f"Speedups vs {reference} on {host_title}, per implementation",
        f"For each implementation, how many problems reached each speedup over {reference} on this host, "
        "on a logarithmic scale in quarter-octave bins; the dashed line marks 1× (as fast as the reference), "
        "the short line each geometric mean. The table gives the numbers.",
    )


def implementation_speedup_chart(implementation, summaries, environments, reference: str) -> Markup:
    """On an implementation page: per host, the distribution of its speedups over the problems there."""
    values: dict[str, list[float]] = {}
    for key, value in implementation.board_speedups:  # its best speedup on each board (order is no matter)
        values.setdefault(key[0], []).append(value)
    series = [Series(environments[s.host].metadata.title, values.get(s.host, []), _note(s.problems, s.geomean_speedup))
              for s in summaries]
    return distribution_chart(
        series,
        f"Speedups of {implementation.label} vs {reference}, per timing host",
        f"For each timing host, how many problems reached each speedup over {reference}, on a logarithmic scale "
        "in quarter-octave bins; the dashed line marks 1× (as fast as the reference), the short line the "
        "geometric mean. Speedups are within-host ratios. The table gives the numbers.",
    )


TREND_W, TREND_H, TREND_PAD = 320, 96, 14  # px; a small multiple per implementation


def trend_chart(label: str, points: list[tuple[str, int, tuple[int, int] | None]]) -> Markup:
    """One implementation's runs on a board over time: each run's mean (a dot) with its 95% interval
    (a whisker), oldest left, in run order; the latency axis spans the values shown, not from zero,
    so a change the trend verdict calls real is visible. points: (observedAt, mean ns, interval or None)."""
    from .render import format_date, format_ms

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
