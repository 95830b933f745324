"""A problem page of many tables says each warning once at its end and links each table to those that apply to
it: the count of runs is said at the table ("high-variance (2 runs)"), so a code is listed once; where one code
says different things on different tables, its footnotes name their tables."""

from __future__ import annotations

import re

from conftest import seed_problem_run, visible_text
from test_page_weight import _build


def footnotes(html: str) -> list[str]:
    return [visible_text(li) for li in re.findall(r'<li id="_w\d+">(.*?)(?=<li id="_w|</ol>)', html, re.S)]


def test_each_table_says_its_counts_and_each_footnote_its_tables(project, tmp_path):
    html = _build(project, tmp_path)
    notes = footnotes(html)
    codes = [n.split(":")[0] for n in notes]
    assert {"high-variance", "outliers", "no-ci", "failed-runs"} <= set(codes)
    # A count differs from table to table: said at the table, so the code's footnote is said once, of no count.
    assert codes.count("high-variance") == 1 and codes.count("outliers") == 1
    assert "high-variance: the runs counted at the table had a standard deviation above 10% of the mean" in notes[
        codes.index("high-variance")]
    lines = re.findall(r'<p class="warnings" role="note"><strong>Comparability warnings</strong>(.*?)</p>', html, re.S)
    assert len(lines) > 4
    for line in lines:
        for code, count in re.findall(r'>([a-z-]+)</a> \((\d+ runs?)\)', line):
            assert code in codes and re.fullmatch(r"\d+ runs?", count)
    # Each footnote a table links to says what that table's warning says, less its count.
    said = re.findall(r'<a href="#_w(\d+)">([a-z-]+)</a>', html)
    assert said and all(codes[int(n) - 1] == code for n, code in said)


def test_a_code_saying_different_things_names_its_tables(project):
    runs = []
    for n, status in enumerate(["failed", "timeout", "failed", "passed", "passed"]):  # five tables: a compact page
        host = f"h{n}"
        runs.append(seed_problem_run(host, "PyTorch eager", 2_000_000))
        late = seed_problem_run(host, "Triton kernel", 1_000_000)
        late["run"]["spec"]["status"] = status
        if status != "passed":
            del late["run"]["spec"]["timing"]
        runs.append(late)
    project.write("content/a.json", runs)
    project.built()
    html = project.page("problems/level2-84-gemm-batchnorm-scaling-softmax")
    notes = footnotes(html)
    failed = [n for n in notes if n.startswith("failed-runs")]
    # "(1 failed)" on two tables, "(1 timeout)" on one: two footnotes, each naming its tables.
    assert failed == ["failed-runs: the runs counted at the table did not pass (1 failed); they are listed unranked. "
                      "(on Host h0, Host h2)",
                      "failed-runs: the runs counted at the table did not pass (1 timeout); they are listed unranked. "
                      "(on Host h1)"]
    assert '<a href="#board-h1">Host h1</a>' in html
