"""``satdt solve``'s answers made without an estimator, and its resource plans for tall or wide data.

:class:`_Answer` holds a result the command prints (the fit path called directly, a fallback,
the watchdog's leaf); :func:`_degraded` is the majority-class leaf of a step the time left cannot
cover. Before anything large is built, the resource models of :mod:`satdt.limits` say whether the
``all`` binarization fits the method: when it does not, CART's tree on all thresholds is computed
first (:func:`_plan_wide` for the light methods, :func:`_engine_floor` for the engines and the
heuristics), kept in ``a.floor`` as the answer of every later limit, and the method runs on
quantile thresholds (or not at all); its answer is then made honest for the question asked
(:func:`_degraded_dp_result`, :func:`_at_least_the_floor`).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from ..data import Dataset
from ..deadline import Deadline
from ..methods import result_objective, spec
from ..result import FEASIBLE, UNKNOWN, SolveResult, engine_result, objective_value, timeout_result, trivial_bound


class _Answer:
    """A result ``satdt solve`` prints that no estimator made (the fit path called directly, a
    fallback, the watchdog's leaf): the printer reads ``result_``, ``tree_`` and ``binarization``,
    the names a fitted estimator has."""

    def __init__(self, result: SolveResult, binarization: str | None):
        self.result_ = result
        self.binarization = binarization

    @property
    def tree_(self) -> Any:
        return self.result_.tree


#: rows from which a file is "tall" for the resource plans: CART's floor (its sorts are most of the
#: work: ~4 s on 10^6 x 10) may take most of the time left, and MaxSAT is planned from the shape
TALL_ROWS = 100_000


#: methods that run as asked on wide data, with CART's tree on all thresholds as the floor of their answer
_HEURISTIC_FLOORS = ("dpdt", "adapttree", "rdt")


def _degraded(a: argparse.Namespace, data: Dataset, step: str, grace: float | None = None) -> Any:
    """The result when the time left cannot cover ``step`` (an import that cannot be interrupted):
    the majority-class leaf (FEASIBLE) for the methods any tree answers (DPDT included: its value
    of a leaf is errors / n), UNKNOWN without a tree for the consistent-tree questions, as the
    estimators return when binarization runs out; CART's tree within ``grace`` seconds when better
    (None: :data:`~satdt.heuristics.greedy.CART_GRACE`)."""
    name = result_objective(a.method, a.lam)
    if name == "dpdt":  # DPDT's value of a leaf: errors / n (no test), as DPDT's own first tree
        result = timeout_result(data, a.method, "regularized", 0.0, lam=0.0, step=step)
        result.objective_name = "dpdt"
    else:
        lam = (a.lam if a.lam is not None else 0.01) if name == "regularized" else None  # cpsat's default lam
        from ..heuristics.greedy import timeout_answer

        result = timeout_answer(data, a.method, name, 0.0, lam=lam, step=step,
                                max_depth=getattr(a, "max_depth", None), grace=grace)
    return _Answer(result, a.binarization)


def _plan_wide(a: argparse.Namespace, data: Dataset, deadline: Deadline) -> dict | None:
    """The resource model (:func:`satdt.limits.plan_dp_binarization`) before anything large is
    built: None when the ``all`` binarization fits the DP's time and memory; else the plan, with
    CART's tree on all thresholds (:func:`satdt.fallback.cart_tree`) computed first and kept in
    ``a.floor``, the answer of every later limit (the watchdog, a signal) and the least the
    degraded run returns. A note goes to stderr and into ``stats``."""
    from ..deadline import max_memory
    from ..fallback import cart_tree
    from ..limits import plan_dp_binarization

    if a.binarization != "all" or not spec(a.method).light:
        return None
    depth = a.max_depth if a.method == "dp" else 3
    left = deadline.remaining()
    plan = plan_dp_binarization(data, int(depth), left, max_memory())
    if plan["strategy"] == "all":
        return None
    start = time.perf_counter()
    consistent = a.method != "dp"
    # at most this share (CART stops when done), the rest for the DP, if it runs; tall data: CART's
    # sorts are most of the work (~4 s on 10^6 x 10 at load 2) and its tree is the guarantee
    share = (0.8 if data.n_rows >= TALL_ROWS else 0.3) if a.method == "dp" and plan["strategy"] != "cart" else 0.8
    tree = cart_tree(data, None if consistent else a.max_depth, deadline=deadline.share(share))
    if tree is None:  # not even CART in its share of the time: the majority leaf (dp) or no tree
        a.floor = _degraded(a, data, "CART's tree (resource plan)")
        a.floor.result_.stats["note"] = plan["note"].split(";")[0] + "; CART's tree did not finish either"
        return plan
    errors = int((tree.predict_index(data.X) != data.y).sum())
    name = {"sat-depth": "depth", "sat-size": "nodes"}.get(a.method, "errors" if a.lam is None else "regularized")
    value = objective_value(name, tree, errors, data.n_rows, a.lam)
    if consistent:
        too_deep = a.max_depth is not None and tree.depth() > a.max_depth
        note = plan["note"].split(";")[0] + "; no exact engine started: " + (
            "CART's tree is not consistent (conflicting rows): no tree" if errors
            else f"CART's tree grown until pure has depth {tree.depth()} > {a.max_depth}: no tree" if too_deep
            else "CART's tree grown until pure (consistent)")
        if errors or too_deep:
            tree = None
    else:
        note = plan["note"]
    stats = {"note": note, "resource_plan": {k: v for k, v in plan.items() if k != "note"},
             "tree_source": "cart", "errors": errors}
    result = engine_result(tree, value, bound=0.0 if name == "errors" else None, runtime=time.perf_counter() - start,
                           method=a.method, objective_name=name, stats=stats)
    a.floor = _Answer(result, a.binarization)
    print(f"satdt: note: {note}", file=sys.stderr)
    return plan


def _degraded_dp_result(a: argparse.Namespace, result: Any, plan: dict) -> Any:
    """The DP's answer on the quantile thresholds, made honest for the question asked (all
    thresholds): never OPTIMAL (only over the quantile thresholds), no bound from the restricted
    search, and CART's tree on all thresholds when that is better."""
    floor = a.floor.result_
    if floor.tree is None or floor.objective is None:
        result.status = FEASIBLE if result.tree is not None else UNKNOWN
        result.bound = None
        result.stats["note"] = plan["note"]
        return result
    stats = dict(result.stats)
    stats.update(note=plan["note"], resource_plan=floor.stats.get("resource_plan", {k: v for k, v in plan.items()
                                                                                 if k != "note"}),
                 quantile_status=result.status, quantile_objective=result.objective)
    better = result.tree is not None and result.objective is not None and result.objective <= floor.objective
    tree, value = (result.tree, result.objective) if better else (floor.tree, floor.objective)
    stats["tree_source"] = "dp (quantile thresholds)" if better else "cart (all thresholds)"
    return engine_result(tree, value, bound=floor.bound, runtime=result.runtime, method=result.method,
                         objective_name=result.objective_name, stats=stats)


def _engine_floor(a: argparse.Namespace, data: Dataset, deadline: Deadline) -> None:
    """maxsat / binoct on data whose ``all`` binarization is large (the resource model's test):
    CART's tree on all thresholds first (a few tenths of a second to ~1 s, cut at a fifth of the
    time left), the least the command answers (:func:`_at_least_the_floor`, the watchdog)."""
    from ..deadline import max_memory
    from ..fallback import cart_tree
    from ..limits import maxsat_fits, plan_dp_binarization, plan_engine_binarization

    depth = a.max_depth if a.max_depth is not None else spec(a.method).default_depth
    if not isinstance(depth, int):  # no depth bound (adapttree's default), or dpdt's per-depth list: no floor
        return
    if a.method in ("maxsat", *_HEURISTIC_FLOORS):  # maxsat: its own size check refuses what is too
        # large; the heuristics grow CART-like trees; the DP's model says when the data is that large
        plan = plan_dp_binarization(data, int(depth), deadline.remaining(), max_memory())
        # tall data only: on wide data (200 x 5,000) the shape model is far above the measured load
        if a.method == "maxsat" and plan["strategy"] == "quantile" and data.n_rows >= TALL_ROWS \
                and not maxsat_fits(data, plan["n_thresholds"], int(depth), deadline.remaining()):
            plan = {**plan, "strategy": "cart", "note": plan["note"].split(";")[0] + "; MaxSAT's formula on "
                    f"{plan['n_thresholds']} quantile threshold(s) per feature would not load in the time left "
                    "either: CART's tree on all thresholds, no exact engine"}
    else:  # binoct, oct, cpsat: their model's size and build time from the shape (satdt.limits)
        plan = plan_engine_binarization(data, a.method, int(depth), deadline.remaining(), max_memory())
    if plan["strategy"] == "all":
        return
    start = time.perf_counter()
    quantile_rl = a.method in _HEURISTIC_FLOORS and a.method != "dpdt"
    if quantile_rl:  # the RL builders on the quantile thresholds (the 'all' matrix: 4-6 GB at 200 x 5,000),
        a.binarization, a.n_thresholds = "quantile", plan["n_thresholds"]  # whether CART finishes or not
    # at most (CART stops when done): no engine after it, most of the time; a heuristic still runs
    # after it, half, or most on tall data, where CART's sorts are the work (~4 s on 10^6 x 10)
    tall = data.n_rows >= TALL_ROWS
    share = (0.8 if tall else 0.5) if a.method in _HEURISTIC_FLOORS else \
        0.8 if plan["strategy"] == "cart" else 0.2
    tree = cart_tree(data, depth, deadline=deadline.share(share))
    if tree is None:
        return
    # the engine on quantile thresholds (the 'all' binarization alone would not finish): its
    # answer can only improve on CART's tree on all thresholds, which stays the floor
    errors = int((tree.predict_index(data.X) != data.y).sum())
    if a.method in _HEURISTIC_FLOORS:  # the heuristic runs as asked; CART's tree is the floor of its value
        name = "dpdt" if a.method == "dpdt" else "errors"
        value = objective_value(name, tree, errors, data.n_rows, alpha=a.alpha, X=data.X)
        stats = {"tree_source": "cart", "errors": errors, "note": f"CART's tree on all {plan['tests_all']} "
                 f"thresholds ({a.method}'s answer was worse or missing: wide data, see resource_plan)",
                 "resource_plan": {k: v for k, v in plan.items() if k != "note"}}
        if quantile_rl:
            stats["note"] += f"; {a.method} on {plan['n_thresholds']} quantile threshold(s) per feature"
            print(f"satdt: note: {plan['note'].split(';')[0]}; {a.method} on {plan['n_thresholds']} quantile "
                  "threshold(s) per feature", file=sys.stderr)
        result = engine_result(tree, value, runtime=time.perf_counter() - start, method=a.method, objective_name=name,
                               stats=stats)
        a.floor = _Answer(result, a.binarization)
        return
    a.plan = plan
    a.binarization, a.n_thresholds = "quantile", plan["n_thresholds"]
    print(f"satdt: note: {plan['note']}", file=sys.stderr)
    lam = None
    if a.method == "cpsat":
        lam = float(a.lam if a.lam is not None else spec("cpsat").defaults.get("lam", 0.01))
    name = "errors" if lam is None else "regularized"
    value = objective_value(name, tree, errors, data.n_rows, lam)
    a.floor_only = plan["strategy"] == "cart"
    stats = {"tree_source": "cart", "errors": errors,
             "resource_plan": {k: v for k, v in plan.items() if k != "note"},
             "note": plan["note"] if a.floor_only else
             f"CART's tree on all {plan['tests_all']} thresholds (the {a.method} engine's answer was worse or missing)"}
    result = engine_result(tree, value, bound=trivial_bound(name, lam), runtime=time.perf_counter() - start,
                           method=a.method, objective_name=name, stats=stats)
    a.floor = _Answer(result, a.binarization)


def _at_least_the_floor(a: argparse.Namespace, model: Any) -> Any:
    """The engine's answer, or CART's tree (``a.floor``) when that is better; the engine's bound
    is kept (the same question: all thresholds)."""
    result, floor = model.result_, a.floor.result_
    plan = getattr(a, "plan", None)
    if result is not None and result.tree is not None and result.objective is not None \
            and result.objective <= floor.objective:
        if plan is not None:  # quantile thresholds: neither their optimum nor their bound answers
            result.stats.update(quantile_status=result.status, quantile_bound=result.bound, note=plan["note"],
                                tree_source=f"{a.method} (quantile thresholds)")
            result.status, result.bound = FEASIBLE, 0.0
        return model
    if result is not None and result.objective_name != floor.objective_name:
        return model
    if result is not None:
        if plan is None:  # the engine's bound is for the same question (all thresholds)
            floor.bound = result.bound if result.bound is not None else floor.bound
        floor.stats["engine_status"] = result.status
        floor.stats["engine_stats"] = {k: v for k, v in result.stats.items() if k != "note"}
        floor.runtime = result.runtime
    return a.floor
