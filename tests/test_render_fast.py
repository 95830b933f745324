"""render.py's fast paths (integer arithmetic for milliseconds, remembered answers, the document
walker) against the plain implementations they replaced: the same text, character for character."""

from __future__ import annotations

import json
import random
from decimal import ROUND_HALF_UP, Context, Decimal
from html import escape as html_escape

from markupsafe import Markup

from kindex_site import numbers, render


def reference_ms(ns, significant=3):
    """format_ms in Decimal throughout: `significant` figures at every magnitude, thousands grouped."""
    if ns is None:
        return numbers.DASH
    value = Decimal(ns) / Decimal(1_000_000)
    max_decimals = 6 if isinstance(ns, int) else 12

    def decimals_for(v):
        return 0 if v == 0 else significant - 1 - v.adjusted()

    def fixed(v, d):
        return f"{v.quantize(Decimal(1).scaleb(-d), rounding=ROUND_HALF_UP, context=Context(prec=400)):f}"

    decimals = decimals_for(value)
    rounded = Decimal(fixed(value, decimals))
    if rounded != 0 and rounded.adjusted() > value.adjusted():
        decimals = decimals_for(rounded)
    text = fixed(value, min(decimals, max_decimals))
    whole, dot, rest = text.lstrip("-").partition(".")
    return ("-" if text.startswith("-") else "") + f"{int(whole):,}{dot}{rest}"


def interesting_ints():
    yield from range(-1000, 30_000)
    rng = random.Random(8)
    for digits in range(1, 19):
        for _ in range(500):
            yield rng.randrange(10 ** (digits - 1), 10**digits)
    for k in range(1, 19):  # carries: 9995, 99949, 999999, … and their neighbours
        for head in (10**k, 10**k - 10 ** max(0, k - 4) // 2, 10**k - 10 ** max(0, k - 3) // 2):
            for d in range(-3, 4):
                yield head + d
                yield -(head + d)


def test_format_ms_of_ints_matches_decimal():
    for significant in (1, 3, 4):
        for n in interesting_ints():
            assert numbers.grouped(numbers._ms_of_int(n, significant)) == reference_ms(n, significant), (n, significant)
    for n in (4940000, 123456789, 1234567890, 999999, 999500, 999499, 1, 0, 10**20, -(10**20), True, False):
        assert render.format_ms(n) == reference_ms(n), n


def test_format_ms_of_floats_and_zeros():
    for x in (0.0, -0.0, 0, 1.5, 4940000.0, 0.1, 1e-9, 123456.789, 999999.5, -0.0):
        assert render.format_ms(x) == reference_ms(x), x  # -0.0 after 0.0: zeros are never remembered
    assert render.format_ms(4) != render.format_ms(4.0)  # typed: an int is whole nanoseconds
    assert render.format_ms(None) == numbers.DASH and render.format_ms(4940000, significant=2) == "4.9"


def reference_ratio(value):
    """format_ratio as it was: Decimal throughout, each rounding read back from its text."""
    value = Decimal(repr(value))

    def decimals_for(v):
        return 0 if v == 0 else max(0, 2 - v.adjusted())

    def fixed(v, d):  # (room for every digit of the largest float)
        return f"{v.quantize(Decimal(1).scaleb(-d), rounding=ROUND_HALF_UP, context=Context(prec=400)):f}"

    decimals = decimals_for(value)
    rounded = Decimal(fixed(value, decimals))
    if rounded != 0 and rounded.adjusted() > value.adjusted():
        decimals = decimals_for(rounded)
    return fixed(value, min(decimals, 6))


def test_format_ratio_matches_decimal():
    rng = random.Random(13)
    values = [0.0, -0.0, 1.0, 0.9995, 9.995, 99.95, 999.5, 0.00099995, 0.0000005, 0.00000049, 1e-9, -1e-9,
              5e-324, 1e22, 1.7976931348623157e308, 999999.5, 0.9999995, 2.675, 1.005, 7, -12, 10**25]
    for _ in range(30000):
        x = rng.random() * 10 ** rng.randrange(-12, 24) * rng.choice([1, -1])
        values.append(float(f"{x:.{rng.randrange(1, 6)}g}") if rng.random() < 0.3 else x)
    for value in values:
        if value == 0 or abs(value) >= 1e-4:  # (smaller: a power of ten, below)
            assert numbers.format_ratio.__wrapped__(value) == reference_ratio(value), value


def test_a_ratio_below_a_ten_thousandth_keeps_its_three_figures_as_a_power_of_ten():
    """Six decimals would show 5.48e-10 as 0.000000: a speedup is never shown as zero unless it is."""
    cases = {5.4812e-10: "5.48e-10", -3.2e-7: "-3.20e-7", 9.9951e-5: "1.00e-4", 9.99949e-5: "1.00e-4",
             9.9949e-5: "9.99e-5", 5e-324: "5.00e-324", 0.0001: "0.000100", 0.000123456: "0.000123"}
    for value, shown in cases.items():
        assert numbers.format_ratio.__wrapped__(value) == shown, value
    rng = random.Random(17)
    for _ in range(5000):
        value = rng.random() * 10 ** rng.randrange(-300, -4)
        mantissa, exponent = numbers.format_ratio.__wrapped__(value).split("e")
        exact = Decimal(repr(value))
        assert len(mantissa) == 4 and 1 <= Decimal(mantissa) < 10, value
        assert abs(Decimal(mantissa).scaleb(int(exponent)) - exact) <= Decimal("0.005").scaleb(exact.adjusted()), value


def test_zero_floats_are_not_confused():
    assert render.format_share(0.0) == "0%" and render.format_share(-0.0) == "-0%"
    assert render.format_share(0.0) == "0%"
    assert render.format_ratio(-0.0) == "-0" and render.format_ratio(0.0) == "0"


def reference_document(value):
    """document_html as it was: one recursive walk, json.dumps for scalars."""
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json", exclude_unset=True)
    parts = []

    def walk(v):
        if type(v) is str:
            parts.append(html_escape(v))
        elif isinstance(v, dict):
            if not v:
                parts.append("<code>{}</code>")
                return
            parts.append('<dl class="doc">')
            for key, item in v.items():
                parts.append(f"<dt>{html_escape(key)}</dt><dd>")
                walk(item)
                parts.append("</dd>")
            parts.append("</dl>")
        elif isinstance(v, list):
            if not v:
                parts.append("<code>[]</code>")
                return
            parts.append('<ol class="doc" start="0">')
            for item in v:
                parts.append("<li>")
                walk(item)
                parts.append("</li>")
            parts.append("</ol>")
        else:
            text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
            parts.append(f"<code>{html_escape(text)}</code>")

    walk(value)
    return Markup("".join(parts))


class Text(str):
    pass


def test_document_html_matches_the_plain_walk():
    values = [
        {"a": 1, "b": [1, 2.5, "x<y>&'\"", None, True, False, [], {}, [[]], {"c": {}}], "d": {"e": -0.0}},
        [float("nan"), float("inf"), -float("inf"), 10**30, 1e300, -5, 0.1 + 0.2, "é ☃ 😀"],
        {"<key & 'q'>": "<v>", "k": Text("sub<class>"), "n": {"m": [{"deep": ["<b>", 3]}]}},
        "top <level>", 4, 4.5, None, True, [], {}, Text("<t>"),
    ]
    for value in values:
        for _ in range(2):  # the second time from the remembered escapes
            got = render.document_html(value)
            assert isinstance(got, Markup) and got == reference_document(value), value


def test_format_value_spells_scalars_as_json():
    for v in (1, -1, 10**30, 0.1, -0.0, 1e300, 1e-7, float("nan"), float("inf"), -float("inf"), True, None, "s"):
        assert render.format_value(v) == (v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)), v


# --- board CSV: the column walk against the recursive one it replaced -------------------------

from kindex_site import publish  # noqa: E402


def reference_board_csv(rows):
    import csv
    import io

    shape: dict = {}
    for row in rows:
        shape = publish._merge(shape, publish._shape(row))
    columns: list[str] = []
    publish._columns("", shape, columns)

    def cells_of(value, prefix, shape, out):
        if isinstance(shape, dict):
            for key, sub in shape.items():
                cells_of(value.get(key) if isinstance(value, dict) else None, publish._name(prefix, key), sub, out)
        elif shape == "pair":
            out += list(value) if isinstance(value, (list, tuple)) else [None, None]
        elif shape == "json" and value is not None and not isinstance(value, str):
            out.append(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
        else:
            out.append(value)

    def cell(value):
        if value is None:
            return ""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float)):
            return json.dumps(value)
        text = str(value)
        return "'" + text if text.startswith(publish._FORMULA_START) else text

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(columns)
    for row in rows:
        cells: list = []
        cells_of(row, "", shape, cells)
        writer.writerow([cell(c) for c in cells])
    return out.getvalue().encode("utf-8")


def random_value(rng, depth=0):
    kind = rng.randrange(12 if depth < 3 else 8)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.randrange(-10**12, 10**12)
    if kind == 3:
        return rng.choice([0.1, -0.0, 1e300, 2.5, float("nan"), float("inf"), -float("inf"), 1e-7])
    if kind in (4, 5):
        return rng.choice(["x", "=SUM(A1)", "+1", "-2", "@a", "\ttab", "\rcr", "a,b", 'q"uote', "é", ""])
    if kind in (6, 7):
        return [random_value(rng, depth + 1) for _ in range(rng.choice([0, 1, 2, 2, 2, 3]))]
    return {rng.choice("abcde"): random_value(rng, depth + 1) for _ in range(rng.randrange(4))}


def test_board_csv_matches_the_recursive_walk():
    rng = random.Random(11)
    for _ in range(400):
        keys = rng.sample(["run", "rank", "ci95_ns", "speedup", "x", "y", "value"], rng.randrange(1, 6))
        rows = [{k: random_value(rng) for k in keys if rng.random() < 0.9} for _ in range(rng.randrange(1, 6))]
        assert publish.board_csv(rows) == reference_board_csv(rows), rows
    row = {"run": "r", "rank": 1, "ci95_ns": [1, 2], "speedup": {"value": 1.5, "ci95": [1.25, 1.75]},
           "samples": None, "reference": True}
    assert publish.board_csv([row, dict(row, ci95_ns=None, speedup=None)]) == reference_board_csv(
        [row, dict(row, ci95_ns=None, speedup=None)])


def reference_ci_ms(lo, hi, mean):
    to_ms = lambda ns: Decimal(ns) / Decimal(1_000_000)  # noqa: E731
    return numbers._interval(to_ms(lo), to_ms(hi), to_ms(mean) if mean is not None else None, 6)


def test_ci_ms_of_ints_matches_decimal():
    rng = random.Random(5)
    cases = [(0, 0, None), (0, 0, 0), (-1, -1, None), (-1, 1, 0), (-1500, -1, -700), (4931062, 4948938, 4940000),
             (999_999, 1_000_001, 1_000_000), (1, 10**17, 5 * 10**16), (10**6, 10**6, 10**6), (5, 3, 4)]
    for _ in range(20000):
        digits = rng.randrange(1, 18)
        mean = rng.randrange(10**digits) * rng.choice([1, 1, 1, -1])
        spread = rng.randrange(0, 10 ** rng.randrange(0, digits + 1))
        lo, hi = mean - spread // 2, mean + spread - spread // 2
        cases.append((lo, hi, rng.choice([mean, None, 0])))
        cases.append((hi, lo, mean))  # reversed: still the same text as before
    for lo, hi, mean in cases:
        assert numbers._ci_ms_of_ints(lo, hi, mean) == reference_ci_ms(lo, hi, mean), (lo, hi, mean)
    assert render.format_ci_ms([4931062, 4948938], 4940000) == "4.931–4.949"
    assert render.format_ci_ms([1.5, 2.5], None) == reference_ci_ms(1.5, 2.5, None)


# --- what templates print: escaped as markupsafe.escape escapes it ------------------------------

import jinja2  # noqa: E402
from markupsafe import escape as markup_escape  # noqa: E402

from kindex_site import charts  # noqa: E402


class Shown:
    """An object a template prints by its str."""

    def __str__(self):
        return "<shown & 'told'>"


class Html:
    """An object that says its own HTML."""

    def __html__(self):
        return "<b>as is</b>"


PRINTED = ["plain", "<tag attr=\"x\">&'", "", "é ☃ 😀", Text("<sub>"), Markup("<i>safe</i>"), 3, -0.5, None, True,
           Shown(), Html(), [1, "<x>"], {"k": "<v>"}]


def test_escape_gives_markupsafes_text():
    for value in PRINTED:
        got = charts.escape(value)
        assert type(got) is not Markup or isinstance(value, Markup)
        assert str(got) == str(markup_escape(value)), value


def test_templates_print_what_plain_jinja_prints(tmp_path):
    """The same templates, rendered by the site's environment and by a plain autoescaping one: the
    same text (output expressions, macros, call blocks, set blocks, filters and `autoescape false`)."""
    (tmp_path / "page.html").write_text(
        "{% macro m(x) %}<m>{{ x }}</m>{% endmacro %}{% macro wrap() %}<w>{{ caller() }}</w>{% endmacro %}"
        "{% set block_set %}<s>{{ values[1] }}</s>{% endset %}"
        "{% for v in values %}[{{ v }}|{{ m(v) }}|{{ v ~ '<&>' }}]{% endfor %}"
        "{% call wrap() %}{{ values[1] }}{% endcall %}{{ block_set }}{{ values[1] | upper }}"
        "{% autoescape false %}{{ values[1] }}{% endautoescape %}{{ '<lit>' }}{{ values[1] | safe }}",
        encoding="utf-8")
    plain = jinja2.Environment(loader=jinja2.FileSystemLoader(tmp_path), autoescape=True)
    site = render.make_environment(tmp_path, {})
    assert site.get_template("page.html").render(values=PRINTED) == plain.get_template("page.html").render(values=PRINTED)


def test_templates_made_once_per_run_or_row_read_dicts_by_key(project, monkeypatch):
    """A template's `x.y` on a dict raises AttributeError inside Jinja before it tries `x['y']`: made
    for every run or table row, that was a twentieth of a build. Those templates read dicts by key."""
    import os
    import sys

    import jinja2.environment
    from conftest import seed_problem_run

    per_run = {"run.html", "macros.html", "home_row.html", "host_row.html", "implementation_row.html"}
    found = []
    lookup = jinja2.environment.Environment.getattr

    def getattr_seen(self, obj, attribute):
        if isinstance(obj, dict) and not hasattr(obj, attribute):
            caller = sys._getframe(1)
            name = os.path.basename(caller.f_code.co_filename)
            if name in per_run:
                template = caller.f_globals.get("__jinja_template__")
                line = template.get_corresponding_lineno(caller.f_lineno) if template else caller.f_lineno
                found.append(f"{name}:{line}: .{attribute}")
        return lookup(self, obj, attribute)

    monkeypatch.setattr(jinja2.environment.Environment, "getattr", getattr_seen)
    docs = [seed_problem_run(f"h{i % 3}", f"Impl {i % 4}", 1_000_000 + 7919 * i) for i in range(12)]
    for i, doc in enumerate(docs):
        doc["run"]["metadata"]["name"] = f"r{i}"
        doc["run"]["spec"]["observedAt"] = f"2026-01-{1 + i:02d}T00:00:00Z"
    project.write("content/a.json", docs)
    project.built()
    assert project.page("runs/r0")  # (the pages were made)
    assert found == []
