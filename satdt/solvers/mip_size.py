"""Sizes and times of the MIP models before they are built or solved (:mod:`satdt.solvers.mip`).

A model too large for :func:`~satdt.deadline.max_memory` is refused with its size; one that
could not be built and loaded in the time left is not built (:func:`_fits`); an engine is not
started with less time left than its start-up (conversion and presolve that do not look at the
limit, :func:`_engine_limit`). The constants are measured (see each); they are upper estimates.
"""

from __future__ import annotations

import numpy as np

from ..binarize import BinaryProblem
from ..deadline import Deadline, DeadlineExpired, check_memory, format_bytes
from ..limits import BYTES_PER_NONZERO, SECONDS_PER_NONZERO, SECONDS_PER_ROW  # measured; see there

__all__ = ["estimate_binoct", "estimate_oct", "binoct_threshold_rows", "BYTES_PER_NONZERO",
           "SECONDS_PER_NONZERO", "SECONDS_PER_ROW", "ENGINE_START_SECONDS_PER_NONZERO"]

ENGINE_START_SECONDS_PER_NONZERO = 5e-7


def estimate_binoct(problem: BinaryProblem, depth: int) -> int:
    """Nonzeros of BinOCT's constraint matrix (an upper estimate, from the shapes only): per
    internal node and feature group, each level of the threshold search tree puts every row in
    at most one range, a range of rows counts once per leaf on its side."""
    m, C = problem.counts.shape
    n_leaf = 2 ** depth
    levels = sum(int(np.ceil(np.log2(max(len(g), 2)))) + 1 for g in problem.threshold_chains())
    threshold = levels * m * depth * n_leaf // 2 * 2     # left and right ranges, half the leaves each
    return int(threshold + m * n_leaf * (1 + C) + 2 * n_leaf * C)


def estimate_oct(problem: BinaryProblem, depth: int) -> int:
    """Nonzeros of OCT's constraint matrix (from the shapes and the ones of the binary matrix)."""
    m, C = problem.counts.shape
    n_leaf = 2 ** depth
    cells = problem.n_distinct * problem.n_binary
    ones = int(problem.column_ones().sum()) if cells <= 1 << 28 else cells // 2   # no binary matrix
    return int(n_leaf * depth * (ones + 2 * m) + m * n_leaf * (4 + 2 * C) + problem.n_binary * (2 ** depth))


def binoct_threshold_rows(problem: BinaryProblem, depth: int) -> int:
    """Threshold constraints BinOCT adds one by one (at most: empty ranges are skipped): per
    internal node and feature group of ``K`` thresholds, two bound rows and two per node of the
    threshold search tree."""
    return (2 ** depth - 1) * sum(2 * len(g) for g in problem.threshold_chains())


def _fits(nonzeros: int, deadline: Deadline, name: str, extra_bytes: int = 0, rows: int = 0) -> str | None:
    """Refuse a model over the memory limit (MemoryLimitError); None if it can be built in the
    time left, else the reason it is not built. ``rows``: constraints the encoding adds one by one
    (:data:`SECONDS_PER_ROW` each, on top of the nonzeros)."""
    check_memory(nonzeros * BYTES_PER_NONZERO + extra_bytes,
                 f"the {name} model (about {nonzeros:.3g} nonzeros)",
                 "use a smaller max_depth or binarization='quantile'")
    left = deadline.remaining()
    need = nonzeros * SECONDS_PER_NONZERO + rows * SECONDS_PER_ROW
    if left is not None and need > left:
        return (f"NOT_RUN (the model, about {nonzeros:.3g} nonzeros / {format_bytes(nonzeros * BYTES_PER_NONZERO)},"
                f" needs about {need:.0f} s to build and load; {left:.1f} s left)")
    return None


def _engine_limit(deadline: Deadline, nonzeros: int) -> float | None:
    """The engine's own time limit: the time left less its start-up (conversion and presolve
    that do not look at the limit or the interrupter); :class:`DeadlineExpired` when less than
    that is left (the engine would overrun the deadline before it could stop)."""
    left = deadline.remaining()
    if left is None:
        return None
    start_up = nonzeros * ENGINE_START_SECONDS_PER_NONZERO
    if left < start_up:
        raise DeadlineExpired(f"loading the MIP: the engine needs about {start_up:.1f} s to start "
                              f"on {nonzeros:.3g} nonzeros, {left:.1f} s left")
    return max(1e-3, left - start_up)
