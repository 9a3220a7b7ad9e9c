"""The thresholds of the numeric features: the midpoints between consecutive distinct values
(``"all"``), a choice among them at the quantiles (``"quantile"``, weighted rows counted as the rows
they stand for), for blocks of columns at once when nothing per column is needed. The ``"tree"``
strategy's guesses are :meth:`~satdt.binarize.Binarizer.fit`'s (a boosted ensemble).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..deadline import Deadline
from .columns import _check

STRATEGIES = ("all", "quantile", "tree")


def _midpoints(values: np.ndarray) -> np.ndarray:
    """Midpoints between consecutive distinct values; each separates its two neighbours."""
    v = np.unique(values)
    if len(v) < 2:
        return np.empty(0)
    with np.errstate(over="ignore"):  # (two values near the float limit: +-inf, then the lower one below)
        mid = (v[:-1] + v[1:]) / 2.0
    # at adjacent floats the midpoint may round up to the upper value, near -1.8e308 overflow to -inf (which
    # sends no row left): use the lower value then, as the checker's reference encoding and the producer do
    return np.where((mid >= v[:-1]) & (mid < v[1:]), mid, v[:-1])


#: cells (rows x columns) of one block of :func:`_numeric_thresholds`
_THRESHOLD_BLOCK_CELLS = 1 << 23


def _numeric_thresholds(X: np.ndarray, schema: Any, k: int | None,
                        deadline: Deadline | None = None) -> dict[int, list[float]] | None:
    """For every numeric column of ``X``: :func:`_midpoints`, or with ``k`` the ``quantile``
    strategy's choice among them (the midpoint at or after each of ``k`` evenly spaced quantiles,
    duplicates once; every midpoint when there are at most ``k``), as :meth:`~satdt.binarize.Binarizer.fit`'s loop
    computes them column by column, for blocks of columns at once (one sort, one ``np.quantile``
    per block). None when ``X`` has NaN (the loop handles missing values)."""
    numeric = np.array([j for j in range(X.shape[1]) if not schema.is_categorical(j)], dtype=np.int64)
    n = X.shape[0]
    if n < 2 or len(numeric) == 0:
        return None
    values = X if len(numeric) == X.shape[1] else X[:, numeric]
    low = values.min(axis=0)
    if np.isnan(low).any():                                   # (a column's minimum is NaN when it has one)
        return None
    out = _two_valued_thresholds(values, numeric, low)
    numeric = numeric[[j not in out for j in numeric.tolist()]]
    step = max(1, _THRESHOLD_BLOCK_CELLS // n)
    probs = None if k is None else np.arange(1, k + 1) / (k + 1)
    for lo in range(0, len(numeric), step):
        _check(deadline, "binarization")
        cols = numeric[lo:lo + step]
        S = np.sort(np.ascontiguousarray(X[:, cols].T), axis=1)   # a row per column: contiguous sorts
        valid = S[:, 1:] > S[:, :-1]                          # consecutive distinct values
        count = valid.sum(axis=1)
        below, above = S[:, :-1][valid], S[:, 1:][valid]     # column by column, ascending
        with np.errstate(over="ignore"):                      # (near the float limit: +-inf, then below)
            flat = (below + above) / 2.0
        flat = np.where((flat >= below) & (flat < above), flat, below)  # as _midpoints
        start = np.concatenate(([0], np.cumsum(count)[:-1]))
        keep = np.ones(len(flat), dtype=bool)
        if probs is not None:
            mid = np.full(valid.shape, np.inf)
            mid[valid] = flat
            qs = np.quantile(S, probs, axis=1)                # (k, columns); S: the same values, sorted (faster)
            # searchsorted(mids, q): the midpoints below q, clipped to the last one; q grows with
            # the probability, so np.unique of a column's picks = the picks unlike the one before
            idx = np.stack([(mid < q[:, None]).sum(axis=1) for q in qs])
            chosen = np.minimum(idx, np.maximum(count - 1, 0))
            first = np.ones_like(chosen, dtype=bool)
            first[1:] = chosen[1:] != chosen[:-1]
            few = count <= k                                   # every midpoint of these columns
            keep = np.repeat(few, count)
            picked = (start[None, :] + chosen)[first & ~few[None, :]]
            keep[picked] = True
        values = flat[keep]
        sizes = np.bincount(np.repeat(np.arange(len(cols)), count)[keep], minlength=len(cols))
        flat_list, ends = values.tolist(), np.cumsum(sizes).tolist()
        for j, a, b in zip(cols.tolist(), [0] + ends[:-1], ends):
            out[j] = flat_list[a:b]
    return out


def _two_valued_thresholds(values: np.ndarray, numeric: np.ndarray, low: np.ndarray) -> dict[int, list[float]]:
    """:func:`_midpoints` of the columns of ``values`` (no NaN; they are the columns ``numeric``
    of the data, ``low`` their minima) that hold at most two distinct values, from their minimum
    and maximum (no sort): the one midpoint, none for a constant column; every strategy keeps it
    (a quantile choice among at most one midpoint is that midpoint)."""
    high = values.max(axis=0)
    step = max(1, _THRESHOLD_BLOCK_CELLS // values.shape[0])   # (blocks of columns: no whole-matrix temporaries)
    two = np.zeros(values.shape[1], dtype=bool)
    for lo in range(0, values.shape[1], step):
        block = values[:, lo:lo + step]
        two[lo:lo + step] = ((block == low[lo:lo + step]) | (block == high[lo:lo + step])).all(axis=0)
    low, high = low[two], high[two]
    with np.errstate(over="ignore"):                      # (near the float limit: +-inf, then below)
        mid = (low + high) / 2.0
    mid = np.where((mid >= low) & (mid < high), mid, low)  # as _midpoints
    return {j: ([m] if a < b else []) for j, a, b, m in zip(numeric[two].tolist(), low.tolist(), high.tolist(),
                                                             mid.tolist())}


def _repeated_quantile(values: np.ndarray, weight: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """``np.quantile`` (linear) of ``values`` with each repeated ``weight`` times (integers),
    without building the repeated array: the quantiles of weighted rows are those of the rows
    they stand for."""
    order = np.argsort(values, kind="stable")
    v, cum = values[order], np.cumsum(weight[order])
    h = probs * (cum[-1] - 1)
    lo, hi = np.floor(h).astype(np.int64), np.ceil(h).astype(np.int64)
    v_lo = v[np.searchsorted(cum, lo, side="right")]
    v_hi = v[np.searchsorted(cum, hi, side="right")]
    return v_lo + (h - lo) * (v_hi - v_lo)
