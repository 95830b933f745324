"""Every forked process a build starts goes through here, under one policy.

- `Writers`: processes that each take chunk numbers and send back each chunk's result (the page
  writers, the highlighter). They inherit everything the build planned when they are forked, so
  nothing is pickled but chunk numbers in and results out.
- `Aside`: one job done by a process on the other core while the build goes on (the runs cache
  written, the templates compiled), told at the end to put its work in place or drop it.

The policy: Ctrl-C is the parent's to handle (workers ignore SIGINT); SIGTERM, sent to the whole
process group, ends them with the parent (a worker ended by it is an interrupt, `Interrupted`); an
error or interrupt in the parent kills them all at once; a worker killed otherwise ends the build
with an error naming the signal, and an aside job that fails only leaves its work to the parent.
"""

from __future__ import annotations

import os
import pickle
import selectors
import signal
from collections.abc import Callable

from .errors import KindexError
from .publish_swap import Interrupted


def release_free_memory() -> None:
    """Give the C allocator's free pages back to the system (glibc's malloc_trim; elsewhere nothing):
    a forked process's resident size counts every page its parent held when it was forked, and at
    a million runs the pages freed since the content was read are a hundred megabytes."""
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError, TypeError):
        pass


def cores() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def can_fork() -> bool:
    return hasattr(os, "fork") and cores() > 1


class Aside:
    """`job(go)` run by a forked process while this one goes on. `go()` (in the job) waits until this
    process says whether to put the work in place (`put`: True) or not (`drop`, or this process's end:
    False). `start` gives None where no process is to be had (one core, no fork, a process limit)."""

    def __init__(self, pid: int, tell: int):
        self.pid, self.tell = pid, tell

    @classmethod
    def start(cls, job: Callable[[Callable[[], bool]], object]) -> Aside | None:
        if not can_fork():
            return None
        try:
            told, tell = os.pipe()
            pid = os.fork()
        except OSError:
            return None  # (the build does the job itself)
        if pid == 0:  # (it never returns from here)
            status = 1
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # (Ctrl-C is the build's to handle)
                os.close(tell)
                job(lambda: os.read(told, 1) == b"1")
                status = 0
            finally:
                os._exit(status)
        os.close(told)
        return cls(pid, tell)

    def put(self) -> bool:
        """Have the work put in place; False if the job failed (its work is then the caller's)."""
        try:
            os.write(self.tell, b"1")
        except OSError:
            pass
        return self.drop() == 0

    def drop(self) -> int | None:
        """Wait for the job's end, telling it not to put its work in place; its exit status."""
        if self.tell is not None:
            os.close(self.tell)
            self.tell = None
        try:
            return os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
        except ChildProcessError:
            return None


class Writers:
    """Forked processes that write chunks of the site, each handed the next chunk's number when it
    has sent back the last one's sizes. Each has its own two pipes and shares nothing else (unlike
    multiprocessing's Pool, whose workers share a locked queue: one killed while holding the lock, by
    a SIGTERM sent to the whole process group, say, leaves the pool unable to stop). An interrupt or
    error here kills them all at once; one of them dying ends the build."""

    def __init__(self, count: int):
        self.count = count
        self.procs: list[tuple[int, int, int]] = []  # (pid, its chunk numbers' pipe, its results' pipe)
        self.ended: set[int] = set()  # the pids of those already waited for

    def write(self, write_chunk: Callable[[int], object], chunks: int, progress,
              receive: Callable[[object], int]) -> None:
        """Chunks 0 to `chunks` - 1, each written by `write_chunk` in a worker, whose result (its
        files' sizes) is handed to `receive`, which says how many files it wrote: `progress.advance(n)`
        is told of them."""
        selector = selectors.DefaultSelector()
        try:
            for _ in range(self.count):
                self._start(write_chunk)
            handed, done = 0, 0
            for pid, tasks, results in self.procs:
                selector.register(results, selectors.EVENT_READ, (pid, tasks))
                handed = self._hand(tasks, handed, chunks)
            while done < chunks:
                for key, _ in selector.select(timeout=0.25):  # (a signal another thread took is acted on meanwhile)
                    pid, tasks = key.data
                    result = pickle.loads(self._receive(key.fd, pid))
                    if isinstance(result, BaseException):
                        raise result
                    progress.advance(receive(result))
                    done += 1
                    if handed == chunks:
                        selector.unregister(key.fd)  # (told to end: its pipe's end is no news)
                    handed = self._hand(tasks, handed, chunks)
        except BaseException:
            for pid, _, _ in self.procs:
                if pid not in self.ended:
                    os.kill(pid, signal.SIGKILL)
            raise
        finally:
            selector.close()
            for pid, tasks, results in self.procs:
                os.close(tasks)
                os.close(results)
                if pid not in self.ended:
                    os.waitpid(pid, 0)
            self.procs = []

    def _start(self, write_chunk: Callable[[int], object]) -> None:
        tasks_r, tasks_w = os.pipe()
        results_r, results_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker: it never returns from here
            code = 0
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                for _, tasks, results in self.procs:  # (the others' pipes: their ends must close when they end)
                    os.close(tasks)
                    os.close(results)
                os.close(tasks_w)
                os.close(results_r)
                serve_chunks(tasks_r, results_w, write_chunk)
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        os.close(tasks_r)
        os.close(results_w)
        self.procs.append((pid, tasks_w, results_r))

    @staticmethod
    def _hand(tasks: int, handed: int, chunks: int) -> int:
        """Send a worker the next chunk's number (-1: no more); return how many were handed."""
        os.write(tasks, (handed if handed < chunks else -1).to_bytes(8, "little", signed=True))
        return handed + 1 if handed < chunks else handed

    def _receive(self, results: int, pid: int) -> bytes:
        try:
            size = int.from_bytes(_read_exactly(results, 8), "little")
            return _read_exactly(results, size)
        except EOFError:
            pass
        _, status = os.waitpid(pid, 0)
        self.ended.add(pid)
        signum = -os.waitstatus_to_exitcode(status)
        if signum in (signal.SIGINT, signal.SIGTERM):
            raise Interrupted(signum)  # (sent to the whole process group: ours is coming)
        how = f"was killed by {signal.Signals(signum).name}" if signum > 0 else f"ended with status {-signum}"
        raise KindexError(f"writing the site: a process writing it {how}"
                          + (" (out of memory?)" if signum == signal.SIGKILL else ""))


def serve_chunks(tasks: int, results: int, write_chunk: Callable[[int], object]) -> None:
    """A worker's loop: a chunk's number in, its sizes (or the exception it raised) out."""
    while True:
        index = int.from_bytes(_read_exactly(tasks, 8), "little", signed=True)
        if index < 0:
            return
        try:
            result = write_chunk(index)
        except Exception as e:  # (KindexError for a template's error; OSError for a full disk)
            result = e
        try:
            data = pickle.dumps(result)
        except Exception:
            data = pickle.dumps(RuntimeError(repr(result)))
        data = len(data).to_bytes(8, "little") + data
        while data:
            data = data[os.write(results, data):]


def _read_exactly(fd: int, size: int) -> bytes:
    parts, left = [], size
    while left:
        part = os.read(fd, left)
        if not part:
            raise EOFError
        parts.append(part)
        left -= len(part)
    return b"".join(parts)
