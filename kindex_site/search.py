"""The site's search: a static JSON index the nav's box (static/kindex.js) loads on first use, and the
no-JavaScript `/search/` page listing every problem, host and implementation for find-in-page."""

from __future__ import annotations

import json

from .safetext import shown_hidden

INDEX_PATH = "search/index.json"
KINDS = ("problem", "host", "implementation")


def entries(lb, urls) -> list[dict]:
    """Every problem, host and implementation: {kind, title, url, detail}, in page order."""
    envs = lb.content.environments
    found: list[dict] = []
    for p in lb.problems:
        detail = f"Level {p.level} · #{p.number}" if p.level is not None else "Problem"
        found.append({"kind": "problem", "title": p.title, "url": urls.problem(p.slug), "detail": detail})
    for name, e in sorted(envs.items(), key=lambda kv: (kv[1].metadata.title.casefold(), kv[0])):
        hw = e.spec.hardware
        detail = " ".join(filter(None, [hw.product, hw.formFactor])) or name
        found.append({"kind": "host", "title": e.metadata.title, "url": urls.host(name), "detail": detail})
    for impl in lb.implementations:
        found.append({"kind": "implementation", "title": impl.label, "url": urls.implementation(impl.slug),
                      "detail": f"{len(impl.entries)} run{'' if len(impl.entries) == 1 else 's'}"})
    return found


def index_bytes(lb, urls) -> bytes:
    """The JSON index: {"version": 1, "kinds": [...], "items": [[title, kind index, url, detail], …]},
    its texts shown as the pages show them."""
    items = [[shown_hidden(e["title"]), KINDS.index(e["kind"]), e["url"], shown_hidden(e["detail"])]
             for e in entries(lb, urls)]
    doc = {"version": 1, "kinds": list(KINDS), "items": items}
    return (json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def index_output(lb, urls) -> tuple[str, bytes, str]:
    """(path, bytes, what) for build.py's claim()."""
    return INDEX_PATH, index_bytes(lb, urls), "the search index"


def page_context(lb, urls) -> dict:
    """What /search/ lists: each kind's entries."""
    found = entries(lb, urls)
    return {"groups": [(kind, [e for e in found if e["kind"] == kind]) for kind in KINDS],
            "index_url": urls(INDEX_PATH)}
