"""safetext: what templates and charts print is markupsafe.escape's text, with each hidden character
(a control or a bidirectional control) as its code point; and the module is a leaf."""

from __future__ import annotations

import subprocess
import sys

import jinja2
from hypothesis import given, settings
from hypothesis import strategies as st
from markupsafe import Markup
from markupsafe import escape as markup_escape

from kindex_site.safetext import CODE_POINT_HTML, HIDDEN, escape, shown_hidden

# The rule, written out apart from safetext's pattern: C0 and C1 controls but tab and line breaks,
# and the bidirectional controls.
HIDDEN_POINTS = frozenset([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0x7F, 0xA0),
                           0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)])


def expected(value) -> str:
    """markupsafe.escape's text; unless the value says its own HTML, each hidden character as [U+XXXX]."""
    text = str(markup_escape(value))
    if type(value) is not str and hasattr(value, "__html__"):
        return text
    return "".join(f"[U+{ord(c):04X}]" if ord(c) in HIDDEN_POINTS else c for c in text)


HOSTILE = [
    "", "plain", "&", "<", ">", "'", '"', "&<>'\"", "\"'><&", "&amp;", "&lt;script&gt;", "&#39;&#34;", "&&&&",
    "<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "</title><b>x</b>", "<!-- open comment",
    "' onmouseover='alert(3)", "javascript:alert(1)", "<svg/onload=alert(1)>", "a & b < c > d",
    "é ☃ 😀 𝔘", "e\u0301", "日本語 <テスト>", "\u2028\u2029", "\ufeff", "\u200b\u200c\u200d", "\u00ad", "\ufffd",
    "\ud800 lone surrogate", "\U0010ffff", "tab\tand\nlines\r\n", "NUL\x00ESC\x1b[31mDEL\x7f", "\x85\x9f\xa0",
    "\u202eevil.py\u202c", "\u2066<x>\u2069", "\u061c\u200e\u200f&", "\u202a\u202b\u202c\u202d\u202e",
    "<\u202e>&\x00'\"", "x" * 10_000 + "<" + "\u202e",
]


class Sub(str):
    """A str subclass: escaped by its str, as markupsafe does."""


class OwnStr(str):
    def __str__(self):
        return Markup("<from __str__ & 'quoted'>")


class StrGivesMarkup:
    def __str__(self):
        return Markup("<b>bold\u202e</b>")


class Shown:
    def __str__(self):
        return "<shown & 'told'>\x1b"


class Html:
    def __html__(self):
        return "<b>as is\u202e</b>"


OBJECTS = [0, 3, -7, 2**80, 0.5, -0.0, 1e300, float("nan"), float("inf"), True, False, None, Sub("<sub & 'x'>"),
           Sub("\u202e"), OwnStr("<raw>"), StrGivesMarkup(), Shown(), Html(), Markup("<i>safe</i>"),
           Markup("&amp; \u202e"), jinja2.Undefined(), [1, "<x>"], ("<t>",), {"k": "<v>"}, b"<bytes>", object]


def test_escape_is_markupsafes_text_on_hostile_and_unicode_text():
    for text in HOSTILE:
        assert escape(text) == expected(text), repr(text)
        assert type(escape(text)) is str


def test_escape_of_every_character_up_to_u3000_and_the_bidi_controls():
    chars = [chr(i) for i in range(0x3000)] + [chr(i) for i in range(0x2000, 0x2070)] + ["\U0001f600", "\U000e0001"]
    for c in chars:
        assert escape(c) == expected(c), hex(ord(c))
        assert escape(f"<{c}&") == expected(f"<{c}&"), hex(ord(c))
    joined = "".join(chars)
    assert escape(joined) == expected(joined)


def test_escape_is_markupsafes_text_on_objects():
    for value in OBJECTS:
        got = escape(value)
        assert str(got) == expected(value), repr(value)
        assert type(got) is str or hasattr(value, "__html__"), repr(value)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.text(alphabet=st.one_of(st.sampled_from("&<>'\"\x00\x1b\x7f\x85\u202e\u2066\u061c\t\n"),
                                  st.characters()), max_size=40))
def test_escape_is_markupsafes_text_on_any_text(text):
    assert escape(text) == expected(text)
    assert escape(Sub(text)) == expected(Sub(text))


def test_hidden_characters_are_shown_as_code_points():
    assert {i for i in range(0x110000) if HIDDEN.match(chr(i))} == HIDDEN_POINTS
    assert shown_hidden("a\u202eb\x00") == "a[U+202E]b[U+0000]"
    assert shown_hidden("<\u2066>", CODE_POINT_HTML) == '<<code class="ctl">U+2066</code>>'
    assert shown_hidden("\t\n\r plain ☃") == "\t\n\r plain ☃"


def test_safetext_is_a_leaf_of_the_standard_library():
    """Imported alone, it brings in no other module of kindex_site and no third-party package."""
    code = ("import sys; before = set(sys.modules); import kindex_site.safetext; "
            "print(' '.join(sorted(set(sys.modules) - before)))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert [m for m in loaded if m.startswith("kindex_site")] == ["kindex_site", "kindex_site.safetext"]
    outside = [m for m in loaded if not m.startswith("kindex_site") and m.split(".")[0] not in sys.stdlib_module_names]
    assert outside == []
