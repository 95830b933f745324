"""The crash tests' seam, for tests only: each file operation that changes a site or the caches
beside it (publish_swap's file operations, its new files, journal, folder removals and the swap's
exchange, and build._write_file) wrapped to count, and to call `crash` (os._exit(137), as kill -9
would) once `after` of them are done. A process forked afterwards (a page writer) counts its own."""

from __future__ import annotations

import os

from kindex_site import build, publish_swap

OPERATIONS = ((publish_swap, "replace"), (publish_swap, "rename"), (publish_swap, "link"), (publish_swap, "unlink"),
              (publish_swap, "rmdir"), (publish_swap, "write_parts"), (publish_swap, "_write_new"),
              (publish_swap, "_write_journal"), (publish_swap, "remove_tree"), (build, "_write_file"))


class Counter:
    def __init__(self, after: int):
        self.after, self.done = after, 0
        self.crash = lambda: os._exit(137)

    def count(self) -> None:
        self.done += 1
        if self.done == self.after:
            self.crash()


def install(after: int, monkeypatch=None) -> Counter:
    """Count this process's file operations (with `monkeypatch`, until the test ends)."""
    counter = Counter(after)
    put = monkeypatch.setattr if monkeypatch is not None else setattr
    for module, name in OPERATIONS:
        put(module, name, _counted(getattr(module, name), counter))
    exchange = publish_swap._exchange

    def exchanged(a, b) -> bool:
        done = exchange(a, b)
        if done:  # (False: the system has none; nothing was done)
            counter.count()
        return done

    put(publish_swap, "_exchange", exchanged)
    return counter


def _counted(operation, counter: Counter):
    def counted(*args, **kwargs):
        result = operation(*args, **kwargs)
        counter.count()
        return result
    return counted
