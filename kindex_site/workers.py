"""Every forked process a build starts goes through here, under one policy: `Workers` take task
numbers and send back results, `Aside` does one job on the other core while the build goes on. Ctrl-C
is the parent's to handle; SIGTERM to the process group ends them with it (`Interrupted`); an error in
the parent kills them all at once; a worker killed otherwise is an error naming the signal, unless the
parent can do its tasks itself.
"""

from __future__ import annotations

import os
import pickle
import selectors
import signal
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import suppress

from .errors import KindexError
from .publish_swap import Interrupted


def release_free_memory() -> None:
    """Give the C allocator's free pages back to the system (glibc's malloc_trim): a forked process's
    resident size counts every page its parent held."""
    with suppress(OSError, AttributeError, TypeError):
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)


def cores() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def can_fork() -> bool:
    return hasattr(os, "fork") and cores() > 1


class Aside:
    """`job(go)` done by a forked process while this one goes on (it must only leave files behind);
    `go()` waits to be told to put its work in place (`put`) or not. `start` gives None where no
    process is to be had: the caller then does the job itself."""

    def __init__(self, pid: int, tell: int):
        self.pid, self.tell = pid, tell

    @classmethod
    def start(cls, job: Callable[[Callable[[], bool]], object]) -> Aside | None:
        if not can_fork():
            return None
        try:
            told, tell = os.pipe()
        except OSError:
            return None
        try:
            pid = os.fork()
        except OSError:
            os.close(told)
            os.close(tell)
            return None
        if pid == 0:  # (it never returns from here)
            status = 1
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # (Ctrl-C is the parent's to handle)
                os.close(tell)
                job(lambda: os.read(told, 1) == b"1")
                status = 0
            finally:
                os._exit(status)
        os.close(told)
        return cls(pid, tell)

    def put(self) -> bool:
        """Have the work put in place; False if the job failed (its work is then the caller's)."""
        with suppress(OSError):
            os.write(self.tell, b"1")
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


class Workers:
    """Forked processes that do numbered tasks (`do(task)`) and send back each result, each with its
    own two pipes (no shared locked queue that a killed worker can leave held), `in_flight` tasks at
    a time; an exception a task raises is raised here."""

    def __init__(self, count: int, do: Callable[[int], object], *, what: str, in_flight: int = 1,
                 encode: Callable[[object], bytes] = pickle.dumps, decode: Callable[[bytes], object] = pickle.loads,
                 pipe_bytes: int | None = None):
        self.count, self.do, self.what, self.in_flight = count, do, what, in_flight
        self.encode, self.decode, self.pipe_bytes = encode, decode, pipe_bytes
        self.procs: dict[int, tuple[int, int, deque]] = {}  # pid → (task numbers' pipe, results' pipe, tasks handed)
        self.ended: set[int] = set()  # the pids of those already waited for

    def results(self, tasks: int, here: Callable[[int], object] | None = None) -> Iterator[tuple[int | None, int, object]]:
        """(the worker's pid, or None, the task, its result) for tasks 0 to `tasks` - 1, as they are
        done. With `here`, this process does a task itself whenever no result is ready, and again
        those of a worker that died; without it, a dead worker ends the work with KindexError. A worker
        ended by SIGINT or SIGTERM raises Interrupted. An error here kills every worker at once."""
        selector = selectors.DefaultSelector()
        left = deque(range(tasks))  # tasks not handed out yet
        try:
            for _ in range(self.count):
                pid, results = self._start()
                selector.register(results, selectors.EVENT_READ, pid)
                for _ in range(self.in_flight):
                    self._hand(pid, left, selector)
            while left or any(handed for _, _, handed in self.procs.values()):
                ready = selector.select(timeout=0 if left and here is not None else 0.25)  # (a signal another thread took is acted on meanwhile)
                if not ready and left and here is not None:
                    task = left.popleft()
                    yield None, task, here(task)
                for key, _ in ready:
                    pid = key.data
                    handed = self.procs[pid][2]
                    data = _received(key.fd)
                    if data is None:  # it died
                        selector.unregister(key.fd)
                        self._died(pid, here is None)
                        left.extendleft(reversed(handed))
                        handed.clear()
                        continue
                    task = handed.popleft()
                    if data[:1] == b"!" and here is None:
                        raise pickle.loads(memoryview(data)[1:])
                    if data[:1] == b"!":
                        left.appendleft(task)  # (done here: what went wrong, if anything, is said from here)
                    else:
                        yield pid, task, self.decode(memoryview(data)[1:])
                    self._hand(pid, left, selector)
        except BaseException:
            for pid in self.procs:
                if pid not in self.ended:
                    os.kill(pid, signal.SIGKILL)
            raise
        finally:
            selector.close()
            for pid, (tasks_fd, results_fd, _) in self.procs.items():
                os.close(tasks_fd)
                os.close(results_fd)
                if pid not in self.ended:
                    os.waitpid(pid, 0)
            self.procs = {}

    def _hand(self, pid: int, left: deque, selector) -> None:
        """Send a worker the next task's number; -1 once there are none left."""
        tasks_fd, results_fd, handed = self.procs[pid]
        if not left and handed:
            return
        task = left.popleft() if left else -1
        try:
            os.write(tasks_fd, task.to_bytes(8, "little", signed=True))
        except BrokenPipeError:  # (it died: its end is read from its results' pipe)
            if task >= 0:
                left.appendleft(task)
            return
        if task >= 0:
            handed.append(task)
        else:
            selector.unregister(results_fd)  # (told to end: its pipe's end is no news)

    def _start(self) -> tuple[int, int]:
        tasks_r, tasks_w = os.pipe()
        results_r, results_w = os.pipe()
        if self.pipe_bytes is not None:
            with suppress(ImportError, AttributeError, OSError):  # (room for a result while the last one waits)
                import fcntl

                fcntl.fcntl(results_w, fcntl.F_SETPIPE_SZ, self.pipe_bytes)
        pid = os.fork()
        if pid == 0:  # the worker: it never returns from here
            code = 0
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                for tasks_fd, results_fd, _ in self.procs.values():  # (the others' pipes: their ends must close when they end)
                    os.close(tasks_fd)
                    os.close(results_fd)
                os.close(tasks_w)
                os.close(results_r)
                self._serve(tasks_r, results_w)
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        os.close(tasks_r)
        os.close(results_w)
        self.procs[pid] = (tasks_w, results_r, deque())
        return pid, results_r

    def _serve(self, tasks_fd: int, results_fd: int) -> None:
        """A worker's loop: a task's number in, its result (or the exception it raised) out."""
        while True:
            task = int.from_bytes(_read_exactly(tasks_fd, 8), "little", signed=True)
            if task < 0:
                return
            kind = b"="  # (then the result; "!": the exception the task raised)
            try:
                data = self.encode(self.do(task))
            except Exception as e:  # (KindexError for a template's error; OSError for a full disk)
                kind = b"!"
                try:
                    data = pickle.dumps(e)
                except Exception:
                    data = pickle.dumps(RuntimeError(repr(e)))
            for view in (memoryview((len(data) + 1).to_bytes(8, "little") + kind), memoryview(data)):
                while view:
                    view = view[os.write(results_fd, view):]

    def _died(self, pid: int, fatal: bool) -> None:
        _, status = os.waitpid(pid, 0)
        self.ended.add(pid)
        signum = -os.waitstatus_to_exitcode(status)
        if signum in (signal.SIGINT, signal.SIGTERM):
            raise Interrupted(signum)  # (sent to the whole process group: ours is coming)
        if fatal:
            how = f"was killed by {signal.Signals(signum).name}" if signum > 0 else f"ended with status {-signum}"
            raise KindexError(f"{self.what} {how}" + (" (out of memory?)" if signum == signal.SIGKILL else ""))


def _received(fd: int) -> bytes | None:
    """One length-prefixed message, or None if the worker ended first."""
    try:
        return _read_exactly(fd, int.from_bytes(_read_exactly(fd, 8), "little"))
    except EOFError:
        return None


def _read_exactly(fd: int, size: int) -> bytes:
    parts, left = [], size
    while left:
        part = os.read(fd, min(left, 2**24))
        if not part:
            raise EOFError
        parts.append(part)
        left -= len(part)
    return b"".join(parts)
