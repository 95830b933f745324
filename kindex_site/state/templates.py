"""Compiled templates kept on disk for the next build (`CompiledTemplates`: Jinja's bytecode cache)."""

from __future__ import annotations

from pathlib import Path

import jinja2


class CompiledTemplates(jinja2.FileSystemBytecodeCache):
    """Jinja's bytecode cache in a folder, for builds to share. Jinja checks each entry against its
    template's source; what it does not check (this program's code, which sets how templates are
    compiled, and Jinja's own version) is the folder's stamp: when that differs, the folder is
    emptied. Only a cache: an entry that cannot be read or written (damaged, a full disk, the
    folder removed by a --clean meanwhile) means one more compile, never a failed build."""

    def __init__(self, folder: Path, code_stamp: str):
        folder.mkdir(parents=True, exist_ok=True)
        stamp, mark = f"{code_stamp}\njinja2 {jinja2.__version__}\n", folder / "stamp"
        try:
            same = mark.read_text(encoding="utf-8") == stamp
        except (OSError, ValueError):
            same = False
        if not same:
            for old in folder.glob("*.cache"):
                old.unlink(missing_ok=True)
            mark.write_text(stamp, encoding="utf-8")
        super().__init__(str(folder))

    def load_bytecode(self, bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # (whatever a damaged entry raises: compile instead)
            bucket.reset()

    def dump_bytecode(self, bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass
