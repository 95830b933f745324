"""The publisher's documents: content/costs/ (WorkloadCost) and content/reviews/ (RunReview), read beside
the runs, checked as bundles are (the same lines, `file[index]` and `file:line`), against one another and
the runs; and a resident builder that reads them again as a clean build does."""

from __future__ import annotations

import copy
import json
import shutil

import pytest

from conftest import SEED, seed_problem_run
from kindex_site import jsonread, listing, load, sources
from kindex_site import listing as cache
from kindex_site.state import loadstate
from kindex_site.load import load_content
from kindex_site.models import HELD_VERDICTS, VERDICTS, RunReview, WorkloadCost

RUN = SEED["run"]["metadata"]["name"]
WORKLOAD = SEED["run"]["spec"]["workloadDigest"]
OTHER_WORKLOAD = "sha256:" + "ab" * 32


def cost(name: str = "cost-seed", workload: str = WORKLOAD, **spec) -> dict:
    """A counted cost of a 4096² float32 matrix product."""
    tensor = {"shape": [4096, 4096], "dtype": "float32", "bytes": 67108864}
    return {"apiVersion": "kindex-site.dev/v1", "kind": "WorkloadCost",
            "metadata": {"name": name, "title": "Cost of Gemm"},
            "spec": {"workloadDigest": workload, "status": "counted", "inputs": [tensor, tensor], "outputs": [tensor],
                     "inputBytes": 134217728, "outputBytes": 67108864, "parameterBytes": 0,
                     "flops": {"fp32": 137438953472}, "counter": {"name": "FlopCounterMode", "version": "torch 2.13.0"},
                     "source": "kernelbench/level2/84.py", **spec}}


def review(name: str = "review-1", run: str = RUN, verdict: str = "reward-hack", date: str = "2026-03-06",
           **spec) -> dict:
    evidence = {} if verdict == "under-review" else {"evidence": "https://github.com/o/r/issues/7"}
    return {"apiVersion": "kindex-site.dev/v1", "kind": "RunReview", "metadata": {"name": name, "title": "Review"},
            "spec": {"run": run, "verdict": verdict, "reason": "Returns the reference's output.", "date": date,
                     **evidence, **spec}}


def jsonl(*documents) -> str:
    return "".join(json.dumps(d) + "\n" for d in documents)


@pytest.fixture
def site(project):
    """The seed's run, to which the documents below refer."""
    project.write("content/seed.json", SEED)
    return project


def refused(project, *lines: str) -> str:
    """check and build both fail, each saying exactly `lines` as its problems (then the count)."""
    code, _, err = project.run("check")
    assert code == 1, err
    said = [line for line in err.splitlines() if not line.startswith(("warning:", "error:"))]
    assert said == list(lines), err
    code, _, built = project.build()
    assert code == 1 and [line for line in built.splitlines() if not line.startswith(("warning:", "error:"))] == said
    assert not (project.root / "site").exists()
    return err


def warned(project) -> list[str]:
    """What check warns of, each warning (--verbose: not grouped by cause)."""
    code, _, err = project.run("check", "--verbose")
    assert code == 0, err
    return [line.removeprefix("warning: ") for line in err.splitlines()]


# --- what loads ---------------------------------------------------------------------------------------


def test_costs_and_reviews_load_into_the_content(site):
    """One document or an array in a .json file, one a line in a .jsonl file (blank lines skipped):
    costs by workload digest, each run's reviews oldest first (by date, then file, then place)."""
    site.write("content/costs/seed.json", cost())
    site.write("content/reviews/b.jsonl", jsonl(review("late", date="2026-04-01T00:00:00+02:00")) + "\n"
               + jsonl(review("first", verdict="clean", date="2026-03-01")))
    site.write("content/reviews/a.json", [review("same-day-a", date="2026-03-31T22:00:00Z", verdict="under-review"),
                                          review("same-day-b", date="2026-03-31T22:00:00Z", verdict="timing-bug")])
    code, out, err = site.run("check")
    assert code == 0 and err == "" and out == "OK: 1 run on 1 problem from 1 file, no problems found\n"
    content = load_content(site.root / "content")
    assert content.costs == {WORKLOAD: WorkloadCost.model_validate(cost())}
    # 2026-04-01T00:00+02:00 is 2026-03-31T22:00Z: after a.json's two of that moment by its path
    assert [r.metadata.name for r in content.reviews[RUN]] == ["first", "same-day-a", "same-day-b", "late"]
    assert all(isinstance(r, RunReview) for r in content.reviews[RUN])
    assert content.files == 1 and len(content.runs) == 1  # (documents are not bundle files)
    site.built()


def test_the_verdicts():
    assert VERDICTS == ("clean", "reward-hack", "incorrect-output", "timing-bug", "under-review")
    assert HELD_VERDICTS == ("reward-hack", "incorrect-output", "timing-bug", "under-review")


def test_only_the_top_costs_and_reviews_folders_hold_documents(site):
    """A folder named costs/ deeper in the content holds bundles as any other; anything in the content's own
    costs/ and reviews/ but their *.json and *.jsonl files is ignored with a warning, as elsewhere."""
    site.write("content/somewhere/costs/run.json", seed_problem_run("h2", "Impl 1", 2_000_000))
    site.write("content/costs/README.md", "How we count.")
    site.write("content/costs/old/seed.json", cost())
    site.write("content/reviews/notes.txt", "x")
    site.write("content/notes.txt", "x")
    assert warned(site) == [
        "content/costs/README.md: ignored (costs/ holds WorkloadCost documents: only costs/*.json and costs/*.jsonl "
        "are read in it, and the source files runs refer to)",
        "content/costs/old/seed.json: ignored (costs/ holds WorkloadCost documents: only costs/*.json and "
        "costs/*.jsonl are read in it, and the source files runs refer to)",
        "content/notes.txt: ignored (only *.json, *.jsonl, pages/*.md and the source files runs refer to are read)",
        "content/reviews/notes.txt: ignored (reviews/ holds RunReview documents: only reviews/*.json and "
        "reviews/*.jsonl are read in it, and the source files runs refer to)",
    ]
    assert len(load_content(site.root / "content").runs) == 2
    code, _, err = site.run("check", "--strict")
    assert code == 1 and err.splitlines()[-1] == "error: 4 problems in 4 files; nothing was written"


# --- the checks across documents and runs ---------------------------------------------------------


def test_two_costs_of_one_workload_name_both_files(site):
    site.write("content/costs/a.json", cost("cost-a"))
    site.write("content/costs/b.jsonl", jsonl(cost("cost-b", OTHER_WORKLOAD), cost("cost-c")))
    site.write("content/b.json", _run_of(OTHER_WORKLOAD))
    refused(site, f"content/costs/b.jsonl:2: spec.workloadDigest: {WORKLOAD} has a cost in content/costs/a.json "
                  "already")


def _run_of(workload: str) -> dict:
    """Another run of the seed's implementation and host, of `workload`."""
    doc = copy.deepcopy(SEED)
    doc["run"]["metadata"]["name"] = "other-run"
    doc["run"]["spec"]["workloadDigest"] = workload
    return doc


def test_two_documents_of_one_kind_and_name_name_both_files(site):
    """A name is its kind's: a cost and a review may share one."""
    site.write("content/reviews/a.json", [review("shared"), review("twice", verdict="clean")])
    site.write("content/reviews/b.json", review("twice", verdict="under-review"))
    site.write("content/costs/c.json", cost("shared"))
    site.write("content/costs/d.json", cost("cost-other", OTHER_WORKLOAD))  # (a warning: no run has it)
    site.write("content/costs/e.json", [cost("cost-other", "sha256:" + "cd" * 32)])
    refused(site, "content/costs/e.json[0]: metadata.name: 'cost-other' is also the name of the WorkloadCost in "
                  "content/costs/d.json",
            "content/reviews/b.json: metadata.name: 'twice' is also the name of the RunReview in "
            "content/reviews/a.json[1]")


def test_a_review_of_a_run_not_in_the_content(site):
    site.write("content/reviews/r.json", review(run="x"))
    err = refused(site, "content/reviews/r.json: spec.run: no run named 'x' in the content")
    assert err.splitlines()[-1] == "error: 1 problem in 1 file; nothing was written"


def test_a_cost_of_a_workload_no_run_has_is_a_warning_and_not_shown(site):
    site.write("content/costs/seed.json", cost())
    site.write("content/costs/c.json", cost("cost-other", OTHER_WORKLOAD))
    assert warned(site) == [f"content/costs/c.json: no run has workload {OTHER_WORKLOAD} (its cost is not shown)"]
    assert list(load_content(site.root / "content").costs) == [WORKLOAD]
    code, _, err = site.run("check", "--strict")
    assert code == 1 and "error: 1 problem in 1 file" in err


# --- each document, as a bundle is ----------------------------------------------------------------


def test_a_document_of_another_kind_names_its_file_and_kind(site):
    site.write("content/costs/x.json", review())
    site.write("content/reviews/y.jsonl", jsonl(review(), SEED))
    site.write("content/reviews/z.json", [cost()])
    refused(site, "content/costs/x.json: kind: 'RunReview': costs/ holds WorkloadCost documents only",
            "content/reviews/y.jsonl:2: a bundle, where reviews/ holds RunReview documents (bundles go anywhere else)",
            "content/reviews/z.json[0]: kind: 'WorkloadCost': reviews/ holds RunReview documents only")


def test_a_review_with_an_unknown_verdict(site):
    site.write("content/reviews/r.json", review(verdict="cheated"))
    refused(site, "content/reviews/r.json: spec.verdict: Input should be 'clean', 'reward-hack', 'incorrect-output', "
                  "'timing-bug' or 'under-review'")


def test_a_verdict_gives_its_evidence_unless_under_review(site):
    bad = review("no-evidence")
    del bad["spec"]["evidence"]
    site.write("content/reviews/r.jsonl", jsonl(review("pending", verdict="under-review"), bad,
                                                review("ftp", evidence="ftp://x/y"),
                                                review("spaced", evidence="https://a b")))
    refused(site, "content/reviews/r.jsonl:2: spec: a 'reward-hack' verdict must give its evidence (an http(s) URL); "
                  "only 'under-review' may leave it out",
            "content/reviews/r.jsonl:3: spec.evidence: must be an http:// or https:// URL, without spaces or control "
            "characters",
            "content/reviews/r.jsonl:4: spec.evidence: must be an http:// or https:// URL, without spaces or control "
            "characters")


@pytest.mark.parametrize("date, fine", [
    ("2026-03-05", True), ("2026-03-05T08:38:15Z", True), ("2026-03-05T08:38+02:00", True),
    ("2026-02-30", False), ("2026-03-05T08:38:15", False), ("05/03/2026", False), ("2026-W10-4", False)])
def test_a_review_is_dated_by_a_day_or_a_moment(site, date, fine):
    site.write("content/reviews/r.json", review(date=date))
    if fine:
        assert warned(site) == []
        return
    message = ("must be a date that exists, YYYY-MM-DD" if date == "2026-02-30" else
               "must be a date such as 2026-03-05 or a date-time such as 2026-03-05T08:38:15Z (with a time zone: "
               "Z or ±HH:MM)")
    refused(site, f"content/reviews/r.json: spec.date: {message}")


def test_a_cost_whose_tensors_do_not_add_up_and_a_bad_count_in_an_array(site):
    wrong = cost("cost-wrong", inputBytes=134217729)
    negative = cost("cost-negative", OTHER_WORKLOAD)
    negative["spec"]["flops"]["fp32"] = -1
    huge = cost("cost-huge", "sha256:" + "cd" * 32)
    huge["spec"]["flops"]["fp32"] = 2**53
    site.write("content/costs/x.json", [cost("cost-a", "sha256:" + "ef" * 32), wrong, huge, negative])
    refused(site, "content/costs/x.json[1]: spec: inputs: its tensors' bytes add up to 134217728, not inputBytes "
                  "134217729",
            "content/costs/x.json[2]: spec.flops.fp32: Input should be less than or equal to 9007199254740991",
            "content/costs/x.json[3]: spec.flops.fp32: Input should be greater than or equal to 0")


def test_fields_the_format_does_not_know(site):
    """A near miss of a known field is an error naming it; any other unknown field a warning."""
    site.write("content/reviews/r.json", review(evidense="https://x.org", notes="see the thread"))
    refused(site, "content/reviews/r.json: spec.evidense: unknown field (did you mean 'evidence'?)")
    site.write("content/reviews/r.json", review(notes="see the thread"))
    assert warned(site) == ["content/reviews/r.json: spec.notes: unknown field"]


@pytest.mark.parametrize("data, said", [
    (b'{"kind": "RunReview", "spec": {"reason": "caf\xe9"}}', "not UTF-8 (byte 45: b'\\xe9')"),
    (b"\xef\xbb\xbf{}", "starts with a byte-order mark; save it as UTF-8 without BOM"),
    (b'{"kind": "RunReview", "kind": "RunReview"}', "duplicate key 'kind'"),
    (b'{"kind": "RunReview", "spec": {"n": NaN}}', "spec.n: NaN is not a JSON number"),
    (b"", "file is empty"),
], ids=["not-utf8", "bom", "duplicate-key", "nan", "empty"])
def test_a_file_that_is_not_strict_json(site, data, said):
    site.write("content/reviews/r.json", data)
    refused(site, f"content/reviews/r.json: {said}")


def test_a_jsonl_file_names_the_line_of_each_problem(site):
    """Line 3 (after a blank line) is broken; the others are read and checked."""
    site.write("content/reviews/r.jsonl", jsonl(review("a")) + "\n" + '{"kind": "RunReview" "spec": {}}\n'
               + jsonl(review("b", run="nobody"), review("c", verdict="clean", reason="")))
    refused(site, "content/reviews/r.jsonl:3: invalid JSON at column 22: Expecting ',' delimiter",
            "content/reviews/r.jsonl:5: spec.reason: String should have at least 1 character",
            "content/reviews/r.jsonl:4: spec.run: no run named 'nobody' in the content")


def test_an_empty_array_is_warned_about(site):
    site.write("content/costs/none.json", [])
    assert warned(site) == ["content/costs/none.json: holds an empty array: no document"]


def test_a_file_and_a_document_are_bounded_as_bundles_are(site, monkeypatch):
    """A .json file of more than MAX_JSON_BYTES is refused unread; a document a page may show whole, over
    MAX_DOCUMENT_BYTES of JSON, is refused naming the field that holds most of it."""
    monkeypatch.setattr(jsonread, "MAX_JSON_BYTES", 2**20)
    site.write("content/costs/big.json", [cost(note="x" * 2**20)])
    site.write("content/reviews/r.json", review(thread="x" * 70_000))
    refused(site, "content/costs/big.json: 1 MiB is more than a .json file may hold (1 MiB); write large corpora "
                  "as .jsonl, one bundle per line",
            "content/reviews/r.json: spec.thread: the document is 70,339 bytes of JSON (70,002 of them here), more "
            "than the 64 KiB a page shows of one")


# --- a resident builder ---------------------------------------------------------------------------


def _snapshot(folder) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _broken_cost(project):
    doc = cost()
    doc["spec"]["inputBytes"] = 1
    return [project.write("content/costs/seed.json", doc)]


def _second_review(project):
    return [project.write("content/reviews/r.jsonl", jsonl(review(), review("review-2", verdict="clean",
                                                                            date="2026-03-07")))]


def _gone(project, rel: str):
    (project.root / rel).unlink()
    return [project.root / rel]


# Each changes the content and returns the paths a watcher names; None where the builder must refuse it,
# naming what is wrong as a clean build does.
RESIDENT_EDITS = {
    "a-cost-added": (lambda p: [p.write("content/costs/seed.json", cost())], None),
    "a-review-added": (lambda p: [p.write("content/reviews/r.jsonl", jsonl(review()))], None),
    "the-cost-made-invalid": (_broken_cost, "content/costs/seed.json: spec: inputs: its tensors' bytes add up to "
                                            "134217728, not inputBytes 1"),
    "the-cost-mended": (lambda p: [p.write("content/costs/seed.json", cost(parameterBytes=4))], None),
    "a-review-of-no-run": (lambda p: [p.write("content/reviews/r.jsonl", jsonl(review(run="gone")))],
                           "content/reviews/r.jsonl:1: spec.run: no run named 'gone' in the content"),
    "the-review-mended-and-another-added": (_second_review, None),
    "a-run-edited-elsewhere": (lambda p: [p.write("content/seed.json", _observed_later(SEED))], None),
    "its-run-gone": (lambda p: _gone(p, "content/seed.json"),
                     "content/reviews/r.jsonl:1: spec.run: no run named '" + RUN + "' in the content"),
    "its-run-back": (lambda p: [p.write("content/seed.json", SEED)], None),
    "the-cost-deleted": (lambda p: _gone(p, "content/costs/seed.json"), None),
    "the-reviews-deleted": (lambda p: _gone(p, "content/reviews/r.jsonl"), None),
}


def _observed_later(doc: dict) -> dict:
    doc = copy.deepcopy(doc)
    doc["run"]["spec"]["observedAt"] = "2026-03-06T00:00:00Z"
    return doc


def test_a_resident_builder_rebuilds_costs_and_reviews_as_a_clean_build(project, always_incremental):
    """`serve` and `build --watch`, told the paths each edit changed: after each, the site is a clean
    build's, byte for byte, with its warnings; an invalid document keeps the last site, the builder's
    errors naming it as the clean build's do."""
    from kindex_site.config import load_config
    from kindex_site.watch import Builder

    project.write("content/seed.json", SEED)
    project.write("content/b.json", _run_of(OTHER_WORKLOAD))
    out = (project.root / "site").absolute()
    builder = Builder(None, {"output_dir": "site"}, load_config(None, {}), out, serving=False)
    builder.rebuild([], first=True)
    for name, (edit, problem) in RESIDENT_EDITS.items():
        last_good = _snapshot(out)
        builder.rebuild([str(p) for p in edit(project)])
        code, _, err = project.build("--out", "clean", "--clean")
        if problem is not None:
            assert code == 1 and problem in err.splitlines(), (name, err)
            assert problem in builder.errors, (name, builder.errors)
            assert _snapshot(out) == last_good, name
            continue
        assert code == 0 and not builder.errors, (name, err, builder.errors)
        assert _snapshot(out) == _snapshot(project.root / "clean"), name
        assert [f"warning: {w}" for w in builder.shown_warnings or []] == [
            line for line in err.splitlines() if line.startswith("warning:")], name
        shutil.rmtree(project.root / "clean")


def _seen(content) -> tuple:
    return ({d: c.model_dump_json() for d, c in content.costs.items()},
            {run: [r.model_dump_json() for r in said] for run, said in content.reviews.items()},
            content.warnings, [r.name for r in content.runs], content.files, list(content.digests))


# Edits of the documents and around them, each after the ones before it: (edit, the documents files it
# must read again). A patched load reads those alone, and gives what a whole pass gives.
PATCHED_EDITS = {
    "a-cost-added": (lambda p: p.write("content/costs/a.json", cost()), 1),
    "reviews-added": (lambda p: p.write("content/reviews/r.jsonl", jsonl(review(), review("b", date="2026-01-01"))), 1),
    "a-bundle-edited": (lambda p: p.write("content/seed.json", _observed_later(SEED)), 0),
    "a-second-review-file-first-in-path-order": (lambda p: p.write("content/reviews/0.json", [review("c")]), 1),
    "a-cost-of-no-run-s-workload": (lambda p: p.write("content/costs/b.jsonl", jsonl(cost("o", OTHER_WORKLOAD))), 1),
    "the-run-of-that-workload-added": (lambda p: p.write("content/other.json", _run_of(OTHER_WORKLOAD)), 0),
    "a-page-added": (lambda p: p.write("content/pages/notes.md", "# Notes\n"), 0),
    "a-cost-edited": (lambda p: p.write("content/costs/a.json", cost(parameterBytes=4)), 1),
    "a-review-file-deleted": (lambda p: (p.root / "content/reviews/0.json").unlink(), 0),
    "an-ignored-file-in-costs": (lambda p: p.write("content/costs/notes.txt", "x"), 0),
    "the-run-gone-its-cost-warned-of": (lambda p: (p.root / "content/other.json").unlink(), 0),
}


def test_a_patched_load_reads_only_the_changed_documents_and_equals_a_whole_pass(site, monkeypatch):
    """A resident builder's load (LoadState.patched) after each edit: the costs, reviews and warnings a
    whole pass gives, having read again only the costs/ and reviews/ files changed (none for an edit
    elsewhere), and without a pass over every file."""
    monkeypatch.setattr(listing, "RACY_NS", 0)  # (each edit comes long after the last read)
    content_dir = site.root / "content"
    memo, last, known = {}, loadstate.LoadState(), sources.SourceChecks()
    read, passes = [], []
    reading, add = loadstate.read_documents, load._CrossFile.add
    monkeypatch.setattr(loadstate, "read_documents", lambda f: read.append(f.rel) or reading(f))
    monkeypatch.setattr(load._CrossFile, "add", lambda self, *a: passes.append(1) or add(self, *a))

    def patched():
        return load_content(content_dir, reuse=load.Kept(memo, cache.snapshot(content_dir), known, None, last))

    patched()
    for name, (edit, most_read) in PATCHED_EDITS.items():
        edit(site)
        read.clear(), passes.clear()
        content = patched()
        assert len(read) == most_read and not passes, (name, read, passes)
        assert _seen(content) == _seen(load_content(content_dir)), name
    assert list(content.costs) == [WORKLOAD] and [r.metadata.name for r in content.reviews[RUN]] == ["b", "review-1"]


def test_a_patched_load_refuses_an_invalid_document_and_recovers(site, monkeypatch):
    monkeypatch.setattr(listing, "RACY_NS", 0)
    content_dir = site.root / "content"
    memo, last, known = {}, loadstate.LoadState(), sources.SourceChecks()

    def patched():
        return load_content(content_dir, reuse=load.Kept(memo, cache.snapshot(content_dir), known, None, last))

    site.write("content/reviews/r.json", review())
    patched()
    site.write("content/reviews/r.json", review(verdict="cheated"))
    with pytest.raises(load.KindexError) as raised:
        patched()
    assert raised.value.errors == ["content/reviews/r.json: spec.verdict: Input should be 'clean', 'reward-hack', "
                                   "'incorrect-output', 'timing-bug' or 'under-review'"]
    site.write("content/reviews/r.json", review(verdict="clean"))
    assert [r.spec.verdict for r in patched().reviews[RUN]] == ["clean"]
    site.write("content/reviews/r.json", review(verdict="timing-bug"))
    assert _seen(patched()) == _seen(load_content(content_dir))
