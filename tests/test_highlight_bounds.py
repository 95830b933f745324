"""Highlighting a source file takes bounded work, whatever its name, language and text: only lexers
shown to take linear time on text written to defeat them, plain text for any other file, and a
budget of CPU time per text past which the file is shown as plain text with a warning naming it
(docs/security.md, "Highlighting"). Figures at 1 MiB: benchmarks/highlight_bounds.py."""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import read_html
from test_comparison import run

from kindex_site import build as build_module
from kindex_site import highlight

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from highlight_bounds import ADVERSARIAL, seconds  # noqa: E402

KIB = 1024
SERVICE = " " * 3000 + "x"  # Pygments' systemd lexer: 70 s (cubic in the spaces)
HOSTILE = "\n</code></pre><script>alert(1)</script> & <b>\n"


def kernels(project, *files: tuple[str, str, str | None]) -> None:
    """A run per (file name, text, language or None), each in a folder of its own with its file."""
    project.write("kindex.toml", "[labs]\n" + "".join(f'k{i} = ["lab"]\n' for i in range(len(files))))  # (their lab)
    for i, (path, text, language) in enumerate(files):
        doc = run(f"k{i}", f"Impl {i}", 2_000_000 + i, None, digest=f"{i % 16:x}")
        doc["run"]["spec"]["implementationSource"] = {"path": path, **({"language": language} if language else {})}
        project.write(f"content/k{i}/run.json", doc)
        project.write(f"content/k{i}/{path}", text)


def code(page: str) -> str:
    """The listing of the run page's source file (the HTML inside its <code>)."""
    box = page.split('<div class="source-box"', 1)[1]
    return box.split("<code>", 1)[1].split("</code>", 1)[0]


def timed_build(project, *argv: str) -> tuple[float, int, str]:
    """The build's CPU seconds (this process's and its workers': a busy machine stretches the wall
    clock, not these), its status and what it wrote to stderr."""
    started = os.times()
    status, _, err = project.build(*argv)
    return sum(os.times()[:4]) - sum(started[:4]), status, err


# --- which lexer ------------------------------------------------------------------------------


@pytest.mark.parametrize(("filename", "language", "shown_as"), [
    ("k/kernel.py", None, "python"), ("kernel.pyi", None, "python"), ("kernel.py", "triton", "python"),
    ("kernel.cu", None, "cuda"), ("kernel.cuh", None, "cuda"), ("kernel.hip", None, "cuda"), ("k.txt", "cuda", "cuda"),
    ("kernel.c", None, "c"), ("kernel.h", None, "c"), ("kernel.cpp", None, "cpp"), ("kernel.hpp", None, "cpp"),
    ("kernel.cc", None, "cpp"), ("kernel.py", "c++", "cpp"),
    ("kernel.service", None, "text"), ("kernel.py", "systemd", "text"), ("kernel.cs", None, "text"),
    ("Kernel.java", None, "text"), ("kernel.md", None, "text"), ("kernel.txt", None, "text"), ("kernel", None, "text"),
    ("kernel.py.service", None, "text"), ("kernel.cu", "java", "text"), ("kernel.cu", "csharp", "text"),
])
def test_a_file_is_shown_by_an_allowed_lexer_or_as_plain_text(filename, language, shown_as):
    assert highlight.lexer_name(filename, language) == shown_as


def test_highlighting_uses_only_pygments_public_api():
    """highlight.py's lexers are its own, on RegexLexer and the helpers Pygments documents for writing one:
    no private name of Pygments, and no rule of its lexers patched (so no one release of it is needed)."""
    source = Path(highlight.__file__).read_text(encoding="utf-8")
    assert re.search(r"pygments\.[a-z_.]*\._|\._ws1|_namespaced_ident|_possible_comments|get_tokendefs", source) is None
    from pygments.lexer import RegexLexer

    for name in ("python", "c", "cpp", "cuda"):
        lexer = type(highlight._lexer(name))
        assert issubclass(lexer, RegexLexer) and lexer.__module__ == highlight.__name__, name


# The lexers' tokens on the 40 kernels below (and the CUDA they hold): the same under Pygments 2.17.2,
# 2.20.0 and 2.21.0, as they depend on no lexer of Pygments'. A change of the rules changes them.
TOKENS = {"python": "202837c8eed494bd", "c": "8b3479bd14ad829b", "cpp": "7d1f5e0264b1f3db", "cuda": "5d045c8b6e603283"}


def ordinary_kernels() -> tuple[list[str], list[str]]:
    """40 of the bundled content's Python kernels, and the CUDA they hold in strings."""
    root = Path(__file__).resolve().parent.parent
    kernels_ = [p.read_text(encoding="utf-8") for p in sorted((root / "content").rglob("*.py"))[:40]]
    cuda = [block for text in kernels_ for block in text.split('"""')[1::2] if "__global__" in block]
    assert len(kernels_) == 40 and len(cuda) > 20
    return kernels_, cuda


def test_the_lexers_show_ordinary_kernels_alike_under_any_pygments():
    import hashlib

    kernels_, cuda = ordinary_kernels()
    for name, texts in (("python", kernels_), ("c", cuda), ("cpp", cuda), ("cuda", cuda)):
        digest = hashlib.sha256()
        for text in texts:
            for token, value in highlight._lexer(name).get_tokens(text):
                digest.update(f"{token}\0{value}\0".encode())
        assert digest.hexdigest()[:16] == TOKENS[name], name


def pygments_own(name: str):
    """Pygments' own lexer of that name: our rules follow 2.21's (other releases' lexers differ: 2.20's
    CUDA lexer shows reinterpret_cast as a name), so under another release the test is skipped."""
    import pygments
    from pygments.lexers import CLexer, CppLexer, CudaLexer, PythonLexer

    if not pygments.__version__.startswith("2.21."):
        pytest.skip(f"Pygments {pygments.__version__}: the lexers follow 2.21's")
    return {"python": PythonLexer, "c": CLexer, "cpp": CppLexer, "cuda": CudaLexer}[name]()


def test_on_ordinary_kernels_the_linear_lexers_show_what_pygments_own_show():
    """The linear rules change nothing on real code: the bundled content's kernels (Python, and the
    CUDA they hold in strings) are the same HTML, byte for byte, as Pygments 2.21's own lexers make."""
    from pygments import highlight as pygments_highlight

    kernels_, cuda = ordinary_kernels()
    for name, texts in (("python", kernels_), ("c", cuda), ("cpp", cuda), ("cuda", cuda)):
        linear, own = highlight._lexer(name), pygments_own(name)
        for text in texts:
            assert pygments_highlight(text, linear, highlight._formatter()) == \
                pygments_highlight(text, own, highlight._formatter()), name


# Python the quick rules see first (a word, spaces, an operator, a bracket), beside what the full list
# of rules must take: string prefixes, words after a dot, soft keywords, imports, f-strings, non-ASCII names.
PYTHON_CASES = [
    'x = rb"a" + Rb\'b\' + f"{y!r:>3}" + rf"{z}" + u"c" + b"d" + br"e" + fr\'{a}\' + t"{b}"\n',
    "print(len(x)); x.print; self.cls; x.self; __init__; x.__name__; ValueError; x.ValueError; x.if\n",
    "yield from x\nyield x\nasync def f(): await g()\n[a async for a in b]\nf'{[a async for a in b]}'\n",
    "match x:\n    case [a, _]: pass\n    case _:\n        pass\nmatch = 1\ncase(x)\n  match y:\n",
    "from . import a as b, c\nimport os.path as p\nraise X from None\nlazy import x\nlazy from y import z\n",
    "def f(a, *, b=.5, c=1_000, d=0x1F, e=1e-3j, g=0o7, h=0b1): return a if not b else c is d\n",
    "class C(B, metaclass=M):\n    '''doc'''\n    def __eq__(self, o): return (o := 1)\n@dec.x\ndef g(): ...\n",
    "naïve = é + e\u0301 + 名前 + _x1\nx = 1  # comment\n#!not a hashbang\nx = \\\n  1\nwhile True: break\n",
    "s = '%(a)s %d {0} {a.b[c]!s:>10} \\N{DASH} \\x41 \\u0041' % d; r = r'\\d'; x=a<<b>=c!=d\n",
    'def f():\n    """Doc\n    string."""\n    return None\nx = """multi\nline"""  \n  \n',
]


@pytest.mark.parametrize("text", PYTHON_CASES)
def test_the_quick_rules_give_what_the_full_list_gives(text):
    """The Python lexer tries its quick rules first; on text where each of its other rules matters, its
    tokens are Pygments 2.21's own."""
    linear, own = highlight._lexer("python"), pygments_own("python")
    assert list(linear.get_tokens(text)) == list(own.get_tokens(text))


def test_a_highlighted_kernel_is_escaped():
    from pygments import highlight as pygments_highlight

    text = 'x = "</code></pre><script>alert(1)</script> & <b>"  # </code>\n__global__ void k() { a = "<i>"; }\n'
    for name in ("python", "c", "cpp", "cuda"):
        html = pygments_highlight(text, highlight._lexer(name), highlight._formatter())
        assert "<script" not in html and "<b>" not in html and "<i>" not in html and "&lt;script&gt;" in html, name


def test_kernel_service_builds_at_once_as_escaped_plain_text(project):
    """3 KB named kernel.service took Pygments' systemd lexer 70 s; now plain text, at once. So do a
    declared language outside the allowlist (systemd, java, csharp), escaped, with line numbers."""
    text = SERVICE + HOSTILE
    kernels(project, ("kernel.service", text, None), ("kernel.py", text, "systemd"),
            ("kernel.java", text, None), ("kernel.cs", text, "csharp"))
    code_, _, err = project.run("check")
    assert code_ == 0 and "warning" not in err, err  # (check reads no lexer: the allowlist is a function of the names)
    seconds_, status, err = timed_build(project)
    assert status == 0 and "warning" not in err, err
    assert seconds_ < 2, seconds_
    for i in range(4):
        page = project.page(f"runs/k{i}")
        listing = code(page)
        assert '<span class="' not in listing  # plain text: no token classes
        assert "&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;" in listing
        assert "<script>alert" not in page
        lines = next(t for t in read_html(page).tables if "sourcetable" in t["class"])["rows"][0][0]
        assert lines.split() == ["1", "2"]  # line numbers, without JavaScript


# --- linear on adversarial text ---------------------------------------------------------------


CASES = [(name, case) for name, cases in ADVERSARIAL.items() for case in cases]


@pytest.mark.release(share=0.125)  # (an eighth of the cases outside a release run, drawn with a fixed seed)
@pytest.mark.parametrize(("name", "case"), CASES, ids=[f"{n}: {c}" for n, c in CASES])
def test_each_allowed_lexer_takes_linear_time_on_adversarial_text(name, case):
    """Four times the text, at most about four times the CPU time (under six, for noise), and
    32 KiB in well under the budget; benchmarks/highlight_bounds.py prints the same cases at 1 MiB."""
    lexer, make = highlight._lexer(name), ADVERSARIAL[name][case]
    small, large = seconds(lexer, make(8 * KIB)), seconds(lexer, make(32 * KIB))
    if large > 6 * small:  # (a busy machine: the least of three tries)
        small, large = seconds(lexer, make(8 * KIB), 3), seconds(lexer, make(32 * KIB), 3)
    assert large < 2, large
    if large > 0.02:  # (below, the ratio is noise)
        assert large < 6 * small, (small, large)


# What Pygments' own lexers take quadratic time on (highlight.py's lexers, linear), a case after another; an
# unclosed comment or raw string last, as it runs to the end.
WORST = {
    "python": ("% then zeros in a string", "soft keyword, then spaces", "tab-indented blank lines",
               "\\N{ in a string", "format index per line", "unclosed triple quote"),
    "c": ("identifier, then spaces", "signature with a brace, repeated", "tab-indented blank lines",
          "include, unclosed <, per line", "if 0, then blank lines"),
}
WORST["cpp"] = WORST["cuda"] = WORST["c"] + ("raw string openings",)


def worst(name: str, size: int = 64 * KIB) -> str:
    cases = WORST[name]
    return "\n".join(ADVERSARIAL[name][case](size // len(cases)) for case in cases)


@pytest.mark.parametrize(("filename", "language", "name"), [
    ("kernel.py", None, "python"), ("kernel.txt", "triton", "python"), ("kernel.c", None, "c"),
    ("kernel.cpp", None, "cpp"), ("kernel.cu", None, "cuda")])
def test_an_adversarial_file_for_each_allowed_lexer_builds_at_once_highlighted(project, filename, language, name):
    kernels(project, (filename, worst(name), language))
    seconds_, status, err = timed_build(project)
    assert status == 0 and "warning" not in err, err  # (not over its budget: the lexer was quick)
    assert seconds_ < 2, seconds_
    assert '<span class="' in code(project.page("runs/k0"))  # highlighted


# --- the budget -------------------------------------------------------------------------------


@pytest.fixture
def tiny_budget(monkeypatch):
    monkeypatch.setattr(highlight, "BUDGET_SECONDS", 1e-9)


OVER_BUDGET = "content/k0/kernel.py: shown as plain text: highlighting it took more than 1e-09 s of CPU time"


def test_a_text_over_its_budget_is_plain_text_with_a_warning_on_every_build(project, tiny_budget, monkeypatch):
    """Built, up to date, rebuilt after another change and from a new process: each says which file
    is plain text; the text is kept as plain text (under a key that says so) once it was."""
    kernels(project, ("kernel.py", "import torch\nx = 1 < 2\n", None), ("other.py", "y = 2\n", None))
    status, _, err = project.build()
    assert status == 0 and OVER_BUDGET in err, err
    listing = code(project.page("runs/k0"))
    assert '<span class="' not in listing and "import torch\nx = 1 &lt; 2" in listing
    store = project.root / ".kindex-cache/site.highlights"
    assert any(p.name.endswith(highlight.OVER + ".html") for p in store.iterdir())
    status, out, err = project.build()
    assert status == 0 and out.startswith("Up to date") and OVER_BUDGET in err, err
    monkeypatch.setattr(highlight, "BUDGET_SECONDS", 2.0)  # (a later build, with time to spare)
    project.write("content/k1/other.py", "y = 3\n")
    status, _, err = project.build()
    assert status == 0 and "content/k0/kernel.py: shown as plain text" in err, err
    assert '<span class="' not in code(project.page("runs/k0"))  # (as the warning says)
    assert '<span class="' in code(project.page("runs/k1"))


def test_texts_over_budget_in_worker_processes_are_named_too(project, tiny_budget, monkeypatch):
    """Highlighted by forked processes (shared out first, or by the processes making the pages):
    the warning still names each file."""
    monkeypatch.setattr(build_module, "PARALLEL_MIN_OUTPUTS", 0)
    monkeypatch.setattr(build_module, "_workers", lambda: 2)
    for ahead in (16, 10**9):  # (the texts shared out first; or each page's process highlights its own)
        monkeypatch.setattr(highlight, "AHEAD_MIN", ahead)
        kernels(project, *[(f"kernel{i}.py", f"x = {i} if {ahead} else 0\n", None) for i in range(20)])
        status, _, err = project.build("--clean", "--verbose")
        assert status == 0, err
        for i in range(20):
            assert f"content/k{i}/kernel{i}.py: shown as plain text" in err, (ahead, i, err)
            assert '<span class="' not in code(project.page(f"runs/k{i}"))


def test_the_budget_stops_even_a_single_long_match():
    """On the main thread a CPU timer interrupts the lexer within a regular expression: Pygments'
    own systemd lexer, minutes on this text, is stopped at its budget."""
    from pygments.lexers import SystemdLexer

    started = time.process_time()
    with pytest.MonkeyPatch.context() as m:
        m.setattr(highlight, "BUDGET_SECONDS", 0.2)
        assert highlight._within_budget(" " * 20_000 + "x", SystemdLexer()) is None
    assert time.process_time() - started < 1.5
    import signal

    assert signal.getsignal(signal.SIGPROF) == signal.SIG_DFL and signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)
    assert highlight._within_budget("x = 1\n", highlight._lexer("python")) is not None  # (and used again)


def test_off_the_main_thread_the_clock_between_tokens_stops_it():
    """Where no timer can be set, the clock is read between tokens: a lexer quadratic in the number
    of its tokens (Pygments' own C lexer on signatures with braces) is stopped near its budget."""
    from pygments.lexers import CLexer

    text = "int f({" * 60_000
    result = []

    def work():
        started = time.process_time()
        result.append((highlight._within_budget(text, CLexer()), time.process_time() - started))

    with pytest.MonkeyPatch.context() as m:
        m.setattr(highlight, "BUDGET_SECONDS", 0.3)
        thread = threading.Thread(target=work)
        thread.start()
        thread.join()
    html, spent = result[0]
    assert html is None and spent < 2, spent


def test_the_budget_stated_is_the_codes():
    doc = (Path(__file__).resolve().parent.parent / "docs/security.md").read_text(encoding="utf-8")
    stated = re.search(r"`highlight\.BUDGET_SECONDS`\s+= (\d+(?:\.\d+)?) s of CPU time", doc)
    assert stated is not None and float(stated.group(1)) == highlight.BUDGET_SECONDS
