"""A resident builder (`serve`, `build --watch`) driven through sequences of edits: after each, its
site is byte for byte what a clean build of the same content gives (`kindex-site build --clean`
through the CLI), with the same warnings; while some file is invalid, it is the last good site, and
the builder's errors name that file, as the clean build's do.

The edits are those editors and tools make: atomic saves (written aside, renamed over), `cp`'s
truncate-then-write, a write cut short and completed later, appends to a .jsonl, a same-size edit put
back to its old time, deletes and renames of files and folders, new folders, invalid content fixed
later, a save of unchanged bytes. Rebuilds are written as the product's thresholds say (a small site:
most swap a new folder in), or file by file, or file by file in worker processes, and the thresholds
may change between edits: serve's crash 'Value after * must be an iterable, not _SizesInOrder'
(issue 45) is one of the cases, replayed by `test_parallel_writers_rebuilding_after_cp_overwrites`.
The builder is driven synchronously, as its watcher would: told the paths an edit changed.

Hypothesis's state machine tries random sequences: a fixed-seed sample by default, a longer one in a
release run (`--release`). `test_every_kind_of_edit_in_turn` makes each kind of edit in a fixed order,
so that every run covers them all whatever the sample draws. To try more sequences:
`KINDEX_HYPOTHESIS_EXAMPLES=300 KINDEX_HYPOTHESIS_STEPS=25 pytest tests/test_resident_states.py`.
"""

from __future__ import annotations

import copy
import gc
import io
import json
import os
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule, run_state_machine_as_test

from conftest import release, seed_problem_run
from kindex_site import build as build_module
from kindex_site.state import reuse as reuse_module
from kindex_site.cli import main
from kindex_site.config import load_config
from kindex_site.watch import Builder

EXAMPLES = int(os.environ.get("KINDEX_HYPOTHESIS_EXAMPLES") or 0) or (20 if release() else 4)
STEPS = int(os.environ.get("KINDEX_HYPOTHESIS_STEPS") or 0) or (12 if release() else 6)
# (no explain phase: replaying a failing sequence line by line took minutes, its shrinking seconds)
SETTINGS = settings(max_examples=EXAMPLES, stateful_step_count=STEPS, deadline=None, derandomize=True,
                    database=None, phases=[phase for phase in Phase if phase is not Phase.explain],
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

PROBLEMS = (1, 2)
HOSTS = ("h0", "h1", "h2")
IMPLEMENTATIONS = ("Impl 0", "Impl 1", "Impl 2")
MEANS = st.integers(500_000, 3_000_000)
KERNEL_BUNDLE, KERNEL_SOURCE = "content/somewhere/gen.one.json", "content/somewhere/src/gen.py"
PAGE = "content/pages/about.md"
# Written aside and renamed over; truncated and written in place, as cp does; that, then put back to an
# old time, as cp -p, tar or touch -r do (a same-size edit then differs in its change time alone).
WRITES = ("atomic", "overwrite", "old-time")
OLD_TIME_NS = 1_767_225_600 * 10**9  # 2026-01-01, long before any read
BREAKS = ("syntax", "schema", "nan", "duplicate-name")
RENAMES = ("in-its-folder", "into-a-new-folder", "its-whole-folder")

# (the product's thresholds, for the rebuilds that do not force file-by-file or parallel writing)
DEFAULT_PARALLEL_MIN_OUTPUTS, DEFAULT_WORKERS = build_module.PARALLEL_MIN_OUTPUTS, build_module._workers
DEFAULT_INCREMENTAL_MAX_SHARE = reuse_module.INCREMENTAL_MAX_SHARE


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def make_run(number: int, problem: int, host: str, implementation: str, mean: int) -> dict:
    """Run `run-<number>` of a problem (its workload) on a host; each run observed a minute after the
    one before, so that an implementation's runs on one board make a history with a trend."""
    doc = seed_problem_run(host, implementation, mean)
    spec = doc["run"]["spec"]
    doc["run"]["metadata"]["name"] = f"run-{number}"
    spec["sourceNative"]["externalId"] = f"H/t/level1/{problem}_Problem_{problem}.py"
    spec["workloadDigest"] = f"sha256:{problem:064x}"
    spec["observedAt"] = f"2026-03-{1 + number // 1440:02d}T{number // 60 % 24:02d}:{number % 60:02d}:00Z"
    return doc


def set_mean(doc: dict, mean) -> None:
    doc["run"]["spec"]["timing"]["latencyNs"] = {"mean": mean, "minimum": mean, "maximum": mean,
                                                 "confidence95": [mean, mean]}


def file_bytes(rel: str, runs: list[dict]) -> bytes:
    """A run file as its name says it is written: a .jsonl a line per run, a .one.json one bundle, a
    .json an array."""
    if rel.endswith(".jsonl"):
        return "".join(json.dumps(doc) + "\n" for doc in runs).encode()
    return json.dumps(runs[0] if rel.endswith(".one.json") else runs, indent=1).encode()


class ResidentBuilderEdits(RuleBasedStateMachine):
    """The model is the content as it should read (`runs`, `texts`) and which files are invalid now
    (`broken`: a file → the files its error names); the builder and the clean builds see only the disk.
    Each edit is a method that writes and rebuilds; each rule draws an edit's arguments."""

    def __init__(self, base: Path, monkeypatch):
        super().__init__()
        self.monkeypatch = monkeypatch
        self.root = Path(base, f"example-{len(list(base.iterdir()))}")
        self.root.mkdir()
        monkeypatch.chdir(self.root)  # (the builder and the CLI read kindex.toml and content/ from here)
        self.runs: dict[str, list[dict]] = {}  # run file → its runs, when whole
        self.texts: dict[str, bytes] = {}  # source file or page → its bytes, when whole
        self.broken: dict[str, set[str]] = {}
        self.cut_short: dict[str, bytes] = {}  # file written in part → the bytes still to come
        self.numbered = 0  # runs made so far: each new one takes the next number, so names stay unique
        self.folders_made = 0
        self.builder: Builder | None = None
        self.last_good: dict[str, bytes] = {}

    # --- the content, and the check after each edit ----------------------------------------------

    def new_run(self, problem: int, host: str, implementation: str, mean: int) -> dict:
        self.numbered += 1
        return make_run(self.numbered, problem, host, implementation, mean)

    def whole_bytes(self, rel: str) -> bytes:
        return self.texts[rel] if rel in self.texts else file_bytes(rel, self.runs[rel])

    def write(self, rel: str, data: bytes, how: str) -> list[str]:
        """Write a file as `how` says (or "append"); the paths a watcher would name."""
        path = self.root / rel
        made = [str(folder) for folder in reversed(path.parents) if folder.is_relative_to(self.root / "content")
                and not folder.exists()]
        path.parent.mkdir(parents=True, exist_ok=True)
        if how == "atomic":
            aside = path.with_name(path.name + ".tmp")
            aside.write_bytes(data)
            os.replace(aside, path)
            return made + [str(aside), str(path)]
        with open(path, "ab" if how == "append" else "wb") as f:
            f.write(data)
        if how == "old-time":
            os.utime(path, ns=(OLD_TIME_NS, OLD_TIME_NS))
        return made + [str(path)]

    def named(self) -> set[str]:
        """The files an error names, or cut short: no edit but their mending touches them (an edit
        elsewhere could not change what their errors say)."""
        return set().union(*self.broken.values(), self.cut_short)

    def healthy(self, kind: str = "runs") -> list[str]:
        named = self.named()
        return sorted(rel for rel in (self.runs if kind == "runs" else self.texts) if rel not in named)

    def rebuild(self, paths: list[str]) -> None:
        """The builder told of `paths`, then compared with a clean build of the content by the real CLI."""
        self.builder.rebuild(paths)
        clean_code, clean_err = self.build_clean()
        site = snapshot(self.root / "site")
        if not self.broken:
            assert not self.builder.errors, self.builder.errors
            assert clean_code == 0, clean_err
            clean = snapshot(self.root / "clean")
            assert site == clean, sorted(p for p in site.keys() | clean.keys() if site.get(p) != clean.get(p))
            assert [f"warning: {w}" for w in self.builder.shown_warnings] == [
                line for line in clean_err.splitlines() if line.startswith("warning: ")]
            self.last_good = site
            return
        assert clean_code == 1, f"{sorted(self.broken)} should be invalid, and a clean build built them"
        said = "\n".join(self.builder.errors)
        for rel in set().union(*self.broken.values()):
            assert rel in said, (rel, self.builder.errors)
        assert set(self.builder.errors) <= set(clean_err.splitlines()), (self.builder.errors, clean_err)
        assert site == self.last_good  # (a failed rebuild leaves the last good site)

    def build_clean(self) -> tuple[int, str]:
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = main(["build", "--out", "clean", "--clean"])
        return code, err.getvalue()

    # --- the start: a few problems × hosts × implementations, in every format ----------------------

    @initialize(incremental=st.booleans(), parallel=st.booleans())
    def start(self, incremental: bool, parallel: bool) -> None:
        self.use(incremental, parallel)
        runs = [self.new_run(PROBLEMS[i % 2], HOSTS[i % 3], IMPLEMENTATIONS[i % 3], 1_000_000 + 7919 * i)
                for i in range(6)]
        kernel = self.new_run(1, "h0", "gpt (generated CUDA)", 900_000)
        kernel["run"]["spec"]["implementationSource"] = {"path": "src/gen.py"}
        self.runs = {"content/a.json": runs[:3], "content/b.jsonl": runs[3:], KERNEL_BUNDLE: [kernel]}
        self.texts = {KERNEL_SOURCE: b"def kernel(x):\n    return x * 2\n", PAGE: b"# About\n\nHow to read it.\n"}
        for rel in [*self.runs, *self.texts]:
            self.write(rel, self.whole_bytes(rel), "overwrite")
        # (with a base URL the feed and sitemap are made too: the feed's date is the newest run's, not the clock's)
        (self.root / "kindex.toml").write_text('base_url = "https://kindex.example/"\n')
        self.builder = Builder(None, {"output_dir": "site"}, load_config(None, {}), (self.root / "site").absolute(),
                               serving=False)
        self.builder.rebuild([], first=True)
        assert not self.builder.errors, self.builder.errors
        self.rebuild([])

    def use(self, incremental: bool, parallel: bool) -> None:
        """With `incremental`, every change is written file by file (on a site this small most would
        swap a new folder in); with `parallel`, every build's files go to two worker processes. Both
        are a big site's rebuild after an edit, and the crash's conditions."""
        self.monkeypatch.setattr(reuse_module, "INCREMENTAL_MAX_SHARE",
                                 1.0 if incremental else DEFAULT_INCREMENTAL_MAX_SHARE)
        self.monkeypatch.setattr(build_module, "PARALLEL_MIN_OUTPUTS", 0 if parallel else DEFAULT_PARALLEL_MIN_OUTPUTS)
        self.monkeypatch.setattr(build_module, "_workers", (lambda: 2) if parallel else DEFAULT_WORKERS)

    def teardown(self) -> None:
        gc.unfreeze()  # (the first rebuild froze what it made: each example's is freed when it ends)

    # --- the edits ---------------------------------------------------------------------------

    def edit_run(self, rel: str, index: int, mean: int, implementation: str | None, how: str) -> None:
        doc = self.runs[rel][index % len(self.runs[rel])]
        set_mean(doc, mean)
        if implementation is not None:
            title = doc["run"]["metadata"]["title"].split(" · ")
            doc["run"]["metadata"]["title"] = " · ".join([title[0], implementation, *title[2:]])
        self.rebuild(self.write(rel, file_bytes(rel, self.runs[rel]), how))

    def add_run_file(self, folder: str, form: str, problem: int, host: str, implementation: str, mean: int,
                     how: str) -> None:
        rel = f"{folder}/added-{self.numbered + 1}{form}"
        self.runs[rel] = [self.new_run(problem, host, implementation, mean)]
        self.rebuild(self.write(rel, self.whole_bytes(rel), how))

    def append_run(self, rel: str, problem: int, host: str, implementation: str, mean: int) -> None:
        doc = self.new_run(problem, host, implementation, mean)
        self.runs[rel].append(doc)
        self.rebuild(self.write(rel, (json.dumps(doc) + "\n").encode(), "append"))

    def delete(self, rel: str, whole_folder: bool = False) -> None:
        """A run file deleted, or its whole folder (unless that is content/, or holds a file an error names)."""
        folder = rel.rsplit("/", 1)[0]
        if whole_folder and folder != "content" and not any(f.startswith(folder + "/") for f in self.named()):
            shutil.rmtree(self.root / folder)
            for files in (self.runs, self.texts):
                for gone in [gone for gone in files if gone.startswith(folder + "/")]:
                    del files[gone]
            self.rebuild([str(self.root / folder)])
            return
        del self.runs[rel]
        (self.root / rel).unlink()
        self.rebuild([str(self.root / rel)])

    def rename(self, rel: str, where: str) -> str:
        """A run file renamed in its folder or into a new one, or its whole folder renamed (a lab's
        folder moved: a run naming a source file moves only with it); its name now."""
        self.folders_made += 1
        folder, name = rel.rsplit("/", 1)
        if where == "its-whole-folder" and folder != "content" and not any(
                other.startswith(folder + "/") for other in self.named()):
            moved = f"content/lab-{self.folders_made}"
            os.replace(self.root / folder, self.root / moved)
            for files in (self.runs, self.texts):
                for old in [old for old in files if old.startswith(folder + "/")]:
                    files[moved + old[len(folder):]] = files.pop(old)
            self.rebuild([str(self.root / folder), str(self.root / moved)])
            return moved + rel[len(folder):]
        made = []
        if where == "into-a-new-folder" and not any("implementationSource" in doc["run"]["spec"]
                                                    for doc in self.runs[rel]):
            folder = f"content/moved-{self.folders_made}"
            os.mkdir(self.root / folder)
            made = [str(self.root / folder)]
        moved = f"{folder}/renamed-{self.folders_made}-{name}"
        os.replace(self.root / rel, self.root / moved)
        self.runs[moved] = self.runs.pop(rel)
        self.rebuild(made + [str(self.root / rel), str(self.root / moved)])
        return moved

    def edit_text(self, rel: str, words: str, how: str) -> None:
        self.texts[rel] = (f"# {words}\n\nNew words: {words}.\n" if rel.endswith(".md")
                           else f"def kernel(x):\n    return x * {len(words)}  # {words}\n").encode()
        self.rebuild(self.write(rel, self.texts[rel], how))

    def save_unchanged(self, rel: str) -> None:
        """An editor's save of the same bytes, and its backup file come and gone: nothing to show."""
        backup = self.root / (rel + "~")
        backup.write_bytes(b"{")
        backup.unlink()
        self.rebuild([str(backup)] + self.write(rel, self.whole_bytes(rel), "overwrite"))

    def cut_write(self, rel: str, per_mille: int, mean: int) -> None:
        """A write stopped part way, the builder rebuilding before it goes on: a run file's part is not
        JSON; a source file's or page's part is text like any other."""
        if rel in self.runs:
            set_mean(self.runs[rel][0], mean)
        whole = self.whole_bytes(rel)
        cut = max(1, len(whole) * per_mille // 1000)
        if rel in self.runs and whole[cut - 1:cut] == b"\n":
            cut -= 1  # (a .jsonl cut just after a newline is whole lines: valid runs, not a cut write)
        self.cut_short[rel] = whole[cut:]
        if rel in self.runs:
            self.broken[rel] = {rel}
        else:
            self.texts[rel] = whole[:cut]
        self.rebuild(self.write(rel, whole[:cut], "overwrite"))

    def break_file(self, rel: str, kind: str, how: str, other: str | None = None) -> None:
        """Invalid content: not JSON, against the schema, a NaN, or a run named as `other`'s first is."""
        runs = copy.deepcopy(self.runs[rel])
        self.broken[rel] = {rel}
        if kind == "schema":
            runs[0]["run"]["spec"]["timing"]["samples"] = 0
        elif kind == "nan":
            set_mean(runs[0], float("nan"))
        elif kind == "duplicate-name":
            runs[0]["run"]["metadata"]["name"] = self.runs[other][0]["run"]["metadata"]["name"]
            self.broken[rel].add(other)
        data = file_bytes(rel, runs)
        if kind == "syntax":
            data = data[:1] + b"}" + data[1:]
        self.rebuild(self.write(rel, data, how))

    def mend(self, rel: str, how: str) -> None:
        """A write cut short goes on to its end; an invalid file is written whole again."""
        self.broken.pop(rel, None)
        if rel not in self.cut_short:
            self.rebuild(self.write(rel, self.whole_bytes(rel), how))
            return
        rest = self.cut_short.pop(rel)
        if rel in self.texts:
            self.texts[rel] += rest
        self.rebuild(self.write(rel, rest, "append"))

    # --- the rules: each draws an edit's arguments ------------------------------------------------

    @rule(incremental=st.booleans(), parallel=st.booleans())
    def the_site_grows_or_shrinks(self, incremental, parallel) -> None:
        """The thresholds crossed between two edits (a site grown past the parallel writers' threshold)."""
        self.use(incremental, parallel)

    @precondition(lambda self: self.healthy())
    @rule(data=st.data(), mean=MEANS, implementation=st.none() | st.sampled_from(IMPLEMENTATIONS),
          how=st.sampled_from(WRITES))
    def edit_a_run(self, data, mean, implementation, how) -> None:
        rel = data.draw(st.sampled_from(self.healthy()), label="file")
        index = data.draw(st.integers(0, len(self.runs[rel]) - 1), label="index")
        self.edit_run(rel, index, mean, implementation, how)

    @rule(new_folder=st.booleans(), form=st.sampled_from([".json", ".one.json", ".jsonl"]),
          problem=st.sampled_from(PROBLEMS), host=st.sampled_from(HOSTS + ("h9",)),
          implementation=st.sampled_from(IMPLEMENTATIONS), mean=MEANS, how=st.sampled_from(WRITES))
    def add_a_run_file(self, new_folder, form, problem, host, implementation, mean, how) -> None:
        self.folders_made += 1
        folder = f"content/new-{self.folders_made}/deeper" if new_folder else "content"
        self.add_run_file(folder, form, problem, host, implementation, mean, how)

    @precondition(lambda self: any(rel.endswith(".jsonl") for rel in self.healthy()))
    @rule(data=st.data(), problem=st.sampled_from(PROBLEMS), host=st.sampled_from(HOSTS),
          implementation=st.sampled_from(IMPLEMENTATIONS), mean=MEANS)
    def append_a_run_to_a_jsonl(self, data, problem, host, implementation, mean) -> None:
        rel = data.draw(st.sampled_from([rel for rel in self.healthy() if rel.endswith(".jsonl")]), label="file")
        self.append_run(rel, problem, host, implementation, mean)

    @precondition(lambda self: len(self.healthy()) > 1)
    @rule(data=st.data(), whole_folder=st.booleans())
    def delete_a_run_file_or_its_folder(self, data, whole_folder) -> None:
        rel = data.draw(st.sampled_from(self.healthy()), label="file")
        folder = rel.rsplit("/", 1)[0]
        if whole_folder and not [other for other in self.healthy() if not other.startswith(folder + "/")]:
            whole_folder = False  # (some run stays: a site of none is another matter)
        self.delete(rel, whole_folder)

    @precondition(lambda self: self.healthy())
    @rule(data=st.data(), where=st.sampled_from(RENAMES))
    def rename_a_run_file_or_its_folder(self, data, where) -> None:
        self.rename(data.draw(st.sampled_from(self.healthy()), label="file"), where)

    @precondition(lambda self: self.healthy("texts"))
    @rule(data=st.data(), words=st.text(st.characters(codec="ascii", categories=["L", "N"]), min_size=1, max_size=12),
          how=st.sampled_from(WRITES))
    def edit_a_source_file_or_page(self, data, words, how) -> None:
        self.edit_text(data.draw(st.sampled_from(self.healthy("texts")), label="file"), words, how)

    @precondition(lambda self: self.healthy() + self.healthy("texts"))
    @rule(data=st.data())
    def save_a_file_unchanged(self, data) -> None:
        self.save_unchanged(data.draw(st.sampled_from(self.healthy() + self.healthy("texts")), label="file"))

    @precondition(lambda self: self.healthy() + self.healthy("texts"))
    @rule(data=st.data(), per_mille=st.integers(1, 999), mean=MEANS)
    def cut_a_write_short(self, data, per_mille, mean) -> None:
        self.cut_write(data.draw(st.sampled_from(self.healthy() + self.healthy("texts")), label="file"), per_mille,
                       mean)

    @precondition(lambda self: self.healthy())
    @rule(data=st.data(), kind=st.sampled_from(BREAKS), how=st.sampled_from(WRITES))
    def break_a_run_file(self, data, kind, how) -> None:
        rel = data.draw(st.sampled_from(self.healthy()), label="file")
        others = [other for other in self.healthy() if other != rel]
        if kind == "duplicate-name" and not others:
            kind = "syntax"
        other = data.draw(st.sampled_from(others), label="named as a run of") if kind == "duplicate-name" else None
        self.break_file(rel, kind, how, other)

    @precondition(lambda self: self.broken or self.cut_short)
    @rule(data=st.data(), how=st.sampled_from(WRITES))
    def mend_a_file(self, data, how) -> None:
        self.mend(data.draw(st.sampled_from(sorted(self.broken.keys() | self.cut_short.keys())), label="file"), how)


@pytest.mark.release
def test_a_resident_builder_after_any_sequence_of_edits_equals_a_clean_build(tmp_path, monkeypatch):
    run_state_machine_as_test(lambda: ResidentBuilderEdits(tmp_path, monkeypatch), settings=SETTINGS)


def test_every_kind_of_edit_in_turn(tmp_path, monkeypatch):
    """Each edit the state machine draws, in a fixed order, a third of them under each way of writing
    a rebuild (the product's thresholds, file by file, file by file in worker processes): every run
    covers them all, whatever the sample draws."""
    machine = ResidentBuilderEdits(tmp_path, monkeypatch)
    try:
        machine.start(incremental=False, parallel=False)
        machine.edit_run("content/a.json", 0, 2_000_000, "Impl 2", "atomic")
        machine.edit_run("content/b.jsonl", 1, 700_000, None, "overwrite")
        machine.add_run_file("content/new/deeper", ".jsonl", 2, "h9", "Impl 1", 1_500_000, "atomic")
        machine.add_run_file("content", ".one.json", 1, "h1", "Impl 0", 1_200_000, "overwrite")
        machine.append_run("content/b.jsonl", 1, "h2", "Impl 0", 800_000)
        machine.cut_write("content/a.json", 500, 600_000)
        machine.edit_text(PAGE, "Notes", "overwrite")  # (while a.json is cut short)
        machine.mend("content/a.json", "append")
        machine.cut_write("content/b.jsonl", 999, 650_000)
        machine.mend("content/b.jsonl", "append")
        machine.cut_write(KERNEL_SOURCE, 300, 0)
        machine.mend(KERNEL_SOURCE, "append")
        machine.use(incremental=True, parallel=False)
        machine.break_file("content/b.jsonl", "schema", "atomic")
        machine.break_file("content/a.json", "duplicate-name", "overwrite", other=KERNEL_BUNDLE)
        machine.mend("content/b.jsonl", "overwrite")
        machine.mend("content/a.json", "atomic")
        machine.break_file(KERNEL_BUNDLE, "nan", "overwrite")
        machine.mend(KERNEL_BUNDLE, "overwrite")
        machine.break_file("content/a.json", "syntax", "atomic")
        machine.mend("content/a.json", "overwrite")
        machine.use(incremental=True, parallel=True)
        kernel = machine.rename(KERNEL_BUNDLE, "in-its-folder")
        machine.rename(kernel, "its-whole-folder")
        machine.rename("content/b.jsonl", "into-a-new-folder")
        machine.edit_text(next(rel for rel in machine.texts if rel.endswith(".py")), "twice", "atomic")
        machine.edit_run("content/a.json", 1, 1_234_567, None, "old-time")
        machine.edit_run("content/a.json", 1, 7_654_321, None, "old-time")  # (same size, same time)
        machine.save_unchanged("content/a.json")
        machine.delete("content/a.json")
        machine.delete(next(rel for rel in machine.runs if rel.startswith("content/new/")), whole_folder=True)
    finally:
        machine.teardown()


def test_parallel_writers_rebuilding_after_cp_overwrites(tmp_path, monkeypatch):
    """Issue 45's crash, replayed: with the writers in worker processes, a file copied over in place,
    twice (the second rebuild folds into the sizes the first left): each rebuild folds the sizes the
    writers sent back in path order into the last site's."""
    machine = ResidentBuilderEdits(tmp_path, monkeypatch)
    try:
        machine.start(incremental=True, parallel=True)
        for mean in (2_000_000, 3_000_000):
            machine.edit_run("content/a.json", 0, mean, None, "overwrite")
    finally:
        machine.teardown()
