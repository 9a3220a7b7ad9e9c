"""Live progress of a long solve: the events every engine reports and the stderr printer.

An engine that takes a ``progress`` argument calls it with :class:`ProgressEvent` objects: once
when it starts, at each new incumbent or improved bound, every few seconds in between
(``"tick"``), and once at the end. :class:`ProgressReporter` is what engines hold: it stamps the
elapsed time, keeps the last incumbent and bound, and drops ticks that come sooner than its
interval, so an engine may call :meth:`ProgressReporter.tick` from a hot loop at the cost of one
clock read. Standard library only, like :mod:`satdt.deadline`.

Example
-------
>>> from satdt.progress import ProgressEvent
>>> seen = []
>>> clf = DPTreeClassifier(max_depth=3, progress=seen.append)  # doctest: +SKIP
"""

from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterator, Optional, TextIO

__all__ = ["ProgressEvent", "ProgressCallback", "ProgressReporter", "stderr_printer"]

EVENT_KINDS = ("start", "incumbent", "bound", "tick", "done")


@dataclass(frozen=True)
class ProgressEvent:
    """One progress report of a running engine.

    Attributes
    ----------
    engine : str
        Which engine reports (``"dp"``, ``"sat"``, ``"maxsat"``, ``"cpsat"``, ``"mip"``,
        ``"dpdt"``, ...).
    kind : str
        ``"start"``, ``"incumbent"`` (a better tree was found), ``"bound"`` (the proven bound
        rose), ``"tick"`` (periodic) or ``"done"``.
    elapsed : float
        Seconds since the engine started.
    incumbent : float or None
        Objective of the best tree found so far (errors, objective value or depth/size, in the
        engine's own units, the same as ``SolveResult.objective``), None before the first one.
    bound : float or None
        Proven bound on the optimum in the same units (lower for minimisation), None if unknown.
    nodes : int or None
        Search nodes so far (DP, MIP, CP-SAT branches), if the engine counts them.
    conflicts : int or None
        SAT conflicts so far, if the engine counts them.
    message : str
        Free text (the phase, the depth being tried, ...).
    """

    engine: str
    kind: str
    elapsed: float
    incumbent: Optional[float] = None
    bound: Optional[float] = None
    nodes: Optional[int] = None
    conflicts: Optional[int] = None
    message: str = ""

    @property
    def gap(self) -> Optional[float]:
        """Relative gap ``(incumbent - bound) / max(|incumbent|, 1e-9)``, None if either is
        unknown."""
        if self.incumbent is None or self.bound is None:
            return None
        return max(0.0, self.incumbent - self.bound) / max(abs(self.incumbent), 1e-9)

    def format(self) -> str:
        """One human-readable line, as the CLI prints it."""
        parts = [f"[{self.engine} {self.elapsed:8.2f}s] {self.kind:9s}"]
        if self.incumbent is not None:
            parts.append(f"incumbent {self.incumbent:.6g}")
        if self.bound is not None:
            parts.append(f"bound {self.bound:.6g}")
        if self.gap is not None:
            parts.append(f"gap {100 * self.gap:.2f}%")
        if self.nodes is not None:
            parts.append(f"nodes {self.nodes}")
        if self.conflicts is not None:
            parts.append(f"conflicts {self.conflicts}")
        if self.message:
            parts.append(self.message)
        return "  ".join(parts)


ProgressCallback = Callable[[ProgressEvent], None]


def stderr_printer(stream: Optional[TextIO] = None) -> ProgressCallback:
    """A callback that prints each event as one line on ``stream`` (stderr by default)."""

    def print_event(event: ProgressEvent) -> None:
        out = stream if stream is not None else sys.stderr
        print(event.format(), file=out, flush=True)

    return print_event


class ProgressReporter:
    """What an engine holds to report progress; a no-op when ``callback`` is None.

    Parameters
    ----------
    engine : str
        The engine's name, copied into every event.
    callback : callable or None
        Receives each :class:`ProgressEvent`.
    interval : float
        Minimum seconds between two ``"tick"`` events; the other kinds always pass.
    """

    def __init__(self, engine: str, callback: Optional[ProgressCallback], interval: float = 2.0):
        self.engine = engine
        self.callback = callback
        self.interval = float(interval)
        self.start = time.perf_counter()
        self.incumbent: Optional[float] = None
        self.bound: Optional[float] = None
        self._next_tick = self.start + self.interval
        self._lock = threading.Lock()  # events may come from a solver's callback thread

    @property
    def active(self) -> bool:
        return self.callback is not None

    def emit(self, kind: str, incumbent: Optional[float] = None, bound: Optional[float] = None,
             nodes: Optional[int] = None, conflicts: Optional[int] = None,
             message: str = "") -> None:
        """Report an event; the incumbent and bound, when given, become the reporter's current
        ones (and are repeated in later events that do not give them)."""
        if self.callback is None:
            return
        if kind not in EVENT_KINDS:
            raise ValueError(f"unknown progress event kind {kind!r}; expected one of {EVENT_KINDS}")
        with self._lock:
            if incumbent is not None:
                self.incumbent = float(incumbent)
            if bound is not None:
                self.bound = float(bound)
            now = time.perf_counter()
            self._next_tick = now + self.interval
            self.callback(ProgressEvent(self.engine, kind, now - self.start, self.incumbent,
                                        self.bound, nodes, conflicts, message))

    def tick(self, nodes: Optional[int] = None, conflicts: Optional[int] = None,
             message: str = "") -> None:
        """A periodic report, dropped unless ``interval`` seconds passed since the last event."""
        if self.callback is None or time.perf_counter() < self._next_tick:
            return
        self.emit("tick", nodes=nodes, conflicts=conflicts, message=message)

    @contextmanager
    def periodic(self, poll: Optional[Callable[[], dict]] = None) -> Iterator[None]:
        """Emit ``"tick"`` events from a daemon thread every ``interval`` seconds while the
        ``with`` block runs: for engines that run in native code and release the interpreter
        lock (CP-SAT, the MIP engines). ``poll()`` returns keyword arguments of :meth:`emit`
        (``incumbent``, ``bound``, ``nodes``, ...) read from the engine; it must be thread-safe.
        No thread is started without a callback.
        """
        if self.callback is None:
            yield
            return
        stop = threading.Event()

        def run() -> None:
            while not stop.wait(max(0.05, self._next_tick - time.perf_counter())):
                if time.perf_counter() < self._next_tick - 1e-3:
                    continue  # an event came meanwhile: wait for the interval after it
                try:
                    info = poll() if poll is not None else {}
                except Exception:  # noqa: BLE001 - a failed poll only skips a tick
                    info = {}
                if not stop.is_set():
                    self.emit("tick", **info)

        thread = threading.Thread(target=run, name=f"satdt-progress-{self.engine}", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()
