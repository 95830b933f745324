"""Source files on pages: highlighted by Pygments, with line numbers, readable without JavaScript.

Pygments escapes the text it is given (&, <, >, quotes), so a source file is shown as text whatever
it holds; it is never executed and never put inside a <script>. A control or bidirectional character
in it (charts.HIDDEN) is shown as its code point: the download keeps the file's own bytes. Imported only when a page shows a
source: a site without any never loads Pygments.

One kernel is usually shown on many pages (the same file timed on several hosts, each run in a
folder of its own with a copy): a text is highlighted once per lexer, then taken from this
process's memory or from the build's store on disk (`Store`, beside the manifest), which keeps it
for the next build. Both are keyed by the text's sha256 and the lexer; the store also by the
program's code and Pygments' version.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from markupsafe import Markup

from .charts import CODE_POINT_HTML, HIDDEN, shown_hidden

# The highlighting options: part of what a stored highlight was made with (the code stamp covers them).
_OPTIONS = {"linenos": "table", "cssclass": "source", "wrapcode": True}
MEMORY_MAX_CHARS = 32 * 2**20  # HTML kept in a process's memory (bounded: a site of many kernels)


class Highlighted(NamedTuple):
    """A source text as a page shows it."""

    html: Markup  # a table of line numbers and code (class "source")
    bytes: int  # the text's size in UTF-8
    lines: int


def highlighted(text_of, digest: str, filename: str, language: str | None = None) -> Highlighted:
    """The text whose sha256 is `digest` (read by `text_of()` only if it has not been highlighted
    with this lexer yet) as a page shows it; `filename` (or `language`, if given) picks the lexer."""
    lexer = _lexer_of(filename, language)
    key = (digest, _lexer_id(type(lexer)))
    found = _memory.get(key)
    if found is None:
        found = _store.get(key) if _store is not None else None
        if found is None:
            from pygments import highlight

            text = text_of()
            html = highlight(text, lexer, _formatter())
            if HIDDEN.search(html) is not None:  # (a kernel's NUL, ESC or reversing character: "Trojan Source")
                html = shown_hidden(html, CODE_POINT_HTML)
            found = Highlighted(Markup(html), len(text.encode("utf-8")),
                                text.count("\n") + (not text.endswith("\n") and bool(text)))
            if _store is not None:
                _store.put(key, found)
        _memory.put(key, found)
    return found


def ahead(sources, workers: int, progress) -> int:
    """Highlight, in `workers` forked processes, each of `sources` ((text_of, digest, filename,
    language), as `highlighted` takes them) that is neither in this process's memory nor in the store;
    return how many were highlighted. Pages that show them are then made in processes forked after
    this one, which find them in memory (or in the store, beyond MEMORY_MAX_CHARS). Without this,
    each page-making process highlights the kernels of its own pages, and a kernel shown on pages
    that two of them make is highlighted twice."""
    jobs, seen = [], set()
    for text_of, digest, filename, language in sources:
        lexer = _lexer_of(filename, language)  # (made here, once, for the processes forked below)
        key = (digest, _lexer_id(type(lexer)))
        if key not in seen:
            seen.add(key)
            if _memory.get(key) is None and not (_store is not None and _store.has(key)):
                jobs.append((key, (text_of, digest, filename, language)))
    if len(jobs) < AHEAD_MIN or workers < 2 or not hasattr(os, "fork"):
        return 0  # (the pages' own processes highlight so few; without fork, one process makes them all)
    _formatter()
    chunks = [jobs[i:i + AHEAD_CHUNK] for i in range(0, len(jobs), AHEAD_CHUNK)]

    def highlight_chunk(index: int) -> list[tuple[tuple[str, str], Highlighted]]:
        return [(key, highlighted(*source)) for key, source in chunks[index]]

    def keep(results: list[tuple[tuple[str, str], Highlighted]]) -> int:
        for key, found in results:
            _memory.put(key, found)
        return len(results)

    from .workers import Writers

    progress.phase("highlighting source files", len(jobs))
    Writers(min(workers, len(chunks))).write(highlight_chunk, len(chunks), progress, keep)
    return len(jobs)


AHEAD_MIN = 16  # texts: fewer are highlighted by the processes that make their pages
AHEAD_CHUNK = 4  # texts per task: small, so that the processes end together


def prepare(files) -> None:
    """Make the lexers for these (file name, language) pairs before they are needed (each compiles
    its rules the first time)."""
    for filename, language in files:
        _lexer_of(filename, language)


def _lexer_of(filename: str, language: str | None):
    return _lexer("" if language else posixpath.basename(filename), language)


@lru_cache(maxsize=64)
def _lexer(filename: str, language: str | None):
    """One lexer per language or file name (a lexer keeps no state between texts; Pygments tells a
    file's language from its name alone, without its folders)."""
    from pygments.lexers import TextLexer, get_lexer_by_name, get_lexer_for_filename
    from pygments.util import ClassNotFound

    try:  # the language the run names, else the file name's; plain text for neither
        return get_lexer_by_name(language) if language else get_lexer_for_filename(filename)
    except ClassNotFound:
        return TextLexer()


@lru_cache(maxsize=64)
def _lexer_id(lexer_class: type) -> str:
    return hashlib.sha256(f"{lexer_class.__module__}.{lexer_class.__qualname__}".encode()).hexdigest()[:16]


@lru_cache(maxsize=1)
def _formatter():
    """One formatter for every text (it keeps only its options and the spans it has made)."""
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(**_OPTIONS)


class _Memory:
    """This process's highlights, the oldest let go beyond MEMORY_MAX_CHARS."""

    def __init__(self):
        self.entries: dict[tuple[str, str], Highlighted] = {}
        self.chars = 0

    def get(self, key: tuple[str, str]) -> Highlighted | None:
        return self.entries.get(key)

    def put(self, key: tuple[str, str], value: Highlighted) -> None:
        self.entries[key] = value
        self.chars += len(value.html)
        while self.chars > MEMORY_MAX_CHARS and len(self.entries) > 1:
            oldest = next(iter(self.entries))
            self.chars -= len(self.entries.pop(oldest).html)


_memory = _Memory()


class Store:
    """Highlights kept on disk for the next build, a file each (`<sha256>.<lexer>.html`: a line
    with the text's bytes, lines and the HTML's length, then the HTML). The folder's stamp says what
    made them (this program's code, Pygments' version): when it differs, the folder is emptied.
    Only a cache: an entry that cannot be read or written means one more highlight, never a failed
    build. Worker processes share it: each writes an entry whole, under a name of its own, then
    renames it into place."""

    def __init__(self, folder: Path, code_stamp: str, keep: set[str]):
        """Open `folder` (made if need be), dropping entries of texts not in `keep` (digests)."""
        import pygments  # (its version alone: the package's __init__)

        self.folder = folder
        stamp, mark = f"{code_stamp}\npygments {pygments.__version__}\n", folder / "stamp"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            same = mark.read_text(encoding="utf-8") == stamp
        except (OSError, ValueError):
            same = False
        try:
            for entry in os.scandir(folder):
                if entry.name != "stamp" and (not same or entry.name.split(".", 1)[0] not in keep):
                    os.unlink(entry.path)
            if not same:
                mark.write_text(stamp, encoding="utf-8")
        except OSError:
            pass

    def get(self, key: tuple[str, str]) -> Highlighted | None:
        try:
            with open(self.folder / f"{key[0]}.{key[1]}.html", encoding="utf-8", newline="") as f:
                head, html = f.readline(), f.read()
            size, lines, length = map(int, head.split())
        except (OSError, ValueError):
            return None
        return Highlighted(Markup(html), size, lines) if len(html) == length else None

    def has(self, key: tuple[str, str]) -> bool:
        return os.path.exists(self.folder / f"{key[0]}.{key[1]}.html")

    def put(self, key: tuple[str, str], value: Highlighted) -> None:
        path = self.folder / f"{key[0]}.{key[1]}.html"
        temporary = path.with_name(f".{path.name}.{os.getpid()}")
        try:
            with open(temporary, "w", encoding="utf-8", newline="") as f:
                f.write(f"{value.bytes} {value.lines} {len(value.html)}\n{value.html}")
            os.replace(temporary, path)
        except OSError:
            try:
                os.unlink(temporary)
            except OSError:
                pass


_store: Store | None = None


def keep_in(store: Store | None) -> None:
    """Where this build keeps highlights (None: in memory only). Worker processes forked later share it."""
    global _store
    _store = store


def stylesheet() -> str:
    """The highlighting colours of static/source.css (made by this, then the box's rules added by
    hand): light, and dark where the reader prefers it."""
    from pygments.formatters import HtmlFormatter

    def rules(style: str) -> str:  # (only those scoped to .source: Pygments also styles every <pre>)
        css = HtmlFormatter(style=style).get_style_defs(".source")
        return "\n".join(line for line in css.splitlines() if line.startswith(".source"))

    return (f"/* Source highlighting (kindex_site/highlight.py stylesheet()) */\n{rules('default')}\n"
            f"@media (prefers-color-scheme: dark) {{\n{rules('github-dark')}\n}}\n")
