"""The wall-clock deadline of a whole call, shared by every engine and by the layers above them.

One mechanism for every time limit: a :class:`Deadline` made once per call (the estimator's
``fit``, a CLI command, a solve function) and handed down, so every step gets the time *left*.
Steps that can be cut check it (:meth:`Deadline.expired`, :meth:`Deadline.check`, which raises
:class:`DeadlineExpired`); a native solver that cannot check it is stopped by
:meth:`Deadline.watch`, which calls an interrupt function once when the time is up.

Standard library only, so that any module (the solvers, the estimators, the CLI) can import it
without loading an engine.
"""

from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator

__all__ = ["Deadline", "DeadlineExpired", "MemoryLimitError", "max_memory", "set_max_memory",
           "check_memory", "format_bytes", "interrupt", "interrupted", "clear_interrupt"]


# The process-wide interrupt (a signal, see satdt.cli.signals): every Deadline expires at once and
# every armed Deadline.watch callback fires, so each engine stops as at its time limit and returns
# its best tree so far. None, or the number of the signal.
_INTERRUPTED: int | None = None


def interrupt(signum: int = 2) -> None:
    """Stop every running engine as if its time limit had passed: every :class:`Deadline`
    expires from now on, and every callback armed by :meth:`Deadline.watch` (a native solver's
    interrupt) is called now. Safe from any thread. ``signum`` is kept for :func:`interrupted`."""
    global _INTERRUPTED
    if _INTERRUPTED is None:
        _INTERRUPTED = int(signum)
    _WATCHDOG.fire_all()


def interrupted() -> int | None:
    """The signal number given to :func:`interrupt`, or None when not interrupted."""
    return _INTERRUPTED


def clear_interrupt() -> None:
    """Forget an interrupt (the next call runs normally)."""
    global _INTERRUPTED
    _INTERRUPTED = None


class DeadlineExpired(TimeoutError):
    """The time limit passed during a step that cannot return a partial result itself.

    Raised by :meth:`Deadline.check` inside a step (binarization, model building); the layer that
    holds a fallback (a solver, an estimator, :func:`satdt.fit.fit_problem`) catches it and
    returns its best tree so far with status FEASIBLE. It never reaches a user: a time limit is a
    result, not an error.

    The one family of "time is up" in satdt: a ``TimeoutError`` (so a caller's ``except
    TimeoutError`` catches it), and the base of the engines' own cases (CP-SAT's
    ``BuildInterrupted``, the DP search's ``SearchTimeout`` in ``satdt.solvers.dp.search``,
    caught inside the DP) and of CART's greedy tree running out (``satdt.heuristics.greedy``).
    """


class MemoryLimitError(MemoryError, ValueError):
    """A model or matrix would need more memory than :func:`max_memory` allows.

    Raised *before* the allocation, with the estimated size in the message, instead of letting
    the operating system kill the process. A ``ValueError`` too, so that the CLI reports it as
    one line (exit 1) like any other input that is too large for the machine.
    """


_MAX_MEMORY: float | None = None  # bytes set by set_max_memory; None: environment or default


def _physical_memory() -> float | None:
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return None


def max_memory() -> float:
    """Bytes one model or matrix may take: :func:`set_max_memory`'s value, else the environment
    variable ``SATDT_MAX_MEMORY`` (gigabytes), else 75 % of the machine's physical memory (16 GB
    when that cannot be read)."""
    if _MAX_MEMORY is not None:
        return _MAX_MEMORY
    env = os.environ.get("SATDT_MAX_MEMORY")
    if env:
        try:
            value = float(env)
        except ValueError:
            raise ValueError(f"SATDT_MAX_MEMORY must be a number of gigabytes, got {env!r}") from None
        if value > 0:
            return value * 1e9
    physical = _physical_memory()
    return 0.75 * physical if physical else 16e9


def set_max_memory(gigabytes: float | None) -> None:
    """Set the memory budget of :func:`check_memory` for this process (None: the default)."""
    global _MAX_MEMORY
    if gigabytes is not None and not (gigabytes > 0):
        raise ValueError(f"max_memory must be a positive number of gigabytes, got {gigabytes}")
    _MAX_MEMORY = None if gigabytes is None else float(gigabytes) * 1e9


def format_bytes(n: float) -> str:
    """``n`` bytes in the largest unit that keeps a number >= 1 (``"14.6 GB"``)."""
    if n != n or n == float("inf"):
        return "an unbounded amount"
    if n >= 1e18:  # far beyond any machine: the order of magnitude is what matters
        return f"about 10^{len(str(int(n))) - 1} bytes"
    for unit, size in (("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{int(n)} B"


def check_memory(nbytes: float, what: str, hint: str = "") -> None:
    """Raise :class:`MemoryLimitError` naming ``what`` and its size if ``nbytes`` (an estimate
    of the peak allocation) exceeds :func:`max_memory`."""
    limit = max_memory()
    if nbytes > limit:
        raise MemoryLimitError(
            f"{what} would need about {format_bytes(nbytes)}, above the memory limit of "
            f"{format_bytes(limit)} (set SATDT_MAX_MEMORY or --max-memory to change it)"
            + (f"; {hint}" if hint else ""))


class _Watchdog:
    """One daemon thread per process that calls armed callbacks at their times.

    A ``threading.Timer`` per call costs 5-10 ms of thread start and join on a loaded machine,
    more than many short solver calls; one thread, woken only when an earlier time is armed,
    costs nothing between calls. Callbacks run under the lock, so :meth:`disarm` returns only
    when the callback has run or can no longer run.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._armed: dict[int, tuple[float, Callable[[], object]]] = {}
        self._next = 0
        self._wake_at = float("inf")
        self._thread: threading.Thread | None = None

    def arm(self, callback: Callable[[], object], when: float) -> int:
        """Call ``callback`` at ``when`` (``time.monotonic()``) unless disarmed first."""
        with self._cond:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="satdt-watchdog", daemon=True)
                self._thread.start()
            self._next += 1
            self._armed[self._next] = (when, callback)
            if when < self._wake_at:  # waking the thread costs a GIL hand-over: only when needed
                self._wake_at = when
                self._cond.notify()
            return self._next

    def fire_all(self) -> None:
        """Call every armed callback now (an interrupt), whatever its time."""
        with self._cond:
            armed, self._armed = self._armed, {}
            for _, callback in armed.values():
                try:
                    callback()
                except Exception:  # noqa: BLE001 - as in _run
                    pass
            self._wake_at = float("inf")

    def disarm(self, token: int) -> None:
        with self._cond:
            self._armed.pop(token, None)

    def _run(self) -> None:
        with self._cond:
            while True:
                now = time.monotonic()
                for token, (when, callback) in list(self._armed.items()):
                    if when <= now:
                        del self._armed[token]
                        try:
                            callback()
                        except Exception:  # noqa: BLE001 - a failed interrupt must not kill the thread
                            pass
                self._wake_at = min((w for w, _ in self._armed.values()), default=float("inf"))
                if self._wake_at == float("inf"):
                    self._cond.wait()
                else:
                    self._cond.wait(max(1e-3, self._wake_at - now))


_WATCHDOG = _Watchdog()


class Deadline:
    """Wall-clock budget of a whole call: every engine call gets the time *left*.

    Parameters
    ----------
    time_limit : float or None
        Seconds; None means no limit.
    """

    def __init__(self, time_limit: float | None):
        if time_limit is not None and not (time_limit > 0):
            raise ValueError(f"time_limit must be a positive number of seconds, got {time_limit}")
        self.start = time.perf_counter()
        self.time_limit = time_limit

    @classmethod
    def of(cls, limit: "Deadline | float | None") -> "Deadline":
        """``limit`` itself when it is a Deadline (a step of a longer call), else a new one."""
        return limit if isinstance(limit, Deadline) else cls(limit)

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def remaining(self) -> float | None:
        """Seconds left (never negative), or None without a limit; 0 after :func:`interrupt`."""
        if _INTERRUPTED is not None:
            return 0.0
        if self.time_limit is None:
            return None
        return max(0.0, self.time_limit - self.elapsed())

    def budget(self) -> float | None:
        """The time left as a limit for a sub-call, which needs a positive one: at least 1 ms
        (the sub-call then stops at once with what it has), or None without a limit."""
        left = self.remaining()
        return None if left is None else max(1e-3, left)

    def from_now(self) -> "Deadline":
        """A clock started now that ends exactly when this one does: a step's own runtime under
        the whole call's limit (``satdt solve``'s fit, whose ``runtime_s`` is the fit's while its
        limit is the command's), with no time lost between the two as a float would."""
        clock = Deadline(None)
        if self.time_limit is not None:
            clock.time_limit = self.time_limit - (clock.start - self.start)  # <= 0: expired at once
        return clock

    def sooner(self, seconds: float) -> "Deadline":
        """A clock that ends ``seconds`` before this one (same start; expired at once when that
        is already past), for a step whose caller needs time after it; without a limit, none."""
        clock = Deadline(None)
        clock.start = self.start
        if self.time_limit is not None:
            clock.time_limit = self.time_limit - max(0.0, seconds)
        return clock

    def share(self, fraction: float) -> "Deadline":
        """A clock for a step that may take ``fraction`` of the time left now (a fallback's
        first tree), never past this one's end; without a limit, none either."""
        left = self.remaining()
        return Deadline(None if left is None else max(1e-3, fraction * left))

    def tolerance(self) -> float | None:
        """The slack of the time-limit contract, max(1 s, 5 % of the limit) (None without one):
        a call returns within its limit plus this."""
        return None if self.time_limit is None else max(1.0, 0.05 * self.time_limit)

    def expired(self) -> bool:
        return _INTERRUPTED is not None or (self.time_limit is not None and self.elapsed() >= self.time_limit)

    def check(self, what: str = "") -> None:
        """Raise :class:`DeadlineExpired` if the time is up (``what`` names the step)."""
        if self.expired():
            reason = (f"interrupted (signal {_INTERRUPTED})" if _INTERRUPTED is not None
                      else f"time limit of {self.time_limit:g} s reached")
            raise DeadlineExpired(reason + (f" during {what}" if what else ""))

    @contextmanager
    def watch(self, callback: Callable[[], object]) -> Iterator[None]:
        """Call ``callback()`` once, from a watchdog thread, if the deadline passes inside the
        ``with`` block (at once if it has already passed); never after the block is left.

        For solvers that run in native code and offer an interrupt (``solver.interrupt``,
        CP-SAT's ``StopSearch``, a MIP's interrupter). ``callback`` must be quick and must not
        wait for the thread that entered the block. Without a time limit only :func:`interrupt`
        calls it.

        >>> d = Deadline(0.05)
        >>> hit = []
        >>> with d.watch(lambda: hit.append(1)):
        ...     time.sleep(0.2)
        >>> hit
        [1]
        """
        left = self.remaining()
        # without a limit the callback is armed too (at no time): an interrupt fires it
        token = _WATCHDOG.arm(callback, time.monotonic() + (float("inf") if left is None else left))
        try:
            yield
        finally:
            _WATCHDOG.disarm(token)
