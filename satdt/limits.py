"""What each engine can represent, and what it would cost, decided from the shape before a run.

* :func:`useful_depth`: the largest depth an optimal tree can need on a problem. Capping a depth
  bound there changes no optimum (a test repeated on a path, or a split with an empty side, can
  be removed without losing anything), so large ``max_depth`` values become the same question at
  a depth the engines can build.
* :func:`dp_lam_fits`: whether the DP's exact integer objective (``q * errors + p * n *
  leaves``, see :func:`satdt.objectives.scaled_objective`) stays below ``2**53`` at a depth.
* :func:`dp_budget` / :func:`plan_dp_binarization`: memory and time of the DP from the shape
  (binary columns x features x rows, by depth), decided before anything large is built, and the
  quantile thresholds per feature that fit when the ``all`` binarization does not (the
  degradation, with a note).
* :func:`sat_size_bytes`: the memory of the DT_size SAT encoding at a depth (a perfect tree of
  ``2**K`` nodes, every row routed through it), checked before it is built.

Estimates are deliberately simple (a constant per unit of the dominant table, measured on this
project's machine; see ``benchmarks/results/limits.md``) and err on the large side.
"""

from __future__ import annotations

import math

from fractions import Fraction
from functools import lru_cache
from typing import Any

__all__ = ["useful_depth", "dp_lam_fits", "dp_max_depth_for_lam", "dp_budget", "plan_dp_binarization",
           "count_all_tests", "sat_size_bytes", "engine_model_estimate", "plan_engine_binarization",
           "MAXSAT_SECONDS_PER_LITERAL", "maxsat_literals", "maxsat_fits"]


def useful_depth(problem: Any, max_depth: int, lam: float | Fraction | None = None,
                 leaves_bound: int | None = None) -> int:
    """``max_depth`` capped at the depth an optimal tree can need on ``problem``.

    A tree whose every split sends rows both ways has at most ``n_distinct`` leaves, hence depth
    ``<= n_distinct - 1``, and never tests one binary column twice on a path (depth ``<=
    n_binary``); every tree can be pruned to one such without more errors or leaves. With a leaf
    penalty ``lam > 0`` an optimal tree has at most ``1 + e / (n * lam)`` leaves (``e``: the
    majority leaf's errors), and ``leaves_bound`` (the leaves of a known tree that is as good as
    any deeper one, e.g. a consistent tree for DT_size) bounds them too: depth <= leaves - 1.
    """
    cap = max(0, min(int(max_depth), int(problem.n_distinct) - 1, int(problem.n_binary)))
    if lam is not None and Fraction(lam) > 0:
        n = int(problem.n_rows)
        # the majority leaf's errors: rows outside the most frequent class (weighted counts)
        counts = problem.counts.sum(axis=0)
        majority_errors = int(counts.sum() - counts.max())
        leaves = 1 + int(Fraction(majority_errors, n) / Fraction(lam))
        cap = min(cap, max(0, leaves - 1))
    if leaves_bound is not None:
        cap = min(cap, max(0, int(leaves_bound) - 1))
    return cap


def dp_lam_fits(lam: float | Fraction, n: int, depth: int) -> bool:
    """Whether the DP's integer objective for ``lam`` on ``n`` rows at ``depth`` stays exact
    (below ``2**53``, the float64 integers of the core)."""
    from .objectives import scaled_objective

    if depth > 1000:
        return False
    scaled = scaled_objective(Fraction(lam), n, depth)
    return scaled.q * n + scaled.p * n * 2 ** depth < 2 ** 53


@lru_cache(maxsize=256)
def dp_lam_max_total(lam: float | Fraction, depth: int, limit: int = 2 ** 40) -> int:
    """The largest number of rows (a weighted fit: total integer weight), at most ``limit``, at which
    :func:`dp_lam_fits` at ``depth`` (1 when none): a bisection, the integer objective growing with the rows
    (~2 ms: kept per (lam, depth), as a grid of fits asks again)."""
    if dp_lam_fits(lam, limit, depth):
        return limit
    lo, hi = 1, limit  # dp_lam_fits(lo) (or lo == 1), not dp_lam_fits(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if dp_lam_fits(lam, mid, depth) else (lo, mid)
    return lo


def dp_max_depth_for_lam(lam: float | Fraction, n: int, limit: int = 64) -> int:
    """The largest depth at which :func:`dp_lam_fits` (0 when none)."""
    best = 0
    for d in range(limit + 1):
        if dp_lam_fits(lam, n, d):
            best = d
        else:
            break
    return best


#: bytes per (node x (rows x depth + columns)) of the DT_size SAT encoding, clauses in the
#: solver included: 1.0 GB measured for iris at depth 10 (147 rows, 118 columns), 0.29 GB at 8
SAT_SIZE_BYTES_PER_UNIT = 700.0


def box_size(ranks: list[int]) -> tuple[float, float]:
    """The box DP (:mod:`satdt.solvers.dp.boxes`) over chains of ``ranks`` (``R = columns + 1``
    per chain of :meth:`~satdt.binarize.BinaryProblem.threshold_chains`): its boxes (the cells of
    one level table, every product of one interval of ranks per chain) and the cell operations
    of one level of its recurrence, ``sum_f boxes / I_f * R_f^3 / 6``. Floats: ``inf`` past
    float64 without numpy's overflow warning (wide data has thousands of chains); the ranks are
    taken in sorted order, so any order of the chains gives the same figures."""
    ranks = sorted(int(r) for r in ranks)
    cells = 1.0
    for r in ranks:
        cells *= float(r) * (float(r) + 1.0) / 2.0  # Python floats: inf on overflow, no warning
    work = float(sum(cells / (r * (r + 1) / 2) * (r ** 3 - r) / 6 for r in ranks))
    return cells, work


def sat_size_bytes(n_distinct: int, n_binary: int, depth: int) -> float:
    """Memory of the DT_size SAT encoding of a perfect tree of depth ``depth``."""
    if depth > 200:
        return float("inf")
    return SAT_SIZE_BYTES_PER_UNIT * 2.0 ** depth * (n_distinct * max(1, depth) + n_binary)


def count_all_tests(data: Any) -> int:
    """Binary tests of the ``all`` binarization of ``data`` before any is built: for each numeric
    column its distinct values minus one, for each categorical column its values (one sort of X)."""
    import numpy as np

    X = data.X
    cats = getattr(data.schema, "categories", {}) or {}
    total = 0
    numeric = [j for j in range(X.shape[1]) if j not in cats]
    if numeric:
        S = np.sort(X[:, numeric], axis=0)
        total += int((S[1:] != S[:-1]).sum())
    total += sum(len(v) for v in cats.values())
    return total


#: below this many binary columns x features the DP is never degraded (no sort is needed to know)
DP_SMALL_UNITS = 5e7
#: binary columns the DP core takes at depth >= 3 on wide data when degraded (measured on random
#: 200-row floats: 5,000-20,000 columns honoured a 3 s limit; 12,500 columns as 2,500 features x
#: 5 quantiles ran 16-25 s at 2.5 GB, a case the compiled core does not bound yet: see
#: benchmarks/results/limits.md)
DP_WIDE_COLUMNS = 20_000
#: quantile thresholds per feature when degraded (5 per feature hit the case above)
DP_WIDE_MAX_PER_FEATURE = 4
#: bytes per (binary column x feature) of the DP: 5.3 GB peak measured for ~500k columns of 2,500
#: features (200 rows, depth 2), 289 MB for 98,661 columns of 500 features, 147 MB for magic's
#: 120,434 columns of 10 features (15,143 rows): ~4-6 bytes, the interpreter's ~100 MB aside
DP_BYTES_PER_COLUMN_FEATURE = 6.0
#: seconds per (binary column x feature x row) at depth 2: ~29 s for the 2,500-feature case, 2.4 s
#: for 500 features (200 rows), 0.58 s for magic: 3e-11 to 2.4e-10; the larger, rounded up
DP_SECONDS_PER_UNIT = 2.5e-10
#: the time estimate degrades a run only past this many times the time left (the core keeps its
#: limit on most shapes; the estimate catches the gross cases, the memory estimate the rest)
DP_TIME_MARGIN = 4.0


def dp_budget(rows: int, tests: int, depth: int, seconds: float | None, nbytes: float,
              features: int = 1) -> dict:
    """Whether ``tests`` binary columns of ``features`` features on ``rows`` rows fit the DP at
    ``depth``: its estimated memory within half of ``nbytes`` and its estimated time (depth >= 2)
    within :data:`DP_TIME_MARGIN` times ``seconds`` (``"fits"``); the estimates, and the columns
    that would fit (``"columns"``)."""
    units = float(tests) * max(1, features)
    est_bytes = DP_BYTES_PER_COLUMN_FEATURE * units
    est_s = DP_SECONDS_PER_UNIT * units * rows if depth >= 2 else 1e-9 * tests * rows
    fits = units < DP_SMALL_UNITS or (est_bytes <= 0.5 * nbytes
                                      and (seconds is None or est_s <= DP_TIME_MARGIN * seconds))
    cols = min(int(tests), int(0.5 * nbytes / (DP_BYTES_PER_COLUMN_FEATURE * max(1, features))))
    if seconds is not None and depth >= 2:
        cols = min(cols, int(0.5 * seconds / (DP_SECONDS_PER_UNIT * max(1, features) * max(1, rows))))
    if depth >= 3:
        cols = min(cols, DP_WIDE_COLUMNS)
    return {"fits": fits, "bytes": est_bytes, "seconds": est_s, "columns": max(1, cols)}


def plan_dp_binarization(data: Any, depth: int, seconds: float | None, nbytes: float) -> dict:
    """Whether the DP can take the ``all`` binarization of ``data`` at ``depth`` within
    ``seconds`` and ``nbytes``, and if not the quantile thresholds per feature that fit.

    Returns ``{"strategy": "all"}`` or ``{"strategy": "quantile", "n_thresholds": k, "note": ...,
    "tests_all": T, "estimate_bytes": B, "estimate_s": S}``, or ``"strategy": "cart"`` when not
    even one threshold per feature fits (no engine: CART's tree on all thresholds is the answer).
    """
    rows, features = int(data.X.shape[0]), int(data.X.shape[1])
    if float(rows) * features * features < DP_SMALL_UNITS:  # tests x features <= rows x features^2: small
        return {"strategy": "all"}
    tests = count_all_tests(data)
    fit = dp_budget(rows, tests, depth, seconds, nbytes, features)
    if fit["fits"]:
        return {"strategy": "all", "tests_all": tests}
    est_bytes, est_s, cols = fit["bytes"], fit["seconds"], fit["columns"]
    from .deadline import format_bytes

    if cols < features:  # not even one threshold a feature fits: CART's tree, no engine
        note = (f"the 'all' binarization ({tests} tests x {rows} rows) would need about {format_bytes(est_bytes)} "
                f"and {est_s:.3g} s in the DP, and one threshold per feature ({features} columns) is above the "
                f"{cols} it takes; CART's tree on all thresholds, no exact engine")
        return {"strategy": "cart", "n_thresholds": 1, "note": note, "tests_all": tests,
                "estimate_bytes": est_bytes, "estimate_s": est_s}
    k = max(1, min(DP_WIDE_MAX_PER_FEATURE, cols // max(1, features)))

    note = (f"the 'all' binarization ({tests} tests x {rows} rows) would need about {format_bytes(est_bytes)} and "
            f"{est_s:.3g} s in the DP; {k} quantile threshold(s) per feature instead (a tree at least as good "
            f"as CART's on all thresholds is kept)")
    return {"strategy": "quantile", "n_thresholds": k, "note": note, "tests_all": tests,
            "estimate_bytes": est_bytes, "estimate_s": est_s}


#: bytes of the CP-SAT model per (distinct row, tree position) pair and per (column, position)
#: pair: the path literals and their clauses in the Python proto and CP-SAT's copy, order of
#: magnitude (:func:`satdt.solvers.cpsat.estimate_model_bytes`)
CPSAT_BYTES_PER_ROW_POSITION = 400
CPSAT_BYTES_PER_COLUMN_POSITION = 200
#: seconds per unit of :func:`satdt.solvers.cpsat.estimate_build_units` (5.5-7.3 us measured on
#: fault at depths 3-4 and magic at depth 2, load 3-4, the binary matrix apart), rounded up
CPSAT_SECONDS_PER_BUILD_UNIT = 8e-6

#: the largest quantile thresholds per feature :func:`plan_engine_binarization` tries (the
#: ``quantile`` strategy's default)
ENGINE_MAX_PER_FEATURE = 10


# the MIP engines' measured costs (used here and by satdt.solvers.mip_size)
#: peak bytes per constraint-matrix nonzero from the arrays to the engine's copy (COO blocks,
#: their concatenation, CSR, the proto, the engine's own matrix), measured order of magnitude
BYTES_PER_NONZERO = 160
#: seconds per nonzero to build the model and load it into an engine (numpy blocks, CSR, proto,
#: the engine's conversion and first presolve); measured on the quantbnb sets, rounded up
SECONDS_PER_NONZERO = 4e-7
#: seconds per constraint that an encoding adds in its own call (BinOCT's threshold rows): 6.5e-5
#: measured on fault (121,648 rows in 8 s at load 2.7), rounded up
SECONDS_PER_ROW = 7e-5
#: seconds per nonzero an engine takes to convert and presolve a loaded model before it looks at
#: its time limit or interrupter: CP-SAT through MathOpt ran 2.3 s on fault's 5.5e6-nonzero
#: BinOCT model given 1 s (4.2e-7 s a nonzero), rounded up. An engine is not started with less
#: time left than this, and gets its time limit less this (CP-SAT then ended 0.5-1 s after its
#: own limit on that model, at load 2, i.e. near the deadline).

def engine_model_estimate(method: str, rows: int, columns: int, features: int, classes: int,
                          depth: int) -> tuple[float, float]:
    """Bytes and seconds to build and load the ``binoct`` / ``oct`` / ``cpsat`` model of ``columns``
    binary columns over ``features`` numeric features, ``rows`` distinct rows, ``classes``
    classes, at ``depth``, from the shape alone (before any binarization): the estimates the
    engines make on the built problem (:func:`satdt.solvers.mip.estimate_binoct` /
    :func:`~satdt.solvers.mip.estimate_oct` with their bytes and seconds per nonzero,
    :func:`satdt.solvers.cpsat.estimate_model_bytes` / ``estimate_build_units``), with every
    column's thresholds spread evenly over its feature and half of the binary matrix ones."""
    import math

    D, m, B, F, C = int(depth), float(rows), float(columns), max(1, int(features)), max(2, int(classes))
    leaves = 2.0 ** D
    if method == "binoct":
        levels = F * (math.ceil(math.log2(max(B / F, 2.0))) + 1)
        nonzeros = levels * m * D * leaves + m * leaves * (1 + C) + 2 * leaves * C
        threshold_rows = (leaves - 1) * 2 * B
        return nonzeros * BYTES_PER_NONZERO, nonzeros * SECONDS_PER_NONZERO + threshold_rows * SECONDS_PER_ROW
    if method == "oct":
        nonzeros = leaves * D * (m * B / 2 + 2 * m) + m * leaves * (4 + 2 * C) + B * leaves
        return nonzeros * BYTES_PER_NONZERO + 8 * m * B, nonzeros * SECONDS_PER_NONZERO
    if method == "cpsat":
        positions, internal = 2.0 ** (D + 1) - 1, leaves - 1
        nbytes = m * positions * CPSAT_BYTES_PER_ROW_POSITION + B * leaves * CPSAT_BYTES_PER_COLUMN_POSITION
        units = 2 * internal * B + m * (positions + D) + m + internal * m * (F + 6) + positions * m
        return nbytes, units * CPSAT_SECONDS_PER_BUILD_UNIT
    raise ValueError(f"no model estimate for method {method!r}")


#: seconds per literal to build MaxSAT's clause blocks and load them into the oracle
#: (:mod:`satdt.solvers.maxsat`): 1.3-2.5e-7 measured (fault, magic; 1.5e7-1.7e8 literals in
#: 2-44 s) at load 2, 2.9e-7 on car at depth 4 (1.8e6 literals in 0.53 s) at load 6; rounded up
MAXSAT_SECONDS_PER_LITERAL = 3e-7


def maxsat_literals(rows: int, columns: int, classes: int, pairs: int, depth: int) -> tuple[int, int]:
    """(hard clauses, literals) of MaxSAT's encoding from the shape: the feature clauses of each
    level (``rows`` distinct rows x nodes of the level x ``columns``, width level + 2) dominate;
    then the prediction clauses (``pairs`` (row, class) pairs x leaves x class bits, width depth
    + 2)."""
    n_bits = max(1, math.ceil(math.log2(max(int(classes), 2))))
    clauses = literals = 0
    for level in range(int(depth)):
        k = int(rows) * 2 ** level * int(columns)
        clauses, literals = clauses + k, literals + k * (level + 2)
    k = int(pairs) * 2 ** int(depth) * n_bits
    return clauses + k, literals + k * (int(depth) + 2)


def maxsat_fits(data: Any, thresholds_per_feature: int, depth: int, seconds: float | None) -> bool:
    """Whether MaxSAT's formula on ``thresholds_per_feature`` quantile thresholds of every numeric
    feature of ``data`` can be loaded in half of ``seconds`` (:data:`MAXSAT_SECONDS_PER_LITERAL`),
    with at most ``min(rows, (k + 1) ** features)`` distinct rows: no binarization of 10^6 rows
    for a formula that cannot load in time (the engine's own check comes after it)."""
    if seconds is None:
        return True
    rows, features = int(data.X.shape[0]), max(1, int(data.X.shape[1]))
    k = max(1, int(thresholds_per_feature))
    # min(rows, (k + 1) ** features) without the power (it overflows a float on wide data)
    distinct = float(rows) if features * math.log(k + 1) >= math.log(max(rows, 1)) else float(k + 1) ** features
    classes = len(getattr(data, "classes", [])) or 2
    _, literals = maxsat_literals(int(distinct), k * features, classes, int(distinct), depth)
    return literals * MAXSAT_SECONDS_PER_LITERAL <= 0.5 * seconds


def plan_engine_binarization(data: Any, method: str, depth: int, seconds: float | None, nbytes: float) -> dict:
    """Whether the ``binoct`` / ``oct`` / ``cpsat`` model of the ``all`` binarization of ``data``
    fits at ``depth`` (its estimated memory within half of ``nbytes``, its estimated build and load
    within half of ``seconds``: the engine needs the rest), and if not the most quantile thresholds
    per feature (up to :data:`ENGINE_MAX_PER_FEATURE`) whose model fits, or none (``"cart"``).

    Returns ``{"strategy": "all"}``, or ``{"strategy": "quantile" | "cart", "n_thresholds": k,
    "note": ..., "tests_all": T, "estimate_bytes": B, "estimate_s": S}`` (the estimates of the
    ``all`` model), as :func:`plan_dp_binarization`.
    """
    rows, features = int(data.X.shape[0]), int(data.X.shape[1])
    classes = len(getattr(data, "classes", [])) or 2
    cats = getattr(data.schema, "categories", {}) or {}
    numeric = max(1, features - len(cats))

    def fits(columns: int) -> tuple[bool, float, float]:
        b, s = engine_model_estimate(method, rows, columns, numeric, classes, depth)
        return b <= 0.5 * nbytes and (seconds is None or s <= 0.5 * seconds), b, s

    if float(rows) * features < 2e4 and depth <= 4:  # small: the engines' own guards suffice
        return {"strategy": "all"}
    tests = count_all_tests(data)
    ok, est_bytes, est_s = fits(tests)
    if ok:
        return {"strategy": "all", "tests_all": tests}
    from .deadline import format_bytes

    head = (f"the {method} model of the 'all' binarization ({tests} tests x {rows} rows, depth {depth}) would need "
            f"about {format_bytes(est_bytes)} and {est_s:.3g} s to build")
    plan = {"tests_all": tests, "estimate_bytes": est_bytes, "estimate_s": est_s}
    for k in range(ENGINE_MAX_PER_FEATURE, 0, -1):
        if numeric * k < tests and fits(numeric * k + sum(len(v) for v in cats.values()))[0]:
            return dict(plan, strategy="quantile", n_thresholds=k,
                        note=f"{head}; {k} quantile threshold(s) per feature instead (a tree at least as good "
                             "as CART's on all thresholds is kept)")
    return dict(plan, strategy="cart", n_thresholds=1,
                note=f"{head}, and one quantile threshold per feature would not fit either; CART's tree on all "
                     "thresholds, no exact engine")
