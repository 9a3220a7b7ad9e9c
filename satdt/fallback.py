"""The greedy tree as a result: what a command answers when an engine was stopped (a signal, a
resource limit) before it could hand over its own incumbent.

CART's choice (Gini, the first column on ties) grown by the compiled DP core over the binary
columns, within a few tenths of a second (:class:`satdt.solvers.dp.search.CoreSearch.greedy`
checks its clock at every node); the majority leaf when even that does not finish. For the
consistent-tree objectives (depth, nodes) the greedy tree grown until pure, when it fits the
depth bound; no tree (UNKNOWN) otherwise.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .result import FEASIBLE, UNKNOWN, SolveResult, timeout_result

__all__ = ["greedy_result"]


def greedy_result(problem: Any, data: Any, method: str, objective_name: str, max_depth: int | None,
                  lam: float | None = None, seconds: float = 0.3, step: str = "interrupt") -> SolveResult:
    """The greedy tree (or the majority leaf) of ``problem`` as a FEASIBLE result for
    ``objective_name`` (``"errors"``, ``"regularized"`` with ``lam``, ``"depth"``, ``"nodes"``),
    its value evaluated on ``data`` (the original rows). ``stats["tree_source"]`` says which."""
    from .deadline import Deadline

    start = time.perf_counter()
    tree = None
    try:
        if objective_name in ("depth", "nodes"):
            from .solvers.dp.consistent import _consistent_fallback

            tree = _consistent_fallback(problem, max_depth, deadline=Deadline(max(seconds, 1e-3) / 0.5))
        elif objective_name in ("errors", "regularized"):
            from .solvers.dp.accuracy import _finalize
            from .solvers.dp.search import CoreSearch, SearchTimeout

            search = CoreSearch(problem, Deadline(max(seconds, 1e-3)), 0.0)
            depth = max(0, int(max_depth if max_depth is not None else 3))
            try:
                root = search.greedy(np.arange(problem.n_distinct, dtype=np.int64), depth)[1]
                from .tree import Tree

                tree = _finalize(problem, Tree(root=root, classes=problem.classes), search.binary_errors)[0]
            except SearchTimeout:
                tree = None
    except Exception:  # noqa: BLE001 - no core, a problem it cannot take: the leaf below
        tree = None
    runtime = time.perf_counter() - start
    leaf = timeout_result(data, method, objective_name, runtime, lam=lam, step=step)
    if tree is None:
        leaf.stats["tree_source"] = "majority leaf" if leaf.tree is not None else "none"
        return leaf
    errors = int((tree.predict_index(data.X) != data.y).sum())
    if objective_name == "errors":
        value, bound = float(errors), 0.0
    elif objective_name == "regularized":
        value, bound = errors / data.n_rows + float(lam or 0.0) * tree.n_leaves, float(lam or 0.0)
    elif objective_name == "depth":
        value, bound = float(tree.depth()), None
    else:
        value, bound = float(tree.n_nodes), None
    if leaf.tree is not None and leaf.objective is not None and leaf.objective <= value:
        leaf.stats["tree_source"] = "majority leaf"
        return leaf
    stats = {"tree_source": "greedy", "timeout_in": step, "errors": errors,
             "note": f"{step}: the greedy (CART) tree, the engine's own incumbent was not handed over"}
    status = FEASIBLE if tree is not None else UNKNOWN
    return SolveResult(tree, status, value, bound, runtime, method, objective_name, stats)


def cart_tree(data: Any, max_depth: int | None, deadline: Any = None, max_cells: float = 1e6) -> Any:
    """CART's greedy tree (Gini; the split kept only when it lowers the errors) on the original
    numeric features, thresholds at the midpoints between consecutive distinct values (the ``all``
    binarization's), without scikit-learn or a binarized problem: numpy sorts of the node's rows,
    features in chunks of at most ``max_cells`` (rows x features x classes). Categorical columns
    are not split. Grows until pure when ``max_depth`` is None. Returns a :class:`~satdt.tree.Tree`
    with class counts, or None when ``deadline`` (a :class:`~satdt.deadline.Deadline`) passes.

    The reference point of a degraded run: whatever a limit cut, the answer is at least this tree.
    """
    from .tree import Node, Tree

    X, y = data.X, data.y
    n_classes = len(data.classes)
    numeric = np.array([j not in data.schema.categories for j in range(X.shape[1])], dtype=bool)
    columns = np.flatnonzero(numeric)
    onehot = np.eye(n_classes, dtype=np.int32)

    def best_split(rows: np.ndarray) -> tuple[int, float, float] | None:
        Yr = onehot[y[rows]]
        N = Yr.sum(0).astype(np.float64)
        n = len(rows)
        best = (-1.0, -1, 0.0)
        # chunks of at most max_cells (rows x features): the deadline is checked between them and
        # between classes, so a limit overruns by one chunk's work at most (10^6 rows: one column)
        chunk = max(1, int(max_cells // max(1, n)))
        nL = np.arange(1, n, dtype=np.float64)
        nR = n - nL
        for start in range(0, len(columns), chunk):
            if deadline is not None and deadline.expired():
                raise TimeoutError
            cols = columns[start:start + chunk]
            V = np.ascontiguousarray(X[np.ix_(rows, cols)].T)  # (k, n): each feature's row contiguous
            order = np.argsort(V, axis=1)
            Vs = np.take_along_axis(V, order, axis=1)
            score = np.zeros((len(cols), n - 1))
            tmp = np.empty_like(score)
            for c in range(n_classes):  # class by class: no (k, n, C) temporary; in place
                if deadline is not None and deadline.expired():
                    raise TimeoutError
                if N[c] == 0:
                    continue
                Lc = np.cumsum(Yr[:, c][order], axis=1, dtype=np.float64)[:, :-1]
                np.square(Lc, out=tmp)
                tmp /= nL
                score += tmp
                np.subtract(N[c], Lc, out=Lc)
                np.square(Lc, out=Lc)
                Lc /= nR
                score += Lc
            score[Vs[:, 1:] <= Vs[:, :-1]] = -1.0  # no threshold between equal values
            j, k = np.unravel_index(int(np.argmax(score)), score.shape)
            if score[j, k] > best[0]:
                best = (float(score[j, k]), int(cols[j]), float((Vs[j, k] + Vs[j, k + 1]) / 2.0))
        return None if best[1] < 0 else (best[1], best[2], best[0])

    def grow(rows: np.ndarray, depth: int) -> tuple[Node, int]:
        counts = np.bincount(y[rows], minlength=n_classes)
        errors = int(counts.sum() - counts.max())
        leaf = Node.leaf(int(np.argmax(counts)))
        if errors == 0 or (max_depth is not None and depth >= max_depth) or len(rows) < 2:
            return leaf, errors
        split = best_split(rows)
        if split is None:
            return leaf, errors
        feature, threshold, _ = split
        go_left = X[rows, feature] <= threshold
        left, el = grow(rows[go_left], depth + 1)
        right, er = grow(rows[~go_left], depth + 1)
        if el + er < errors:
            return Node.split(feature, threshold, left, right), el + er
        return leaf, errors

    try:
        root, _ = grow(np.arange(X.shape[0]), 0)
    except TimeoutError:
        return None
    tree = Tree(root, classes=data.classes, feature_names=list(data.feature_names))
    tree.fit_counts(X, y)
    return tree


def degrade_dp(problem: Any, max_depth: int, lam: float | None, time_limit: float | None,
               progress: Any, solve: Any) -> SolveResult | None:
    """:func:`degrade_dp_data` for a built ``all`` problem (the guard at ``solve_dp``'s entry):
    None when its binary columns fit the resource model (:func:`satdt.limits.dp_budget`)."""
    from .deadline import max_memory
    from .limits import dp_budget

    data = getattr(problem, "data", None)
    if data is None or getattr(problem, "strategy", "all") != "all" or max_depth is None:
        return None
    rows, tests = int(problem.n_distinct), int(problem.n_binary)
    fit = dp_budget(rows, tests, int(max_depth), time_limit, max_memory(), int(data.X.shape[1]))
    if fit["fits"]:
        return None
    return degrade_dp_data(data, max_depth, lam, time_limit, progress, solve, dict(fit, tests=tests))


def plan_dp_data(data: Any, max_depth: int, time_limit: float | None) -> dict | None:
    """The resource model on ``data`` before it is binarized (one sort): None when the ``all``
    binarization fits the DP at ``max_depth``, else the figures :func:`degrade_dp_data` takes."""
    from .deadline import max_memory
    from .limits import count_all_tests, dp_budget

    from .limits import DP_SMALL_UNITS

    rows, features = int(data.X.shape[0]), int(data.X.shape[1])
    if float(rows) * features * features < DP_SMALL_UNITS:
        return None
    tests = count_all_tests(data)
    fit = dp_budget(rows, tests, int(max_depth), time_limit, max_memory(), features)
    return None if fit["fits"] else dict(fit, tests=tests)


def degrade_dp_data(data: Any, max_depth: int, lam: float | None, time_limit: float | None,
                    progress: Any, solve: Any, fit: dict) -> SolveResult:
    """The DP's answer when the ``all`` binarization of ``data`` is beyond the resource model
    (``fit``: :func:`satdt.limits.dp_budget`'s figures and ``tests``): ``solve`` (``solve_dp``)
    on quantile thresholds instead, and CART's tree on all thresholds (:func:`cart_tree`) when
    that is better; FEASIBLE (the quantile search is a restriction: neither its optimum nor its
    bound answers the question asked), the plan in ``stats``, and a warning."""
    import warnings

    from .binarize import Binarizer
    from .deadline import Deadline, format_bytes
    from .limits import DP_WIDE_MAX_PER_FEATURE

    deadline = Deadline(time_limit)
    rows, tests = int(data.X.shape[0]), int(fit["tests"])
    features = max(1, data.X.shape[1] - len(data.schema.categories))
    k = max(1, min(DP_WIDE_MAX_PER_FEATURE, fit["columns"] // features))
    note = (f"{tests} binary columns x {rows} rows would need about {format_bytes(fit['bytes'])} and "
            f"{fit['seconds']:.3g} s in the DP; {k} quantile threshold(s) per feature instead, and CART's "
            "tree on all thresholds when better")
    warnings.warn(note, stacklevel=4)
    left = deadline.remaining()
    floor = cart_tree(data, int(max_depth), deadline=Deadline(None if left is None else max(1e-3, 0.3 * left)))
    small = Binarizer("quantile", n_thresholds=k).problem(data)
    result = solve(small, max_depth=max_depth, lam=lam, time_limit=deadline.budget(), progress=progress)
    name = result.objective_name
    stats = dict(result.stats)
    stats.update(note=note, quantile_status=result.status, quantile_objective=result.objective,
                 resource_plan={"strategy": "quantile", "n_thresholds": k, "tests_all": tests,
                                "estimate_bytes": fit["bytes"], "estimate_s": fit["seconds"]})
    tree, value, source = result.tree, result.objective, "dp (quantile thresholds)"
    if floor is not None:
        errors = int((floor.predict_index(data.X) != data.y).sum())
        floor_value = float(errors) if name == "errors" else errors / data.n_rows + float(lam or 0) * floor.n_leaves
        if value is None or floor_value < value:
            tree, value, source = floor, floor_value, "cart (all thresholds)"
    stats["tree_source"] = source
    bound = 0.0 if name == "errors" else float(lam or 0.0)
    return SolveResult(tree, FEASIBLE if tree is not None else UNKNOWN, value, bound,
                       deadline.elapsed(), result.method, name, stats)
