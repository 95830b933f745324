"""The Jinja environment: templates, their filters (numbers.py's formats, charts.py's charts) and
documents shown as HTML."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from html import escape as html_escape
from pathlib import Path
from typing import TYPE_CHECKING

import jinja2
import jinja2.runtime
from jinja2.sandbox import SandboxedEnvironment, SecurityError
from jinja2.utils import generate_lorem_ipsum
from markupsafe import Markup
from pydantic import BaseModel

from . import charts
from .numbers import format_ci_ms, format_date, format_ms, format_of_suite, format_ratio, format_ratio_ci, format_share
from .physics import duration
from .safetext import CODE_POINT_HTML, HIDDEN, escape, shown_hidden

if TYPE_CHECKING:
    from markdown_it import MarkdownIt


def format_value(value) -> str:
    """A scalar from a document, as JSON would spell it (so 4.94 stays 4.94, true stays true)."""
    if isinstance(value, str):
        return value
    t = type(value)
    if t is int:
        return int.__repr__(value)  # what json.dumps writes, without its call overhead
    if t is float and value - value == 0:  # finite (json.dumps spells NaN and the infinities its own way)
        return float.__repr__(value)
    return json.dumps(value, ensure_ascii=False)


# Documents repeat most of their strings (digests, statuses, names) and all of their keys: each is
# escaped once per process. Bounded, for a long-running `serve`.
_ESCAPED: dict[str, str] = {}
_KEY_HTML: dict[str, str] = {}
_MEMO_LIMIT = 1 << 16


def _text_html(text: str) -> str:
    """A document's string: each HIDDEN character as its code point, marked."""
    html = html_escape(text)
    if HIDDEN.search(html) is None:
        return html
    return shown_hidden(html, CODE_POINT_HTML)


def _remembered(memo: dict, key: str, make):
    """memo[key], made by make(key) the first time (a memo holds at most _MEMO_LIMIT answers)."""
    value = memo.get(key)
    if value is None:
        if len(memo) >= _MEMO_LIMIT:
            memo.clear()
        value = memo[key] = make(key)
    return value


def _escaped(text: str) -> str:
    return _remembered(_ESCAPED, text, _text_html)


def _key_html(key: str) -> str:
    return _remembered(_KEY_HTML, key, _dt_html)


def _dt_html(key: str) -> str:
    return f"<dt>{_text_html(key)}</dt><dd>"


def _scalar_html(value) -> str:
    t = type(value)
    if t is int:
        return f"<code>{int.__repr__(value)}</code>"  # digits need no escaping
    if t is float and value - value == 0:
        return f"<code>{float.__repr__(value)}</code>"
    return f"<code>{html_escape(format_value(value))}</code>"


def _document_parts(value, append) -> None:
    """Appends the HTML of a dict or list (the caller has checked which it is)."""
    escaped = _ESCAPED
    if isinstance(value, dict):
        if not value:
            append("<code>{}</code>")
            return
        append('<dl class="doc">')
        keys = _KEY_HTML
        for key, item in value.items():
            head = keys.get(key) or _key_html(key)
            if type(item) is str:
                append(head + (escaped.get(item) or _escaped(item)) + "</dd>")
            elif isinstance(item, (dict, list)):
                append(head)
                _document_parts(item, append)
                append("</dd>")
            else:
                append(head + _scalar_html(item) + "</dd>")
        append("</dl>")
    else:
        if not value:
            append("<code>[]</code>")
            return
        append('<ol class="doc" start="0">')
        for item in value:
            if type(item) is str:
                append("<li>" + (escaped.get(item) or _escaped(item)) + "</li>")
            elif isinstance(item, (dict, list)):
                append("<li>")
                _document_parts(item, append)
                append("</li>")
            else:
                append("<li>" + _scalar_html(item) + "</li>")
        append("</ol>")


def document_html(value) -> Markup:
    """A document value shown whole: objects as nested <dl>, arrays as <ol>, scalars as text (plain
    Python: a macro call per value would cost more than the rest of a run page)."""
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", exclude_unset=True)
    if type(value) is str:
        return Markup(_escaped(value))
    if not isinstance(value, (dict, list)):
        return Markup(_scalar_html(value))
    parts: list[str] = []
    _document_parts(value, parts.append)
    return Markup("".join(parts))


def count(n: int, singular: str, plural: str | None = None) -> str:
    """A number and its noun, in the plural unless it is one: 1 problem, 2 problems, 0 problems."""
    return f"{n} {singular if n == 1 else plural or singular + 's'}"


def aligned(text: str) -> Markup:
    """A number as shown, its decimals in an <i> so that a right-aligned column lines up on the
    decimal point. Anything but a number ("—") is left as it is."""
    return _remembered(_ALIGNED, str(text), _aligned)


_ALIGNED: dict[str, Markup] = {}  # (a table's numbers repeat: each is split and escaped once per process)


def _aligned(text: str) -> Markup:
    if not text[:1].isdigit() and not (text[:1] == "-" and text[1:2].isdigit()):
        return Markup(html_escape(text))
    whole, dot, decimals = text.partition(".")
    return Markup(f"{html_escape(whole)}<i>{dot}{html_escape(decimals)}</i>")


def grouped(n: int | None) -> str:
    """A count with its thousands grouped: 1073741824 → '1,073,741,824'."""
    return "—" if n is None else f"{n:,}"


def short_digest(digest: str) -> str:
    return digest.removeprefix("sha256:")[:12]


def safe_link(url: str | None) -> str | None:
    """Content-supplied URLs become links only when they are http, https or mailto."""
    if not url:
        return None
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    return url if scheme in ("http", "https", "mailto") else None


def markdown_renderer() -> "MarkdownIt":
    from markdown_it import MarkdownIt  # (imported when a page needs it: a rebuild often does not)

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


@lru_cache(maxsize=256)
def markdown_html(text: str) -> str:
    """A Markdown page's HTML, remembered; a HIDDEN character in it shows as its code point."""
    html = _markdown().render(text)
    return html if HIDDEN.search(html) is None else shown_hidden(html)


@lru_cache(maxsize=1)
def _markdown() -> "MarkdownIt":
    return markdown_renderer()


@jinja2.pass_environment
def once(env: BoundedSandbox, name: str, caller) -> Markup:
    """The `once` global: `{% call once("name") %}…{% endcall %}` renders its body the first time and
    gives it again while the environment's globals are the same objects; its body must use nothing else."""
    values = tuple(env.globals.values())
    ids = tuple(map(id, values))
    hit = env.once_html.get(name)
    if hit is not None and hit[1] == ids:  # hit[0] keeps those objects alive: ids are not reused
        return hit[2]
    html = caller()
    env.once_html[name] = (values, ids, html)
    return html


@jinja2.pass_environment
def physics_facts(env: BoundedSandbox, physics: dict) -> Markup:
    """The `physics_facts` filter: a run page's physics (templates/run_physics.html), rendered once
    per workload on a GPU in an environment and given again while its limits, cost and GPU figures are
    the same objects. Bounded, for a long-running `serve`."""
    facts, key, remembered = physics["facts"], physics["key"], env.physics_html
    held = (facts["limits"], facts["cost"], facts["gpu"])
    ids = tuple(map(id, held))
    hit = remembered.get(key) if key is not None else None
    if hit is not None and hit[1] == ids:  # hit[0] keeps the held objects alive: ids are not reused
        return hit[2]
    template = env.get_template("run_physics.html")
    html = Markup(env.concat(template.root_render_func(template.new_context(facts["context"](), shared=True))))
    if key is not None:
        if len(remembered) >= _MEMO_LIMIT:
            remembered.clear()
        remembered[key] = (held, ids, html)
    return html


class _Template(jinja2.Template):
    """A compiled template whose output expressions escape with `safetext.escape` (a plain str, not a
    Markup per value), set in the module's namespace through Template.from_code's public steps;
    tests/test_render_fast.py and tests/test_hostile.py hold it to plain Jinja's text."""

    @classmethod
    def from_code(cls, environment, code, globals, uptodate=None):
        namespace = {"environment": environment, "__file__": code.co_filename}
        exec(code, namespace)
        namespace["escape"] = escape
        # `~` joins through these: bounded as the sandbox bounds `+` (BoundedSandbox).
        namespace["markup_join"] = _bounded_join(jinja2.runtime.markup_join, environment)
        namespace["str_join"] = _bounded_join(jinja2.runtime.str_join, environment)
        return cls.from_module_dict(environment, namespace, globals)  # (auto_reload is off: no `uptodate`)


# --- What one expression of a template may make ----------------------------------------------------
# Templates are trusted, but a mistake in one must not take the machine: `range(10**9)` is refused with
# a SecurityError naming its size, reported with the template's name and line.
MAX_ITEMS = 2**24  # characters of a string, or items of a list, one operation may make (or max_page_bytes, if more)
MAX_RANGE = 100_000  # items of one range (Jinja's own sandbox's bound)
MAX_POWER_BITS = 2**16  # bits of an integer power
MAX_INDENT = 1_000  # tojson's indent
_SEQUENCES = (str, list, tuple, bytes)
_WIDTHS = re.compile(r"\d+")
_PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?")


def _within(what: str, size: int, most: int) -> None:
    if size > most:
        raise SecurityError(f"{what} would make {size:,} items (characters), more than a template may make at "
                            f"once ({most:,})")


def _format_args(args) -> list:
    return list(args.values()) if isinstance(args, dict) else list(args) if isinstance(args, tuple) else [args]


def _checked_percent(text: str, args, most: int) -> None:
    """`text % args` refused when a width or precision (written, or given by `*`) is too big."""
    stars = False
    for match in _PERCENT_SPEC.finditer(text):
        for part in match.groups():
            if part == "*":
                stars = True
            elif part is not None:
                _within(f"the format {match.group()!r}", int(part), most)
    if stars:
        for value in _format_args(args):
            if isinstance(value, int):
                _within("a '*' width", abs(value), most)


def _checked_format(text: str, args, kwargs, most: int) -> None:
    """str.format's widths and precisions, written or given by a nested field."""
    import string

    for _, _, spec, _ in string.Formatter().parse(text):
        if not spec:
            continue
        for number in _WIDTHS.findall(spec):
            _within(f"the format spec {spec!r}", int(number), most)
        if "{" in spec:
            for value in [*args, *kwargs.values()]:
                if isinstance(value, int):
                    _within("a nested format width", abs(value), most)


def bounded_range(*args: int) -> range:
    """`range`, refused past MAX_RANGE items."""
    items = range(*args)
    if len(items) > MAX_RANGE:
        raise SecurityError(f"range of {len(items):,} items: a template may loop over {MAX_RANGE:,} at most")
    return items


_BUILTIN_METHOD = type("".ljust)
_METHODS = (_BUILTIN_METHOD, type(Markup("").format))  # (str.format; Markup's own, in Python)
_PADDING = frozenset({"ljust", "rjust", "center", "zfill", "expandtabs"})


class BoundedSandbox(SandboxedEnvironment):
    """Jinja's sandbox, with what one operation may make bounded (`max_items`) through Jinja's public
    hooks; `~`, the filters and the globals that repeat are bounded in `make_environment` and
    `_Template.from_code`."""

    intercepted_binops = frozenset({"*", "+", "**", "%"})
    max_items = MAX_ITEMS  # (a build sets it to its max_page_bytes when that is more: build._Renderer)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # (what `once` and `physics_facts` rendered with this environment's templates, by name and by key)
        self.once_html: dict[str, tuple] = {}
        self.physics_html: dict[tuple, tuple] = {}

    def call_binop(self, context, operator: str, left, right):
        if operator == "*":
            for seq, times in ((left, right), (right, left)):
                if isinstance(seq, _SEQUENCES) and isinstance(times, int):
                    _within(f"a {type(seq).__name__} of {len(seq):,} times {times:,}", len(seq) * max(times, 0),
                            self.max_items)
        elif operator == "+":
            if isinstance(left, _SEQUENCES) and isinstance(right, _SEQUENCES):
                _within("joining two sequences", len(left) + len(right), self.max_items)
        elif operator == "**":
            if (isinstance(left, int) and isinstance(right, int) and right > 0 and abs(left) > 1
                    and abs(left).bit_length() * right > MAX_POWER_BITS):
                raise SecurityError(f"{left} ** {right}: an integer of more than {MAX_POWER_BITS:,} bits")
        elif operator == "%" and isinstance(left, str):
            _checked_percent(left, right, self.max_items)
        return super().call_binop(context, operator, left, right)

    def call(__self, __context, __obj, *args, **kwargs):  # noqa: N805 (Jinja's own names, for its keyword arguments)
        """SandboxedEnvironment.call's, with the str methods that pad bounded."""
        if type(__obj) is _BUILTIN_METHOD and type(__obj.__self__) is str and __obj.__name__ in _PADDING:
            for value in (*args, *kwargs.values()):
                if isinstance(value, int):
                    _within(f"str.{__obj.__name__}", abs(value) * (1 if __obj.__name__ != "expandtabs"
                                                                   else __obj.__self__.count("\t")), __self.max_items)
        if not __self.is_safe_callable(__obj):
            raise SecurityError(f"{__obj!r} is not safely callable")
        return __context.call(__obj, *args, **kwargs)

    def wrap_str_format(self, value):
        if type(value) not in _METHODS or value.__name__ not in ("format", "format_map"):
            return None
        wrapped = super().wrap_str_format(value)
        if wrapped is None:
            return None
        text = value.__self__

        def checked(*args, **kwargs):
            _checked_format(text, args, args[0] if value.__name__ == "format_map" and args else kwargs, self.max_items)
            return wrapped(*args, **kwargs)

        return checked

    def concat(self, parts) -> str:
        """What a template's blocks are joined with: bounded, as `~` is."""
        parts = parts if type(parts) is list else list(parts)
        _within("a block's text", sum(map(len, parts)), self.max_items)
        return "".join(parts)


def _bounded_join(join, env: BoundedSandbox):
    """Jinja's markup_join or str_join (what `~` compiles to), refusing more than env.max_items characters."""
    def bounded(seq):
        items = list(seq)
        _within("joining with ~", sum(len(x) for x in items if isinstance(x, str)), env.max_items)
        return join(items)

    return bounded


def _guarded(filter_, check):
    """A filter that calls `check(most, value, *args, **kwargs)` first, `most` being the max_items of
    the environment Jinja passes `filter_` (or of what it passes: an eval context, a context)."""
    passes = getattr(filter_, "jinja_pass_arg", None)
    if passes is None:
        @jinja2.pass_environment
        def guarded(env, *args, **kwargs):
            check(env.max_items, *args, **kwargs)
            return filter_(*args, **kwargs)

        return guarded

    def guarded(first, *args, **kwargs):
        check((first if passes.name == "environment" else first.environment).max_items, *args, **kwargs)
        return filter_(first, *args, **kwargs)

    guarded.jinja_pass_arg = passes
    return guarded


def _center(most, value, width=80, *_, **__):
    _within("center", width if isinstance(width, int) else 0, most)


def _indent(most, s, width=4, *_, **__):
    _within("indent", (str(s).count("\n") + 1) * (width if isinstance(width, int) else len(str(width))), most)


def _format(most, value, *args, **kwargs):
    _checked_percent(str(value), kwargs or args, most)


def _replace(most, s, old, new, count=None, *_, **__):
    s, old, new = str(s), str(old), str(new)
    times = s.count(old) if old else len(s) + 1
    _within("replace", len(s) + min(times, count if isinstance(count, int) and count >= 0 else times) * len(new), most)


def _wordwrap(most, s, width=79, break_long_words=True, wrapstring=None, *_, **__):
    _within("wordwrap", len(str(s)) * (1 + len(wrapstring or "\n")), most)


def _slice(most, value, slices, fill_with=None, *_, **__):
    _within("slice", slices if isinstance(slices, int) else 0, most)


def _batch(most, value, linecount, fill_with=None, *_, **__):
    _within("batch", linecount if isinstance(linecount, int) and fill_with is not None else 0, most)


def _tojson(most, value, indent=None, *_, **__):
    if isinstance(indent, int) and indent > MAX_INDENT:
        raise SecurityError(f"tojson's indent of {indent:,}: at most {MAX_INDENT:,}")


@lru_cache(maxsize=1)
def _bounded_filters() -> dict:
    """Jinja's filters that pad or repeat, bounded; made once per process (compiled templates are
    cached by their filters' identity)."""
    from jinja2.filters import FILTERS

    checks = {"center": _center, "indent": _indent, "format": _format, "replace": _replace,
              "wordwrap": _wordwrap, "slice": _slice, "batch": _batch, "tojson": _tojson}
    return {name: _guarded(FILTERS[name], check) for name, check in checks.items()}


@jinja2.pass_environment
def bounded_lipsum(env: BoundedSandbox, n=5, html=True, min=20, max=100):
    """Jinja's `lipsum`, refusing more than env.max_items characters."""
    _within("lipsum", n * max if isinstance(n, int) and isinstance(max, int) else 0, env.max_items)
    return generate_lorem_ipsum(n, html, min, max)


def make_environment(templates_dir: Path, globals_: dict) -> jinja2.Environment:
    # Sandboxed: a template reaches no Python internals, whatever it is given.
    env = BoundedSandbox(
        loader=jinja2.FileSystemLoader(templates_dir),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # Not re-read while in use: build.py makes a new environment when a template changes.
        auto_reload=False,
    )
    env.template_class = _Template
    env.globals.update(once=once, range=bounded_range, lipsum=bounded_lipsum)
    env.filters.update(_bounded_filters())
    env.filters.update(
        ms=format_ms, ci_ms=format_ci_ms, ratio=format_ratio, ratio_ci=format_ratio_ci, share=format_share,
        of_suite=format_of_suite, date=format_date, value=format_value, short_digest=short_digest, count=count,
        aligned=aligned, document=document_html, safe_link=safe_link, grouped=grouped, duration=duration,
        physics_facts=physics_facts, sol=charts.format_sol, si=charts.format_si,
        board_chart=charts.board_chart, trend_chart=charts.trend_chart, fast_p_chart=charts.fast_p_chart,
        host_speedup_chart=charts.host_speedup_chart, implementation_speedup_chart=charts.implementation_speedup_chart,
        problem_sol_chart=charts.problem_sol_chart, host_sol_chart=charts.host_sol_chart,
    )
    env.globals.update(globals_)
    return env
