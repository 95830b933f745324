"""What a summary counts, said where it shows (about page, "Summaries"): an implementation with no run on
a host's newest workloads is summarised on the earlier ones that have a reference run, labelled so, or
said to be not comparable, never shown as 0; coverage beside fast_p; one count of problems everywhere."""

from __future__ import annotations

from conftest import seed_problem_run, tables, visible_text

EAGER, COMPILE, OVERHEAD = "PyTorch eager", "torch.compile", "torch.compile (reduce-overhead)"


def kb(level: int, n: int, impl: str, mean: int, workload: str = "new", observed: str = "2025-07-21T00:00:00Z",
       host: str = "h", title: str | None = None) -> dict:
    """A KernelBench run of level/n at one of its workloads (a problem's sizes changed: another workload)."""
    doc = seed_problem_run(host, impl, mean)
    spec = doc["run"]["spec"]
    spec["timing"]["latencyNs"] = {"mean": mean, "minimum": mean, "maximum": mean, "confidence95": [mean, mean]}
    spec["measurements"] = []
    spec["observedAt"] = observed
    doc["run"]["metadata"]["name"] = f"{host}-l{level}-p{n}-{workload}-{impl.split()[-1].strip('()').lower()}"
    spec["sourceNative"]["externalId"] = f"H/t/level{level}/{n}_{title or f'Problem_{n}'}.py"
    spec["workloadDigest"] = "sha256:" + f"{level:x}{n:x}{title or ''}{workload}".encode().hex().ljust(64, "0")[:64]
    return doc


def earlier_and_newer(earlier_eager: bool) -> list[dict]:
    """Two problems, each timed at an earlier workload (reduce-overhead only, or with eager) and a newer one
    (eager and compile)."""
    runs = []
    for n in (1, 2):
        runs += [kb(1, n, EAGER, 2_000_000), kb(1, n, COMPILE, 1_000_000),
                 kb(1, n, OVERHEAD, 500_000, workload="old", observed="2025-01-20T00:00:00Z")]
        if earlier_eager:
            runs.append(kb(1, n, EAGER, 400_000 * n, workload="old", observed="2025-01-20T00:00:00Z"))
    return runs


def test_runs_only_on_an_earlier_workload_without_a_reference_are_said_not_comparable(project):
    project.write("content/a.json", earlier_and_newer(earlier_eager=False))
    project.built()
    [compiled, overhead] = project.api("hosts/h.json")["implementations"]
    assert (compiled["implementation"], compiled["basis"]) == (COMPILE, "current")
    assert (overhead["implementation"], overhead["basis"]) == (OVERHEAD, "uncompared")
    why = "Not comparable: 2 runs on earlier workloads, which have no PyTorch eager run on this host"
    assert overhead["why_not_compared"] == why
    assert overhead["levels"]["all"]["uncompared_runs"] == 2
    rows = [(page, r) for page in ("", "hosts/h") for t in tables(project.page(page)) for r in t["rows"]
            if r[0].startswith(OVERHEAD)]
    # Its row on the home page and in each of the host page's two tables (level 1, all levels) says why, and
    # shows no count or share, which would not be a measurement.
    assert [page for page, _ in rows] == ["", "hosts/h", "hosts/h"]
    assert all(r == [f"{OVERHEAD} not comparable", why] for _, r in rows), rows
    # What the charts draw is what was compared.
    assert "fast_0 0" not in visible_text(project.page("hosts/h"))


def test_an_earlier_workload_with_a_reference_is_summarised_and_labelled(project):
    project.write("content/a.json", earlier_and_newer(earlier_eager=True))
    project.built()
    [compiled, overhead] = project.api("hosts/h.json")["implementations"]
    assert (overhead["basis"], overhead["observed"]) == ("earlier", {"first": "2025-01-20T00:00:00Z",
                                                                     "last": "2025-01-20T00:00:00Z"})
    # On the earlier workloads eager took 0.4 and 0.8 ms, reduce-overhead 0.5 ms: 0.8× and 1.6×.
    everything = overhead["levels"]["all"]
    assert (everything["attempted"], everything["fast_p_count"]["0"], everything["fast_p_count"]["1"]) == (2, 2, 1)
    host = tables(project.page("hosts/h"))
    row = next(t for t in host if t["caption"].startswith("All levels on Host h"))["rows"][2]
    assert row[0] == f"{OVERHEAD} on earlier workloads, timed 2025-01-20"
    assert row[1:4] == ["2 of 2", "2 (100%)", "1 (50%)"]
    # Listed after the summaries of the newest workloads, whatever its fast_1.
    assert [s["implementation"] for s in project.api("hosts/h.json")["implementations"]] == [COMPILE, OVERHEAD]


def test_coverage_stands_beside_fast_p_with_what_is_timed_elsewhere(project):
    project.write("content/a.json", [
        kb(1, 1, EAGER, 2_000_000), kb(1, 1, COMPILE, 1_000_000),
        kb(1, 2, EAGER, 2_000_000),
        kb(1, 2, COMPILE, 1_000_000, workload="old", observed="2025-01-20T00:00:00Z"),
        kb(1, 3, EAGER, 2_000_000),
    ])
    project.built()
    [compiled] = project.api("hosts/h.json")["implementations"]
    everything = compiled["levels"]["all"]
    assert (everything["suite"], everything["attempted"], everything["timed_elsewhere"]) == (3, 1, 1)
    [home] = tables(project.page(""), "best")
    assert home["rows"][0][-2] == "Attempted, all"
    assert home["rows"][1][-2] == "1 of 3 (+1 on earlier workloads only)"
    level = next(t for t in tables(project.page("hosts/h/levels/1")) if t["caption"].startswith("Level 1 on Host h"))
    assert level["rows"][1][1] == "1 of 3 (+1 on earlier workloads only)"


def test_all_levels_is_over_the_levels_something_was_compared_in_and_says_so(project):
    project.write("content/a.json", [
        kb(1, 1, EAGER, 2_000_000), kb(1, 1, COMPILE, 1_000_000),
        kb(2, 1, EAGER, 2_000_000), kb(2, 1, COMPILE, 3_000_000),
        kb(3, 1, EAGER, 2_000_000), kb(3, 2, EAGER, 2_000_000),  # only the reference was timed at level 3
    ])
    project.built()
    [compiled] = project.api("hosts/h.json")["implementations"]
    assert list(compiled["levels"]) == ["1", "2", "all"]
    everything = compiled["levels"]["all"]
    assert (everything["suite"], everything["over_levels"], everything["title"]) == (2, ["1", "2"], "Levels 1 and 2")
    [home] = tables(project.page(""), "best")
    assert "fast_1, Levels 1 and 2 of 2" in home["rows"][0]
    assert "Levels 1 and 2: 2 problems" in visible_text(project.page("hosts/h"))


def test_a_replaced_problem_is_counted_once_and_its_versions_listed(project):
    project.write("content/a.json", [
        kb(1, 1, EAGER, 2_000_000, title="Old_problem", workload="old", observed="2024-12-03T00:00:00Z"),
        kb(1, 1, COMPILE, 1_000_000, title="Old_problem", workload="old", observed="2024-12-03T00:00:00Z"),
        kb(1, 1, EAGER, 2_000_000, title="New_problem", host="g"),
        kb(1, 2, EAGER, 2_000_000), kb(1, 2, COMPILE, 1_000_000),
    ])
    project.built()
    assert project.api("index.json")["suite"] == {"1": 2, "all": 2}
    assert len(project.api("index.json")["problems"]) == 3  # each version has its page
    home = visible_text(project.page(""))
    assert "2 problems" in home and "Level 1 — 2 problems (1 number replaced: both versions listed)" in home
    level = visible_text(project.page("levels/1"))
    assert "KernelBench's level 1: 2 problems in 3 rows" in level
    assert ("#1: Old problem (timed 2024-12-03), then New problem (timed 2025-07-21)") in level
    assert "Level 1 (2 problems)" in visible_text(project.page("problems"))
    [summary] = project.api("hosts/h.json")["implementations"]
    assert summary["levels"]["1"]["suite"] == 2
