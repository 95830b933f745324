"""Jinja environment and the number formats readers see.

Latencies arrive as integer nanoseconds and are shown in milliseconds. Rounding never adds
precision the input lacks (at most 6 decimals of a millisecond, i.e. whole nanoseconds), and
confidence intervals are rounded outwards so the shown interval always contains the true one.
"""

from __future__ import annotations

import json
from html import escape as html_escape
from datetime import datetime, timezone
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Decimal
from pathlib import Path

import jinja2
from markupsafe import Markup
from pydantic import BaseModel
from markdown_it import MarkdownIt

from . import charts

NS_PER_MS = Decimal(1_000_000)
MAX_DECIMALS = 6  # one nanosecond in milliseconds
DASH = "—"


def _decimals_for(value: Decimal, significant: int) -> int:
    if value == 0:
        return 0
    return max(0, significant - 1 - value.adjusted())


def _to_ms(ns: int | float) -> Decimal:
    return Decimal(ns) / NS_PER_MS


def _fixed(value: Decimal, decimals: int, rounding=ROUND_HALF_UP) -> str:
    return f"{value.quantize(Decimal(1).scaleb(-decimals), rounding=rounding):f}"


def format_ms(ns: int | float | None, significant: int = 3) -> str:
    """4940000 → '4.94'; 123456789 → '123'; 1234567890 → '1235'. Integer digits are never dropped."""
    if ns is None:
        return DASH
    return _significant(_to_ms(ns), significant, MAX_DECIMALS if isinstance(ns, int) else 12)


def _significant(value: Decimal, significant: int, max_decimals: int) -> str:
    decimals = _decimals_for(value, significant)
    rounded = Decimal(_fixed(value, decimals))
    if rounded != 0 and rounded.adjusted() > value.adjusted():  # 0.999999 rounds up to 1.00, not 1.000
        decimals = _decimals_for(rounded, significant)
    return _fixed(value, min(decimals, max_decimals))


def _interval(lo: Decimal, hi: Decimal, center: Decimal | None, max_decimals: int) -> str:
    """Enough digits to show the width to two figures (and the center to three), rounded outwards."""
    decimals = _decimals_for(hi - lo, 2)
    if center is not None:
        decimals = max(decimals, _decimals_for(center, 3))
    decimals = min(decimals, max_decimals)
    return f"{_fixed(lo, decimals, ROUND_FLOOR)}–{_fixed(hi, decimals, ROUND_CEILING)}"


def format_ci_ms(ci: list[int] | tuple[int, int] | None, mean_ns: int | None = None) -> str:
    """[4931062, 4948938] → '4.931–4.949'."""
    if ci is None:
        return DASH
    return _interval(_to_ms(ci[0]), _to_ms(ci[1]), _to_ms(mean_ns) if mean_ns is not None else None, MAX_DECIMALS)


def format_ratio(value: float | None) -> str:
    """A speedup to three significant figures: 1.2345 → '1.23', 12.345 → '12.3'."""
    if value is None:
        return DASH
    return _significant(Decimal(repr(value)), 3, 6)


def format_ratio_ci(ci: list[float] | tuple[float, float] | None, value: float | None = None) -> str:
    if ci is None:
        return DASH
    center = Decimal(repr(value)) if value is not None else None
    return _interval(Decimal(repr(ci[0])), Decimal(repr(ci[1])), center, 6)


def format_share(share: float | None) -> str:
    """0.4567 → '46%'."""
    return DASH if share is None else f"{Decimal(repr(share * 100)).quantize(Decimal(1), ROUND_HALF_UP)}%"


def format_date(timestamp: str | None) -> str:
    """The UTC calendar date of an ISO 8601 time stamp."""
    if not timestamp:
        return DASH
    return datetime.fromisoformat(timestamp).astimezone(timezone.utc).date().isoformat()


def format_value(value) -> str:
    """A scalar from a document, as JSON would spell it (so 4.94 stays 4.94, true stays true)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def document_html(value) -> Markup:
    """A document value shown whole: objects as nested <dl>, arrays as <ol>, scalars as text.

    Plain Python rather than a recursive template macro: run pages show whole documents and a
    macro call per value costs more than the rest of the page.
    """
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", exclude_unset=True)
    parts: list[str] = []
    append = parts.append

    def walk(v) -> None:
        if type(v) is str:
            append(html_escape(v))
        elif isinstance(v, dict):
            if not v:
                append("<code>{}</code>")
                return
            append('<dl class="doc">')
            for key, item in v.items():
                append(f"<dt>{html_escape(key)}</dt><dd>")
                walk(item)
                append("</dd>")
            append("</dl>")
        elif isinstance(v, list):
            if not v:
                append("<code>[]</code>")
                return
            append('<ol class="doc" start="0">')
            for item in v:
                append("<li>")
                walk(item)
                append("</li>")
            append("</ol>")
        else:
            append(f"<code>{html_escape(format_value(v))}</code>")

    walk(value)
    return Markup("".join(parts))


def short_digest(digest: str) -> str:
    return digest.removeprefix("sha256:")[:12]


def safe_link(url: str | None) -> str | None:
    """Content-supplied URLs become links only when they are http, https or mailto."""
    if not url:
        return None
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    return url if scheme in ("http", "https", "mailto") else None


def markdown_renderer() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable("table")

    def validate_link(url: str) -> bool:
        # Relative links and fragments stay; of absolute ones only http(s) and mailto.
        head = url.strip().split("/", 1)[0]
        if ":" not in head:
            return True
        return head.split(":", 1)[0].lower() in ("http", "https", "mailto")

    md.validateLink = validate_link
    return md


def make_environment(templates_dir: Path, globals_: dict) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates_dir),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(
        ms=format_ms,
        ci_ms=format_ci_ms,
        ratio=format_ratio,
        ratio_ci=format_ratio_ci,
        share=format_share,
        date=format_date,
        value=format_value,
        short_digest=short_digest,
        document=document_html,
        safe_link=safe_link,
        board_chart=charts.board_chart,
        host_speedup_chart=charts.host_speedup_chart,
        implementation_speedup_chart=charts.implementation_speedup_chart,
    )
    env.globals.update(globals_)
    return env
