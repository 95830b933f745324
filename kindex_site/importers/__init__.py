"""`kindex-site import SOURCE …`: turn a benchmark's own result files into kernelindex documents.
Each module here with an `add_parser` is one importer (docs/importing.md, "Writing an importer")."""

from __future__ import annotations

import importlib
import pkgutil


def add_import_parser(commands) -> None:
    parser = commands.add_parser(
        "import", help="convert a benchmark's own result files into content",
        description="Convert a benchmark's own result files into kernelindex.dev/v1alpha1 bundles.",
    )
    sources = parser.add_subparsers(dest="source", metavar="SOURCE", required=True)
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda info: info.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "add_parser"):
            module.add_parser(sources)
