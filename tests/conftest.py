"""Test fixture in Lektor's manner: a tiny site in tmp_path, built through the real CLI, read back."""

from __future__ import annotations

import copy
import hashlib
import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from kindex_site.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
SEED = json.loads((FIXTURES / "seed.json").read_text(encoding="utf-8"))
DELETE = object()


def bundle(changes: dict | None = None, **shortcuts) -> dict:
    """A copy of the seed bundle with dotted paths set (or DELETEd), e.g. {"run.spec.timing.samples": 0}.

    Shortcuts: name=, title= (run metadata), host= (environment name, title follows), status=, mean=.
    """
    doc = copy.deepcopy(SEED)
    explicit, changes = changes or {}, {}
    if "name" in shortcuts:
        changes["run.metadata.name"] = shortcuts.pop("name")
    if "title" in shortcuts:
        changes["run.metadata.title"] = shortcuts.pop("title")
    if "host" in shortcuts:
        host = shortcuts.pop("host")
        changes["environment.metadata.name"] = host
        changes["environment.metadata.title"] = f"Host {host}"
    if "status" in shortcuts:
        changes["run.spec.status"] = shortcuts.pop("status")
    if "mean" in shortcuts:
        mean = shortcuts.pop("mean")
        changes["run.spec.timing.latencyNs"] = {
            "mean": mean, "minimum": mean, "maximum": mean, "confidence95": [mean, mean]}
    assert not shortcuts, shortcuts
    changes.update(explicit)  # explicit paths win over shortcuts
    for path, value in changes.items():
        *parents, last = path.split(".")
        node = doc
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if value is DELETE:
            del node[last]
        elif isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    # A problem is its workload: a bundle naming another problem than the seed's times another
    # workload, unless the test says which.
    if "run.spec.workloadDigest" not in changes and isinstance(doc.get("run"), dict):
        problem = _problem_named(doc)
        if problem is not None and problem != _problem_named(SEED):
            doc["run"]["spec"]["workloadDigest"] = "sha256:" + hashlib.sha256(problem.encode()).hexdigest()
    return doc


def _problem_named(doc: dict) -> str | None:
    try:
        spec, title = doc["run"]["spec"], doc["run"]["metadata"]["title"]
        native = spec.get("sourceNative") or {}
        if native.get("source") == "kernelbench":
            return "kernelbench:" + "/".join(str(native.get("externalId", "")).split("/")[-2:])
        return "title:" + str(title).split(" · ")[0].strip()
    except (KeyError, TypeError, AttributeError):
        return None


def seed_problem_run(host: str, implementation: str, mean: int, **more) -> dict:
    """A run of the seed's problem on `host`, as `implementation`, with a given mean latency."""
    slug = implementation.lower().replace(" ", "-").replace(".", "-")
    return bundle(
        name=f"run-{host}-{slug}",
        title=f"Gemm BatchNorm Scaling Softmax · {implementation} · Somewhere",
        host=host,
        mean=mean,
        **more,
    )


class Project:
    def __init__(self, root: Path, capsys):
        self.root = root
        self.capsys = capsys
        (root / "content").mkdir()

    def write(self, rel: str, data) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data if isinstance(data, str) else json.dumps(data, indent=1), encoding="utf-8")
        return path

    def run(self, *argv: str) -> tuple[int, str, str]:
        self.capsys.readouterr()
        code = main(list(argv))
        out, err = self.capsys.readouterr()
        return code, out, err

    def build(self, *argv: str) -> tuple[int, str, str]:
        return self.run("build", *argv)

    def built(self, *argv: str) -> "Project":
        code, out, err = self.build(*argv)
        assert code == 0, err
        return self

    def page(self, url: str) -> str:
        return (self.root / "site" / url.strip("/") / "index.html").read_text(encoding="utf-8")

    def api(self, path: str) -> dict:
        return json.loads((self.root / "site" / "api" / "v1" / path).read_text(encoding="utf-8"))

    def snapshot(self) -> dict[str, bytes]:
        site = self.root / "site"
        return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


@pytest.fixture
def project(tmp_path, monkeypatch, capsys) -> Project:
    monkeypatch.chdir(tmp_path)
    return Project(tmp_path, capsys)


class _Reader(HTMLParser):
    """Collects visible text and tables (caption + rows of cell texts) from a page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.tables: list[dict] = []
        self._stack: list[dict] = []
        self._cell: list[str] | None = None
        self._caption: list[str] | None = None
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "title"):
            self._skip += 1
        elif tag == "table":
            self._stack.append({"caption": "", "rows": [], "class": dict(attrs).get("class") or ""})
        elif tag == "caption":
            self._caption = []
        elif tag == "tr" and self._stack:
            self._end_cell()
            self._stack[-1]["rows"].append([])
        elif tag in ("td", "th") and self._stack:
            self._end_cell()
            self._cell = []

    def _end_cell(self):
        """A cell ends at its end tag, or where HTML implies one (the next cell or row, the table's end)."""
        if self._cell is not None:
            self._stack[-1]["rows"][-1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_endtag(self, tag):
        if tag in ("script", "style", "title"):
            self._skip -= 1
        elif tag in ("tr", "thead", "tbody", "table") and self._stack:
            self._end_cell()
            if tag == "table":
                self.tables.append(self._stack.pop())
        elif tag == "caption" and self._caption is not None:
            self._stack[-1]["caption"] = " ".join("".join(self._caption).split())
            self._caption = None
        elif tag in ("td", "th"):
            self._end_cell()

    def handle_data(self, data):
        if self._skip:
            return
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)
        if self._caption is not None:
            self._caption.append(data)


def read_html(html: str) -> _Reader:
    reader = _Reader()
    reader.feed(html)
    return reader


def visible_text(html: str) -> str:
    return " ".join("".join(read_html(html).text).split())


def tables(html: str, css_class: str | None = None) -> list[dict]:
    """Each table (of a class, if given) as {"caption", "rows"}; rows[0] is the header row."""
    return [t for t in read_html(html).tables if css_class is None or css_class in t["class"].split()]


def latency_tables(html: str) -> list[dict]:
    return tables(html, "latency")


@pytest.fixture
def always_incremental(monkeypatch):
    """However much changed, take the incremental path (normally a big change swaps a new folder in)."""
    from kindex_site import reuse

    monkeypatch.setattr(reuse, "INCREMENTAL_MAX_SHARE", 1.0)
