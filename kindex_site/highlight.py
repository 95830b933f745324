"""Source files on pages: highlighted by Pygments, with line numbers, readable without JavaScript.

Pygments escapes what it is given, and a hidden character is shown as its code point. A text is
highlighted once per lexer, then kept by the build's state (state.highlights.Highlights, set by `use`).
Work per file is bounded twice (docs/security.md, "Highlighting"): lexers of our own that take time
linear in the text (`lexer_name`), and a CPU budget per text (`BUDGET_SECONDS`, past which it is plain
text, kept under the key `OVER` and named by a warning on every build).
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
from itertools import islice
from typing import NamedTuple

from markupsafe import Markup

from .safetext import CODE_POINT_HTML, HIDDEN, shown_hidden

# The highlighting options: part of what a stored highlight was made with (the code stamp covers them).
_OPTIONS = {"linenos": "table", "cssclass": "source", "wrapcode": True}
BUDGET_SECONDS = 2.0  # CPU time one text's highlighting may take; past it, the text is shown as plain text
OVER = "-over-budget"  # ends the lexer part of the key of a text shown as plain text for want of time


class Highlighted(NamedTuple):
    """A source text as a page shows it."""

    html: Markup  # a table of line numbers and code (class "source")
    bytes: int  # the text's size in UTF-8
    lines: int


def highlighted(text_of, digest: str, filename: str, language: str | None = None) -> Highlighted:
    """The text whose sha256 is `digest` (read by `text_of()` only if not highlighted with this lexer
    yet) as a page shows it; `filename` (or `language`) picks the lexer (`lexer_name`)."""
    return _made(text_of, digest, filename, language)[1]


def _made(text_of, digest: str, filename: str, language: str | None) -> tuple[tuple[str, str], Highlighted]:
    """`highlighted`'s answer, and the key it is kept under (ending in OVER: plain text for want of time)."""
    lexer = _lexer_of(filename, language)
    key = (digest, _lexer_id(type(lexer)))
    over = (digest, key[1] + OVER)
    kept = _kept  # (`over` first: a text once over its budget stays plain text, as its warning says)
    found = kept.find((over, key)) if kept is not None else None
    if found is not None:
        return found
    from pygments import highlight

    text = text_of()
    html = _within_budget(text, lexer)
    if html is None:  # (the same table, without colours)
        key, html = over, highlight(text, _lexer("text"), _formatter())
    if HIDDEN.search(html) is not None:  # (a kernel's NUL, ESC or reversing character: "Trojan Source")
        html = shown_hidden(html, CODE_POINT_HTML)
    found = Highlighted(Markup(html), len(text.encode("utf-8")),
                        text.count("\n") + (not text.endswith("\n") and bool(text)))
    if kept is not None:
        kept.put(key, found)
    return key, found


def ahead(sources, workers: int, progress) -> int:
    """Highlight in `workers` forked processes each of `sources` (as `highlighted` takes them) that is
    neither in memory nor in the store, so that no two page-making processes highlight one text; how
    many were."""
    jobs, seen, kept = [], set(), _kept
    for text_of, digest, filename, language in sources:
        lexer = _lexer_of(filename, language)  # (made here, once, for the processes forked below)
        key = (digest, _lexer_id(type(lexer)))
        if key not in seen:
            seen.add(key)
            if not any(kept.has(k) for k in (key, (digest, key[1] + OVER))):
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
            kept.remember(key, found)
        progress.advance(len(results))
    return len(jobs)


AHEAD_MIN = 16  # texts: fewer are highlighted by the processes that make their pages
AHEAD_CHUNK = 4  # texts per task: small, so that the processes end together


def warnings(shown: Iterable[tuple[str, str, str, str | None]], kept) -> list[str]:
    """A warning for each of `shown` ((name, digest, path, language)) that pages show as plain text
    because highlighting it outlasted its budget, found among what the build `kept`: every build that
    shows one says so."""
    over = kept.keys_ending(OVER)
    if not over:
        return []
    said = set()
    for name, digest, filename, language in shown:
        if (digest, _lexer_id(type(_lexer_of(filename, language))) + OVER) in over:
            said.add(f"{name}: shown as plain text: highlighting it took more than {BUDGET_SECONDS:g} s of CPU time")
    return sorted(said)


# --- How big a text's HTML can be: its page's share, known before it is made -----------------------


class ShownSizes(NamedTuple):
    """A text's bytes, and upper bounds of its HTML from the text alone: as plain text, and
    highlighted by any lexer. `check` weighs pages by them without highlighting anything."""

    bytes: int
    plain: int
    highlighted: int


# The bytes of `highlighted`'s HTML beside the text itself: the table around it, each line's number,
# and per token piece at most one span of a class of at most SPAN_CLASS characters (tests/test_bounds.py).
TABLE_BYTES = 512
LINE_BYTES = len('<span class="normal"></span>\n')
SPAN_CLASS = 8
SPAN_BYTES = len('<span class=""></span>') + SPAN_CLASS
# What a character grows to beyond its own UTF-8 bytes: Pygments' escapes, a hidden one's code point.
_ESCAPED = {"&": 4, "<": 3, ">": 3, '"': 5, "'": 4}
HIDDEN_BYTES = len(CODE_POINT_HTML.format(0x202E)) - 1


def shown_sizes(text: str) -> ShownSizes:
    """Bounds of `text`'s HTML as `highlighted` makes it, without a lexer (a line break is \n or \r)."""
    breaks = text.count("\n") + text.count("\r")
    lines = breaks + 1  # (Pygments ends the text with a line break if it has none)
    own = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    size = own + sum(extra * text.count(c) for c, extra in _ESCAPED.items())
    if not text.isprintable():
        size += HIDDEN_BYTES * HIDDEN.subn("", text)[1]
    plain = TABLE_BYTES + size + 1 + lines * (LINE_BYTES + len(str(lines)))
    return ShownSizes(own, plain, plain + SPAN_BYTES * (len(text) - breaks))


def shown_as(filename: str, language: str | None, sizes: tuple[int, int, int], budget: int) -> tuple[str | None, int]:
    """The language a source is shown in on a page that has `budget` bytes for it: its own lexer
    when its HTML's bound fits, else "text"; with that bound. (`sizes`: ShownSizes.)"""
    _, plain, highlighted = sizes
    if highlighted <= budget or lexer_name(filename, language) == "text":
        return language, highlighted if lexer_name(filename, language) != "text" else plain
    return "text", plain


# --- Which lexer: only those shown to take time linear in the text -------------------------------

# A run's `language` → its lexer; any other language is plain text (Triton kernels are Python, HIP CUDA's C++).
LANGUAGES = {**dict.fromkeys(("python", "py", "python3", "py3", "pyi", "triton"), "python"),
             **dict.fromkeys(("cuda", "cu", "hip"), "cuda"), "c": "c", "cpp": "cpp", "c++": "cpp", "text": "text"}
# A file's name → its lexer, when its run gives no language: Pygments' patterns for these lexers.
SUFFIXES = {
    ".py": "python", ".pyw": "python", ".pyi": "python", ".cu": "cuda", ".cuh": "cuda", ".hip": "cuda", ".c": "c",
    ".h": "c", **dict.fromkeys((".cpp", ".hpp", ".c++", ".h++", ".cc", ".hh", ".cxx", ".hxx", ".C", ".H", ".cp", ".CPP",
                     ".tpp", ".cppm", ".ixx", ".mxx", ".ipp"), "cpp"),
}


def lexer_name(filename: str, language: str | None) -> str:
    """The lexer a source file is shown with: "python", "cuda", "c", "cpp", or "text"; the language a
    run gives wins over the file's name."""
    if language:
        return LANGUAGES.get(language, "text")
    return SUFFIXES.get(posixpath.splitext(posixpath.basename(filename))[1], "text")


def prepare(files) -> None:
    """Make the lexers for these (file name, language) pairs now (each compiles its rules when first made)."""
    for filename, language in files:
        _lexer_of(filename, language)


def _lexer_of(filename: str, language: str | None):
    return _lexer(lexer_name(filename, language))


@lru_cache(maxsize=8)
def _lexer(name: str):
    """One lexer per name (a lexer keeps no state between texts)."""
    from pygments.lexers.special import TextLexer

    return TextLexer() if name == "text" else _lexer_classes()[name]()


@lru_cache(maxsize=64)
def _lexer_id(lexer_class: type) -> str:
    return hashlib.sha256(f"{lexer_class.__module__}.{lexer_class.__qualname__}".encode()).hexdigest()[:16]


# --- The lexers: our own rules on Pygments' public RegexLexer, each linear in the text ---------------
# Pygments 2.21's Python, C, C++ and CUDA rules written out (BSD-2-Clause, the Pygments team), those that
# took more than linear time rewritten to match the same code in linear time (possessive and atomic
# groups, runs that stop at a line's end or a brace; an unclosed comment runs to the end).

# A Python name: letters, digits (not first), _, and any non-ASCII character but a space.
_NAME_CHAR = r"[^\s\x00-\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f]"
_IDENT = rf"(?!\d){_NAME_CHAR}+"
_PY_KEYWORDS = ("assert async await break continue del elif else except finally for global if lambda pass raise "
                "nonlocal return try while yield as with").split()
_PY_BUILTINS = (
    "__import__ abs aiter all any bin bool bytearray breakpoint bytes callable chr classmethod compile complex delattr "
    "dict dir divmod enumerate eval filter float format frozendict frozenset getattr globals hasattr hash hex id input "
    "int isinstance issubclass iter len list locals map max memoryview min next object oct open ord pow print property "
    "range repr reversed round sentinel set setattr slice sorted staticmethod str sum super tuple type vars zip"
).split()
_PY_EXCEPTIONS = (
    "ArithmeticError AssertionError AttributeError BaseException BufferError BytesWarning DeprecationWarning EOFError "
    "EnvironmentError Exception FloatingPointError FutureWarning GeneratorExit IOError ImportError ImportWarning "
    "IndentationError IndexError KeyError KeyboardInterrupt LookupError MemoryError NameError NotImplementedError "
    "OSError OverflowError PendingDeprecationWarning ReferenceError ResourceWarning RuntimeError RuntimeWarning "
    "StopIteration SyntaxError SyntaxWarning SystemError SystemExit TabError TypeError UnboundLocalError "
    "UnicodeDecodeError UnicodeEncodeError UnicodeError UnicodeTranslateError UnicodeWarning UserWarning ValueError "
    "VMSError Warning WindowsError ZeroDivisionError BlockingIOError ChildProcessError ConnectionError BrokenPipeError "
    "ConnectionAbortedError ConnectionRefusedError ConnectionResetError FileExistsError FileNotFoundError "
    "InterruptedError IsADirectoryError NotADirectoryError PermissionError ProcessLookupError TimeoutError "
    "StopAsyncIteration ModuleNotFoundError RecursionError EncodingWarning").split()
_PY_MAGIC_FUNCTIONS = [f"__{name}__" for name in (
    "abs add aenter aexit aiter and anext await bool bytes call complex contains del delattr delete delitem dir divmod "
    "enter eq exit float floordiv format ge get getattr getattribute getitem gt hash iadd iand ifloordiv ilshift "
    "imatmul imod imul index init instancecheck int invert ior ipow irshift isub iter itruediv ixor le len length_hint "
    "lshift lt matmul missing mod mul ne neg new next or pos pow prepare radd rand rdivmod repr reversed rfloordiv "
    "rlshift rmatmul rmod rmul ror round rpow rrshift rshift rsub rtruediv rxor set setattr setitem str sub "
    "subclasscheck truediv xor").split()]
_PY_MAGIC_VARIABLES = [f"__{name}__" for name in (
    "annotations bases class closure code defaults dict doc file func globals kwdefaults module mro name objclass "
    "qualname self slots weakref").split()]
_PY_OWN_RULES = ("def", "class", "from", "import", "lazy", "match", "case", "yield")  # left to the full list


def _python_names():
    """The quick rule's action: a word's token as the full list gives it (after a dot, a builtin's is a name)."""
    from pygments.token import Keyword, Name, Operator

    after_dot = {**dict.fromkeys(_PY_MAGIC_VARIABLES, Name.Variable.Magic),
                 **dict.fromkeys(_PY_MAGIC_FUNCTIONS, Name.Function.Magic),
                 **dict.fromkeys("in is and or not".split(), Operator.Word),
                 **dict.fromkeys(_PY_KEYWORDS, Keyword), **dict.fromkeys(("True", "False", "None"), Keyword.Constant)}
    kinds = {**dict.fromkeys(_PY_BUILTINS, Name.Builtin), **dict.fromkeys(_PY_EXCEPTIONS, Name.Exception),
             **dict.fromkeys("self Ellipsis NotImplemented cls".split(), Name.Builtin.Pseudo), **after_dot}

    def name(lexer, match):
        start, word = match.start(), match.group()
        yield start, (after_dot if start and match.string[start - 1] == "." else kinds).get(word, Name), word

    return name


def _python_tokens() -> dict:
    """Pygments 2.21's PythonLexer rules, linear; first, quick rules for the most common tokens."""
    import keyword

    from pygments.lexer import bygroups, default, include, this, using, words
    from pygments.token import Comment, Keyword, Name, Operator, Punctuation, String, Text, Whitespace

    gap, soft = r"((?:\s|\\\s)+)", "|".join(k for k in keyword.kwlist if k[0].islower())
    word_then = bygroups(Keyword.Namespace, Whitespace)
    doc = bygroups(Whitespace, String.Affix, String.Doc)
    return {**_python_strings(), "expr": _python_expr(), **{
        "root": [
            (r"\n", Whitespace), (r"(?<=[^\n])[^\S\n]+", Text),
            (r"^[^\S\n]++(?![rRuUbB]{0,2}(?:\"{3}|'{3})|(?:match|case)\b)", Text),  # (an indent not before """, match)
            (rf"(?!(?:{'|'.join(_PY_OWN_RULES)})\b){_IDENT}+(?![\'\"])", _python_names()),  # (++: no backtracking)
            (r"!=|==|<<|>>|:=|[-~+/*%=<>&^|]|\.(?!\d)", Operator), (r"[]{}:(),;[]", Punctuation),
            (r'^([^\S\n]*)([rRuUbB]{,2})("""[\s\S]*?""")', doc), (r"^([^\S\n]*)([rRuUbB]{,2})('''[\s\S]*?''')", doc),
            (r"\A#!.+$", Comment.Hashbang), (r"#.*$", Comment.Single), (r"\\\n", Text), (r"\\", Text),
            (words(_PY_KEYWORDS + ["yield from"], suffix=r"\b"), Keyword),
            (words(("True", "False", "None"), suffix=r"\b"), Keyword.Constant),
            (rf"(^[ \t]*)(match|case)\b(?![ \t]*(?:[:,;=^&|@~)\]}}]|(?:{soft})\b))", bygroups(Text, Keyword),
             "soft-keywords-inner"),
            (rf"(def){gap}", bygroups(Keyword, Whitespace), "funcname"),
            (rf"(class){gap}", bygroups(Keyword, Whitespace), "classname"),
            (rf"^(lazy){gap}(from){gap}", bygroups(*[Keyword.Namespace, Whitespace] * 2), "fromimport"),
            (rf"^(lazy){gap}(import){gap}", bygroups(*[Keyword.Namespace, Whitespace] * 2), "import"),
            (rf"(from){gap}", word_then, "fromimport"), (rf"(import){gap}", word_then, "import"), include("expr"),
        ],
        "expr-inside-fstring": [
            (r"[{([]", Punctuation, "expr-inside-fstring-inner"), (r"(=\s*)?(\![sraf])?\}", String.Interpol, "#pop"),
            (r"(=\s*)?(\![sraf])?:", String.Interpol, "#pop"), (r"\s+", Whitespace), include("expr"),
        ],
        "expr-inside-fstring-inner": [(r"[{([]", Punctuation, "expr-inside-fstring-inner"),
                                      (r"[])}]", Punctuation, "#pop"), (r"\s+", Whitespace), include("expr")],
        "soft-keywords-inner": [(r"(\s++)([^\n_]*+)(_\b)", bygroups(Whitespace, using(this), Keyword)),
                                default("#pop")],
        "funcname": [(words(_PY_MAGIC_FUNCTIONS, suffix=r"\b"), Name.Function.Magic),
                     (_IDENT, Name.Function, "#pop"), default("#pop")],
        "classname": [(_IDENT, Name.Class, "#pop")],
        "import": [(r"(\s+)(as)(\s+)", bygroups(Whitespace, Keyword, Whitespace)), (r"\.", Name.Namespace),
                   (_IDENT, Name.Namespace), (r"(\s*)(,)(\s*)", bygroups(Whitespace, Operator, Whitespace)),
                   default("#pop")],
        "fromimport": [(r"(\s+)(import)\b", bygroups(Whitespace, Keyword.Namespace), "#pop"), (r"\.", Name.Namespace),
                       (r"None\b", Keyword.Constant, "#pop"), (_IDENT, Name.Namespace), default("#pop")],
    }}


def _python_expr() -> list:
    """An expression's rules after the quick ones: strings, numbers, operators, keywords, names."""
    from pygments.lexer import bygroups, combined, words
    from pygments.token import Keyword, Name, Number, Operator, Punctuation, String, Text

    openings = []
    for quotes, token, kind in (('"""', String.Double, "tdq"), ("'''", String.Single, "tsq"),
                                ('"', String.Double, "dq"), ("'", String.Single, "sq")):
        affix = bygroups(String.Affix, token)
        openings += [(f"(?i)(r[ft]|[ft]r)({quotes})", affix, combined("rfstringescape", kind + "f")),
                     (f"([fFtT])({quotes})", affix, combined("fstringescape", kind + "f")),
                     (f"(?i)(rb|br|r)({quotes})", affix, kind + "s"),
                     (f"([uU]?)({quotes})", affix, combined("stringescape", kind + "s")),
                     (f"([bB])({quotes})", affix, combined("bytesescape", kind + "s"))]
    return [
        *(openings[quotes * 5 + kind] for kind in range(5) for quotes in range(4)),  # (Pygments' order)
        (r"[^\S\n]+", Text),
        (r"(\d(?:_?\d)*\.(?:\d(?:_?\d)*)?|(?:\d(?:_?\d)*)?\.\d(?:_?\d)*)([eE][+-]?\d(?:_?\d)*)?", Number.Float),
        (r"\d(?:_?\d)*[eE][+-]?\d(?:_?\d)*j?", Number.Float),
        (r"0[oO](?:_?[0-7])+", Number.Oct), (r"0[bB](?:_?[01])+", Number.Bin),
        (r"0[xX](?:_?[a-fA-F0-9])+", Number.Hex), (r"\d(?:_?\d)*", Number.Integer),
        (r"!=|==|<<|>>|:=|[-~+/*%=<>&^|.]", Operator), (r"[]{}:(),;[]", Punctuation),
        (r"(in|is|and|or|not)\b", Operator.Word),
        (words("async for|await|else|for|if|lambda|yield|yield from".split("|"), suffix=r"\b"), Keyword),
        (words(("True", "False", "None"), suffix=r"\b"), Keyword.Constant),
        (words(_PY_BUILTINS, prefix=r"(?<!\.)", suffix=r"\b"), Name.Builtin),
        (r"(?<!\.)(self|Ellipsis|NotImplemented|cls)\b", Name.Builtin.Pseudo),
        (words(_PY_EXCEPTIONS, prefix=r"(?<!\.)", suffix=r"\b"), Name.Exception),
        (words(_PY_MAGIC_FUNCTIONS, suffix=r"\b"), Name.Function.Magic),
        (words(_PY_MAGIC_VARIABLES, suffix=r"\b"), Name.Variable.Magic),
        ("@" + _IDENT, Name.Decorator), ("@", Operator), (_IDENT, Name),
    ]


def _python_strings() -> dict:
    """The states inside a string: its escapes, %- and {}-formatting, and an f-string's fields."""
    from pygments.lexer import include
    from pygments.token import String

    def inner(token) -> list:  # (a run of plain characters first: no other rule starts with one)
        return [(r"[^\\\'\"%{\n]+", token),
                (r"%(\(\w+\))?[-#0 +]*+([0-9]+|[*])?(\.([0-9]+|[*]))?[hlL]?[E-GXc-giorsaux%]", String.Interpol),
                (r"\{((\w+)((\.\w+)|(\[[^\]{\n]+\]))*)?(\![sra])?(\:(.?[<>=\^])?[-+ ]?#?0?(\d+)?,?(\.\d+)?"
                 r"[E-GXb-gnosx%]?)?\}", String.Interpol), (r"[\'\"\\]", token), (r"%|(\{{1,2})", token)]

    def fields(token) -> list:
        return [(r"[^\\\'\"{}\n]+", token), (r"\}", String.Interpol), (r"\{", String.Interpol, "expr-inside-fstring"),
                (r"[\'\"\\]", token)]

    states = {
        "rfstringescape": [(r"\{\{", String.Escape), (r"\}\}", String.Escape)],
        "fstringescape": [include("rfstringescape"), include("stringescape")],
        "bytesescape": [(r"\\([\\abfnrtv\"\']|\n|x[a-fA-F0-9]{2}|[0-7]{1,3})", String.Escape)],
        "stringescape": [(r"\\(N\{[^}\n]{0,100}\}|u[a-fA-F0-9]{4}|U[a-fA-F0-9]{8})", String.Escape),
                         include("bytesescape")],
    }
    for quote, token, name in (('"', String.Double, "d"), ("'", String.Single, "s")):
        escape = rf"\\\\|\\{quote}|\\\n"  # (here for raw strings too)
        states[f"{name}qf"] = [*fields(token)[:1], (quote, token, "#pop"), (escape, String.Escape), *fields(token)[1:]]
        states[f"{name}qs"] = [*inner(token)[:1], (quote, token, "#pop"), (escape, String.Escape), *inner(token)[1:]]
        states[f"t{name}qf"] = [*fields(token)[:1], (r"\n", token), (quote * 3, token, "#pop"), *fields(token)[1:]]
        states[f"t{name}qs"] = [*inner(token)[:1], (r"\n", token), (quote * 3, token, "#pop"), *inner(token)[1:]]
    return states


_C_IDENT = r"(?!\d)(?:[\w$]|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8})+"
_C_SCOPED = r"(?!\d)(?:[\w$]|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|::)++"  # possessive: a name never gives back
_C_COMMENT = r"//(?:.|(?<=\\)\n)*\n|/(?:\\\n)?[*](?:[^*]|[*](?!(?:\\\n)?/))*[*](?:\\\n)?/"  # // or /* */
_C_COMMENTS = rf"(?>\s*(?:(?:{_C_COMMENT})\s*)*)"  # atomic: comments once read are not read again
_C_ONE_COMMENT = r"\s*(?:/[*](?>.*?[*]/)\s*)?"  # spaces and at most one /* */, ending at the first */ as in C
_C_LINE_SPACE = r"[^\S\n]*(?:/[*](?>.*?[*]/)[^\S\n]*)?"  # the same, within one line
_C_HEX, _C_DEC = r"[0-9a-fA-F](\'?[0-9a-fA-F])*", r"\d(\'?\d)*"
_C_INT_SUFFIX = r"(([uU]?[zZ])|([zZ][uU])|([uU][lL]{0,2})|([lL]{1,2}[uU]?))?"
_C_INTS = [f"{u}int{kind}{bits}_t" for kind in ("", "_least", "_fast") for u in ("", "u") for bits in (8, 16, 32, 64)]
_C_INTS += ["intptr_t", "uintptr_t", "intmax_t", "uintmax_t"]  # (C11 has an atomic type of each but the first 8)
_C_TYPES = (  # shown as types: the standard library's, C99's, C11's atomic ones and Linux's
    "size_t ssize_t off_t wchar_t ptrdiff_t sig_atomic_t fpos_t clock_t time_t va_list jmp_buf FILE DIR div_t ldiv_t "
    "mbstate_t wctrans_t wint_t wctype_t byte clockid_t cpu_set_t cpumask_t dev_t gid_t id_t ino_t key_t mode_t nfds_t "
    "pid_t rlim_t sig_t sighandler_t siginfo_t sigset_t sigval_t socklen_t timer_t uid_t").split() + _C_INTS + [
    f"atomic_{name}" for name in "bool char schar uchar short ushort int uint long ulong llong ullong char16_t "
    "char32_t wchar_t size_t ptrdiff_t".split() + _C_INTS[8:]]
_CUDA_TYPES = "__device__ __constant__ __shared__ __restrict__ longlong1 ulonglong1 longlong2 ulonglong2".split() + [
    f"{u}{kind}{n}" for kind in ("char", "short", "int", "long") for u in ("", "u") for n in (1, 2, 3, 4)] + [
    "float1", "float2", "float3", "float4", "double1", "double2", "dim3"]


def _c_family_tokens() -> dict:
    """Pygments 2.21's CFamilyLexer rules (C, C++ and CUDA share them), linear."""
    from pygments.lexer import bygroups, default, include, this, using
    from pygments.token import Comment, Name, Number, Operator, Punctuation, String, Text, Whitespace

    function = (rf"({_C_SCOPED}(?:[&*\s])++)({_C_COMMENTS})({_C_SCOPED})({_C_COMMENTS})(\([^;\"\'){{}}]*+\))"
                rf"({_C_COMMENTS})")
    parts = bygroups(using(this), using(this, state="whitespace"), Name.Function, using(this, state="whitespace"),
                     using(this), using(this, state="whitespace"), using(this), Punctuation)
    return {**_c_words(), **_c_directives(), **{
        "whitespace": [
            (r"^#if\s+0", Comment.Preproc, "if0"), ("^#", Comment.Preproc, "macro"),
            (rf"^({_C_LINE_SPACE})(#if\s+0)", bygroups(using(this), Comment.Preproc), "if0"),
            (rf"^({_C_LINE_SPACE})(#)", bygroups(using(this), Comment.Preproc), "macro"),
            (rf"(^[ \t]*)(?!(?:public|private|protected|default)\b)({_C_IDENT})(\s*)(:)(?!:)",
             bygroups(Whitespace, Name.Label, Whitespace, Punctuation)),
            (r"\n", Whitespace), (r"[^\S\n]+", Whitespace), (r"\\\n", Text), (r"//(?:.|(?<=\\)\n)*\n", Comment.Single),
            (r"/(?:\\\n)?[*](?:[^*]|[*](?!(?:\\\n)?/))*[*](?:\\\n)?/", Comment.Multiline),
            (r"/(\\\n)?[*][\w\W]*", Comment.Multiline),  # (open until the end)
        ],
        "statements": [
            include("keywords"), include("types"), (r"([LuU]|u8)?(\")", bygroups(String.Affix, String), "string"),
            (r"([LuU]|u8)?(')(\\.|\\[0-7]{1,3}|\\x[a-fA-F0-9]{1,2}|[^\\\'\n])(')",
             bygroups(String.Affix, String.Char, String.Char, String.Char)),
            (rf"0[xX]({_C_HEX}\.{_C_HEX}|\.{_C_HEX}|{_C_HEX})[pP][+-]?{_C_HEX}[lL]?", Number.Float),
            (rf"(-)?({_C_DEC}\.{_C_DEC}|\.{_C_DEC}|{_C_DEC})[eE][+-]?{_C_DEC}[fFlL]?", Number.Float),
            (rf"(-)?(({_C_DEC}\.({_C_DEC})?|\.{_C_DEC})[fFlL]?)|({_C_DEC}[fFlL])", Number.Float),
            (rf"(-)?0[xX]{_C_HEX}{_C_INT_SUFFIX}", Number.Hex),
            (rf"(-)?0[bB][01](\'?[01])*{_C_INT_SUFFIX}", Number.Bin), (rf"(-)?0(\'?[0-7])+{_C_INT_SUFFIX}", Number.Oct),
            (rf"(-)?{_C_DEC}{_C_INT_SUFFIX}", Number.Integer),
            (r"[~!%^&*+=|?:<>/-]", Operator), (r"[()\[\],.]", Punctuation),
            (r"(true|false|NULL|nullptr)\b", Name.Builtin), (_C_IDENT, Name),
        ],
        "root": [include("whitespace"), include("keywords"), (function + r"([^;{/\"\']*+)(\{)", parts, "function"),
                 (function + r"([^;/\"\']*+)(;)", parts), include("types"), default("statement")],
        "statement": [include("whitespace"), include("statements"), (r"\}", Punctuation),
                      (r"[{;]", Punctuation, "#pop")],
        "function": [include("whitespace"), include("statements"), (";", Punctuation),
                     (r"\{", Punctuation, "#push"), (r"\}", Punctuation, "#pop")],
        "classname": [include("whitespace"), (r"\[\[(?=[^\[\]]*\]\])", Punctuation, "attribute"),
                      (_C_IDENT, Name.Class, "#pop"), (r"\s*(?=>)", Text, "#pop"), default("#pop")],
        "case-value": [(r"(?<!:)(:)(?!:)", Punctuation, "#pop"), (_C_IDENT, Name.Constant),
                       include("whitespace"), include("statements")],
        "attribute": [(r"\]\]", Punctuation, "#pop"), (_C_IDENT, Name.Attribute),
                      (r"\(", Punctuation, "attribute-args"), (r"::", Punctuation), (r",", Punctuation),
                      include("whitespace")],
        "attribute-args": [(r"\)", Punctuation, "#pop"), (r"\(", Punctuation, "#push"), include("statements")],
    }}


def _c_directives() -> dict:
    """A string, a directive (an #include's file name, a comment open to the end) and an #if 0 block."""
    from pygments.lexer import bygroups, this, using
    from pygments.token import Comment, String

    include_ = rf"({_C_ONE_COMMENT})(include)({_C_ONE_COMMENT})(\"[^\"\n]+\"|<[^>\n]+>)([^\S\n]*)"
    file = (using(this), Comment.Preproc, using(this), Comment.PreprocFile, using(this))
    return {
        "string": [(r"\"", String, "#pop"),
                   (r"\\([\\abfnrtv\"\']|x[a-fA-F0-9]{2,4}|u[a-fA-F0-9]{4}|U[a-fA-F0-9]{8}|[0-7]{1,3})", String.Escape),
                   (r"[^\\\"\n]+", String), (r"\\\n", String), (r"\\", String)],
        "macro": [(include_ + r"([^/\n]*/[*][\s\S]*?(?:[*]/|\Z))", bygroups(*file, Comment.Multiline)),
                  (include_ + r"([^\n]*)", bygroups(*file, Comment.Single)),
                  (r"[^/\n]+", Comment.Preproc), (r"/[*][\s\S]*?(?:[*]/|\Z)", Comment.Multiline),
                  (r"//.*?\n", Comment.Single, "#pop"), (r"/", Comment.Preproc),
                  (r"(?<=\\)\n", Comment.Preproc), (r"\n", Comment.Preproc, "#pop")],
        "if0": [(r"^[^\S\n]*#if.*?(?<!\\)\n", Comment.Preproc, "#push"),
                (r"^[^\S\n]*#el(?:se|if).*\n", Comment.Preproc, "#pop"),
                (r"^[^\S\n]*#endif.*?(?<!\\)\n", Comment.Preproc, "#pop"), (r".*?\n", Comment)],
    }


def _c_words() -> dict:
    """The C family's keywords and types."""
    from pygments.lexer import bygroups, words
    from pygments.token import Keyword, Whitespace

    def split(text: str, prefix: str = ""):
        return words(text.split(), prefix=prefix, suffix=r"\b")

    return {
        "types": [(split("int8 int16 int32 int64 wchar_t", r"__"), Keyword.Reserved),
                  (split("bool int long float short double char unsigned signed void _BitInt __int128"), Keyword.Type)],
        "keywords": [
            (r"(struct|union)(\s+)", bygroups(Keyword, Whitespace), "classname"), (r"case\b", Keyword, "case-value"),
            (split("asm auto break const constexpr continue countof default defer do else enum extern for goto if "
                   "register restricted return sizeof struct static switch typedef typeof typeof_unqual volatile "
                   "while union thread_local alignas alignof static_assert _Pragma fortran"), Keyword),
            (split("inline _inline __inline naked restrict thread"), Keyword.Reserved),
            (r"(__m(128i|128d|128|64))\b", Keyword.Reserved),
            (split("asm based except stdcall cdecl fastcall declspec finally try leave w64 unaligned raise noop "
                   "identifier forceinline assume null", r"__"), Keyword.Reserved),
        ],
    }


def _c_tokens() -> dict:
    """Pygments 2.21's CLexer's own rules, on the family's."""
    from pygments.lexer import inherit, words
    from pygments.token import Keyword, Punctuation

    own = "_Alignas _Alignof _Noreturn _Countof _Generic _Thread_local _Static_assert _Imaginary noreturn imaginary"
    return {"statements": [(r"\[\[(?=[^\[\]]*\]\])", Punctuation, "attribute"), inherit],
            "keywords": [(words(f"{own} complex".split(), suffix=r"\b"), Keyword), inherit],
            "types": [(words("_Bool _Complex _Atomic _Decimal32 _Decimal64 _Decimal128".split(), suffix=r"\b"),
                       Keyword.Type), inherit]}


def _cpp_tokens() -> dict:
    """Pygments 2.21's CppLexer's own rules, on the family's (CUDA's too)."""
    from pygments.lexer import bygroups, default, include, inherit, words
    from pygments.token import Keyword, Name, Punctuation, String, Text, Whitespace

    annotation = (rf"(\[\[)(=)({_C_IDENT})", bygroups(Punctuation, Punctuation, Name.Decorator), "annotation")
    attribute = (r"\[\[(?=[^\[\]]*\]\])", Punctuation, "attribute")
    name_after = [include("whitespace"), annotation, attribute, (_C_IDENT, Name.Class, "#pop"),
                  (r"\s*(?=>)", Text, "#pop"), default("#pop")]
    raw = bygroups(String.Affix, String, String.Delimiter, String.Delimiter, String, String.Delimiter, String)
    return {
        "statements": [(r"((?:[LuU]|u8)?R)(\")([^\\()\s]{,16})(\()([\s\S]*?)(?:(\)\3)(\")|\Z)", raw),
                       annotation, attribute, inherit],
        "root": [inherit, (words(("virtual_inheritance uuidof super extends single_inheritance multiple_inheritance "
                                  "interface implements event finally null").split(), prefix=r"__", suffix=r"\b"),
                           Keyword.Reserved), (r"__(offload|blockingoffload|outer)\b", Keyword.Pseudo)],
        "classname": name_after,
        "enumname": name_after[:1] + [(words(("class", "struct"), suffix=r"\b"), Keyword)] + name_after[1:],
        "attribute": [(r"using\b", Keyword), (r":", Punctuation), inherit],
        "keywords": [
            (r"(class|concept|typename)(\s+)", bygroups(Keyword, Whitespace), "classname"),
            (words(("catch const_cast delete dynamic_cast explicit export friend mutable new operator private "
                    "protected public reinterpret_cast class __restrict static_cast template this throw throws try "
                    "typeid using virtual concept decltype noexcept override final constinit consteval co_await "
                    "co_return co_yield requires import module typename and and_eq bitand bitor compl not not_eq "
                    "or or_eq xor xor_eq contract_assert pre post").split(), suffix=r"\b"), Keyword),
            (r"namespace\b", Keyword, "namespace"), (r"(enum)(\s+)", bygroups(Keyword, Whitespace), "enumname"),
            inherit,
        ],
        "types": [(r"char(16_t|32_t|8_t)\b", Keyword.Type), inherit],
        "namespace": [(r";", Punctuation, ("#pop", "root")), (r"\{", Punctuation, ("#pop", "namespace-body")),
                      (r"inline\b", Keyword.Reserved), (_C_IDENT, Name.Namespace), include("statement")],
        "namespace-body": [(r"\}", Punctuation, "#pop"), include("root")],
        "annotation": [(r"\]\]", Punctuation, "#pop"), (r"\(", Punctuation, "annotation-args"), (r"::", Punctuation),
                       (r",", Punctuation), (_C_IDENT, Name.Decorator), include("whitespace")],
        "annotation-args": [(r"\)", Punctuation, "#pop"), (r"\(", Punctuation, "#push"), include("statements")],
    }


@lru_cache(maxsize=1)
def _lexer_classes() -> dict[str, type]:
    """The four lexers, made when first needed (a site that shows no source never loads Pygments)."""
    from pygments.lexer import RegexLexer
    from pygments.token import Keyword, Name

    class LinearPythonLexer(RegexLexer):
        tokens = _python_tokens()

    class LinearCFamilyLexer(RegexLexer):
        tokens = _c_family_tokens()
        names = dict.fromkeys(_C_TYPES, Keyword.Type)  # a name shown as another token

        def get_tokens_unprocessed(self, text, stack=("root",)):
            names = self.names
            for index, token, value in RegexLexer.get_tokens_unprocessed(self, text, stack):
                yield index, names.get(value, token) if token is Name else token, value

    class LinearCLexer(LinearCFamilyLexer):
        tokens = _c_tokens()

    class LinearCppLexer(LinearCFamilyLexer):
        tokens = _cpp_tokens()

    class LinearCudaLexer(LinearCppLexer):
        names = {**dict.fromkeys("gridDim blockIdx blockDim threadIdx warpSize".split(), Name.Builtin),
                 **dict.fromkeys("__global__ __host__ __noinline__ __forceinline__".split(), Keyword.Reserved),
                 **dict.fromkeys([f"__{n}" for n in "threadfence_block threadfence threadfence_system syncthreads "
                                  "syncthreads_count syncthreads_and syncthreads_or".split()], Name.Function),
                 **dict.fromkeys(_CUDA_TYPES, Keyword.Type), **LinearCFamilyLexer.names}

    return {"python": LinearPythonLexer, "c": LinearCLexer, "cpp": LinearCppLexer, "cuda": LinearCudaLexer}


# --- The budget ----------------------------------------------------------------------------------


class _OverBudget(BaseException):
    """A highlighting out of time (a BaseException: a lexer's `except Exception` does not keep it)."""


def _within_budget(text: str, lexer) -> str | None:
    """The highlighted HTML of `text`, or None if making it took more than BUDGET_SECONDS of CPU."""
    from pygments import highlight

    budget = BUDGET_SECONDS
    try:
        with _cpu_timer(budget):
            return highlight(text, _Timed(lexer, time.thread_time() + budget), _formatter())
    except _OverBudget:
        return None


class _Timed:
    """A lexer's tokens, this thread's CPU clock read every CHECK_EVERY of them: _OverBudget past
    `deadline` (the process's clock only ticks while a profiling timer is set)."""

    CHECK_EVERY = 256

    def __init__(self, lexer, deadline: float):
        self.lexer, self.deadline = lexer, deadline

    def get_tokens(self, text: str):
        clock, deadline, tokens = time.thread_time, self.deadline, self.lexer.get_tokens(text)
        while chunk := list(islice(tokens, self.CHECK_EVERY)):  # (in chunks: no Python step per token)
            if clock() > deadline:
                raise _OverBudget
            yield from chunk
        if clock() > deadline:  # (formatting counts too: the formatter takes tokens as it writes)
            raise _OverBudget


@contextmanager
def _cpu_timer(seconds: float):
    """Raise _OverBudget in this thread once the process has used `seconds` more CPU (a one-shot
    ITIMER_PROF, which stops one long regex match too); only on the main thread, where nothing else
    uses the profiling timer."""
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


_kept = None  # the build's Highlights (state.highlights) while it runs: `use`


def use(kept) -> None:
    """Keep highlights in `kept` (a build's state.highlights.Highlights) while a build runs, None after."""
    global _kept
    _kept = kept


def stylesheet() -> str:
    """The highlighting colours of static/source.css: light, and dark where the reader prefers it."""
    from pygments.formatters import HtmlFormatter

    def rules(style: str) -> str:  # (only those scoped to .source: Pygments also styles every <pre>)
        css = HtmlFormatter(style=style).get_style_defs(".source")
        return "\n".join(line for line in css.splitlines() if line.startswith(".source"))

    return (f"/* Source highlighting (kindex_site/highlight.py stylesheet()) */\n{rules('default')}\n"
            f"@media (prefers-color-scheme: dark) {{\n{rules('github-dark')}\n}}\n")
