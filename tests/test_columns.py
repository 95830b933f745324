"""Tables' columns, each said once (kindex_site/tables.py: LATENCY, HISTORY, BOARDS, SUMMARY): what a reader sees
of a column (its header, whether it is a number, whether it waits behind "more", its name over each
value in the card layout below 40rem) comes from its definition, in Chromium at 1280 px and 400 px.

CSS tells a cell's column by its position only; the stylesheet's rules by position are made from the
column lists (`column_css`, below) and kept between its COLUMNS marks. A summary table's cells carry
their column's class, and its card labels (`summary_css`) are the run of `.summary td.c-…::before` rules
in the card layout's block. Run as a script, this file writes both: `.venv/bin/python tests/test_columns.py`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import fields, replace
from pathlib import Path

import pytest

from browser_support import PAGES, browser, site  # noqa: F401 (fixtures)
from conftest import tables
from kindex_site import tables as pages
from kindex_site.summaries import Tally
from test_frontend import representative_content

STYLE = Path(__file__).parent.parent / "static" / "style.css"
BLOCK = re.compile(r"(/\* COLUMNS: .*?\*/\n)(.*?)(/\* END COLUMNS \*/\n)", re.DOTALL)
REFERENCE = "PyTorch eager"  # the representative site's reference implementation
NARROW = "(max-width: 40rem)"  # the card layout's (static/style.css)
SUMMARY_LABELS = re.compile(r"(?:  \.summary td\.c-[\w-]+::before \{ content: .*; \}\n)+")


def _block(css: str) -> str:
    found = BLOCK.search(css)
    assert found, "static/style.css has no COLUMNS marks"
    return found.group(2)


def column_css() -> str:
    """Every table's rules by position, and a summary table's headers' if it has any (static/style.css
    holds them, between its COLUMNS marks)."""
    wide, narrow = [], []
    for t in pages.TABLES.values():
        wide += _column_rules(t)
        narrow += _card_rules(t)
    if pages.SUMMARY.head_css:
        wide.append(f".{pages.SUMMARY.name} thead th.num:not(:first-child) {{ {pages.SUMMARY.head_css}; }}\n")
    return "".join(wide) + f"@media {NARROW} {{\n" + "".join("  " + r for r in narrow) + "}\n"


def summary_css() -> str:
    """The summary tables' card labels: a rule per column of tables.SUMMARY, by its cells' class."""
    t = pages.SUMMARY
    return "".join(f"  .{t.name} td.c-{c.name}::before {{ content: {_css_string(c.card_name)}; }}\n" for c in t.columns)


def _column_rules(t: pages.Table) -> list[str]:
    """Numbers right-aligned on one line, headers' declarations, the columns behind "more"."""
    cells, opened = ("th", "td"), "details.more[open] ~ .table-scroll "
    rules = [] if t.classed else [_rule(t, cells, _where(t, lambda c: c.num), "text-align: right"),
                                  _rule(t, ("td",), _where(t, lambda c: c.num), "white-space: nowrap")]
    for css in dict.fromkeys(c.head_css for c in t.columns if c.head_css):
        rules.append(_rule(t, ("thead th",), _where(t, lambda c, css=css: c.head_css == css), css))
    rules.append(_rule(t, cells, _where(t, lambda c: c.more), "display: none"))
    rules.append(_rule(t, cells, _where(t, lambda c: c.more), "display: table-cell", opened))
    return [r for r in rules if r]


def _card_rules(t: pages.Table) -> list[str]:
    """Below 40rem: a card per row, each value under its column's name."""
    opened = "details.more[open] ~ .table-scroll "
    rules = [_rule(t, ("td",), _where(t, lambda c: c.more), "display: block", opened),
             _rule(t, ("tr:not(.unranked) td",), _where(t, lambda c: not c.ranked_card), "display: none")]
    for css in dict.fromkeys(c.card_css for c in t.columns if c.card_css):
        rules.append(_rule(t, ("td",), _where(t, lambda c, css=css: c.card_css == css), css))
    for i, c in enumerate(t.columns, 1):
        if c.card_name:
            rules.append(_rule(t, ("td",), [i], f"content: {_css_string(c.card_name)}", after="::before"))
    return [r for r in rules if r]


def _where(t: pages.Table, test: Callable[[pages.Column], object]) -> list[int]:
    """The numbers (from 1) of the table's columns that pass the test."""
    return [i for i, c in enumerate(t.columns, 1) if test(c)]


def _rule(t: pages.Table, cells: tuple[str, ...], columns: list[int], css: str, before: str = "", after: str = "") -> str:
    """One rule for the cells of these columns, a selector per run of neighbours; none for no column."""
    if not columns:
        return ""
    where = _positions(columns, len(t.columns))
    selectors = [f"{before}.{t.name} {cell}{w}{after}" for cell in cells for w in where]
    line = ", ".join(selectors) + f" {{ {css}; }}\n"
    return line if len(line) <= 110 else ",\n".join(selectors) + f" {{ {css}; }}\n"


def _positions(columns: list[int], last: int) -> list[str]:
    runs: list[list[int]] = []
    for i in columns:
        if runs and runs[-1][1] == i - 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return [_position(a, b, last) for a, b in runs]


def _position(a: int, b: int, last: int) -> str:
    """Columns a to b: one, or a run (to the last column, open-ended)."""
    if a == b:
        return ":first-child" if a == 1 else f":nth-child({a})"
    return f":nth-child(n+{a})" + ("" if b == last else f":nth-child(-n+{b})")


def _css_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ") + '"'


def write() -> None:
    """Put the column lists' rules into static/style.css, between its COLUMNS marks."""
    css = STYLE.read_text(encoding="utf-8")
    _block(css)
    assert len(SUMMARY_LABELS.findall(css)) == 1, "static/style.css: the summary card labels are not one run"
    css = BLOCK.sub(lambda m: m.group(1) + column_css() + m.group(3), css)
    STYLE.write_text(SUMMARY_LABELS.sub(lambda m: summary_css(), css), encoding="utf-8")


def test_the_stylesheet_holds_the_rules_its_column_lists_make():
    css = STYLE.read_text(encoding="utf-8")
    assert _block(css) == column_css(), "write them: .venv/bin/python tests/test_columns.py"
    # Outside the block, no rule picks one of those tables' columns by its position.
    outside = BLOCK.sub("", css)
    for t in pages.TABLES:
        assert not re.search(rf"\.{t}\b[^{{}}]*:(nth-child|first-child|last-child)", outside), t


def test_the_stylesheet_names_each_summary_column_s_cards_as_its_list_does():
    css = STYLE.read_text(encoding="utf-8")
    assert SUMMARY_LABELS.findall(css) == [summary_css()], "write them: .venv/bin/python tests/test_columns.py"
    at = css.index(summary_css())  # in the card layout's block, and no such rule elsewhere
    opening = css.rindex("@media", 0, at)
    assert css.startswith(f"@media {NARROW}", opening) and "\n}\n" not in css[opening:at]
    assert css.count(".summary td.c-") == len(pages.SUMMARY.columns)


def test_a_summary_table_s_header_declarations_are_written_with_the_columns_rules(monkeypatch):
    monkeypatch.setattr(pages, "SUMMARY", replace(pages.SUMMARY, head_css=""))
    assert ".summary thead" not in column_css()  # (none while its headers take every table's)
    monkeypatch.setattr(pages, "SUMMARY", replace(pages.SUMMARY, head_css="min-width: 5.5rem"))
    assert column_css().split("@media")[0].endswith(".summary thead th.num:not(:first-child) { min-width: 5.5rem; }\n")


def test_a_column_list_says_what_a_card_is_called_and_what_waits_behind_more():
    latency = pages.LATENCY
    assert latency.more == "Min, max, std, samples, date"
    assert [c.head for c in latency.columns if c.more] == ["Min (ms)", "Max (ms)", "Std (ms)", "Samples", "Observed (UTC)"]
    for t in pages.TABLES.values():
        for c in t.columns:  # a card's name is its header's, unless the header names the reference
            assert c.card_name == (c.head if c.card is None else c.card)
            assert "{reference}" not in c.card_name, (t.name, c.head)


def test_each_table_s_head_row_and_cells_follow_its_columns(project):
    for rel, data in representative_content().items():
        project.write(rel, data)
    project.built()
    html = project.page("problems/level2-84-gemm-batchnorm-scaling-softmax")
    heads = [c.head_for(REFERENCE) for c in pages.LATENCY.columns]
    latency = tables(html, "latency")
    assert latency and all(t["rows"][0] == heads for t in latency)
    assert all(len(row) == len(heads) for t in latency for row in t["rows"])
    history = tables(html, "history")
    assert history and all(t["rows"][0] == [c.head for c in pages.HISTORY.columns] for t in history)
    assert all(len(row) == len(pages.HISTORY.columns) for t in history for row in t["rows"])
    assert html.count(f'<details class="more"><summary>{pages.LATENCY.more}</summary></details>') == len(latency)
    host = project.page("hosts/gpu-a/levels/2")
    [boards] = tables(host, "boards")
    assert boards["rows"][0] == [c.head for c in pages.BOARDS.columns]
    assert all(len(row) == len(pages.BOARDS.columns) for row in boards["rows"])
    head = re.search(r'<table class="sortable boards cards".*?<thead><tr>(.*?)</tr></thead>', host, re.DOTALL).group(1)
    number = ' class="num"'
    assert re.findall(r"<th([^>]*)>", head) == [' scope="col"' + (number if c.num else "") for c in pages.BOARDS.columns]


def test_a_summary_table_follows_its_columns(project):
    assert {c.field for c in pages.SUMMARY.columns} <= {f.name for f in fields(Tally)}
    for rel, data in representative_content().items():
        project.write(rel, data)
    project.built()
    host = project.page("hosts/gpu-a")
    [summary] = tables(host, "summary")
    assert summary["rows"][0] == ["Implementation"] + [c.head for c in pages.SUMMARY.columns]
    assert len(summary["rows"]) > 1 and all(len(row) == len(pages.SUMMARY.columns) + 1 for row in summary["rows"])
    cells = re.findall(r'<td class="num c-([\w-]+)"', host[host.index('<table class="sortable summary'):])
    assert cells[:len(pages.SUMMARY.columns)] == [c.name for c in pages.SUMMARY.columns]


# --- What a reader sees, in Chromium ------------------------------------------------------------

SEEN = """(selector) => Array.from(document.querySelectorAll(selector)).map(t => ({
  head: Array.from(t.tHead.rows[0].cells).map(c => ({text: c.textContent.replace(/\\s+/g, " ").trim(),
    shown: c.getClientRects().length > 0, align: getComputedStyle(c).textAlign})),
  rows: Array.from(t.tBodies[0].rows).map(r => ({unranked: r.classList.contains("unranked"),
    cells: Array.from(r.cells).map(c => ({tag: c.tagName.toLowerCase(), shown: c.getClientRects().length > 0,
      align: getComputedStyle(c).textAlign, wrap: getComputedStyle(c).whiteSpace,
      label: getComputedStyle(c, "::before").content}))}))}))"""


def _page(chromium, url: str, width: int):
    context = chromium.new_context(viewport={"width": width, "height": 900}, java_script_enabled=False)
    page = context.new_page()
    page.goto(url)
    return page


def _label(text: str) -> str:
    return '"' + text + '"'


def _check_wide(table: dict, t: pages.Table, opened: bool) -> None:
    """At 1280 px: numbers right-aligned on one line, the columns behind "more" shown only when it is open."""
    for i, c in enumerate(t.columns):
        head = table["head"][i]
        assert head["shown"] == (opened or not c.more), (t.name, c.head)
        for row in table["rows"]:
            cell = row["cells"][i]
            assert cell["shown"] == (opened or not c.more), (t.name, c.head)
            if cell["tag"] == "td":
                assert cell["align"] == ("right" if c.num else "left"), (t.name, c.head)
                assert (cell["wrap"] == "nowrap") == c.num, (t.name, c.head)
        assert head["align"] == ("right" if c.num else "left"), (t.name, c.head)


def _check_cards(table: dict, t: pages.Table, opened: bool) -> None:
    """At 400 px: a card per row, each value under its column's name, which is its header's text."""
    for i, c in enumerate(t.columns):
        for row in table["rows"]:
            cell = row["cells"][i]
            if cell["tag"] == "th":  # the row's header heads its card
                assert cell["label"] in ("none", "normal") and cell["shown"]
                continue
            hidden = (c.more and not opened) or (not c.ranked_card and not row["unranked"])
            assert cell["shown"] == (not hidden), (t.name, c.head, row["unranked"])
            assert cell["label"] == (_label(c.card_name) if c.card_name else "none"), (t.name, c.head)
            if c.card is None:  # the name is the header's very text
                assert cell["label"] == _label(table["head"][i]["text"])
            assert cell["align"] == "left" and cell["wrap"] == "normal"


@pytest.mark.parametrize("width", [1280, 400])
def test_latency_and_history_columns_as_a_reader_sees_them(browser, site, width):  # noqa: F811
    page = _page(browser, site + PAGES["problem"], width)
    page.locator("details.history summary").first.click()
    check = _check_wide if width == 1280 else _check_cards
    for opened in (False, True):
        if opened:
            for summary in page.locator("details.more summary").all():
                summary.click()
        latency = page.evaluate(SEEN, "table.latency")
        assert latency and any(r["unranked"] for t in latency for r in t["rows"])
        for table in latency:
            check(table, pages.LATENCY, opened)
    history = page.evaluate(SEEN, "details.history[open] table.history")
    assert history
    check(history[0], pages.HISTORY, False)


@pytest.mark.parametrize("width", [1280, 400])
def test_a_host_s_boards_as_a_reader_sees_them(browser, site, width):  # noqa: F811
    page = _page(browser, site + PAGES["host"] + "levels/2/", width)
    [boards] = page.evaluate(SEEN, "table.boards")
    (_check_wide if width == 1280 else _check_cards)(boards, pages.BOARDS, False)


def test_a_summary_s_cards_name_its_columns(browser, site):  # noqa: F811
    """At 400 px each summary value is under its column's card name, and shown."""
    page = _page(browser, site + PAGES["host"], 400)
    [summary] = page.evaluate(SEEN, "table.summary")
    assert [h["text"] for h in summary["head"][1:]] == [c.head for c in pages.SUMMARY.columns]
    rows = [r for r in summary["rows"] if len(r["cells"]) == len(pages.SUMMARY.columns) + 1]
    assert rows
    for row in rows:
        assert [cell["label"] for cell in row["cells"][1:]] == [_label(c.card_name) for c in pages.SUMMARY.columns]
        assert all(cell["shown"] for cell in row["cells"])


if __name__ == "__main__":
    write()
