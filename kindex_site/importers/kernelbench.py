"""KernelBench timing files → kernelindex bundles (to be written)."""


def add_parser(sources) -> None:
    sources.add_parser("kernelbench", help="KernelBench results/timing files")
