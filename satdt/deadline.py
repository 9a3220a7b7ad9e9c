"""The wall-clock deadline of a whole call, shared by every engine and by the layers above them.

Standard library only, so that any module (the solvers, the estimators, the CLI) can import it
without loading an engine.
"""

from __future__ import annotations

import time

__all__ = ["Deadline"]


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

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def remaining(self) -> float | None:
        """Seconds left (never negative), or None without a limit."""
        if self.time_limit is None:
            return None
        return max(0.0, self.time_limit - self.elapsed())

    def budget(self) -> float | None:
        """The time left as a limit for a sub-call, which needs a positive one: at least 1 ms
        (the sub-call then stops at once with what it has), or None without a limit."""
        left = self.remaining()
        return None if left is None else max(1e-3, left)

    def expired(self) -> bool:
        return self.time_limit is not None and self.elapsed() >= self.time_limit
