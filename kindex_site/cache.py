"""What the last build made, so the next one can do only what changed.

A manifest beside the output folder (`.kindex-cache/<output name>.json`) records the inputs the
last build saw (content files by size and modification time, settings and templates by hash) and,
per output file, a key derived from exactly the inputs it shows. The next build then:

- does nothing at all when no input changed (checked with stdlib only, before the heavy imports);
- otherwise loads and checks everything as usual, but makes and writes only the outputs whose key
  changed, and deletes the ones no longer made. The result is byte-identical to a clean build
  (the tests compare them), because each key covers everything its page shows.

Keys are deliberately coarse: a run page changes with any run of its problem (ranks, anchors),
a host page with any problem timed on it, and pages that summarise everything (home, indexes,
feeds) with any content at all.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from . import __version__

FORMAT = 1
PACKAGE_DIR = Path(__file__).resolve().parent


def manifest_path(out: Path) -> Path:
    out = out.resolve()
    return out.parent / ".kindex-cache" / f"{out.name}.json"


@dataclass
class Manifest:
    settings: str = ""
    inputs: dict[str, list[int]] = field(default_factory=dict)  # content file → [size, mtime_ns]
    outputs: dict[str, list] = field(default_factory=dict)  # output path → [key, size]
    trusted: list[str] = field(default_factory=list)  # sha256 of .json files that loaded cleanly
    summary: dict = field(default_factory=dict)  # pages, runs, files of the last build
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    state: str = "clean"  # "applying" while files are being replaced: then only a full build is safe


def read_manifest(out: Path) -> Manifest | None:
    try:
        data = json.loads(manifest_path(out).read_text(encoding="utf-8"))
        if data.pop("format", None) != FORMAT:
            return None
        return Manifest(**data)
    except (OSError, ValueError, TypeError):
        return None  # missing, unreadable or from another version: a full build it is


def write_manifest(out: Path, manifest: Manifest) -> None:
    path = manifest_path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(path.name + ".tmp")
    data = {"format": FORMAT, **manifest.__dict__}
    temp.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
    os.replace(temp, path)


def forget(out: Path) -> None:
    try:
        manifest_path(out).unlink()
    except OSError:
        pass


def _hash_tree(h, root: Path) -> None:
    if not root.is_dir():
        h.update(f"missing {root}\n".encode())
        return
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        h.update(f"{path.relative_to(root).as_posix()}\n".encode())
        h.update(hashlib.sha256(path.read_bytes()).digest())


def settings_key(config, folders: list[Path], environ: dict) -> str:
    """Everything besides content that shapes the output: settings, templates, static files, this
    program's own code (an upgrade rebuilds everything) and SOURCE_DATE_EPOCH."""
    h = hashlib.sha256()
    h.update(json.dumps(config.model_dump(mode="json"), sort_keys=True).encode())
    h.update(f"\n{__version__}\n{environ.get('SOURCE_DATE_EPOCH', '')}\n".encode())
    for folder in folders:
        _hash_tree(h, folder)
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        st = path.stat()
        h.update(f"{path.relative_to(PACKAGE_DIR)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def look_folders(config) -> list[Path]:
    """The folders that shape the site's look: the project's templates and static files, and the
    bundled ones that fill what they lack."""
    from .config import bundled

    return [config.folder("templates_dir"), bundled("templates"), config.folder("static_dir"), bundled("static")]


def snapshot(content: Path) -> dict[str, list[int]]:
    """Size and modification time of every file the loader might read (dotfiles aside)."""
    found: dict[str, list[int]] = {}
    for dirpath, dirnames, filenames in os.walk(content):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if name.startswith("."):
                continue
            path = os.path.join(dirpath, name)
            try:
                st = os.stat(path)
            except OSError:
                continue
            found[os.path.relpath(path, content)] = [st.st_size, st.st_mtime_ns]
    return found


def up_to_date(config, environ: dict) -> Manifest | None:
    """The last build's manifest when nothing it read has changed and its output is still there."""
    out = config.folder("output_dir")
    manifest = read_manifest(out)
    if manifest is None or manifest.state != "clean" or not (out / ".kindex-site").is_file():
        return None
    if snapshot(config.folder("content_dir")) != manifest.inputs:
        return None
    if settings_key(config, look_folders(config), environ) != manifest.settings:
        return None
    return manifest


# --- output keys ------------------------------------------------------------------------------


def _digest(*parts: str) -> str:
    h = hashlib.sha1()
    for part in parts:
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


class OutputKeys:
    """The key of each output: a hash of the settings and of the content that output shows."""

    def __init__(self, lb, settings: str, pages_markdown: dict[str, str]):
        content = lb.content
        nav = json.dumps([(p.slug, p.title) for p in content.pages])  # in every page's nav
        self.base = _digest(settings, nav)
        self.problem: dict[str, str] = {}
        for slug, boards in lb.boards.items():
            self.problem[slug] = _digest(self.base, slug, *(
                f"{b.anchor}/{b.host}/{b.workload}/{b.protocol}:" + ",".join(sorted(e.run.key for e in b.entries))
                for b in boards))
        problems_of_host: dict[str, set[str]] = {}
        problems_of_impl: dict[str, set[str]] = {}
        for slug, boards in lb.boards.items():
            for b in boards:
                problems_of_host.setdefault(b.host, set()).add(slug)
                for e in b.entries:
                    problems_of_impl.setdefault(e.implementation_slug, set()).add(slug)
        self.host = {name: _digest(self.base, name, *(self.problem[s] for s in sorted(problems)))
                     for name, problems in problems_of_host.items()}
        self.implementation = {slug: _digest(self.base, slug, *(self.problem[s] for s in sorted(problems)))
                               for slug, problems in problems_of_impl.items()}
        self.run = {r.name: _digest(self.problem[lb.board_of_run[r.name].problem.slug], r.key) for r in content.runs}
        self.markdown = {slug: _digest(self.base, slug, text) for slug, text in pages_markdown.items()}
        self.everything = _digest(self.base, *sorted(self.problem.values()), *sorted(self.markdown.values()))

    def of_page(self, page) -> str:
        context = page.context
        if page.template == "problem.html":
            return self.problem[context["problem"].slug]
        if page.template == "run.html":
            return self.run[context["run"].name]
        if page.template == "host.html":
            return self.host.get(context["environment"].metadata.name, self.everything)
        if page.template == "implementation.html":
            return self.implementation[context["implementation"].slug]
        if page.template == "page.html" and page.url.rstrip("/") in self.markdown:
            return self.markdown[page.url.rstrip("/")]
        if page.template == "404.html":
            return self.base
        return self.everything  # pages that summarise everything: home, indexes, search

    def of_file(self, path: str) -> str:
        parts = path.split("/")
        if parts[:3] == ["api", "v1", "problems"]:
            return self.problem[parts[3].removesuffix(".json")]
        if parts[:3] == ["api", "v1", "hosts"]:
            return self.host.get(parts[3].removesuffix(".json"), self.everything)
        if parts[0] == "problems" and len(parts) == 3 and parts[2].endswith(".csv"):
            return self.problem[parts[1]]
        if parts[0] in ("static", "schema") or path == "robots.txt":
            return self.base  # settings and code alone shape these
        return self.everything
