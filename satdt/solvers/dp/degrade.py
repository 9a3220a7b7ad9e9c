"""The DP beyond its resources: on quantile thresholds when the ``all`` binarization does not fit
the resource model (:func:`satdt.limits.dp_budget`), with CART's tree on all thresholds
(:func:`satdt.heuristics.greedy.cart_tree`) as the floor of the answer."""

from __future__ import annotations

from typing import Any

from ...heuristics.greedy import cart_tree
from ...result import SolveResult, engine_result, objective_value, trivial_bound

__all__ = ["degrade_dp", "plan_dp_data", "degrade_dp_data"]


def degrade_dp(problem: Any, max_depth: int, lam: float | None, time_limit: Any,
               progress: Any, solve: Any) -> SolveResult | None:
    """:func:`degrade_dp_data` for a built ``all`` problem (the guard at ``solve_dp``'s entry):
    None when its binary columns fit the resource model (:func:`satdt.limits.dp_budget`)."""
    from ...deadline import Deadline, max_memory
    from ...limits import dp_budget

    data = getattr(problem, "data", None)
    if data is None or getattr(problem, "strategy", "all") != "all" or max_depth is None:
        return None
    rows, tests = int(problem.n_distinct), int(problem.n_binary)
    time_limit = Deadline.of(time_limit)  # the caller's clock, handed on to the degraded run
    fit = dp_budget(rows, tests, int(max_depth), time_limit.remaining(), max_memory(), int(data.X.shape[1]))
    if fit["fits"]:
        return None
    return degrade_dp_data(data, max_depth, lam, time_limit, progress, solve, dict(fit, tests=tests))


def plan_dp_data(data: Any, max_depth: int, time_limit: float | None) -> dict | None:
    """The resource model on ``data`` before it is binarized (one sort): None when the ``all``
    binarization fits the DP at ``max_depth``, else the figures :func:`degrade_dp_data` takes."""
    from ...deadline import max_memory
    from ...limits import DP_SMALL_UNITS, count_all_tests, dp_budget

    rows, features = int(data.X.shape[0]), int(data.X.shape[1])
    if float(rows) * features * features < DP_SMALL_UNITS:
        return None
    tests = count_all_tests(data)
    fit = dp_budget(rows, tests, int(max_depth), time_limit, max_memory(), features)
    return None if fit["fits"] else dict(fit, tests=tests)


def degrade_dp_data(data: Any, max_depth: int, lam: float | None, time_limit: Any,
                    progress: Any, solve: Any, fit: dict) -> SolveResult:
    """The DP's answer when the ``all`` binarization of ``data`` is beyond the resource model
    (``fit``: :func:`satdt.limits.dp_budget`'s figures and ``tests``): ``solve`` (``solve_dp``)
    on quantile thresholds instead, and CART's tree on all thresholds (:func:`cart_tree`) when
    that is better; FEASIBLE (the quantile search is a restriction: neither its optimum nor its
    bound answers the question asked; OPTIMAL only when the tree meets the bound every tree
    meets, :func:`~satdt.result.trivial_bound`), the plan in ``stats``, and a warning."""
    import warnings

    from ...binarize import Binarizer
    from ...deadline import Deadline, format_bytes
    from ...limits import DP_WIDE_MAX_PER_FEATURE

    deadline = Deadline.of(time_limit)
    rows, tests = int(data.X.shape[0]), int(fit["tests"])
    features = max(1, data.X.shape[1] - len(data.schema.categories))
    k = max(1, min(DP_WIDE_MAX_PER_FEATURE, fit["columns"] // features))
    note = (f"{tests} binary columns x {rows} rows would need about {format_bytes(fit['bytes'])} and "
            f"{fit['seconds']:.3g} s in the DP; {k} quantile threshold(s) per feature instead, and CART's "
            "tree on all thresholds when better")
    warnings.warn(note, stacklevel=4)
    floor = cart_tree(data, int(max_depth), deadline=deadline.share(0.3))
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
        floor_value = objective_value(name, floor, errors, data.n_rows, lam)
        if value is None or floor_value < value:
            tree, value, source = floor, floor_value, "cart (all thresholds)"
    stats["tree_source"] = source
    return engine_result(tree, value, bound=trivial_bound(name, lam), runtime=deadline, method=result.method,
                         objective_name=name, stats=stats)
