"""Source files on the site (a generated kernel's code, a problem's reference code) and the per-model
view (fast_p), as readers get them."""

from __future__ import annotations

import os
import time

import pytest
from conftest import latency_tables, read_html, tables, visible_text
from test_comparison import run
from test_incremental import edit_json, rebuild_matches_clean

PROBLEM = "problems/level2-84-gemm-batchnorm-scaling-softmax"
HOSTILE = 'import torch\n# </pre></code></td><script>alert("pwned")</script> & <b>bold</b>\n' \
          'src = """\n__global__ void k(float* x) { x[threadIdx.x] *= 2; }\n"""\n'
REFERENCE = "import torch\n\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return x\n"


def kernel_site(project, kernel: str = HOSTILE) -> None:
    eager = run("eager", "PyTorch eager", 4_940_000, (4_931_062, 4_948_938))
    generated = run("gen", "gpt-4o (generated CUDA)", 2_000_000, None, digest="c")
    for doc in (eager, generated):
        doc["run"]["spec"]["workloadSource"] = {"path": "problems/l2_84.py", "language": "python"}
    generated["run"]["spec"]["implementationSource"] = {"path": "models.src/gen.py"}
    project.write("content/kb/models.json", [eager, generated])
    project.write("content/kb/models.src/gen.py", kernel)
    project.write("content/kb/problems/l2_84.py", REFERENCE)
    project.write("kindex.toml", '[labs]\nkb = ["lab"]\n')  # (the lab its runs name)


def test_a_generated_kernels_run_page_shows_its_source_highlighted_and_escaped(project):
    kernel_site(project)
    code, out, err = project.run("check", "--strict")
    assert code == 0, err  # the source files are content, not ignored files
    project.built()
    page = project.page("runs/gen")
    assert "<script>alert" not in page and "</td><script>" not in page
    assert '&lt;/td&gt;&lt;script&gt;alert("pwned")&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;' in page
    assert '<span class="kn">import</span>' in page  # highlighted as Python (told from the file name)
    html = read_html(page)
    assert "Source" in visible_text(page) and "gen.py (5 lines, 146 bytes)" in visible_text(page)
    lines = next(t for t in html.tables if "sourcetable" in t["class"])["rows"][0][0]
    assert lines.split() == ["1", "2", "3", "4", "5"]  # line numbers, without JavaScript
    assert 'href="/sources/kb/models.src/gen.py" download' in page
    assert (project.root / "site/sources/kb/models.src/gen.py").read_text() == HOSTILE  # the raw file, byte for byte
    problem = project.page(PROBLEM)
    row = next(r for r in latency_tables(problem)[0]["rows"] if r[1].startswith("gpt-4o"))
    assert row[1] == "gpt-4o (generated CUDA) source"
    assert 'href="/runs/gen/#source">source</a>' in problem
    # The problem's reference code, collapsed on its page.
    details = problem.split('<details class="reference-source">', 1)[1].split("</details>", 1)[0]
    assert "l2_84.py" in details and '<span class="k">class</span>' in details
    api = project.api("problems/level2-84-gemm-batchnorm-scaling-softmax.json")
    urls = {e["run"]: e["source_url"] for e in api["boards"][0]["entries"]}
    assert urls == {"gen": "/sources/kb/models.src/gen.py", "eager": None}


def test_without_run_pages_the_source_link_is_the_raw_file(project):
    kernel_site(project)
    project.write("kindex.toml", "run_pages = false\n")
    project.built()
    assert 'href="/sources/kb/models.src/gen.py">source</a>' in project.page(PROBLEM)


def test_an_edited_source_rebuilds_its_pages_as_a_clean_build_would(project, always_incremental):
    kernel_site(project)
    project.built()
    project.write("content/kb/models.src/gen.py", "print('v2')\n")
    rebuild_matches_clean(project)
    assert "v2" in project.page("runs/gen")


def test_an_edited_source_under_a_resident_builder_shows_on_its_pages(project, monkeypatch, always_incremental):
    """`serve` and `build --watch` keep a problem's ranking while its runs are the same: a run whose
    source file changed is not the same (its page and table link say so), and the site is the clean build's."""
    from kindex_site.build import build
    from pathlib import Path

    from kindex_site.state.reuse import Reuse
    from kindex_site.config import load_config

    from test_incremental import snapshot

    monkeypatch.chdir(project.root)
    kernel_site(project)
    memo = Reuse(Path("site").absolute())
    build(load_config(None, {}), memo)
    project.write("content/kb/models.src/gen.py", "print('v2')\n")
    assert build(load_config(None, {}), memo).changed > 0
    assert "v2" in project.page("runs/gen")
    code, _, err = project.build("--out", "clean", "--clean")
    assert code == 0, err
    assert snapshot(project.root / "site") == snapshot(project.root / "clean")


def bad_reference(project, path: str) -> tuple[int, str]:
    doc = run("gen", "gpt-4o (generated CUDA)", 2_000_000, None, digest="c")
    doc["run"]["spec"]["implementationSource"] = {"path": path}
    project.write("content/kb/models.json", [doc])
    project.write("content/kb/x.json", [run("other", "Other", 3_000_000, None, digest="d")])
    project.write("content/kb/big.py", "#" * (2**20 + 1))
    project.write("content/kb/latin1.py", b"caf\xe9\n")
    project.write("content/outside.py", "x = 1\n")
    site = project.root / "site" / "index.html"
    before = site.read_bytes() if site.is_file() else None
    code, out, err = project.build()
    assert (site.read_bytes() if site.is_file() else None) == before  # the previous site, untouched
    return code, err


def test_a_missing_source_is_an_error_naming_the_file_and_field(project):
    kernel_site(project)
    project.built()  # a good site first: a bad build leaves it as it was
    code, err = bad_reference(project, "models.src/nope.py")
    assert code == 1 and "Traceback" not in err
    assert ("content/kb/models.json[0]: run.spec.implementationSource.path: 'models.src/nope.py': no such source "
            "file under the content folder") in err


def test_a_bundle_is_not_a_source_file(project):
    code, err = bad_reference(project, "x.json")
    assert code == 1 and "run.spec.implementationSource.path: 'x.json': no such source file" in err


def test_a_source_over_1_mib_is_an_error(project):
    code, err = bad_reference(project, "big.py")
    assert code == 1 and "run.spec.implementationSource.path: 'big.py': 1.0 MiB; a source file may hold 1 MiB at most" in err


def test_a_source_that_is_not_utf8_is_an_error(project):
    code, err = bad_reference(project, "latin1.py")
    assert code == 1 and "'latin1.py': not UTF-8 text (byte 3)" in err


def test_a_path_leaving_its_folder_upwards_is_refused_by_the_format(project):
    for path in ("../outside.py", "/etc/passwd", "a/./b.py", ".hidden.py"):
        code, err = bad_reference(project, path)
        assert code == 1 and "content/kb/models.json[0]: run.spec.implementationSource.path: must" in err, path


def test_files_no_run_refers_to_are_still_ignored_with_a_warning(project):
    kernel_site(project)
    project.write("content/kb/notes.txt", "scratch")
    code, out, err = project.run("check")
    assert code == 0 and "content/kb/notes.txt: ignored" in err and "gen.py" not in err


def test_a_source_edited_to_the_same_size_and_time_is_read_again(project, always_incremental):
    kernel_site(project)
    kernel = project.root / "content/kb/models.src/gen.py"
    an_hour_ago = time.time_ns() - 3600 * 10**9
    os.utime(kernel, ns=(an_hour_ago, an_hour_ago))  # (old enough to be taken as unchanged by its stat)
    project.built()
    kernel.write_text(HOSTILE.replace("bold", "BOLD"))
    os.utime(kernel, ns=(an_hour_ago, an_hour_ago))
    rebuild_matches_clean(project)
    assert "&lt;b&gt;BOLD&lt;/b&gt;" in project.page("runs/gen")
    assert (project.root / "site/sources/kb/models.src/gen.py").read_text() == HOSTILE.replace("bold", "BOLD")


def test_a_damaged_record_of_the_sources_checked_means_reading_them_again(project, always_incremental):
    kernel_site(project)
    project.built()
    (project.root / ".kindex-cache/site.sources").write_bytes(b"kindex-site sources 1 garbage")
    project.write("content/kb/models.src/gen.py", "print('v2')\n")
    rebuild_matches_clean(project)
    assert "v2" in project.page("runs/gen")


@pytest.fixture
def new_process(monkeypatch):
    """Each build as in a process of its own: nothing highlighted is remembered in memory between
    them (the command line), only what the build keeps on disk. (A one-off build's state, memory
    included, is its own: there is nothing to forget.)"""
    def forget() -> None:
        pass

    return forget


def shared_kernel_site(project) -> None:
    """One kernel's text in three runs' folders: twice named as Python, once as a plain text file."""
    docs = []
    for name, folder, file, language in (("a", "a", "kernel.py", "python"), ("b", "b", "kernel.py", "python"),
                                         ("c", "c", "kernel.txt", None)):
        doc = run(name, f"Impl {name}", 2_000_000 + ord(name), None, digest=name)
        doc["run"]["spec"]["implementationSource"] = {"path": file, **({"language": language} if language else {})}
        docs.append(doc)
        project.write(f"content/{folder}/{name}.json", doc)
        project.write(f"content/{folder}/{file}", HOSTILE)


def source_box(page: str) -> str:
    return page.split('<div class="source-box"', 1)[1].split("</div>\n", 1)[0]


def test_one_kernel_in_many_folders_is_shown_alike_on_each_page_and_as_its_language(project, new_process):
    shared_kernel_site(project)
    project.built()
    a, b, c = (project.page(f"runs/{name}") for name in "abc")
    assert source_box(a) == source_box(b) and '<span class="kn">import</span>' in source_box(a)
    assert "kernel.py (5 lines, 146 bytes)" in visible_text(a) and "kernel.py (5 lines, 146 bytes)" in visible_text(b)
    # The same text as plain text: not highlighted as Python, however the other pages showed it.
    assert '<span class="kn">' not in source_box(c) and "kernel.txt (5 lines, 146 bytes)" in visible_text(c)
    assert '&lt;/td&gt;&lt;script&gt;alert("pwned")' in source_box(c)


def test_a_damaged_highlight_kept_from_the_last_build_is_made_again(project, new_process, always_incremental):
    shared_kernel_site(project)
    project.built()
    kept = [p for p in (project.root / ".kindex-cache/site.highlights").iterdir() if p.name != "stamp"]
    assert kept
    for path in kept:  # (a disk that filled up, a file cut short)
        path.write_bytes(path.read_bytes()[:len(path.read_bytes()) // 2])
    new_process()
    edit_json(project, "content/a/a.json", lambda d: d["run"]["spec"].update(observedAt="2026-02-02T00:00:00Z"))
    rebuild_matches_clean(project)
    assert '<span class="kn">import</span>' in source_box(project.page("runs/a"))


def test_highlights_made_by_another_version_are_not_shown(project, new_process, always_incremental):
    shared_kernel_site(project)
    project.built()
    store = project.root / ".kindex-cache/site.highlights"
    (store / "stamp").write_text("another kindex-site, another Pygments\n")
    for path in store.iterdir():
        if path.name != "stamp":
            head = path.read_text().split("\n", 1)[0].split()
            path.write_text(f"{head[0]} {head[1]} 6\nPOISON")
    new_process()
    edit_json(project, "content/a/a.json", lambda d: d["run"]["spec"].update(observedAt="2026-02-02T00:00:00Z"))
    rebuild_matches_clean(project)
    assert "POISON" not in project.page("runs/a")


def test_highlights_of_texts_no_longer_shown_are_not_kept(project, new_process):
    shared_kernel_site(project)
    project.built()
    for folder, file in (("a", "kernel.py"), ("b", "kernel.py"), ("c", "kernel.txt")):
        project.write(f"content/{folder}/{file}", "print('v2')\n")
    project.built()
    store = project.root / ".kindex-cache/site.highlights"
    assert len([p for p in store.iterdir() if p.name != "stamp"]) == 2  # (v2 as Python, and as text)


# --- the per-model view -----------------------------------------------------------------------


def problem_run(n: int, implementation: str, mean: int, ci, status: str = "passed", digest: str = "a") -> dict:
    doc = run(f"p{n}-{implementation.split()[0].lower()}", implementation, mean, ci, status=status, digest=digest,
              **{"run.spec.sourceNative.externalId": f"H/t/level1/{n}_Problem_{n}.py",
                 "run.spec.workloadDigest": f"sha256:{n:064x}"})
    return doc


def test_a_model_page_shows_fast_p_over_the_whole_suite(project):
    eager = [problem_run(n, "PyTorch eager", 2_000_000, (1_990_000, 2_010_000), digest="e") for n in range(1, 7)]
    model = "claude-3.5-sonnet (generated CUDA)"
    project.write("content/a.json", eager + [
        problem_run(1, model, 500_000, (499_000, 501_000)),    # 4×: fast_0, 1, 1.5, 2
        problem_run(2, model, 1_250_000, (1_240_000, 1_260_000)),  # 1.6×: fast_0, 1, 1.5
        problem_run(3, model, 1_990_000, (1_980_000, 2_000_000)),  # 1.005×, inside the noise: fast_0 and fast_1
        problem_run(4, model, 4_000_000, (3_990_000, 4_010_000)),  # 0.5×: fast_0 only
        problem_run(5, model, 0, None, status="incorrect"),         # attempted, not passed
    ])                                                               # problem 6: not attempted, not fast
    project.built()
    [table] = [t for t in tables(project.page("implementations/claude-3-5-sonnet-generated-cuda"))
               if "All levels, within each host" in t["caption"]]
    # Over the suite's 6 problems: attempted 5, fast_0 4, fast_1 3 (1.005 > 1), fast_1.5 2, fast_2 1,
    # beyond noise 2; geometric mean over the 4 passed (4 · 1.6 · 2/1.99 · 0.5)^(1/4) = 1.3392.
    assert table["rows"][0] == ["Timing host", "Attempted", "fast_0 (passed)", "fast_1", "fast_1.5", "fast_2",
                                "Faster beyond noise", "Geometric mean over the passed (×)", "Held out"]
    assert table["rows"][1] == ["Host h", "5 of 6", "4 (67%)", "3 (50%)", "2 (33%)", "1 (17%)", "2 (33%)", "1.34 over 4", "0"]
    [summary] = project.api("hosts/h.json")["implementations"]
    everything = summary["levels"]["all"]
    assert (everything["suite"], everything["attempted"], everything["passed"]) == (6, 5, 4)
    assert everything["fast_p_count"] == {"0": 4, "1": 3, "1.5": 2, "2": 1}
    assert everything["fast_p"] == {"0": 4 / 6, "1": 3 / 6, "1.5": 2 / 6, "2": 1 / 6}


def test_a_source_file_rewritten_within_the_clock_tick_is_read_again(project, monkeypatch, always_incremental):
    """A kernel edited with its size and time unchanged, in the tick the last build read it, is seen by
    the next rebuild of a resident builder (its bytes are compared), and later rebuilds change nothing."""
    from kindex_site import listing as cache
    from kindex_site.build import build
    from pathlib import Path

    from kindex_site.state.reuse import Reuse
    from kindex_site.config import load_config

    monkeypatch.chdir(project.root)
    stat_key = cache.stat_key  # (within one tick the change time does not move either: leave it out)
    monkeypatch.setattr(cache, "stat_key", lambda st: stat_key(st)[:2])
    monkeypatch.setattr(cache, "RACY_NS", 10**15)  # (a tick of days: read in it however slow the machine)
    kernel_site(project, "x = 'first'\n")
    for written in (project.root / "content").rglob("*"):  # (all but the kernel long since written)
        if written.is_file() and written.name != "gen.py":
            os.utime(written, ns=(10**18, 10**18))
    memo = Reuse(Path("site").absolute())
    build(load_config(None, {}), memo)
    path = project.root / "content/kb/models.src/gen.py"
    before = path.stat()
    path.write_text("x = 'again'\n")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    build(load_config(None, {}), memo)
    assert "again" in project.page("runs/gen")
    for _ in range(2):
        assert build(load_config(None, {}), memo).changed == 0


def test_two_source_files_named_alike_but_for_case_are_refused(project):
    """`k/Gen.py` and `k/gen.py` are two files here, one on a macOS or Windows disk: their downloads
    would overwrite each other. Refused before anything is written, naming both."""
    docs = [run("upper", "Upper", 2_000_000, None, digest="c"), run("lower", "Lower", 3_000_000, None, digest="d")]
    docs[0]["run"]["spec"]["implementationSource"] = {"path": "k/Gen.py"}
    docs[1]["run"]["spec"]["implementationSource"] = {"path": "k/gen.py"}
    project.write("content/kb/models.json", docs)
    project.write("content/kb/k/Gen.py", "x = 1\n")
    project.write("content/kb/k/gen.py", "x = 2\n")
    code, _, err = project.build()
    assert code == 1 and not (project.root / "site").exists()
    assert ("sources/kb/k/gen.py: claimed by both source file content/kb/k/Gen.py and source file "
            "content/kb/k/gen.py") in err, err


def kernels_on_hosts(project, kernels: int = 24) -> None:
    """`kernels` kernels, each in a folder of its own on each of three hosts, with its run."""
    for k in range(kernels):
        kernel = f"import torch\n# kernel {k}\nx = {k} * 2\n"
        for host in ("h0", "h1", "h2"):
            doc = run(f"r{k}-{host}", f"Impl {k}", 2_000_000 + k, None, host=host, digest=f"{k % 16:x}")
            doc["run"]["spec"]["implementationSource"] = {"path": "kernel.py"}
            project.write(f"content/{host}/r{k}/r{k}.json", doc)
            project.write(f"content/{host}/r{k}/kernel.py", kernel)


def test_a_parallel_build_highlights_each_kernel_once_and_shows_what_one_process_shows(project, monkeypatch):
    """Kernels each shown on several hosts' run pages, made by two worker processes whose chunks
    each hold pages of every kernel: each text is highlighted once (shared out before the pages are
    made), and the site is byte for byte the one a single process makes."""
    import pygments

    from kindex_site import build as build_module

    kernels_on_hosts(project)
    log = project.root.parent / "highlighted.log"
    real = pygments.highlight

    def counted(text, lexer, formatter):
        with open(log, "a") as f:  # (appended to by every process)
            f.write(text.splitlines()[1] + "\n")
        return real(text, lexer, formatter)

    monkeypatch.setattr(pygments, "highlight", counted)
    monkeypatch.setattr(build_module, "PARALLEL_MIN_OUTPUTS", 10**9)
    project.built()
    serial = project.snapshot()
    assert sorted(log.read_text().splitlines()) == sorted(f"# kernel {k}" for k in range(24))
    log.unlink()
    monkeypatch.setattr(build_module, "PARALLEL_MIN_OUTPUTS", 0)
    monkeypatch.setattr(build_module, "CHUNK", 5)
    monkeypatch.setattr(build_module, "_workers", lambda: 2)
    project.built("--clean")
    assert sorted(log.read_text().splitlines()) == sorted(f"# kernel {k}" for k in range(24))
    assert project.snapshot() == serial
    assert '<span class="kn">import</span>' in project.page("runs/r7-h2")


def test_a_source_file_grown_since_its_size_was_asked_is_read_whole(project, monkeypatch):
    """A kernel is read by the size the system gives first; if it has grown since (a save under way),
    the rest is read too: its digest, lines and download are of the whole file."""
    from kindex_site import load

    kernel = "import torch\n" + "".join(f"x{i} = {i}\n" for i in range(400))
    kernel_site(project, kernel)
    real_fstat = os.fstat
    monkeypatch.setattr(load.os, "fstat", lambda fd: os.stat_result((*real_fstat(fd)[:6], 10, *real_fstat(fd)[7:])))
    project.built()
    assert f"gen.py ({kernel.count(chr(10))} lines, {len(kernel)} bytes)" in visible_text(project.page("runs/gen"))
    assert (project.root / "site/sources/kb/models.src/gen.py").read_text() == kernel


@pytest.fixture
def in_parallel(monkeypatch):
    """Every build's pages made as a big site's are: by two worker processes, kernels highlighted first."""
    from kindex_site import build as build_module

    monkeypatch.setattr(build_module, "PARALLEL_MIN_OUTPUTS", 0)
    monkeypatch.setattr(build_module, "_workers", lambda: 2)


def test_without_fork_one_process_highlights_and_makes_every_page(project, monkeypatch, in_parallel):
    kernels_on_hosts(project)
    monkeypatch.delattr(os, "fork")
    project.built()
    assert '<span class="kn">import</span>' in project.page("runs/r7-h2")


def test_a_kernel_gone_while_the_site_is_built_is_an_error_naming_it(project, monkeypatch, in_parallel):
    """Removed after the content was read, before its page is made: the build says which file and
    stops, as for any other file that changes under it; the site is left as it was."""
    from kindex_site.state.reuse import Reuse

    kernels_on_hosts(project)
    project.built()
    before = project.snapshot()
    project.write("content/h0/r3/kernel.py", "import torch\n# kernel 3, edited\n")
    outdated = Reuse.outdated

    def removing(*args, **kwargs):
        os.unlink(project.root / "content/h0/r3/kernel.py")
        return outdated(*args, **kwargs)

    monkeypatch.setattr(Reuse, "outdated", removing)
    code, _, err = project.build("--clean")
    assert code == 1 and "Traceback" not in err, err
    assert err.startswith("content/h0/r3/kernel.py: cannot read it (No such file or directory): it changed "
                          "while the site was being built; build again"), err
    assert project.snapshot() == before


def test_hidden_characters_in_a_kernel_show_as_code_points_and_the_download_keeps_them(project):
    """A kernel whose comment reverses the text after it ("Trojan Source"), with an ESC and a NUL:
    its listing shows each as its code point, never as itself; its download is the file's bytes."""
    kernel = 'ok = "abc\u202e def\u2066 "  # \x1b[31m red\nx = 1\x00\n'
    kernel_site(project, kernel)
    project.built()
    page = project.page("runs/gen")
    for ch in "\u202e\u2066\x1b\x00":
        assert ch not in page
    shown = visible_text(page)
    assert "U+202E" in shown and "U+2066" in shown and "U+001B" in shown and "U+0000" in shown
    assert "2 lines, " in shown  # (lines and bytes are the file's own)
    assert (project.root / "site/sources/kb/models.src/gen.py").read_bytes() == kernel.encode()
