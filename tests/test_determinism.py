"""Two builds of the same content are byte-identical, whatever PYTHONHASHSEED, file order on disk,
locale or time zone: each build here is a separate `python -m kindex_site build` process."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

from conftest import bundle, seed_problem_run

BASE_URL = "https://example.org/kindex/"


def corpus() -> list[dict]:
    """Bundles with ties, failures, several hosts, two workloads, odd time zones and Unicode titles."""
    docs = []
    for i, (host, impl, mean) in enumerate([
        ("gpu-a", "PyTorch eager", 2_000_000), ("gpu-a", "Triton kernel", 1_000_000),
        ("gpu-a", "CUDA kernel", 1_000_000), ("gpu-a", "cuda Kernel v2", 1_000_000),
        ("gpu-b", "PyTorch eager", 1_500_000), ("gpu-b", "Triton kernel", 1_500_000),
        ("gpu-c", "Ångström kernel", 700_000), ("gpu-c", "PyTorch eager", 900_000),
    ]):
        doc = seed_problem_run(host, impl, mean)
        doc["run"]["metadata"]["name"] = re.sub(r"[^a-z0-9-]", "x", f"r{i}-{doc['run']['metadata']['name']}")
        doc["run"]["spec"]["observedAt"] = f"2026-0{1 + i % 3}-1{i}T23:30:00{['+14:00', '-09:30', 'Z'][i % 3]}"
        doc["run"]["spec"]["implementationDigest"] = "sha256:" + f"{i:x}" * 64
        docs.append(doc)
    failed = seed_problem_run("gpu-b", "Broken kernel", 1, status="failed")
    del failed["run"]["spec"]["timing"]
    failed["run"]["spec"]["measurements"] = []
    docs.append(failed)
    other = seed_problem_run("gpu-a", "Triton kernel", 800_000)
    other["run"]["metadata"]["name"] = "other-workload"
    other["run"]["spec"]["workloadDigest"] = "sha256:" + "e" * 64
    docs.append(other)
    for j, title in enumerate(["Zeta problem", "alpha problem", "Éclair problem"]):
        docs.append(bundle(name=f"p{j}", title=f"{title} · My kernel · lab", host="gpu-b",
                           changes={"run.spec.sourceNative": {"source": "mine", "z": 1, "a": 2}}))
    return docs


def write_one_per_file(root: Path, docs: list[dict], order: list[int]) -> None:
    """One bundle per file (so a run's source is its file name alone), created in the given order."""
    for i in order:
        (root / "content" / f"{docs[i]['run']['metadata']['name']}.json").write_text(json.dumps(docs[i]), "utf-8")


def setup(root: Path) -> None:
    (root / "content" / "pages").mkdir(parents=True)
    (root / "content/pages/about.md").write_text("# About\n\nSee [hosts](../hosts/).\n", "utf-8")
    (root / "content/pages/zz-notes.md").write_text("# Notes\n\nÜnïcode.\n", "utf-8")


def build(root: Path, seed: str, tz: str, locale: str) -> dict[str, bytes]:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(root), "PYTHONHASHSEED": seed, "TZ": tz,
           "LC_ALL": locale, "LANG": locale}
    done = subprocess.run([sys.executable, "-m", "kindex_site", "build", "--base-url", BASE_URL],
                          cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    site = root / "site"
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def differences(a: dict[str, bytes], b: dict[str, bytes]) -> list[str]:
    return sorted(set(a) ^ set(b)) + sorted(k for k in set(a) & set(b) if a[k] != b[k])


def test_two_builds_are_byte_identical(tmp_path):
    docs = corpus()
    first, second = tmp_path / "one", tmp_path / "two"
    for root in (first, second):
        setup(root)
    order = list(range(len(docs)))
    write_one_per_file(first, docs, order)
    random.Random(5).shuffle(order)
    write_one_per_file(second, docs, order)  # created in another order: another order on disk

    a = build(first, seed="0", tz="UTC", locale="C.UTF-8")
    b = build(second, seed="4242", tz="Pacific/Kiritimati", locale="C")
    assert differences(a, b) == []
    assert len(a) > 40
    today = datetime.now(timezone.utc).date().isoformat().encode()
    for path, data in a.items():  # nothing from the clock: today's date appears nowhere
        assert today not in data, path


SOURCE_LINE = re.compile(rb'<p class="lede">Run <code>[^<]*</code>, from <code>[^<]*</code>\.</p>')


def test_regrouping_and_reordering_the_input_changes_only_where_a_run_came_from(tmp_path):
    """Bundles shuffled across .json arrays and .jsonl files give the same site; only each run page's
    line naming its source file (content/x.json[3]) may change, as it should."""
    docs = corpus()
    first, second = tmp_path / "one", tmp_path / "two"
    for root in (first, second):
        setup(root)
    write_one_per_file(first, docs, list(range(len(docs))))
    shuffled = docs[:]
    random.Random(7).shuffle(shuffled)
    (second / "content/b.json").write_text(json.dumps(shuffled[:6]), "utf-8")
    (second / "content/sub").mkdir()
    (second / "kindex.toml").write_text('[labs]\nsub = ["Somewhere", "lab"]\n', "utf-8")  # (the labs its runs claim)
    (second / "content/sub/a.jsonl").write_text("".join(json.dumps(d) + "\n" for d in shuffled[6:]), "utf-8")

    a = build(first, seed="1", tz="America/St_Johns", locale="C.UTF-8")
    b = build(second, seed="99", tz="Asia/Kathmandu", locale="C.UTF-8")
    changed = differences(a, b)
    assert changed and all(re.fullmatch(r"runs/[^/]+/index\.html", path) for path in changed), changed
    for path in changed:
        assert SOURCE_LINE.search(a[path])
        assert SOURCE_LINE.sub(b"", a[path]) == SOURCE_LINE.sub(b"", b[path]), path
