"""Source files on pages: highlighted by Pygments, with line numbers, readable without JavaScript.

Pygments escapes the text it is given (&, <, >, quotes), so a source file is shown as text whatever
it holds; it is never executed and never put inside a <script>. A control or bidirectional character
in it (safetext.HIDDEN) is shown as its code point: the download keeps the file's own bytes. Imported only when a page shows a
source: a site without any never loads Pygments.

One kernel is usually shown on many pages (the same file timed on several hosts, each run in a
folder of its own with a copy): a text is highlighted once per lexer, then taken from this
process's memory or from the build's store on disk (`Store`, beside the manifest), which keeps it
for the next build. Both are keyed by the text's sha256 and the lexer; the store also by the
program's code and Pygments' version.

A contributor chooses a file's name and its language, and some of Pygments' lexers take time cubic
in a text's size (its systemd lexer spends minutes on 4 KB of spaces). So work per file is bounded
twice (docs/security.md, "Highlighting"):

- an allowlist (`lexer_name`): Python (Triton too), CUDA (and HIP), C and C++, each with the few rules
  that backtrack over a text replaced by rules that match the same code in linear time
  (`_PATCHES`; tests/test_highlight_bounds.py, benchmarks/highlight_bounds.py); any other file is
  plain text, escaped, with line numbers;
- a budget of CPU time per text (`BUDGET_SECONDS`): past it, the text is shown as plain text, kept so
  under a key of its own (`OVER`) and named by a warning on every build that shows it (`warnings`).
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import signal
import threading
import time
from collections.abc import Iterable
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from markupsafe import Markup

from .safetext import CODE_POINT_HTML, HIDDEN, shown_hidden

# The highlighting options: part of what a stored highlight was made with (the code stamp covers them).
_OPTIONS = {"linenos": "table", "cssclass": "source", "wrapcode": True}
MEMORY_MAX_CHARS = 32 * 2**20  # HTML kept in a process's memory (bounded: a site of many kernels)
BUDGET_SECONDS = 2.0  # CPU time one text's highlighting may take; past it, the text is shown as plain text
OVER = "-over-budget"  # ends the lexer part of the key of a text shown as plain text for want of time


class Highlighted(NamedTuple):
    """A source text as a page shows it."""

    html: Markup  # a table of line numbers and code (class "source")
    bytes: int  # the text's size in UTF-8
    lines: int


def highlighted(text_of, digest: str, filename: str, language: str | None = None) -> Highlighted:
    """The text whose sha256 is `digest` (read by `text_of()` only if it has not been highlighted
    with this lexer yet) as a page shows it; `filename` (or `language`, if given) picks the lexer
    (`lexer_name`). A text whose highlighting outlasts BUDGET_SECONDS is shown as plain text."""
    return _made(text_of, digest, filename, language)[1]


def _made(text_of, digest: str, filename: str, language: str | None) -> tuple[tuple[str, str], Highlighted]:
    """`highlighted`'s answer, with the key it is kept under (ending in OVER when it is plain text
    for want of time)."""
    lexer = _lexer_of(filename, language)
    key = (digest, _lexer_id(type(lexer)))
    over = (digest, key[1] + OVER)
    for kept in (over, key):  # (a text once over its budget stays plain text, as its warning says)
        found = _memory.get(kept)
        if found is not None:
            return kept, found
    for kept in (over, key) if _store is not None else ():
        found = _store.get(kept)
        if found is not None:
            _memory.put(kept, found)
            return kept, found
    from pygments import highlight

    text = text_of()
    html = _within_budget(text, lexer)
    if html is None:  # (the same table, without colours)
        key, html = over, highlight(text, _lexer("text"), _formatter())
    if HIDDEN.search(html) is not None:  # (a kernel's NUL, ESC or reversing character: "Trojan Source")
        html = shown_hidden(html, CODE_POINT_HTML)
    found = Highlighted(Markup(html), len(text.encode("utf-8")),
                        text.count("\n") + (not text.endswith("\n") and bool(text)))
    if _store is not None:
        _store.put(key, found)
    _memory.put(key, found)
    return key, found


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
            if not any(_memory.get(k) is not None or (_store is not None and _store.has(k))
                       for k in (key, (digest, key[1] + OVER))):
                jobs.append((text_of, digest, filename, language))
    if len(jobs) < AHEAD_MIN or workers < 2 or not hasattr(os, "fork"):
        return 0  # (the pages' own processes highlight so few; without fork, one process makes them all)
    _formatter()
    chunks = [jobs[i:i + AHEAD_CHUNK] for i in range(0, len(jobs), AHEAD_CHUNK)]

    def highlight_chunk(index: int) -> list[tuple[tuple[str, str], Highlighted]]:
        return [_made(*source) for source in chunks[index]]

    from .workers import Workers

    progress.phase("highlighting source files", len(jobs))
    highlighters = Workers(min(workers, len(chunks)), highlight_chunk,
                           what="highlighting source files: a process highlighting them")
    for _, _, results in highlighters.results(len(chunks)):
        for key, found in results:
            _memory.put(key, found)
        progress.advance(len(results))
    return len(jobs)


AHEAD_MIN = 16  # texts: fewer are highlighted by the processes that make their pages
AHEAD_CHUNK = 4  # texts per task: small, so that the processes end together


def warnings(shown: Iterable[tuple[str, str, str, str | None]], folder: Path | None) -> list[str]:
    """A warning for each of `shown` ((the file as the user names it, its digest, its path, the
    language its run gives)) that pages show as plain text because highlighting it outlasted its
    budget. Such texts are found in this process's memory and in the store's `folder` (pages made by
    forked processes leave theirs only there): every build that shows one says so, not only the
    build that first tried."""
    over = {key for key in _memory.entries if key[1].endswith(OVER)}
    try:
        over.update(tuple(name[:-len(".html")].split(".", 1)) for name in os.listdir(folder)
                    if name.endswith(OVER + ".html") and not name.startswith("."))
    except (OSError, TypeError):  # (no store yet, or none)
        pass
    if not over:
        return []
    said = set()
    for name, digest, filename, language in shown:
        if (digest, _lexer_id(type(_lexer_of(filename, language))) + OVER) in over:
            said.add(f"{name}: shown as plain text: highlighting it took more than {BUDGET_SECONDS:g} s of CPU time")
    return sorted(said)


# --- How big a text's HTML can be: its page's share, known before it is made -----------------------


class ShownSizes(NamedTuple):
    """A text's bytes, and upper bounds of its HTML (`highlighted`'s) from the text alone: as plain
    text, and highlighted by any lexer. `check` weighs pages by them without highlighting anything."""

    bytes: int
    plain: int
    highlighted: int


# The bytes of `highlighted`'s HTML beside the text itself (pygments.formatters.HtmlFormatter with
# _OPTIONS): the table around it, each line's number (a span of its own, padded to the widest), and
# per piece of a token on one line at most one span of a class of at most SPAN_CLASS characters
# (Pygments' are 1 to 3). tests/test_bounds.py holds the HTML of hostile texts to the bounds.
TABLE_BYTES = 512
LINE_BYTES = len('<span class="normal"></span>\n')
SPAN_CLASS = 8
SPAN_BYTES = len('<span class=""></span>') + SPAN_CLASS
# What a character grows to beyond its own UTF-8 bytes: Pygments' escapes, and a hidden one's code
# point shown (safetext.CODE_POINT_HTML, 31 bytes in place of its own 1 to 3).
_ESCAPED = {"&": 4, "<": 3, ">": 3, '"': 5, "'": 4}
HIDDEN_BYTES = len(CODE_POINT_HTML.format(0x202E)) - 1


def shown_sizes(text: str) -> ShownSizes:
    """Bounds of `text`'s HTML as `highlighted` makes it, in a few passes over it (no lexer, no
    formatter). A line break is \n or \r (Pygments makes \r\n and \r one \n; counting both only
    loosens the bound)."""
    breaks = text.count("\n") + text.count("\r")
    lines = breaks + 1  # (Pygments ends the text with a line break if it has none)
    own = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    size = own + sum(extra * text.count(c) for c, extra in _ESCAPED.items())
    if not text.isprintable():
        size += HIDDEN_BYTES * HIDDEN.subn("", text)[1]
    plain = TABLE_BYTES + size + 1 + lines * (LINE_BYTES + len(str(lines)))
    return ShownSizes(own, plain, plain + SPAN_BYTES * (len(text) - breaks))


def shown_as(filename: str, language: str | None, sizes: tuple[int, int, int], budget: int) -> tuple[str | None, int]:
    """The language a source is shown in on a page that has `budget` bytes for it (`language`, its
    run's, as given: its own lexer, `lexer_name`), when highlighted its HTML stays within them by its
    bound; else "text" (plain text). With the bound of its HTML so shown. (`sizes`: ShownSizes.)"""
    _, plain, highlighted = sizes
    if highlighted <= budget or lexer_name(filename, language) == "text":
        return language, highlighted if lexer_name(filename, language) != "text" else plain
    return "text", plain


# --- Which lexer: only those shown to take time linear in the text -------------------------------

# A run's `language` → the lexer its file is shown with; any other language is plain text. Pygments'
# names for these lexers, and "triton" and "hip": Triton kernels are Python, HIP kernels CUDA's C++.
LANGUAGES = {
    "python": "python", "py": "python", "python3": "python", "py3": "python", "pyi": "python", "triton": "python",
    "cuda": "cuda", "cu": "cuda", "hip": "cuda",
    "c": "c",
    "cpp": "cpp", "c++": "cpp",
    "text": "text",
}
# A file's name → its lexer, when its run gives no language: Pygments' patterns for these lexers.
SUFFIXES = {
    ".py": "python", ".pyw": "python", ".pyi": "python",
    ".cu": "cuda", ".cuh": "cuda", ".hip": "cuda",
    ".c": "c", ".h": "c",
    **dict.fromkeys((".cpp", ".hpp", ".c++", ".h++", ".cc", ".hh", ".cxx", ".hxx", ".C", ".H", ".cp", ".CPP",
                     ".tpp", ".cppm", ".ixx", ".mxx", ".ipp"), "cpp"),
}


def lexer_name(filename: str, language: str | None) -> str:
    """The lexer a source file is shown with: "python", "cuda", "c", "cpp", or "text" (plain text)
    for any other language or file name. A pure function of the two (`check` gives the same answer
    as `build`); the language a run gives wins over the file's name."""
    if language:
        return LANGUAGES.get(language, "text")
    return SUFFIXES.get(posixpath.splitext(posixpath.basename(filename))[1], "text")


def prepare(files) -> None:
    """Make the lexers for these (file name, language) pairs before they are needed (each compiles
    its rules the first time)."""
    for filename, language in files:
        _lexer_of(filename, language)


def _lexer_of(filename: str, language: str | None):
    return _lexer(lexer_name(filename, language))


@lru_cache(maxsize=8)
def _lexer(name: str):
    """One lexer per name (a lexer keeps no state between texts)."""
    from pygments.lexers.special import TextLexer

    return TextLexer() if name == "text" else _linear_class(name)()


@lru_cache(maxsize=64)
def _lexer_id(lexer_class: type) -> str:
    return hashlib.sha256(f"{lexer_class.__module__}.{lexer_class.__qualname__}".encode()).hexdigest()[:16]


def _patches(name: str) -> dict[str, str]:
    r"""The rules of Pygments' lexer `name` that can take more than linear time (a match that scans
    far and fails, tried again at each line or statement; one that backtracks over a run of spaces),
    each as Pygments 2.21 writes it, with the rule that replaces it: one matching the same code in
    time linear in the text. Possessive and atomic groups where backtracking could not make a match;
    runs that stop at the end of their line or at a brace; an unclosed comment or raw string runs to
    the end of the text, as a compiler reads it; a \N{name} escape holds 100 characters at most.
    Whitespace may fall in the next token rather than this one: it shows alike."""
    if name == "python":
        return {
            r'^(\s*)([rRuUbB]{,2})("""[\s\S]*?""")': r'^([^\S\n]*)([rRuUbB]{,2})("""[\s\S]*?""")',
            r"^(\s*)([rRuUbB]{,2})('''[\s\S]*?''')": r"^([^\S\n]*)([rRuUbB]{,2})('''[\s\S]*?''')",
            r'(\s+)([^\n_]*)(_\b)': r'(\s++)([^\n_]*+)(_\b)',
            r'\\(N\{.*?\}|u[a-fA-F0-9]{4}|U[a-fA-F0-9]{8})': r'\\(N\{[^}\n]{0,100}\}|u[a-fA-F0-9]{4}|U[a-fA-F0-9]{8})',
            r'%(\(\w+\))?[-#0 +]*([0-9]+|[*])?(\.([0-9]+|[*]))?[hlL]?[E-GXc-giorsaux%]':
                r'%(\(\w+\))?[-#0 +]*+([0-9]+|[*])?(\.([0-9]+|[*]))?[hlL]?[E-GXc-giorsaux%]',
            r'\{((\w+)((\.\w+)|(\[[^\]]+\]))*)?(\![sra])?(\:(.?[<>=\^])?[-+ ]?#?0?(\d+)?,?(\.\d+)?[E-GXb-gnosx%]?)?\}':
                r'\{((\w+)((\.\w+)|(\[[^\]{\n]+\]))*)?(\![sra])?(\:(.?[<>=\^])?[-+ ]?#?0?(\d+)?,?(\.\d+)?'
                r'[E-GXb-gnosx%]?)?\}',
        }
    from pygments.lexers.c_cpp import CFamilyLexer

    ws, ident, comments = CFamilyLexer._ws1, CFamilyLexer._namespaced_ident, CFamilyLexer._possible_comments
    once_ws = r'\s*(?:/[*](?>.*?[*]/)\s*)?'  # (_ws1, its comment ending at the first */, as in C)
    line_ws = r'[^\S\n]*(?:/[*](?>.*?[*]/)[^\S\n]*)?'  # (the same, within its line)

    def function(signature: str, tail: str, linear: bool) -> str:
        name, gap, between = (ident[:-1] + "++", r"(?:[&*\s])++", f"(?>{comments})") if linear \
            else (ident, r"(?:[&*\s])+", comments)
        return f"({name}{gap})({between})({name})({between}){signature}({between}){tail}"

    patches = {
        '^(' + ws + r')(#if\s+0)': '^(' + line_ws + r')(#if\s+0)',
        '^(' + ws + ')(#)': '^(' + line_ws + ')(#)',
        function(r'(\([^;"\')]*?\))', r'([^;{/"\']*)(\{)', False):
            function(r'(\([^;"\'){}]*+\))', r'([^;{/"\']*+)(\{)', True),
        function(r'(\([^;"\')]*?\))', r'([^;/"\']*)(;)', False):
            function(r'(\([^;"\'){}]*+\))', r'([^;/"\']*+)(;)', True),
        r'^\s*#if.*?(?<!\\)\n': r'^[^\S\n]*#if.*?(?<!\\)\n',
        r'^\s*#el(?:se|if).*\n': r'^[^\S\n]*#el(?:se|if).*\n',
        r'^\s*#endif.*?(?<!\\)\n': r'^[^\S\n]*#endif.*?(?<!\\)\n',
        '(' + ws + r')(include)(' + ws + r')("[^"]+"|<[^>]+>)([^\S\n]*)([^/\n]*/[*][\s\S]*?[*]/)':
            '(' + once_ws + r')(include)(' + once_ws + r')("[^"\n]+"|<[^>\n]+>)([^\S\n]*)([^/\n]*/[*][\s\S]*?(?:[*]/|\Z))',
        '(' + ws + r')(include)(' + ws + r')("[^"]+"|<[^>]+>)([^\S\n]*)([^\n]*)':
            '(' + once_ws + r')(include)(' + once_ws + r')("[^"\n]+"|<[^>\n]+>)([^\S\n]*)([^\n]*)',
        r'/[*][\s\S]*?[*]/': r'/[*][\s\S]*?(?:[*]/|\Z)',
    }
    if name != "c":
        patches[r'((?:[LuU]|u8)?R)(")([^\\()\s]{,16})(\()([\s\S]*?)(\)\3)(")'] = \
            r'((?:[LuU]|u8)?R)(")([^\\()\s]{,16})(\()([\s\S]*?)(?:(\)\3)(")|\Z)'
    return patches


@lru_cache(maxsize=8)
def _linear_class(name: str) -> type:
    """Pygments' lexer `name` with `_patches(name)` in place of its rules. Once one is made, its
    class's `missing` lists the rules to replace that this version of Pygments does not have (the
    tests require none)."""
    from pygments.lexer import RegexLexerMeta
    from pygments.lexers.c_cpp import CLexer, CppLexer
    from pygments.lexers.c_like import CudaLexer
    from pygments.lexers.python import PythonLexer

    base = {"python": PythonLexer, "c": CLexer, "cpp": CppLexer, "cuda": CudaLexer}[name]
    patches = _patches(name)

    def get_tokendefs(cls) -> dict:
        found = set()

        def patched(rule):
            if isinstance(rule, tuple) and type(rule[0]) is str and rule[0] in patches:
                found.add(rule[0])
                return (patches[rule[0]], *rule[1:])
            return rule

        tokens = {state: [patched(rule) for rule in rules]  # (new lists: Pygments' own are shared)
                  for state, rules in RegexLexerMeta.get_tokendefs(cls).items()}
        cls.missing = sorted(set(patches) - found)
        return tokens

    title = f"Linear{ {'python': 'Python', 'c': 'C', 'cpp': 'Cpp', 'cuda': 'Cuda'}[name] }Lexer"
    return type(base)(title, (base,), {
        "__module__": __name__, "__qualname__": title, "get_tokendefs": classmethod(get_tokendefs),
        "missing": None, "__doc__": f"{base.__name__}, in time linear in the text (highlight._patches)."})


# --- The budget ----------------------------------------------------------------------------------


class _OverBudget(BaseException):
    """A highlighting out of time (a BaseException: a lexer's `except Exception` does not keep it)."""


def _within_budget(text: str, lexer) -> str | None:
    """The highlighted HTML of `text`, or None if making it took more than BUDGET_SECONDS of CPU
    time. This thread's clock is read between tokens; where a timer can interrupt the thread
    (`_cpu_timer`), one match that runs too long is stopped too."""
    from pygments import highlight

    budget = BUDGET_SECONDS
    try:
        with _cpu_timer(budget):
            return highlight(text, _Timed(lexer, time.thread_time() + budget), _formatter())
    except _OverBudget:
        return None


class _Timed:
    """A lexer's tokens, this thread's CPU clock read every CHECK_EVERY of them: _OverBudget past
    `deadline`. (Not the process's clock: while a profiling timer is set, Linux updates that one only
    at each scheduler tick.)"""

    CHECK_EVERY = 256

    def __init__(self, lexer, deadline: float):
        self.lexer, self.deadline = lexer, deadline

    def get_tokens(self, text: str):
        clock, deadline, every = time.thread_time, self.deadline, self.CHECK_EVERY
        for n, token in enumerate(self.lexer.get_tokens(text)):
            if not n % every and clock() > deadline:
                raise _OverBudget
            yield token
        if clock() > deadline:  # (formatting counts too: the formatter takes tokens as it writes)
            raise _OverBudget


@contextmanager
def _cpu_timer(seconds: float):
    """Raise _OverBudget in this thread once the process has used `seconds` more of CPU time (a
    one-shot ITIMER_PROF: Python's regular expressions check for signals while they match, so one
    long match is stopped too). Only where nothing else is disturbed: on the main thread (the command
    line, `serve`, `build --watch` and forked workers build there), with setitimer, when nothing else
    uses the profiling timer or its signal; elsewhere, the clock between tokens alone."""
    usable = (hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
              and signal.getsignal(signal.SIGPROF) == signal.SIG_DFL
              and signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0))
    if not usable:
        yield
        return
    armed = True

    def stop(signum, frame):
        if armed:
            raise _OverBudget

    signal.signal(signal.SIGPROF, stop)
    try:
        signal.setitimer(signal.ITIMER_PROF, seconds)
        yield
    finally:
        try:
            armed = False  # (a signal handled before this line still raises; the caller catches it)
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, signal.SIG_DFL)


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
