"""Text as pages show it, safely: HTML escaping and characters that do not show as themselves.
Standard library only, so that every module that writes text for a reader shows it by the same rules.
"""

from __future__ import annotations

import re


def escape(value) -> str:
    """markupsafe.escape's text as a plain str (not a Markup per piece), each HIDDEN character as its
    code point in brackets ('[U+202E]'); an object with `__html__` as that says."""
    if type(value) is str:
        text = value
    elif hasattr(value, "__html__"):
        return value.__html__()
    else:
        text = str.__str__(str(value))  # a plain str: Markup's replace would escape its arguments
    if "&" in text or "<" in text or ">" in text or "'" in text or '"' in text:
        text = text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;").replace("'", "&#39;").replace('"', "&#34;")
    return text if text.isprintable() or HIDDEN.search(text) is None else shown_hidden(text)


# C0 and C1 controls (tab and line breaks aside) and the bidirectional controls, which reorder the text
# after them ("Trojan Source"): no page shows one as itself.
HIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


CODE_POINT_HTML = '<code class="ctl">U+{:04X}</code>'  # (where an element may stand: a document's strings, a source)


def shown_hidden(text: str, marked: str = "[U+{:04X}]") -> str:
    """`text` (HTML or plain) with each HIDDEN character as its code point, formatted by `marked`."""
    return HIDDEN.sub(lambda m: marked.format(ord(m.group())), text)
