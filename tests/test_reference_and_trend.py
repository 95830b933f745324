"""Two things a table cannot tell from its runs, and must say so rather than guess: which of two
reference runs the speedups are against, and which of two runs observed at the same time came first."""

from __future__ import annotations

import json

import pytest

from conftest import DELETE, SEED, bundle, latency_tables, seed_problem_run, visible_text

PROBLEM = "level2-84-gemm-batchnorm-scaling-softmax"  # the seed's
HOST = "kernelbench-h100-pcie-lambdalabs"
SEED_RUN = SEED["run"]["metadata"]["name"]


def on_seed_host(implementation: str, mean: int, name: str) -> dict:
    doc = seed_problem_run(HOST, implementation, mean) | {"environment": SEED["environment"]}
    doc["run"]["metadata"]["name"] = name
    return doc


def board(project) -> dict:
    (only,) = project.api(f"problems/{PROBLEM}.json")["boards"]
    return only


def warning_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("warning: ")]


# --- Two current reference runs on one table ---------------------------------------------------------


def second_eager_run(project, lab: str = "Lambda Labs") -> str:
    """The seed, a faster run, and a second PyTorch eager run of another implementation digest, added
    as a lab submits one (README, "Submit your results"), by the seed's own lab unless told; the new
    run's name."""
    project.write("content/seed.json", SEED)
    project.write("content/fast.json", on_seed_host("Fast", 2_000_000, "fast"))
    project.write("eager.py", "import torch\n\ndef forward(x):\n    return torch.softmax(x, 1)\n")
    assert project.run("check", "--strict")[0] == 0
    code, out, err = project.run(
        "new-run", "--problem", PROBLEM, "--host", HOST, "--implementation", "PyTorch eager", "--lab", lab,
        "--mean-ms", "4.90", "--ci-ms", "4.88", "4.92", "--samples", "100", "--source", "eager.py")
    assert code == 0, err
    (path,) = (project.root / "content" / lab.lower().replace(" ", "-")).glob("*.json")
    return json.loads(path.read_text(encoding="utf-8"))["run"]["metadata"]["name"]


def test_a_second_reference_run_on_a_table_fails_a_strict_check_naming_both(project):
    added = second_eager_run(project)

    code, _, err = project.run("check", "--strict")
    assert code == 1
    (line,) = [line for line in err.splitlines() if SEED_RUN in line]
    for said in ("'Gemm BatchNorm Scaling Softmax'", HOST, SEED_RUN, added, "PyTorch eager",
                 "speedups on this table are left out until one reference remains"):
        assert said in line, said

    code, _, err = project.run("check")  # without --strict: said, and passed
    assert code == 0
    assert [line for line in warning_lines(err) if SEED_RUN in line and added in line]


def test_a_second_reference_run_is_warned_about_by_the_build_and_under_the_table(project):
    added = second_eager_run(project)

    code, _, err = project.build()
    assert code == 0, err
    assert [line for line in warning_lines(err) if SEED_RUN in line and added in line and HOST in line]
    shown = board(project)
    assert shown["reference"] is None and all(e["speedup"] is None for e in shown["entries"])
    (warning,) = [w for w in shown["warnings"] if w["code"] == "several-references"]
    assert sorted(warning["runs"]) == sorted([SEED_RUN, added])
    text = visible_text(project.page(f"problems/{PROBLEM}"))
    assert "several-references" in text and added in text


def test_another_labs_reference_run_is_a_run_of_its_own_never_the_reference(project):
    added = second_eager_run(project, lab="Example Lab")
    code, _, err = project.run("check", "--strict")
    assert code == 0, err  # nothing the table cannot tell: the reference is the seed's lab's
    project.built()
    shown = board(project)
    assert shown["reference"] == SEED_RUN and shown["warnings"] == []
    runs = {e["run"]: e for e in shown["entries"]}
    assert runs[added]["reference"] is False and runs[added]["speedup"]["value"] == pytest.approx(4.94 / 4.90)
    (table,) = latency_tables(project.page(f"problems/{PROBLEM}"))
    # (another digest; its source is linked beside its name)
    assert "PyTorch eager (06ba0dac) · Example Lab" in [row[1].removesuffix(" source") for row in table["rows"][1:]]


def test_one_reference_run_has_speedups_and_no_warning(project):
    project.write("content/seed.json", SEED)
    project.write("content/fast.json", on_seed_host("Fast", 2_000_000, "fast"))
    code, _, err = project.run("check", "--strict")
    assert code == 0, err
    project.built()
    shown = board(project)
    assert shown["reference"] == SEED_RUN and shown["warnings"] == []


# --- Runs of one implementation observed at the same time ---------------------------------------------


def same_time_runs(project, slower: str, faster: str) -> None:
    """The seed and two runs of one implementation (one label, one digest), the seed's observedAt each."""
    project.write("content/seed.json", SEED)
    project.write("content/a.json", on_seed_host("Fast", 2_000_000, faster))
    project.write("content/b.json", on_seed_host("Fast", 4_000_000, slower))


def test_runs_observed_at_the_same_time_have_no_trend_between_them(project):
    for slower, faster in [("fast-b", "fast-a"), ("fast-a", "fast-b")]:  # (whichever name sorts last)
        for path in (project.root / "content").glob("*.json"):
            path.unlink()
        same_time_runs(project, slower, faster)
        code, _, err = project.build()
        assert code == 0, err
        shown = board(project)
        fast = [e for e in shown["entries"] + shown["history"] if e["implementation"] == "Fast"]
        assert [e["trend"] for e in fast] == [None, None]
        # Which is current still follows one stated rule: the name that sorts last.
        (current,) = [e for e in shown["entries"] if e["implementation"] == "Fast"]
        assert current["run"] == "fast-b"
        assert "No implementation's latest run regressed or improved beyond noise" in visible_text(project.page("/"))
        (table,) = latency_tables(project.page(f"problems/{PROBLEM}"))
        assert [row[1] for row in table["rows"][1:]] == ["Fast · Somewhere", "PyTorch eager · Lambda Labs reference"]  # (no trend flag)


def test_runs_observed_at_the_same_time_fail_a_strict_check_naming_them(project):
    same_time_runs(project, "fast-b", "fast-a")
    code, _, err = project.run("check", "--strict")
    assert code == 1
    (line,) = [line for line in err.splitlines() if "fast-a" in line]
    for said in ("fast-b", "Fast", HOST, "'Gemm BatchNorm Scaling Softmax'", SEED["run"]["spec"]["observedAt"]):
        assert said in line, said
    code, _, err = project.build()
    assert code == 0
    assert [line for line in warning_lines(err) if "fast-a" in line and "fast-b" in line]
    (warning,) = [w for w in board(project)["warnings"] if w["code"] == "unordered-runs"]
    assert sorted(warning["runs"]) == ["fast-a", "fast-b"]


def test_a_run_without_observed_at_is_ordered_against_none_of_its_implementations_runs(project):
    project.write("content/seed.json", SEED)
    project.write("content/a.json", on_seed_host("Fast", 2_000_000, "fast-a"))  # (observed)
    project.write("content/b.json", bundle({"run.spec.observedAt": DELETE}, name="fast-b", mean=4_000_000,
                                           title="Gemm BatchNorm Scaling Softmax · Fast · Somewhere"))
    code, _, err = project.run("check", "--strict")
    assert code == 1
    (line,) = [line for line in err.splitlines() if "fast-b" in line]
    assert "fast-b without observedAt" in line
    project.built()
    shown = board(project)
    fast = [e for e in shown["entries"] + shown["history"] if e["implementation"] == "Fast"]
    assert [e["trend"] for e in fast] == [None, None]
    (current,) = [e for e in shown["entries"] if e["implementation"] == "Fast"]
    assert current["run"] == "fast-a"  # a run without observedAt counts as the earliest


def test_a_rerun_observed_later_still_has_its_trend(project):
    project.write("content/seed.json", SEED)
    project.write("content/a.json", on_seed_host("Fast", 2_000_000, "fast-a"))
    later = on_seed_host("Fast", 4_000_000, "fast-b")
    later["run"]["spec"]["observedAt"] = "2026-03-06T00:00:00Z"
    project.write("content/b.json", later)
    code, _, err = project.run("check", "--strict")
    assert code == 0, err
    project.built()
    (current,) = [e for e in board(project)["entries"] if e["implementation"] == "Fast"]
    assert current["run"] == "fast-b"
    assert current["trend"]["verdict"] == "regressed" and current["trend"]["previous"] == "fast-a"
    (table,) = latency_tables(project.page(f"problems/{PROBLEM}"))
    assert [row[1] for row in table["rows"][1:]] == ["Fast · Somewhere regressed", "PyTorch eager · Lambda Labs reference"]


# --- Rebuilds say and show what clean builds do -----------------------------------------------------------


def test_a_rebuild_from_stored_rankings_warns_and_shows_as_a_clean_build(project, always_incremental):
    second_eager_run(project)
    project.write("content/a.json", on_seed_host("Fast", 2_000_000, "fast-a"))
    project.write("content/b.json", on_seed_host("Fast", 4_000_000, "fast-b"))
    code, _, err = project.build()
    assert code == 0, err
    said = warning_lines(err)
    assert len(said) == 2
    # Another problem added: this one's boards come back from the stored rankings, warnings and all.
    other = seed_problem_run(HOST, "Fast", 3_000_000) | {"environment": SEED["environment"]}
    other["run"]["metadata"]["name"] = "other-problem"
    other["run"]["spec"]["sourceNative"]["externalId"] = "H100_PCIe_LambdaLabs/torch/level1/1_Other.py"
    other["run"]["spec"]["workloadDigest"] = "sha256:" + "1" * 64
    project.write("content/other.json", other)
    code, _, err = project.build()
    assert code == 0, err
    assert warning_lines(err) == said
    code, _, err = project.build()  # nothing changed: the warnings the last build said
    assert code == 0 and warning_lines(err) == said
    code, _, err = project.build("--out", "clean", "--clean")
    assert code == 0 and warning_lines(err) == said
    site = {p.relative_to(project.root / "site"): p.read_bytes() for p in (project.root / "site").rglob("*") if p.is_file()}
    clean = {p.relative_to(project.root / "clean"): p.read_bytes() for p in (project.root / "clean").rglob("*") if p.is_file()}
    assert site == clean
