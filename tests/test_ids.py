"""Ids a page makes from content never take one of the page's own, nor each other's."""

from __future__ import annotations

import re
from collections import Counter

from conftest import bundle, seed_problem_run


def test_hosts_and_protocols_named_like_the_pages_own_ids_do_not_collide(project):
    runs = [seed_problem_run(host, "PyTorch eager", 1_000_000 + i) for i, host in
            enumerate(("main", "site-search", "problems", "source", "w1", "protocol-x"))]
    for doc in runs[:3]:  # a protocol named like a warning's id
        doc["protocol"]["metadata"]["name"] = "w1"
    project.write("content/a.json", runs + [bundle(name="second-protocol", host="main",
                                                   changes={"protocol.metadata.name": "warnings"})])
    project.built()
    html = project.page("problems/level2-84-gemm-batchnorm-scaling-softmax")
    ids = re.findall(r'\sid="([^"]+)"', html)
    assert [i for i, n in Counter(ids).items() if n > 1] == []
    assert {"main", "site-search"} <= set(ids)  # the page's own, untouched
    for target in re.findall(r'href="#([^"]+)"', html):  # every link on the page finds its target
        assert target in ids, target
