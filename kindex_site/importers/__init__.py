"""`kindex-site import SOURCE …`: turn a benchmark's own result files into kernelindex documents."""

from __future__ import annotations



def add_import_parser(commands) -> None:
    from . import kernelbench, kernelbench_leaderboard

    parser = commands.add_parser(
        "import", help="convert a benchmark's own result files into content",
        description="Convert a benchmark's own result files into kernelindex.dev/v1alpha1 bundles.",
    )
    sources = parser.add_subparsers(dest="source", metavar="SOURCE", required=True)
    kernelbench.add_parser(sources)
    kernelbench_leaderboard.add_parser(sources)
