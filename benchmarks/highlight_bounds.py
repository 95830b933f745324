#!/usr/bin/env python3
"""Highlighting time against a source file's size, on text written to make lexers slow.

A contributor chooses a kernel's file name and language and its text (up to 1 MiB): the site shows
it with one of the lexers kindex_site.highlight allows (Python, CUDA, C, C++; plain text for any
other file), each of which must take time linear in the text. `ADVERSARIAL` holds, per lexer, texts
made to defeat that: long runs of spaces and blank lines, unclosed strings, comments and raw
strings, deep and unclosed brackets, lines of operators, backslashes, directives, triple quotes,
f-strings, numbers, and the shapes that make Pygments' own lexers quadratic (highlight.py's are linear).
tests/test_highlight_bounds.py runs every case at 8 and 32 KiB; this prints them at larger sizes.

For each case it prints the CPU seconds to lex and format the text (as the site does, with the
budget off) at N/4 and N, and their ratio: about 4 where time is linear; the line is flagged above 6
unless the larger time is under 0.25 s (a text that is one token, a comment or a number 1 MiB long,
takes 5 to 15 times as long at 1 MiB as at 256 KiB, then 4 times as long again at 4 MiB: the
regular expression's state outgrows the processor's cache). With --pygments, Pygments' own lexers
are timed too, at 4 and 16 KiB (some take minutes beyond), printing the cases that grow more than
sixfold.

usage: python benchmarks/highlight_bounds.py [--size KIB] [--lexers python c cpp cuda text] [--pygments]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

KIB = 1024


def _repeat(unit: str) -> Callable[[int], str]:
    return lambda n: (unit * (n // len(unit) + 1))[:n]


def _then(prefix: str, unit: str, suffix: str = "") -> Callable[[int], str]:
    return lambda n: prefix + (unit * (n // len(unit) + 1))[:max(0, n - len(prefix) - len(suffix))] + suffix


COMMON = {
    "spaces": _repeat(" "),
    "spaces, then x": _then("", " ", "x"),
    "tab-indented blank lines": _repeat("\t\n"),
    "every kind of whitespace": _repeat(" \t\n\f\v"),
    "newlines": _repeat("\n"),
    "one line of operators": _repeat("+-*/%<>=!&|^~?:"),
    "nested brackets": lambda n: "(" * (n // 2) + ")" * (n - n // 2),
    "unclosed brackets": _repeat("([{<"),
    "backslashes": _repeat("\\"),
    "line continuations": _repeat("\\\n"),
    "hashes": _repeat("#"),
    "hash lines": _repeat("#\n"),
    "one identifier": _repeat("a"),
    "identifier, then spaces": _then("a", " "),
    "0x repeated": _repeat("0x"),
    "digits": _repeat("1"),
    "1e repeated": _repeat("1e"),
    "1. repeated": _repeat("1."),
    "double quotes": _repeat('"'),
    "unclosed double quote": _then('"', "a"),
    "unclosed single quote": _then("'", "a"),
    "quote, backslash": _repeat('"\\'),
    "unclosed quote per line": _repeat('"a\n'),
    "colons": _repeat("a:"),
    "at signs": _repeat("@"),
}

PYTHON = {
    **COMMON,
    "unclosed triple quote": _then('"""', "a"),
    "unclosed triple single quote": _then("'''", "a\n"),
    "triple quotes": _repeat('"""'),
    "indented triple quotes": _repeat("\t'''\n"),
    "f-string braces": _repeat('f"{'),
    "f-string double braces": _repeat("f'{{"),
    "triple-quoted f-string braces": _repeat('f"""{'),
    "f-string debug, then blank lines": _then('f"{a=', "\n"),
    "raw string backslashes": _repeat('r"\\'),
    "raw bytes quotes": _repeat("rb'"),
    "soft keyword, then spaces": _then("case", " ", "x"),
    "soft keyword lines": _repeat("match a\n"),
    "% then zeros in a string": _then('"%', "0"),
    "format index in a string": _then('"', "{a["),
    "format index per line": _repeat('"{a[\n'),
    "\\N{ in a string": _then('"', "\\N{"),
    "decorators": _repeat("@a\n"),
    "def repeated": _repeat("def "),
    "import, then spaces": _then("import a", " "),
    "from import lines": _repeat("from . import a\n"),
    "lambda repeated": _repeat("lambda "),
}

C = {
    **COMMON,
    "type, then spaces": _then("int", " "),
    "signature with a brace, repeated": _repeat("int f({"),
    "signature, then spaces": _then("int f(", " "),
    "declarations": _repeat("int a;"),
    "function bodies": _repeat("int f() {}"),
    "unclosed comment": _then("/*", "a"),
    "comment openings": _repeat("/*"),
    "line comments": _repeat("//"),
    "include, unclosed <, per line": _repeat("#include <a\n"),
    'include, unclosed ", per line': _repeat('#include "a\n'),
    "include with an unclosed comment, per line": _repeat("#include <a> /*\n"),
    "define with an unclosed comment, per line": _repeat("#define a /*\n"),
    "define continuations": _repeat("#define a \\\n"),
    "if 0, then blank lines": _then("#if 0\n", "\t\n"),
    "if 0 nesting": _repeat("#if 0\n"),
    "directive, then comment openings": _then("#", "/*"),
    "pragma, then comment ends": _then("#pragma ", "*/"),
    "indented directives": _repeat(" \t#"),
    "attribute openings": _then("[[", "a"),
    "character literals": _repeat("'\\x"),
    "labels": _repeat("a :\n"),
    "struct repeated": _repeat("struct "),
    "case repeated": _repeat("case "),
}

CPP = {
    **C,
    "unclosed raw string": _then('R"(', "a"),
    "raw string openings": _repeat('R"('),
    "raw string delimiters": _repeat('R"x'),
    "template openings": _repeat("template<"),
    "namespaces": _repeat("namespace a {"),
    "scopes": _repeat("::"),
}

CUDA = {
    **CPP,
    "launches": _repeat("k<<<"),
    "qualifiers": _repeat("__global__ "),
}

TEXT = dict(COMMON)

ADVERSARIAL: dict[str, dict[str, Callable[[int], str]]] = {
    "python": PYTHON, "c": C, "cpp": CPP, "cuda": CUDA, "text": TEXT}


def ordinary(name: str, size: int) -> str | None:
    """`size` characters of ordinary code for lexer `name`, repeated as needed: this repository's own
    Python; the CUDA kernels that the bundled content's Python kernels hold in strings (for C,
    C++ and CUDA alike)."""
    root = Path(__file__).resolve().parent.parent
    if name == "python":
        texts = [p.read_text(encoding="utf-8") for p in sorted((root / "kindex_site").glob("*.py"))]
    elif name in ("c", "cpp", "cuda"):
        texts = [block for p in sorted((root / "content").rglob("*.py"))
                 for block in p.read_text(encoding="utf-8").split('"""')[1::2] if "__global__" in block]
    else:
        return None
    if not texts:
        return None
    text = "\n".join(texts)
    return (text * (size // len(text) + 1))[:size]


def pygments_own(name: str):
    """Pygments' own lexer of that name, which highlight.py's follows."""
    from pygments.lexers import CLexer, CppLexer, CudaLexer, PythonLexer

    return {"python": PythonLexer, "c": CLexer, "cpp": CppLexer, "cuda": CudaLexer}[name]()


def seconds(lexer, text: str, repeat: int = 1) -> float:
    """CPU seconds to lex and format `text` as the site does (the least of `repeat` tries)."""
    from pygments import highlight

    from kindex_site.highlight import _formatter

    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        highlight(text, lexer, _formatter())
        best = min(best, time.process_time() - started)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1024, help="the larger size, in KiB (default 1024)")
    parser.add_argument("--lexers", nargs="+", default=list(ADVERSARIAL), choices=list(ADVERSARIAL))
    parser.add_argument("--pygments", action="store_true",
                        help="time Pygments' own lexers too, at 4 and 16 KiB (some are quadratic)")
    args = parser.parse_args()

    import pygments

    from kindex_site.highlight import BUDGET_SECONDS, _lexer

    print(f"{date.today()}  {os.cpu_count()} CPUs ({platform.processor() or platform.machine()})  "
          f"Python {platform.python_version()}  Pygments {pygments.__version__}  budget {BUDGET_SECONDS:g} s")
    large = args.size * KIB
    timed = []  # (seconds at the larger size, lexer, case)
    for name in args.lexers:
        lexer = _lexer(name)
        print(f"\n{name}: CPU seconds at {large // 4 // KIB} KiB and {large // KIB} KiB")
        code = ordinary(name, large)
        if code is not None:
            small, big = seconds(lexer, code[:large // 4]), seconds(lexer, code)
            print(f"  {'(ordinary code)':45s} {small:7.3f} {big:7.3f}  x{big / max(small, 1e-6):4.1f}", flush=True)
        for case, make in ADVERSARIAL[name].items():
            small, big = seconds(lexer, make(large // 4)), seconds(lexer, make(large))
            ratio = big / max(small, 1e-6)
            timed.append((big, name, case))
            flag = "  <-- not linear?" if ratio > 6 and big > 0.25 else ""
            print(f"  {case:45s} {small:7.3f} {big:7.3f}  x{ratio:4.1f}{flag}", flush=True)
        if args.pygments and name != "text":
            own = pygments_own(name)
            print(f"  Pygments' own {type(own).__name__}, at 4 and 16 KiB:")
            for case, make in ADVERSARIAL[name].items():
                small, big = seconds(own, make(4 * KIB)), seconds(own, make(16 * KIB))
                if big > 6 * max(small, 1e-6) and big > 0.05:
                    print(f"    {case:43s} {small:7.3f} {big:7.3f}  x{big / max(small, 1e-6):4.1f}", flush=True)
    print(f"\nslowest at {large // KIB} KiB:")
    for big, name, case in sorted(timed, reverse=True)[:5]:
        print(f"  {big:7.3f} s  {name}: {case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
