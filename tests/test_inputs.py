"""Inputs that passed `check` and then broke `build`, or were lost without a word: each is refused at
load, for `check`, `check --strict` and `build` alike, as one `file: field: message` line and status 1,
with the previous site left as it was; the few that are allowed are shown safely. Each test here failed
on the code before these checks (its docstring says how, where it is not plain from the assertions).
"""

from __future__ import annotations

import builtins
import json
import os
import pathlib
import subprocess
import sys

import pytest

from conftest import SEED, bundle

COMMANDS = (("check",), ("check", "--strict"), ("build",))


def refused_everywhere(project, *lines: str) -> None:
    """check, check --strict and build each fail with these lines, no traceback, the site untouched."""
    before = project.snapshot()
    for command in COMMANDS:
        code, out, err = project.run(*command)
        assert code == 1, (command, out, err)
        assert "Traceback" not in err
        for line in lines:
            assert line in err.splitlines(), f"{command}: {line!r} not in:\n{err}"
        assert err.rstrip().splitlines()[-1].startswith("error: ")
        assert project.snapshot() == before


@pytest.fixture
def built(project):
    project.write("content/good.json", SEED)
    project.built()
    assert project.snapshot()
    return project


# --- Nothing under content/ is skipped without a word ----------------------------------------------


def _unlistable(monkeypatch, name: str) -> None:
    """Listing folders called `name` fails as it does without read permission (tests run as root
    here, where chmod does not stop a read; test_unreadable_folder_and_file_for_real does it for real)."""
    listing = os.scandir

    def scandir(path="."):
        if os.path.basename(os.fspath(path)) == name:
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return listing(path)

    monkeypatch.setattr(os, "scandir", scandir)


def test_a_folder_that_cannot_be_read_is_an_error(project, monkeypatch):
    """Before: os.walk without onerror skipped it, and all three commands succeeded with fewer runs."""
    project.write("content/good.json", SEED)
    project.write("content/secret/more.json", bundle(name="hidden-run"))
    _unlistable(monkeypatch, "secret")
    refused_everywhere(project, "content/secret/: cannot read this folder: Permission denied")
    assert not (project.root / "site").exists()


def test_a_folder_unreadable_since_the_last_build_is_an_error_too(built, monkeypatch):
    built.write("content/secret/more.json", bundle(name="hidden-run"))
    _unlistable(monkeypatch, "secret")
    refused_everywhere(built, "content/secret/: cannot read this folder: Permission denied")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads whatever the permissions say")
def test_unreadable_folder_and_file_for_real(built):
    secret = built.write("content/secret/more.json", bundle(name="hidden-run")).parent
    locked = built.write("content/locked.json", bundle(name="locked-run"))
    secret.chmod(0)
    locked.chmod(0)
    try:
        refused_everywhere(built, "content/secret/: cannot read this folder: Permission denied",
                           "content/locked.json: cannot read: Permission denied")
    finally:
        secret.chmod(0o755)
        locked.chmod(0o644)


def test_a_file_that_cannot_be_read_is_an_error(built, monkeypatch):
    built.write("content/locked.json", bundle(name="locked-run"))
    built.write("content/lines.jsonl", json.dumps(bundle(name="line-run")) + "\n")
    built.write("content/pages/notes.md", "# Notes\n")
    # (Root reads whatever the permissions say: each way the build opens a file is made to refuse.)
    locked = ("locked.json", "lines.jsonl", "notes.md")
    opening, os_open, builtin_open = pathlib.Path.open, os.open, builtins.open

    def open_(self, *args, **kwargs):
        if self.name in locked:
            raise PermissionError(13, "Permission denied", str(self))
        return opening(self, *args, **kwargs)

    def refusing(real):
        def open_path(path, *args, **kwargs):
            if os.path.basename(os.fspath(path)) in locked:
                raise PermissionError(13, "Permission denied", os.fspath(path))
            return real(path, *args, **kwargs)
        return open_path

    monkeypatch.setattr(pathlib.Path, "open", open_)
    monkeypatch.setattr(os, "open", refusing(os_open))
    monkeypatch.setattr(builtins, "open", refusing(builtin_open))
    refused_everywhere(built, "content/locked.json: cannot read: Permission denied",
                       "content/lines.jsonl: cannot read: Permission denied",
                       "content/pages/notes.md: cannot read: Permission denied")


def test_a_pipe_under_content_is_an_error_not_a_hang(built):
    """Before: reading a FIFO named like a bundle waited for a writer forever."""
    os.mkfifo(built.root / "content/stuck.json")
    done = subprocess.run([sys.executable, "-m", "kindex_site", "check"], cwd=built.root, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert ("content/stuck.json: not a regular file (a pipe, socket or device); the content folder holds files "
            "and folders") in done.stderr.splitlines()


def test_names_that_are_not_utf8_are_errors_naming_their_bytes(built):
    """Before: a file named with Latin-1 bytes was read, and its run page could not be written (a
    traceback); a folder's runs likewise."""
    root = os.fsencode(built.root / "content")
    with open(root + b"/caf\xe9.json", "w", encoding="utf-8") as f:
        json.dump(bundle(name="latin-file"), f)
    os.mkdir(root + b"/na\xefve")
    with open(root + b"/na\xefve/x.json", "w", encoding="utf-8") as f:
        json.dump(bundle(name="latin-folder"), f)
    refused_everywhere(built, "content/caf\\xe9.json: its name is not UTF-8 (the bytes that are not are shown as "
                              "\\xNN); rename it",
                       "content/na\\xefve/: its name is not UTF-8 (the bytes that are not are shown as \\xNN); rename it")


def test_names_with_control_characters_are_errors(built):
    """Before: a file named with a newline was read, and every line naming it broke in two."""
    built.write("content/two\nlines.json", bundle(name="newline-file"))
    built.write("content/back\u202ewards/x.json", bundle(name="bidi-folder"))
    refused_everywhere(built, "content/two\\nlines.json: its name holds a control or bidirectional character "
                              "(shown escaped); rename it",
                       "content/back\\u202ewards/: its name holds a control or bidirectional character "
                       "(shown escaped); rename it")


def test_every_problem_and_warning_stays_one_line(project):
    """Keys are content too: a newline in one is shown escaped, so a problem is one line (and one
    GitHub annotation). Before: the warning's key came out raw, on two lines."""
    deep = 0
    for _ in range(29):
        deep = [deep]
    project.write("content/odd.json", bundle({"run.spec.sourceNative": {"source": "x", "a\nb": deep},
                                              "run.metadata.title": "Odd · impl · lab"}, name="odd"))
    project.write("content/fine.json", bundle({"run.spec.timing.extra\u2028field": 1}, name="fine"))
    code, _, err = project.run("check")
    assert code == 1
    assert "content/odd.json: run.spec.sourceNative.a\\nb" + "[0]" * 28 + ": nested more than 32 levels deep" in err
    (project.root / "content/odd.json").unlink()
    code, _, err = project.run("check")
    assert code == 0
    assert [line for line in err.splitlines() if "fine.json" in line] == [
        "warning: content/fine.json: run.spec.timing.extra\\u2028field: unknown field"]


def test_folders_nested_deeper_than_python_recurses(built):
    """Before: os.walk recursed (Python 3.11) and a content tree 1,100 folders deep ended in a RecursionError."""
    deep = built.root / "content"
    levels = 0
    try:
        os.chdir(deep)
        for _ in range(1100):
            os.mkdir("d")
            os.chdir("d")
            levels += 1
        with open("x.json", "w", encoding="utf-8") as f:
            json.dump(bundle(name="deep-down"), f)
        os.chdir(built.root)
        code, _, err = built.run("check")
        assert code == 0 and "Traceback" not in err, err[-2000:]
    finally:  # (shutil.rmtree, pytest's clean-up, recurses too: left behind, the tree would break later test runs)
        os.chdir(deep)
        for _ in range(levels):
            os.chdir("d")
        if os.path.exists("x.json"):
            os.remove("x.json")
        for _ in range(levels):
            os.chdir("..")
            os.rmdir("d")
        os.chdir(built.root)


# --- One validation: what check passes, build builds -----------------------------------------------

# A string no UTF-8 file can hold: JSON's \ud800 escape of half a surrogate pair.
LONE = "\ud800"


def _text(value) -> str:
    """JSON text of a bundle (ensure_ascii: lone surrogates become \\ud800 escapes, as an attacker writes them)."""
    return json.dumps(value, ensure_ascii=True)


NESTED_33 = 0
for _ in range(29):  # sourceNative is 4 levels deep: 4 + 29 = 33
    NESTED_33 = [NESTED_33]

REFUSED = {
    "surrogate-in-source-native": (
        {"run.spec.sourceNative.note": f"a{LONE}b"},
        "content/bad.json: run.spec.sourceNative.note: the string holds a lone surrogate (\\ud800), which UTF-8 "
        "cannot encode: a \\ud800–\\udfff escape must be half of a pair"),
    "surrogate-in-a-key": (
        {"run.spec.sourceNative": {"source": "x", f"k{LONE}": 1}},
        "content/bad.json: run.spec.sourceNative.k\\ud800: the key holds a lone surrogate (\\ud800), which UTF-8 "
        "cannot encode: a \\ud800–\\udfff escape must be half of a pair"),
    "surrogate-in-software": (
        {"environment.spec.software": {"torch": ["2.5", f"\udc00{LONE}"]}},
        "content/bad.json: environment.spec.software.torch[1]: the string holds a lone surrogate (\\udc00), which "
        "UTF-8 cannot encode: a \\ud800–\\udfff escape must be half of a pair"),
    "surrogate-in-a-title": (
        {"protocol.metadata.title": f"Timing {LONE}"},
        "content/bad.json: protocol.metadata.title: the string holds a lone surrogate (\\ud800), which UTF-8 cannot "
        "encode: a \\ud800–\\udfff escape must be half of a pair"),
    "huge-measurement": (
        {"run.spec.measurements.0.value": 1e308},
        "content/bad.json: run.spec.measurements[0].value: must be within ±1e300"),
    "huge-negative-measurement": (
        {"run.spec.measurements.0.value": -1e308},
        "content/bad.json: run.spec.measurements[0].value: must be within ±1e300"),
    "integer-measurement-beyond-2-53": (
        {"run.spec.measurements.0.value": 2**53},
        "content/bad.json: run.spec.measurements[0].value: must be within ±9007199254740991 (2⁵³−1, the largest "
        "integer a JavaScript reader holds exactly)"),
    "integer-beyond-2-53-in-source-native": (
        {"run.spec.sourceNative.seed": 2**64},
        "content/bad.json: run.spec.sourceNative.seed: integer 18446744073709551616 is beyond ±9007199254740991 "
        "(2⁵³−1, the largest a JavaScript reader holds exactly)"),
    "integer-in-hardware": (
        {"environment.spec.hardware.count": -(10**30)},
        "content/bad.json: environment.spec.hardware.count: integer -100000…000 (31 digits) is beyond "
        "±9007199254740991 (2⁵³−1, the largest a JavaScript reader holds exactly)"),
    "float-in-an-unknown-field": (
        {"run.spec.timing.extra": 1e301},
        "content/bad.json: run.spec.timing.extra: number 1e+301 is beyond ±1e300"),
    "time-stamp-past-year-9999-in-utc": (
        {"run.spec.observedAt": "9999-12-31T23:59:59-14:00"},
        "content/bad.json: run.spec.observedAt: must be between years 1 and 9999 in UTC"),
    "time-stamp-before-year-1-in-utc": (
        {"run.spec.observedAt": "0001-01-01T00:00:00+14:00"},
        "content/bad.json: run.spec.observedAt: must be between years 1 and 9999 in UTC"),
    "nested-too-deep": (
        {"run.spec.sourceNative.tree": NESTED_33},
        "content/bad.json: run.spec.sourceNative.tree" + "[0]" * 28 + ": nested more than 32 levels deep"),
}


@pytest.mark.parametrize("changes, line", REFUSED.values(), ids=REFUSED.keys())
def test_what_build_could_not_write_is_refused_by_check_too(built, changes, line):
    """Before: each passed check (status 0) and ended build with a traceback, or (the key) was
    silently changed to U+FFFD, or (the 2⁵³ integers) reached the API beyond what its readers hold."""
    built.write("content/bad.json", _text(bundle(changes, name="bad-run")))
    refused_everywhere(built, line)


@pytest.mark.parametrize("changes", [
    {"run.spec.sourceNative.externalId": "H100/torch/level" + "9" * 5000 + "/84_Gemm.py"},
    {"run.spec.sourceNative.externalId": "H100/torch/level2/" + "9" * 5000 + "_Gemm.py"},
    {"run.spec.sourceNative.hardware": "NVIDIA H100 " + "9" * 5000 + "GB"},
], ids=["kernelbench-level", "kernelbench-number", "gpu-memory"])
def test_digits_in_strings_the_site_reads_as_numbers(project, changes):
    project.write("content/odd.json", bundle(changes, name="odd-run"))
    for command in COMMANDS:
        code, _, err = project.run(*command)
        assert code in (0, 1) and "Traceback" not in err


def test_an_integer_of_thousands_of_digits_is_a_line_not_a_traceback(built):
    """Before: Python's int() refused the 5,000 digits inside json's parser: a traceback, for check too."""
    text = _text(bundle(name="many-digits")).replace('"source": "kernelbench"', '"big": ' + "9" * 5000 +
                                                     ', "source": "kernelbench"')
    built.write("content/bad.json", text)
    built.write("content/bad.jsonl", text + "\n")
    built.write("content/arr.json", f"[{_text(bundle(name='first'))}, {text.replace('many-digits', 'second')}]")
    message = ("run.spec.sourceNative.big: integer 999999…999 (5000 digits) is beyond ±9007199254740991 "
               "(2⁵³−1, the largest a JavaScript reader holds exactly)")
    refused_everywhere(built, f"content/bad.json: {message}", f"content/bad.jsonl:1: {message}",
                       f"content/arr.json[1]: {message}")


def test_the_bounds_themselves_are_allowed(built):
    """The largest values inside the bounds build, and the run page shows them whole."""
    nested = "deepest"
    for _ in range(28):  # 4 + 28 = 32 levels
        nested = [nested]
    built.write("content/edge.json", bundle({
        "run.spec.sourceNative.tree": nested, "run.spec.sourceNative.big": 2**53 - 1,
        "run.spec.sourceNative.small": -(2**53 - 1), "run.spec.sourceNative.far": -1e300,
        "run.spec.measurements.0.value": 1e300, "run.spec.sourceNative.pair": "\U0001F600",
        "environment.spec.software": {"far": 1e300, "big": 2**53 - 1},
    }, name="edge-run", host="edge-host"))
    for command in COMMANDS:
        code, _, err = built.run(*command)
        assert code == 0, (command, err)
    page = built.page("runs/edge-run")
    assert "<code>9007199254740991</code>" in page and "<code>-1e+300</code>" in page and "deepest" in page
    assert "\U0001F600" in page


def test_control_and_bidi_characters_are_allowed_and_shown_as_code_points(built):
    """Before: NUL and a right-to-left override went into the run page raw: NUL is an HTML parse
    error that browsers drop, and U+202E reverses the text after it (a digest, a name)."""
    built.write("content/odd.json", bundle({
        "run.spec.sourceNative.note": "nul\x00 and \u202eevil", "run.spec.sourceNative.key\u2066": "x",
        "run.metadata.title": "Gemm BatchNorm Scaling Softmax · Odd\u202e · Somewhere",
    }, name="odd-run"))
    for command in COMMANDS:
        code, _, err = built.run(*command)
        assert code == 0, (command, err)
    page = built.page("runs/odd-run")
    document = page[page.index('<dl class="doc">'):]
    assert "\x00" not in document and "\u202e" not in document and "\u2066" not in document
    assert 'nul<code class="ctl">U+0000</code> and <code class="ctl">U+202E</code>evil' in document
    assert '<dt>key<code class="ctl">U+2066</code></dt>' in document
    api = built.api("index.json")  # JSON carries the very strings
    assert api["runs"] == 2


# --- Every input kind has a cap ---------------------------------------------------------------------


def test_a_markdown_page_over_256_kib_is_refused_unread(built):
    """Before: any size was rendered (20 MB: 40 s and 1.5 GB)."""
    built.write("content/pages/fine.md", "# Fine\n\n" + "word " * 50_000)  # 250,000 bytes: allowed
    with open(built.root / "content/pages/huge.md", "wb") as f:
        f.truncate(2**30)  # sparse: a gigabyte that costs no disk
    refused_everywhere(built, "content/pages/huge.md: 1024.0 MiB is more than a Markdown page may hold (256 KiB)")
    (built.root / "content/pages/huge.md").write_text("# Huge\n\n" + "x" * (256 * 1024))
    refused_everywhere(built, "content/pages/huge.md: 262,152 bytes is more than a Markdown page may hold (256 KiB)")
    (built.root / "content/pages/huge.md").unlink()
    built.built()
    assert "Fine" in built.page("fine")


def test_a_source_file_of_a_gigabyte_is_refused_without_reading_it(built, monkeypatch):
    with open(built.root / "content/kernel.py", "wb") as f:
        f.truncate(2**30)
    built.write("content/good.json", bundle({"run.spec.implementationSource": {"path": "kernel.py"}}))
    reads = []
    original = pathlib.Path.read_bytes
    monkeypatch.setattr(pathlib.Path, "read_bytes", lambda self: reads.append(self.name) or original(self))
    refused_everywhere(built, "content/good.json: run.spec.implementationSource.path: 'kernel.py': 1024.0 MiB; a "
                              "source file may hold 1 MiB at most")
    assert "kernel.py" not in reads


# --- What the site shows does not depend on where it was built --------------------------------------


def test_the_site_is_the_same_from_any_working_folder(project, tmp_path_factory, monkeypatch):
    """Before: run pages said `from content/runs/a.json[1]` built from the project folder and
    `from /tmp/…/content/runs/a.json[1]` from elsewhere: the builder's file system, published."""
    project.write("content/runs/a.json", [bundle(name="first-run"), bundle(name="second-run", host="other-host")])
    project.write("content/more.jsonl", json.dumps(bundle(name="line-run", host="third-host")) + "\n")
    content = project.root / "content"
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (project.root / "below").mkdir()
    sites = []
    for where, argv in ((project.root, ["--out", "site-a"]),
                        (project.root / "below", ["--content", "../content", "--out", "../site-b"]),
                        (elsewhere, ["--content", str(content), "--out", str(project.root / "site-c")])):
        monkeypatch.chdir(where)
        code, _, err = project.build(*argv)
        assert code == 0, err
        site = project.root / argv[-1].rsplit("/", 1)[-1]
        sites.append({p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()})
    assert sites[0] == sites[1] == sites[2]
    page = sites[0]["runs/second-run/index.html"].decode()
    assert "from <code>runs/a.json[1]</code>" in page
    assert "from <code>more.jsonl:1</code>" in sites[0]["runs/line-run/index.html"].decode()
    # The terminal still names files as they can be opened from where one stands.
    project.write("content/runs/a.json", [bundle(name="first-run"), bundle({"run.spec.timing.samples": 0})])
    monkeypatch.chdir(project.root / "below")
    code, _, err = project.run("check", "--content", "../content")
    assert code == 1 and "../content/runs/a.json[1]: run.spec.timing.samples" in err
