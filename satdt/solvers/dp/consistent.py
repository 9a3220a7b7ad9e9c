"""Avellaneda's two questions on consistent data by the DP: DT_depth (:func:`solve_min_depth_dp`)
and DT_size (:func:`solve_min_size_dp`), the DP alternative to :mod:`satdt.solvers.sat` [6].

Two exact algorithms answer them: the search of :mod:`satdt.solvers.dp.accuracy` (one call per
depth for DT_depth, a lexicographic regularized call for DT_size), and the box DP of
:mod:`satdt.solvers.dp.boxes` (every box of the data at once, for data with few distinct values
per feature). ``algorithm="auto"`` chooses by the number of boxes.
"""

from __future__ import annotations

import math
import sys
import time
from fractions import Fraction

import numpy as np

from ...binarize import BinaryProblem
from ...deadline import Deadline
from ...progress import ProgressCallback, ProgressEvent, ProgressReporter
from ...result import FEASIBLE, INFEASIBLE, OPTIMAL, UNKNOWN, SolveResult, engine_result
from ...tree import Node, Tree
from ..common import TreeCheckError, finalize_tree
from .accuracy import _finalize, _validate, new_search, solve_max_accuracy_dp, solve_regularized_dp
from .boxes import BoxLattice, box_count, box_work
from .chains import Chains, build_chains, chain_errors
from .search import CoreSearch, SearchTimeout

__all__ = ["solve_min_depth_dp", "solve_min_size_dp", "choose_algorithm", "ALGORITHMS",
           "BOX_AUTO_CELLS", "BOX_AUTO_WORK", "BOX_MAX_CELLS"]

# DT_depth / DT_size: algorithm="auto" takes the box DP (satdt.solvers.dp.boxes) up to this many
# boxes (2 bytes each per depth level, all levels kept) and cell operations per level; "boxes" is
# refused above the max
BOX_AUTO_CELLS = 40_000_000
BOX_AUTO_WORK = 1e10
BOX_MAX_CELLS = 250_000_000
ALGORITHMS = ("auto", "search", "boxes")


#: share of the time-limit tolerance (max(1 s, 5 %)) the consistent fallback may run past the limit
FALLBACK_GRACE = 0.5


def _consistent_fallback(problem: BinaryProblem, max_depth: int | None,
                         chains: Chains | None = None, deadline: Deadline | None = None) -> Tree | None:
    """A consistent CART tree (Gini-greedy, grown until pure; exists for consistent data) in the
    original features, or None when it is deeper than ``max_depth``. Built from the column counts
    by the compiled core (:meth:`~satdt.solvers.dp.search.CoreSearch.greedy`, which checks its
    deadline at every node): no scikit-learn import, whose cost alone can exceed a short time limit.

    It runs after the search ran out of time, so with a ``deadline`` that has a limit it gets
    only :data:`FALLBACK_GRACE` of the limit's tolerance from its start (None when it is not
    done by then: on magic it needs ~2 s). With ``max_depth``
    the greedy stops at that depth: the greedy choice at a node depends only on its rows, so a
    tree grown until pure within ``max_depth`` is the same, and one that is not is refused
    either way. Its errors are counted through the chains (no binary matrix).
    """
    tolerance = None if deadline is None else deadline.tolerance()
    timer = Deadline(None if tolerance is None else FALLBACK_GRACE * tolerance)
    greedy = CoreSearch(problem, timer, 0.0, chains=chains)
    rows = np.arange(problem.n_distinct, dtype=np.int64)
    limit = max(1, problem.n_distinct)  # a consistent tree never needs more levels than rows
    if max_depth is not None:
        limit = min(limit, int(max_depth))
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, 2 * limit + 100))
    try:
        root = greedy.greedy(rows, limit)[1]
    except SearchTimeout:
        return None
    finally:
        sys.setrecursionlimit(old_limit)
    tree, errors = _finalize(problem, Tree(root=root, classes=problem.classes), greedy.binary_errors)
    if errors != 0 or (max_depth is not None and tree.depth() > max_depth):
        return None
    return tree


def choose_algorithm(problem: BinaryProblem, algorithm: str) -> tuple[Chains, dict]:
    """The chains of ``problem`` (shared by both algorithms) and ``{"algorithm": "boxes" or
    "search", ...}``: the box DP when ``algorithm`` asks for it, or allows it (``"auto"``) and the
    boxes are few."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {', '.join(map(repr, ALGORITHMS))}, got {algorithm!r}")
    chains = build_chains(problem)
    if algorithm == "search":
        return chains, {"algorithm": "search"}
    cells, work = box_count(chains), box_work(chains)
    classes = problem.counts.shape[1]
    if algorithm == "boxes" and (cells > BOX_MAX_CELLS or classes > 64):
        raise ValueError(f"algorithm='boxes' needs at most {BOX_MAX_CELLS:.3g} boxes and 64 classes; this "
                         f"problem has {cells:.3g} boxes and {classes} classes (use 'search')")
    if algorithm == "auto" and (cells > BOX_AUTO_CELLS or work > BOX_AUTO_WORK or classes > 64):
        return chains, {"algorithm": "search"}
    return chains, {"algorithm": "boxes", "boxes": int(cells), "box_work_per_level": float(work)}


#: seconds per box of building the first table (a few whole-table numpy passes that cannot stop
#: half-way): 2.2-3.9e-8 measured on BMI's 3.4e7 boxes at load 3; a first table that cannot be
#: built in the time left is not started
BOX_ZERO_S_PER_CELL = 4e-8


def _new_lattice(problem: BinaryProblem, chains: Chains, deadline: Deadline) -> BoxLattice:
    """The box tables of ``problem``, raising ``SearchTimeout`` when the deadline passes (or
    before the first table, when it cannot be built in the time left)."""
    def check_time() -> None:
        if deadline.expired():
            raise SearchTimeout

    left = deadline.remaining()
    if left is not None and left < box_count(chains) * BOX_ZERO_S_PER_CELL:
        raise SearchTimeout
    return BoxLattice(chains, problem.counts, check_time)


def _box_tree(problem: BinaryProblem, lattice: BoxLattice, depth: int, leaves: int) -> Tree:
    """The box DP's tree of depth ``<= depth`` with ``leaves`` leaves, finalized and checked: no
    error on the original rows, and pruning cannot remove a leaf of a proven minimum."""
    binary = Tree(root=lattice.tree(depth), classes=problem.classes)
    tree, errors = _finalize(problem, binary, lambda t: chain_errors(lattice.chains, problem.counts, t))
    if errors or tree.n_leaves != leaves or tree.depth() > depth:
        raise TreeCheckError(f"box DP tree has {errors} errors, {tree.n_leaves} leaves and depth "
                             f"{tree.depth()}; the tables said 0, {leaves} and <= {depth}")
    return tree


def solve_min_depth_dp(problem: BinaryProblem, *, max_depth: int | None = None,
                       time_limit: float | Deadline | None = None, pair_ops: float | None = None,
                       algorithm: str = "auto", engine: str = "core",
                       _binary_out: list | None = None, progress: ProgressCallback | None = None) -> SolveResult:
    """DT_depth by DP: the smallest ``k`` with a consistent tree of depth ``k``.

    ``k`` goes up from ``ceil(log2(classes))``. Two exact algorithms answer "is there a consistent
    tree of depth ``k``?":

    * ``"search"``: one :func:`solve_max_accuracy_dp` call per depth on the time left (one memo
      for every depth); a proven optimum above 0 errors is the same claim as an UNSAT answer of
      the SAT encoding.
    * ``"boxes"``: the table of depth ``k`` of :class:`~satdt.solvers.dp.boxes.BoxLattice` (every
      box of the data at once); for data with few distinct values per feature.

    ``"auto"`` (default) takes the boxes when there are at most ``BOX_AUTO_CELLS`` of them and a
    level costs at most ``BOX_AUTO_WORK`` cell operations, else the search.

    ``progress`` receives :class:`~satdt.progress.ProgressEvent` objects: the depth of the
    consistent tree found as the incumbent, each depth refuted as a new bound, and the search
    of the depth being tried as ticks.

    Returns
    -------
    SolveResult
        ``method="dp-depth"``, ``objective_name="depth"``: OPTIMAL (minimum depth), INFEASIBLE
        (none within ``max_depth``), FEASIBLE on timeout (a consistent CART tree, ``bound`` =
        proven lower bound on the depth) or UNKNOWN (no tree within ``max_depth`` at hand).
        ``stats``: ``algorithm``, ``depth_times_s`` (seconds of each depth; with the search also
        its errors), with the boxes ``leaves_by_depth`` (fewest leaves at each depth, None: none).
    """
    if max_depth is not None:
        _validate(problem, max_depth, None, pair_ops)
    problem.check_consistent()
    deadline = Deadline.of(time_limit)
    steps: dict[int, object] = {}
    stats: dict = {"distinct_rows": int(problem.n_distinct), "binary_features": int(problem.n_binary),
                   "engine": "dp"}

    reporter = ProgressReporter("dp-depth", progress)

    def result(tree: Tree | None, status: str, bound: int | None) -> SolveResult:
        stats["depth_times_s"] = dict(steps)
        objective = None if tree is None else tree.depth()
        if tree is not None:
            _check_consistent_tree(problem, tree, "dp-depth")
        out = engine_result(tree, objective, status=status, bound=bound, runtime=deadline, method="dp-depth",
                            objective_name="depth", stats=stats)
        reporter.emit("done", incumbent=out.objective, bound=out.bound, message=out.status)
        return out

    k = max(0, math.ceil(math.log2(max(1, problem.n_present_classes))))
    reporter.emit("start", bound=k)
    binary_out = [] if _binary_out is None else _binary_out
    chains, how = choose_algorithm(problem, algorithm)
    stats.update(how)
    try:
        if how["algorithm"] == "boxes":
            if max_depth is not None and k > max_depth:
                return result(None, INFEASIBLE, k)
            lattice = _new_lattice(problem, chains, deadline)
            leaves_by_depth = stats.setdefault("leaves_by_depth", {})
            while max_depth is None or k <= max_depth:
                t0 = time.perf_counter()
                leaves = lattice.value(k)
                steps[k], leaves_by_depth[k] = round(time.perf_counter() - t0, 4), leaves
                reporter.emit("bound" if leaves is None else "incumbent", bound=k + (leaves is None),
                              incumbent=None if leaves is None else k, message=f"box table of depth {k}")
                if leaves is not None:
                    tree = _box_tree(problem, lattice, k, leaves)
                    if tree.depth() != k:
                        raise TreeCheckError(f"box DP: depth {k} is minimal but the tree has depth {tree.depth()}")
                    return result(tree, OPTIMAL, k)
                if lattice.fixed:
                    raise TreeCheckError("box DP: no consistent tree at any depth on consistent data")
                k += 1
            return result(None, INFEASIBLE, k)
        search = new_search(problem, deadline, pair_ops, engine, chains=chains)  # one memo for every depth
        while True:
            if max_depth is not None and k > max_depth:
                return result(None, INFEASIBLE, k)
            if deadline.expired():
                break
            t0 = time.perf_counter()
            r = solve_max_accuracy_dp(problem, max_depth=k, upper_bound=0, optimize_above_bound=False,
                                      _search=search, _binary_out=binary_out,
                                      progress=as_ticks(reporter, f"depth {k}: errors"))
            steps[k] = (round(time.perf_counter() - t0, 4), int(r.objective))
            if r.objective == 0:
                reporter.emit("incumbent", incumbent=k)
                return result(r.tree, OPTIMAL, k)
            if r.bound < 1:  # timeout before a proof either way
                break
            k += 1
            reporter.emit("bound", bound=k)
    except SearchTimeout:  # the box tables ran out of time: no consistent tree below depth k
        pass
    fallback = _consistent_fallback(problem, max_depth, chains, deadline)
    return result(fallback, FEASIBLE if fallback is not None else UNKNOWN, k)


def as_ticks(reporter: ProgressReporter, label: str) -> ProgressCallback | None:
    """A callback for an inner search that passes its incumbents and ticks to ``reporter`` as
    ticks (the inner objective, e.g. errors at one depth, is not the outer one)."""
    if not reporter.active:
        return None

    def tick(event: ProgressEvent) -> None:
        if event.kind in ("incumbent", "tick"):
            inner = "" if event.incumbent is None else f" {event.incumbent:g}"
            reporter.tick(nodes=event.nodes, message=label + inner)

    return tick


def _check_consistent_tree(problem: BinaryProblem, tree: Tree, method: str) -> None:
    data = problem.data
    errors = int((tree.predict_index(data.X) != data.y).sum())
    if errors:
        raise TreeCheckError(f"{method}: the returned tree misclassifies {errors} training rows")


def solve_min_size_dp(problem: BinaryProblem, *, max_depth: int | None = None,
                      time_limit: float | Deadline | None = None, pair_ops: float | None = None,
                      algorithm: str = "auto", engine: str = "core",
                      progress: ProgressCallback | None = None) -> SolveResult:
    """DT_size by DP: the fewest nodes of a consistent tree of depth ``<= K``.

    ``K = max_depth``, or the minimum depth (:func:`solve_min_depth_dp`, on the same clock). The
    ``algorithm`` is chosen as in :func:`solve_min_depth_dp`:

    * ``"boxes"``: ``opt(full box, K)`` of :class:`~satdt.solvers.dp.boxes.BoxLattice`, whose tables
      already hold the minimum depth (one pass answers both questions).
    * ``"search"``: one :func:`solve_regularized_dp` call at depth ``K`` with the *lexicographic*
      penalty ``lam = 1 / (n * (2**K + 1))``: a leaf costs less than one error over any tree of
      depth ``<= K`` (at most ``2**K`` leaves), so the optimum has the fewest errors (0 when a
      consistent tree of depth ``<= K`` exists) and, among those, the fewest leaves. On a timeout
      the engine's lower bound ``B`` on ``q * errors + p * n * leaves`` bounds every consistent
      tree's leaves by ``B / (p * n)``.

    nodes = ``2 * leaves - 1``. ``progress`` receives :class:`~satdt.progress.ProgressEvent`
    objects (nodes as the incumbent and bound; the inner searches as ticks).

    Returns
    -------
    SolveResult
        ``method="dp-size"``, ``objective_name="nodes"``: OPTIMAL, INFEASIBLE (no consistent tree
        of depth ``<= max_depth``), FEASIBLE (smallest consistent tree found, ``bound`` = proven
        lower bound on nodes) or UNKNOWN. ``stats["algorithm"]`` says which algorithm ran.
    """
    if max_depth is not None:
        _validate(problem, max_depth, None, pair_ops)
    problem.check_consistent()
    deadline = Deadline.of(time_limit)
    n_classes = problem.n_present_classes
    stats: dict = {"distinct_rows": int(problem.n_distinct), "binary_features": int(problem.n_binary),
                   "engine": "dp"}
    low_leaves = max(1, n_classes)
    candidates: list[Tree] = []

    reporter = ProgressReporter("dp-size", progress)
    reporter.emit("start", bound=2 * low_leaves - 1)

    def result(status: str, bound: int | None) -> SolveResult:
        tree = min(candidates, key=lambda t: t.n_nodes) if candidates else None
        if tree is not None:
            _check_consistent_tree(problem, tree, "dp-size")
        out = engine_result(tree, None if tree is None else tree.n_nodes, status=status, bound=bound,
                            runtime=deadline, method="dp-size", objective_name="nodes", stats=stats)
        reporter.emit("done", incumbent=out.objective, bound=out.bound, message=out.status)
        return out

    chains, how = choose_algorithm(problem, algorithm)
    stats.update(how)
    if n_classes <= 1:
        leaf = Tree(root=Node.leaf(int(problem.majority[0])), classes=problem.classes)
        candidates.append(finalize_tree(problem, leaf)[0])
        return result(OPTIMAL, 1)
    if max_depth is not None and max_depth < math.ceil(math.log2(n_classes)):
        return result(INFEASIBLE, None)
    if how["algorithm"] == "boxes":
        return _min_size_boxes(problem, chains, max_depth, deadline, stats, candidates, low_leaves, result)
    return _min_size_search(problem, chains, max_depth, deadline, pair_ops, engine, stats, candidates, low_leaves,
                            result, reporter)


def _min_size_boxes(problem, chains, max_depth, deadline, stats, candidates, low_leaves, result):
    """DT_size from the box tables (see :func:`solve_min_size_dp`)."""
    k = max(0, math.ceil(math.log2(problem.n_present_classes)))
    t0 = time.perf_counter()
    try:
        lattice = _new_lattice(problem, chains, deadline)
        if max_depth is None:
            while lattice.value(k) is None:
                if lattice.fixed:
                    raise TreeCheckError("box DP: no consistent tree at any depth on consistent data")
                low_leaves = max(low_leaves, k + 2)  # depth > k: a path of k + 1 splits
                k += 1
            K = k
        else:
            K = int(max_depth)
        leaves = lattice.value(K)
        stats.update(size_depth=K, size_time_s=round(time.perf_counter() - t0, 4),
                     leaves_by_depth={**{d: lattice.value(d) for d in range(lattice.depth_done() + 1)}, K: leaves})
        if leaves is None:
            return result(INFEASIBLE, None)
        candidates.append(_box_tree(problem, lattice, K, leaves))
        return result(OPTIMAL, None)
    except SearchTimeout:
        fallback = _consistent_fallback(problem, max_depth, chains, deadline)
        candidates.extend([fallback] if fallback is not None else [])
        return result(FEASIBLE if candidates else UNKNOWN, 2 * low_leaves - 1)


def _min_size_search(problem, chains, max_depth, deadline, pair_ops, engine, stats, candidates, low_leaves, result,
                     reporter):
    """DT_size by the lexicographic regularized search (see :func:`solve_min_size_dp`)."""
    binary_trees: list[Tree] = []
    if max_depth is None:
        depth = solve_min_depth_dp(problem, time_limit=deadline, pair_ops=pair_ops, engine=engine,
                                   algorithm="search", _binary_out=binary_trees,
                                   progress=as_ticks(reporter, "minimum depth: depth"))
        stats["depth_times_s"] = depth.stats["depth_times_s"]
        if depth.status != OPTIMAL:
            if depth.tree is not None:
                candidates.append(depth.tree)
            return result(FEASIBLE if candidates else UNKNOWN, 2 * max(low_leaves, depth.bound + 1) - 1)
        K = int(depth.objective)
        candidates.append(depth.tree)
        low_leaves = max(low_leaves, K + 1)  # a tree of minimum depth K has a path of K splits
        reporter.emit("incumbent", incumbent=depth.tree.n_nodes, bound=2 * low_leaves - 1,
                      message=f"minimum depth {K}")
    else:
        K = int(max_depth)
    if deadline.expired():
        return result(FEASIBLE if candidates else UNKNOWN, 2 * low_leaves - 1)
    n = int(problem.n_rows)
    lam = Fraction(1, n * (2 ** K + 1))
    # warm start: the consistent tree of the depth search (a greedy one rarely is consistent, and
    # an inconsistent incumbent costs more than any consistent tree: no pruning until one is found)
    warm = binary_trees[-1] if binary_trees else None
    t0 = time.perf_counter()
    r = solve_regularized_dp(problem, lam=lam, max_depth=K, time_limit=deadline, pair_ops=pair_ops,
                             engine=engine, start_tree=warm,
                             progress=as_ticks(reporter, f"fewest leaves at depth <= {K}: objective"))
    errors = int(r.stats["errors"])
    stats.update(size_depth=K, size_time_s=round(time.perf_counter() - t0, 4), search_nodes=r.stats.get("nodes"),
                 lam_engine=r.stats["lam_engine"])
    if r.status == OPTIMAL:
        if errors > 0:
            if candidates:  # a consistent tree of depth <= K was found: the search contradicts it
                raise TreeCheckError(f"dp-size: optimum at depth {K} has {errors} errors, "
                                     f"but a consistent tree of depth <= {K} exists")
            return result(INFEASIBLE, None)
        candidates[:] = [r.tree]
        return result(OPTIMAL, None)
    if errors == 0:
        candidates.append(r.tree)
    p = int(r.stats["lam_engine"].split("/")[0])
    bound_leaves = math.ceil(r.stats["engine_bound"] / (p * n) - 1e-9)
    low_leaves = max(low_leaves, bound_leaves)
    if candidates and min(t.n_nodes for t in candidates) <= 2 * low_leaves - 1:
        return result(OPTIMAL, None)
    if not candidates:
        fallback = _consistent_fallback(problem, K, chains, deadline)
        if fallback is not None:
            candidates.append(fallback)
    return result(FEASIBLE if candidates else UNKNOWN, 2 * low_leaves - 1)
