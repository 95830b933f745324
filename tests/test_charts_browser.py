"""Charts that read, measured in the browser (Playwright driving Debian's Chromium, tests/browser_support.py):
on the bundled site's pages with charts, at 1280 and 360 px, no text of a chart (a tick, an axis's title, a
row's label, a line's number) overlaps another, and none lies on a plotted mark: a fast_p line or its
markers, a whisker, a point, a histogram's bar or a box. The bundled leaderboard host's fast_p chart has
four lines that run together below 25%, over which the old chart wrote its '25%'.

Marks are sampled along each path (SVGPathElement.getPointAtLength, every subpath's start too, so that
a point drawn as a zero-length line counts), in page pixels, each widened by half its stroke."""

from __future__ import annotations

import pytest

from browser_support import BUNDLED, browser, bundled, tabs, visit  # noqa: F401 (fixtures)

CHARTED = {"host": BUNDLED["host"], "crowded host": "hosts/kernelbench-leaderboard-l40s/",
           "implementation": BUNDLED["implementation"], "problem": BUNDLED["problem"],
           "problem with several workloads": "problems/level1-4-matrix-vector-multiplication/"}
MARKS = "path.fp, use.fp, path.ci, path.pt, path.open, path.ref, path.bar, path.gm, path.qbox"

OVERLAPS = """() => {
  const found = [], slack = 1;  // px: a line's box may touch the next line's (15 px apart, 15.1 px tall)
  const seen = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0 ? r : null; };
  const meet = (a, b) => a.left < b.right - slack && b.left < a.right - slack && a.top < b.bottom - slack && b.top < a.bottom - slack;
  for (const [n, svg] of Array.from(document.querySelectorAll('svg.chart')).entries()) {
    if (!seen(svg)) continue;
    const texts = Array.from(svg.querySelectorAll(':scope > text')).map(t => [t.textContent, seen(t)]).filter(t => t[1]);
    const name = 'chart ' + n + ' (' + svg.querySelector('title').textContent.slice(0, 40) + ')';
    for (let i = 0; i < texts.length; i++)
      for (let j = i + 1; j < texts.length; j++)
        if (meet(texts[i][1], texts[j][1])) found.push(name + ': "' + texts[i][0] + '" on "' + texts[j][0] + '"');
    for (const mark of svg.querySelectorAll(__MARKS__)) {
      const cls = mark.getAttribute('class'), points = [];
      if (mark.tagName === 'use') {
        const r = seen(mark); if (r) points.push([(r.left + r.right) / 2, (r.top + r.bottom) / 2, r.width / 2]);
      } else {
        const m = mark.getScreenCTM(), half = parseFloat(getComputedStyle(mark).strokeWidth) / 2 || 0.5;
        const at = (x, y) => { const p = new DOMPoint(x, y).matrixTransform(m); points.push([p.x, p.y, half]); };
        for (const s of mark.getAttribute('d').matchAll(/M(-?[\\d.]+) (-?[\\d.]+)/g)) at(Number(s[1]), Number(s[2]));
        const length = mark.getTotalLength(), step = Math.max(0.5, length / 20000);
        for (let l = 0; l <= length; l += step) { const p = mark.getPointAtLength(l); at(p.x, p.y); }
      }
      for (const [label, r] of texts) {
        const hit = points.find(([x, y, h]) => x + h > r.left + slack && x - h < r.right - slack && y + h > r.top + slack && y - h < r.bottom - slack);
        if (hit) found.push(name + ': "' + label + '" on ' + cls + ' at ' + Math.round(hit[0] - r.left) + ',' + Math.round(hit[1] - r.top));
      }
    }
  }
  return found;
}""".replace("__MARKS__", repr(MARKS))


@pytest.mark.parametrize("name", list(CHARTED))
def test_no_chart_label_overlaps_another_or_a_plotted_mark(visit, bundled, name):
    for width in (1280, 360):
        page = visit(width=width, height=900).goto(bundled + CHARTED[name])
        charts, found = page.evaluate(f"() => [document.querySelectorAll('svg.chart').length, ({OVERLAPS})()]")
        assert charts, name
        assert not found, (width, found[:12])


def test_the_crowded_fast_p_chart_has_axis_titles_a_number_per_line_and_a_matching_legend(visit, bundled):
    """Four lines below 25%: each is told apart by its dash and marker, shown again in the legend beside
    its number and name, and its number is written beside the line where a place is clear."""
    page = visit(width=360, height=900).goto(bundled + CHARTED["crowded host"])
    chart = page.locator("figure.fastp")
    texts = chart.locator("svg.chart > text").evaluate_all("ts => ts.map(t => t.textContent)")
    assert "fast_p (% of the 250 problems)" in texts and "p: speedup over PyTorch eager (×)" in texts
    assert [t for t in texts if t.endswith("%")] == ["0%", "25%", "50%", "75%", "100%"]
    lines = chart.locator("svg.chart path.fp")
    legend = chart.locator(".fp-legend li")
    assert lines.count() == legend.count() >= 4
    styles = [lines.nth(i).evaluate("p => getComputedStyle(p).strokeDasharray") for i in range(lines.count())]
    assert len(set(styles[:6])) == min(6, len(styles))
    for i in range(legend.count()):
        item = legend.nth(i)
        assert item.locator("strong").inner_text() == str(i + 1)
        assert item.locator("path").get_attribute("class") == lines.nth(i).get_attribute("class")
        assert item.locator("use").get_attribute("href") == f"#fpm{i % 6}"
    numbers = [t for t in texts if t.isdigit()]
    assert len(numbers) >= legend.count() - 1, numbers
