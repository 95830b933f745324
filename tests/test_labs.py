"""A lab owns its runs, and a table's reference is the publisher's: a run may claim only a lab its folder
speaks for, replaces only runs of its own folder, and becomes a reference only as the publisher's
(about page, "Labs" and "Speedups")."""

from __future__ import annotations

import pytest

from conftest import SEED, latency_tables, seed_problem_run, visible_text

PROBLEM = "level2-84-gemm-batchnorm-scaling-softmax"  # the seed's
HOST = SEED["environment"]["metadata"]["name"]
SEED_RUN = SEED["run"]["metadata"]["name"]  # PyTorch eager · Lambda Labs, 4.94 ms, at the content root
FUSED = "sha256:" + "f" * 64  # Lab A's fused kernel, as its runs publish it


def lab_run(implementation: str, lab: str, mean: int, name: str, observed: str = "2026-03-05T08:38:15Z",
            digest: str | None = None) -> dict:
    doc = seed_problem_run(HOST, implementation, mean) | {"environment": SEED["environment"]}
    doc["run"]["metadata"].update(name=name, title=f"Gemm BatchNorm Scaling Softmax · {implementation} · {lab}")
    doc["run"]["spec"]["observedAt"] = observed
    if digest is not None:
        doc["run"]["spec"]["implementationDigest"] = digest
    return doc


def lab_a(project) -> None:
    """The publisher's reference at the content root and Lab A's fused kernel in its folder: 2.47× (rank 1)."""
    project.write("content/seed.json", SEED)
    project.write("content/lab-a/fused.json", lab_run("Fused Triton", "Lab A", 2_000_000, "lab-a-fused", digest=FUSED))


def board(project) -> dict:
    (only,) = project.api(f"problems/{PROBLEM}.json")["boards"]
    return only


def rows(project) -> list[str]:
    """The implementation cells of the current table, in its order."""
    (table,) = latency_tables(project.page(f"problems/{PROBLEM}"))
    return [row[1] for row in table["rows"][1:]]


def warnings_of(project, code: str) -> list[dict]:
    return [w for w in board(project)["warnings"] if w["code"] == code]


# --- A lab owns its runs -----------------------------------------------------------------------------------


def test_a_run_claiming_another_labs_name_warns_foreign_lab_and_moves_none_of_that_labs_runs(project):
    lab_a(project)
    project.write("content/hostile-lab/fused.json", lab_run(
        "Fused Triton", "Lab A", 400_000_000, "hostile-fused", observed="2026-06-01T00:00:00Z", digest=FUSED))

    code, _, err = project.run("check", "--strict")
    assert code == 1
    (line,) = [line for line in err.splitlines() if "hostile-fused" in line]
    for said in ("content/hostile-lab/fused.json", "foreign-lab", "run hostile-fused", "claims the lab 'Lab A'",
                 "its folder hostile-lab/ may not speak for", "the lab whose name slugs to 'hostile-lab'",
                 "Move it to its lab's folder (lab-a/", "under [labs] in kindex.toml"):
        assert said in line, said

    code, _, err = project.build()
    assert code == 0, err
    shown = board(project)
    current = {e["run"]: e for e in shown["entries"]}
    assert set(current) == {SEED_RUN, "lab-a-fused", "hostile-fused"} and shown["history"] == []
    assert current["lab-a-fused"]["rank"] == 1 and current["lab-a-fused"]["superseded_by"] is None
    assert current["lab-a-fused"]["speedup"]["value"] == pytest.approx(2.47)
    assert shown["reference"] == SEED_RUN
    (warning,) = warnings_of(project, "foreign-lab")
    assert warning["runs"] == ["hostile-fused"]
    assert rows(project)[0] == "Fused Triton · Lab A"  # Lab A's run still leads its table
    assert "foreign-lab" in visible_text(project.page(f"problems/{PROBLEM}"))


def test_a_run_of_the_same_kernel_by_another_lab_is_shown_beside_it_as_a_current_run_of_its_own(project):
    lab_a(project)
    project.write("content/lab-b/fused.json", lab_run(
        "Fused Triton", "Lab B", 3_000_000, "lab-b-fused", observed="2026-06-01T00:00:00Z", digest=FUSED))

    code, _, err = project.run("check", "--strict")
    assert code == 0, err
    project.built()
    shown = board(project)
    assert {e["run"] for e in shown["entries"]} == {SEED_RUN, "lab-a-fused", "lab-b-fused"}
    assert shown["history"] == [] and shown["warnings"] == []
    assert rows(project) == ["Fused Triton · Lab A", "Fused Triton · Lab B", "PyTorch eager · Lambda Labs reference"]


def test_a_labs_rerun_in_its_own_folder_still_replaces_its_earlier_run(project):
    lab_a(project)
    project.write("content/lab-a/again.json", lab_run(
        "Fused Triton", "Lab A", 1_900_000, "lab-a-again", observed="2026-06-01T00:00:00Z", digest=FUSED))
    code, _, err = project.run("check", "--strict")
    assert code == 0, err
    project.built()
    shown = board(project)
    assert [e["run"] for e in shown["history"]] == ["lab-a-fused"]
    assert shown["history"][0]["superseded_by"] == "lab-a-again"


def test_a_folder_listed_under_labs_speaks_for_the_labs_it_lists(project):
    lab_a(project)
    project.write("content/imports/fused.json", lab_run("Fused Triton", "Lab B", 3_000_000, "imported", digest=FUSED))
    code, _, err = project.run("check", "--strict")
    assert code == 1 and "claims the lab 'Lab B', which its folder imports/ may not speak for" in err
    project.write("kindex.toml", '[labs]\nimports = ["Lab B", "Lab C"]\n')
    code, _, err = project.run("check", "--strict")
    assert code == 0, err
    project.write("kindex.toml", '[labs]\nimports = ["Lab C"]\n')
    code, _, err = project.run("check", "--strict")
    assert code == 1 and "(kindex.toml's [labs] lets it speak for 'Lab C')" in err


# --- References are the publisher's --------------------------------------------------------------------


@pytest.mark.parametrize("folder, lab", [
    ("hostile-lab", "Hostile Lab"),  # its own lab, not the publisher's
    ("hostile-lab", "Lambda Labs"),  # the publisher's lab, claimed from a folder that may not speak for it
])
def test_another_labs_backdated_reference_run_never_becomes_the_reference_in_a_plain_build(project, folder, lab):
    project.write("kindex.toml", 'publisher_labs = ["Lambda Labs"]\n')
    lab_a(project)
    project.write(f"{'content/' + folder}/eager.json", lab_run(
        "PyTorch eager", lab, 60_000_000, "hostile-eager", observed="2020-01-01T00:00:00Z"))

    code, _, err = project.build()
    assert code == 0, err
    shown = board(project)
    assert shown["reference"] == SEED_RUN
    current = {e["run"]: e for e in shown["entries"]}
    assert current["lab-a-fused"]["speedup"]["value"] == pytest.approx(2.47)  # not 30×
    assert current["hostile-eager"]["reference"] is False
    assert current["hostile-eager"]["speedup"]["value"] == pytest.approx(4.94 / 60)
    assert rows(project)[1] == "PyTorch eager · Lambda Labs reference"


@pytest.mark.parametrize("publisher", ["", 'publisher_labs = ["Lambda Labs"]\n'])
def test_a_run_named_in_reference_runs_is_the_reference(project, publisher):
    lab_a(project)
    project.write("content/lab-b/eager.json", lab_run(
        "PyTorch eager", "Lab B", 5_000_000, "lab-b-eager", observed="2026-06-01T00:00:00Z"))
    project.built()
    assert board(project)["reference"] == SEED_RUN  # the earliest, or the publisher's

    project.write("kindex.toml", publisher + 'reference_runs = ["lab-b-eager"]\n')
    code, _, err = project.run("check", "--strict")
    assert code == 0, err
    project.built()
    shown = board(project)
    assert shown["reference"] == "lab-b-eager"
    current = {e["run"]: e for e in shown["entries"]}
    assert current["lab-a-fused"]["speedup"]["value"] == pytest.approx(2.5)
    assert current[SEED_RUN]["reference"] is False
    assert "PyTorch eager · Lab B reference" in rows(project)


def test_with_publisher_labs_a_table_without_the_publishers_run_has_no_reference_and_says_so(project):
    project.write("kindex.toml", 'publisher_labs = ["Publisher Lab"]\n')
    project.write("content/hostile-lab/eager.json", lab_run("PyTorch eager", "Hostile Lab", 450_000, "hostile-eager"))
    project.write("content/hostile-lab/fused.json", lab_run("Fused Triton", "Hostile Lab", 48_000, "hostile-fused"))

    code, _, err = project.build()
    assert code == 0, err
    shown = board(project)
    assert shown["reference"] is None and all(e["speedup"] is None for e in shown["entries"])
    (warning,) = warnings_of(project, "no-publisher-reference")
    assert warning["runs"] == ["hostile-eager"]
    text = visible_text(project.page(f"problems/{PROBLEM}"))
    assert "no single PyTorch eager run here, so no speedups" in text
    assert ("1 run of PyTorch eager (hostile-eager (Hostile Lab)) is listed as a run of its own, not as this "
            "table's reference: the reference is the publisher's: a run of a lab in publisher_labs (Publisher Lab)") in text
    assert "9.4" not in " ".join(" ".join(row) for row in latency_tables(project.page(f"problems/{PROBLEM}"))[0]["rows"])


# --- Rebuilds ---------------------------------------------------------------------------------------------


def rebuild_matches_clean(project) -> None:
    code, _, err = project.build()
    assert code == 0, err
    code, _, err = project.build("--out", "clean", "--clean")
    assert code == 0, err
    clean = project.root / "clean"
    assert project.snapshot() == {p.relative_to(clean).as_posix(): p.read_bytes()
                                  for p in sorted(clean.rglob("*")) if p.is_file()}


def test_rebuilds_after_a_lab_setting_or_a_run_moved_between_lab_folders_equal_clean_builds(project, always_incremental):
    lab_a(project)
    project.write("content/hostile-lab/fused.json", lab_run(
        "Fused Triton", "Lab A", 400_000_000, "hostile-fused", observed="2026-06-01T00:00:00Z", digest=FUSED))
    project.write("content/hostile-lab/eager.json", lab_run(
        "PyTorch eager", "Hostile Lab", 60_000_000, "hostile-eager", observed="2020-01-01T00:00:00Z"))
    project.built()
    assert board(project)["reference"] == "hostile-eager"  # (no publisher named: the earliest)
    assert warnings_of(project, "foreign-lab")

    project.write("kindex.toml", 'publisher_labs = ["Lambda Labs"]\n')
    rebuild_matches_clean(project)
    assert board(project)["reference"] == SEED_RUN

    project.write("kindex.toml", 'publisher_labs = ["Lambda Labs"]\n\n[labs]\nhostile-lab = ["Lab A", "Hostile Lab"]\n')
    rebuild_matches_clean(project)
    assert not warnings_of(project, "foreign-lab") and board(project)["history"] == []  # (still another folder)

    (project.root / "content/hostile-lab/fused.json").rename(project.root / "content/lab-a/later.json")
    rebuild_matches_clean(project)
    assert [e["run"] for e in board(project)["history"]] == ["lab-a-fused"]  # one folder: the later run replaces it


def test_an_import_into_a_folder_no_labs_entry_names_is_said_once_per_lab_not_once_per_run(project):
    lab_a(project)
    for n in range(5):
        project.write(f"content/imports/k{n}.json", lab_run(f"Kernel {n}", "Lab B", 3_000_000 + n, f"imported-{n}"))
    code, _, err = project.run("check", "--strict")
    assert code == 1
    (line,) = [line for line in err.splitlines() if "foreign-lab" in line]
    assert "5 runs (imported-0 (imports/k0.json), imported-1 (imports/k1.json), imported-2 (imports/k2.json) and 2 " \
           "more) claim the lab 'Lab B', which its folder imports/ may not speak for" in line
    assert err.rstrip().endswith("error: 1 problem in 1 file; nothing was written"), err
