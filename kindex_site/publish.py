"""Files a published site needs beside its pages: per-board CSV, JSON Schema, sitemap, robots.txt,
Atom feed, and the size checks for GitHub Pages. Pure functions returning bytes; `build.py` writes them.

XML is made with ElementTree, so it is well-formed whatever the titles hold. Nothing here reads the
clock: the feed's `updated` is SOURCE_DATE_EPOCH when set, else the newest `observedAt` it lists.
`python -m kindex_site.publish` prints the JSON Schema (schema/kernelindex.dev-v1alpha1.json).
"""

from __future__ import annotations

import csv
import io
import functools
import json
import re
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import NamedTuple

from .models import API_VERSION, BenchmarkProtocol, BenchmarkRun, Bundle, ExecutionEnvironment
from .safetext import HIDDEN, shown_hidden

SCHEMA_PATH = "schema/kernelindex.dev-v1alpha1.json"
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
ATOM_NS = "http://www.w3.org/2005/Atom"
FEED_ENTRIES = 50

# GitHub Pages: a published site may be at most 1 GB; git warns on files over 50 MB (and refuses 100 MB).
SITE_LIMIT_BYTES = 1_000_000_000
FILE_LIMIT_BYTES = 50_000_000
NEAR = 0.8  # warn from this fraction of a limit on


# --- CSV ------------------------------------------------------------------------------------

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def board_csv(rows: list[dict]) -> bytes:
    """A board's rows (API entries) as CSV, one column per scalar, nested values flattened
    (`ci95_ns: [lo, hi]` → `ci95_lo_ns, ci95_hi_ns`); a key null in one row and filled in another
    gets the filled row's columns."""
    shape: dict = {}
    for row in rows:
        shape = _merge(shape, _shape(row))
    columns: list[str] = []
    _columns("", shape, columns)
    leaves: list[tuple[tuple, str]] = []
    _leaves((), shape, leaves)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(columns)
    for row in rows:
        cells: list[str] = []
        for keys, kind in leaves:
            value = row
            for key in keys:
                value = value.get(key) if isinstance(value, dict) else None
            if kind == "pair":
                if isinstance(value, (list, tuple)):
                    cells += [_csv_cell(v) for v in value]
                else:
                    cells += ["", ""]
            elif kind == "json" and value is not None and not isinstance(value, str):
                cells.append(_csv_cell(json.dumps(value, ensure_ascii=False, separators=(",", ":"))))
            else:
                cells.append(_csv_cell(value))
        writer.writerow(cells)
    return out.getvalue().encode("utf-8")


# A shape is None (only nulls seen), "scalar", "pair" (a two-item list of scalars), "json"
# (any other list), or a dict of key → shape.
def _shape(value):
    if value is None:
        return None
    if isinstance(value, (str, int, float)):
        return "scalar"
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if len(value) == 2 and not any(isinstance(v, (dict, list, tuple)) for v in value):
            return "pair"
        return "json"
    return "scalar"


def _merge(a, b):
    if a is None:
        return b
    if b is None or a == b:
        return a
    if isinstance(a, dict) and isinstance(b, dict):
        merged = dict(a)
        for k, v in b.items():
            merged[k] = _merge(merged.get(k), v)
        return merged
    return "json"  # one key, two shapes: keep it whole as JSON text


def _name(prefix: str, key: str) -> str:
    if not prefix:
        return key
    return prefix if key == "value" else f"{prefix}_{key}"


def _columns(prefix: str, shape, out: list[str]) -> None:
    if isinstance(shape, dict):
        for key, sub in shape.items():
            _columns(_name(prefix, key), sub, out)
    elif shape == "pair":
        stem, unit = (prefix[:-3], "_ns") if prefix.endswith("_ns") else (prefix, "")
        out += [f"{stem}_lo{unit}", f"{stem}_hi{unit}"]
    else:
        out.append(prefix)


def _leaves(keys: tuple, shape, out: list) -> None:
    """Where each column's value sits in a row (its keys) and how it is written: in column order."""
    if isinstance(shape, dict):
        for key, sub in shape.items():
            _leaves((*keys, key), sub, out)
    else:
        out.append((keys, shape if shape in ("pair", "json") else "scalar"))


def _csv_cell(value) -> str:
    """Numbers as JSON spells them; text that a spreadsheet would run as a formula gets a leading '."""
    if value is None:
        return ""
    t = type(value)
    if t is int:
        return int.__repr__(value)  # json.dumps's spelling, without its overhead
    if t is float and value - value == 0:
        return float.__repr__(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    text = str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


# --- JSON Schema ----------------------------------------------------------------------------


def json_schema() -> dict:
    """The content format: a .json file holds a bundle or an array of bundles."""
    from pydantic.json_schema import models_json_schema  # (50 ms to import: only when the schema is made)

    _, defs = models_json_schema(
        [(m, "validation") for m in (Bundle, BenchmarkRun, BenchmarkProtocol, ExecutionEnvironment)],
        ref_template="#/$defs/{model}",
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"{API_VERSION} content file",
        "description": (
            "A kindex-site content file: one bundle {run, protocol, environment} or an array of them "
            "(a .jsonl file holds one bundle per line). Generated from kindex_site.models; the build "
            "checks more than this schema can say (unique names, identical copies, matching statistics). "
            "Fields a document's objects do not list are kept, and warned about as likely typos, except in "
            "the free-form sourceNative and software objects."
        ),
        "anyOf": [
            {"$ref": "#/$defs/Bundle"},
            {"type": "array", "items": {"$ref": "#/$defs/Bundle"}},
        ],
        "$defs": defs["$defs"],
    }


@functools.cache  # the same for a given version of this program
def json_schema_bytes() -> bytes:
    return (json.dumps(json_schema(), ensure_ascii=False, indent=2) + "\n").encode("utf-8")


# --- XML: sitemap and feed ------------------------------------------------------------------

_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """Text XML 1.0 can hold, as pages show it: a HIDDEN character as its code point, what XML forbids as U+FFFD."""
    if not text.isprintable() and HIDDEN.search(text) is not None:
        text = shown_hidden(text)
    return _NOT_XML.sub("\ufffd", text)


def _xml_bytes(root: ET.Element) -> bytes:
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    el = ET.SubElement(parent, tag, {k: xml_text(v) for k, v in attrs.items()})
    if text is not None:
        el.text = xml_text(text)
    return el


def sitemap_xml(base_url: str, page_urls: list[str]) -> bytes:
    """Every HTML page's absolute URL, in URL order."""
    root = ET.Element("urlset", xmlns=SITEMAP_NS)
    for url in sorted(set(page_urls)):
        _sub(_sub(root, "url"), "loc", base_url + url)
    return _xml_bytes(root)


def robots_txt(base_url: str, sitemap: bool) -> bytes:
    lines = ["User-agent: *", "Allow: /"]
    if sitemap:
        lines.append(f"Sitemap: {base_url}sitemap.xml")
    return ("\n".join(lines) + "\n").encode("utf-8")


def utc_instant(timestamp: str) -> datetime:
    return datetime.fromisoformat(timestamp).astimezone(timezone.utc)


def rfc3339(moment: datetime) -> str:
    moment = moment.astimezone(timezone.utc)
    fraction = f".{moment.microsecond:06d}".rstrip("0") if moment.microsecond else ""
    return f"{moment.year:04d}-{moment:%m-%dT%H:%M:%S}{fraction}Z"  # (%Y writes year 999 as 999)


def source_date(environ: dict) -> datetime | None:
    """SOURCE_DATE_EPOCH (reproducible-builds.org) as a UTC time, if set and valid."""
    value = environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not value:
        return None
    try:
        return datetime.fromtimestamp(int(value), timezone.utc)
    except (ValueError, OverflowError, OSError):
        raise ValueError(f"SOURCE_DATE_EPOCH={value!r} is not a whole number of seconds") from None


def atom_feed(*, base_url: str, title: str, description: str, items: list[dict],
              updated: datetime | None) -> bytes:
    """An Atom feed of the newest FEED_ENTRIES items with an observed_at, newest first, ties by URL;
    each item {"url" (from the site root), "title", "summary", "observed_at"}."""
    dated = sorted(
        ((utc_instant(i["observed_at"]), i) for i in items if i.get("observed_at")),
        key=lambda pair: (-pair[0].timestamp(), pair[1]["url"]),
    )[:FEED_ENTRIES]
    if updated is None:
        updated = dated[0][0] if dated else datetime.fromtimestamp(0, timezone.utc)
    feed = ET.Element("feed", xmlns=ATOM_NS)
    _sub(feed, "id", base_url + "feed.xml")
    _sub(feed, "title", f"{title}: newest runs")
    _sub(feed, "subtitle", description)
    _sub(feed, "updated", rfc3339(updated))
    _sub(feed, "link", rel="self", type="application/atom+xml", href=base_url + "feed.xml")
    _sub(feed, "link", rel="alternate", type="text/html", href=base_url)
    _sub(_sub(feed, "author"), "name", title)
    _sub(feed, "generator", "kindex-site")
    for moment, item in dated:
        entry = _sub(feed, "entry")
        _sub(entry, "id", base_url + item["url"])
        _sub(entry, "title", item["title"])
        _sub(entry, "updated", rfc3339(moment))
        _sub(entry, "link", rel="alternate", type="text/html", href=base_url + item["url"])
        _sub(entry, "summary", item["summary"])
    return _xml_bytes(feed)


# --- Size -----------------------------------------------------------------------------------


def _size(n: int) -> str:
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if n >= scale:
            value = n / scale
            return f"{value:.1f} {unit}" if value < 10 and value != int(value) else f"{value:.0f} {unit}"
    return f"{n} bytes"


class SiteSizes(NamedTuple):
    """What the size warnings and advice need of a site's files, gathered in one pass over them."""

    total: int
    big: list[tuple[int, str]]  # (size, path) of each file near GitHub's limit for one file
    run_pages: int
    csvs: int
    problem_json: int

    @classmethod
    def of(cls, sizes: Iterable[tuple[str, int]]) -> SiteSizes:
        """Of (path, size) pairs."""
        near_file = NEAR * FILE_LIMIT_BYTES
        total = run_pages = csvs = problem_json = 0
        big = []
        for path, size in sizes:
            total += size
            if size >= near_file:
                big.append((size, path))
            if path.startswith("runs/"):
                run_pages += size
            elif path.startswith("problems/") and path.endswith(".csv"):
                csvs += size
            elif path.startswith("api/v1/problems/"):
                problem_json += size
        return cls(total, big, run_pages, csvs, problem_json)

    def changed(self, removed: Iterable[tuple[str, int]], added: Iterable[tuple[str, int]]) -> SiteSizes:
        """These sizes with some files' taken out and others' put in (a rebuild that rewrote a few)."""
        gone, new = SiteSizes.of(removed), SiteSizes.of(added)
        big = [item for item in self.big if item not in gone.big] + new.big if gone.big or new.big else self.big
        return SiteSizes(self.total - gone.total + new.total, big, self.run_pages - gone.run_pages + new.run_pages,
                         self.csvs - gone.csvs + new.csvs, self.problem_json - gone.problem_json + new.problem_json)


def size_warnings(sizes: SiteSizes, shown_out: str, max_site_bytes: int = SITE_LIMIT_BYTES, most: int = 10) -> list[str]:
    """Warnings when the site nears max_site_bytes or GitHub Pages' 1 GB, or a file nears 50 MB
    (the biggest `most` files)."""
    big = sorted(sizes.big, key=lambda sp: (-sp[0], sp[1]))
    warnings = [f"{shown_out}/{path} is {_size(size)}, {'over' if size > FILE_LIMIT_BYTES else 'near'} the "
                f"{_size(FILE_LIMIT_BYTES)} GitHub warns about for one file (it refuses "
                f"{_size(2 * FILE_LIMIT_BYTES)})" for size, path in big[:most]]
    if len(big) > most:
        warnings.append(f"… and {len(big) - most} more files near or over {_size(FILE_LIMIT_BYTES)}")
    total = sizes.total
    if total >= NEAR * max_site_bytes:
        warnings.append(f"{shown_out}/ holds {_size(total)}, near max_site_bytes ({_size(max_site_bytes)}) in "
                        f"kindex.toml, beyond which it is not built (GitHub Pages takes {_size(SITE_LIMIT_BYTES)})")
    if total > SITE_LIMIT_BYTES:
        warnings.append(f"{shown_out}/ holds {_size(total)}, over GitHub Pages' {_size(SITE_LIMIT_BYTES)} "
                        "limit for a published site")
    return warnings


def size_advice(sizes: SiteSizes, api_entries: str, max_site_bytes: int = SITE_LIMIT_BYTES) -> list[str]:
    """What would bring a site back under max_site_bytes: each setting (docs/scale.md) that would
    help, with what it saves on this build; else what is left to do."""
    if sizes.total < NEAR * max_site_bytes:
        return []
    advice = []
    if sizes.run_pages:
        advice.append(f"run pages take {_size(sizes.run_pages)} of that: `run_pages = false` in kindex.toml leaves "
                      "each run's details in its problem's table and JSON and drops them")
    if sizes.csvs:
        advice.append(f"tables' CSVs take {_size(sizes.csvs)}: `board_csvs = false` in kindex.toml drops them (each "
                      "problem's JSON holds the same rows)")
    if api_entries == "objects" and sizes.problem_json:
        advice.append(f"problems' JSON takes {_size(sizes.problem_json)}: `api_entries = \"arrays\"` in kindex.toml "
                      "writes it in about half that (another shape of the same values: docs/scale.md)")
    if not advice and sizes.total > max_site_bytes:
        advice.append("that is with every setting that makes the site smaller (docs/scale.md): publish parts of the "
                      "content as separate sites (say one per KernelBench level), or serve the folder from a host "
                      "without that limit")
    return advice


if __name__ == "__main__":
    sys.stdout.buffer.write(json_schema_bytes())
