"""``satdt solve``: one method on one dataset, its result as text or JSON, the tree exported.

One fit path, :func:`satdt.fit.fit_problem`: called here directly for the registry's light
methods (``MethodSpec.light``: no scikit-learn) on the loaded data, through the method's
estimator otherwise; one limit, the command's :class:`~satdt.deadline.Deadline`, handed to both
as a clock of the fit that ends with it (:meth:`~satdt.deadline.Deadline.from_now`), so
``runtime_s`` is the fit's and ``wall_s`` the command's.
And the command's watchdog (:class:`_Guard`) that answers with the best tree so far when a step
does not stop within the time limit.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

from ..data import Dataset, load_dataset
from ..deadline import Deadline, interrupted, set_max_memory
from ..fit import fit_problem
from ..methods import MethodSpec, result_objective, spec
from ..progress import ProgressCallback
from ..result import (FEASIBLE, INFEASIBLE, UNKNOWN, NoTreeFoundError, SolveResult, engine_result, objective_value,
                      timeout_result, trivial_bound)
from .signals import ESCALATE_AFTER, SignalPolicy
from .common import (EXIT_OK, EXIT_USAGE, atomic_path, check_output, estimators_module, exit_now, fail,
                     data_frame, progress_callback, solve_summary, write_atomic)


# Start fast: scikit-learn, pandas and OR-tools load only in the commands that use them.
# satdt.estimators (scikit-learn) is imported by estimators_module(); `satdt solve` for the registry's
# light methods (MethodSpec.light) on a plain CSV runs without it (tests/test_import_time.py).


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


def _stuck_in(thread_id: int | None) -> str:
    """Where a thread is now: its innermost frame, then the innermost satdt frames (for the
    watchdog's note: the step that did not stop in time)."""
    frame = sys._current_frames().get(thread_id) if thread_id is not None else None
    if frame is None:
        return "unknown"
    mark = f"{os.sep}satdt{os.sep}"
    chain = [] if mark in frame.f_code.co_filename else \
        [f"{Path(frame.f_code.co_filename).name}:{frame.f_lineno} {frame.f_code.co_name}"]
    seen = set()
    while frame is not None:
        name, func = frame.f_code.co_filename, frame.f_code.co_name
        if mark in name and f"{mark}cli{os.sep}" not in name and (name, func) not in seen:  # a recursion once
            seen.add((name, func))
            chain.append(f"{name.rsplit(mark, 1)[1]}:{frame.f_lineno} {func}")
        frame = frame.f_back
    if len(chain) > 6:  # the innermost frames, then the outermost (the solver the command called)
        chain = chain[:3] + ["..."] + chain[-3:]
    return " < ".join(chain)


#: rows from which a file is "tall" for the resource plans: CART's floor (its sorts are most of the
#: work: ~4 s on 10^6 x 10) may take most of the time left, and MaxSAT is planned from the shape
TALL_ROWS = 100_000

#: the share of a time limit's tolerance (max(1 s, 5 %)) after which the command's watchdog
#: answers: a quarter leaves the answer's printing and the process's exit (0.05-0.2 s measured on
#: 10^6 rows at load 2-3) within half the tolerance
WATCHDOG_SHARE = 0.25


class _Guard:
    """The ``satdt solve`` program's last resort for ``--time-limit``: a step that does not stop in
    time (a native call, a build without deadline checks) is not waited for. At the limit plus
    a quarter of the tolerance (max(1 s, 5 %): :data:`WATCHDOG_SHARE`) a daemon thread prints the majority-class leaf (FEASIBLE;
    UNKNOWN without a tree for sat-depth / sat-size), with ``stats["watchdog"]`` naming where the
    main thread was, and ends the process. Only as the program (not a library call: a library
    cannot end its caller's process), and only when the command has not started printing."""

    def __init__(self, a: argparse.Namespace):
        self.a = a
        self.data: Dataset | None = None
        self.lock = threading.Lock()
        self.main_id = threading.get_ident()
        limit = a.time_limit
        if limit is None or not a.clock.whole_process:
            return
        fire_at = a.clock.start + limit + WATCHDOG_SHARE * max(1.0, 0.05 * limit)
        timer = threading.Timer(max(0.0, fire_at - time.perf_counter()), self.fire)
        timer.daemon = True
        timer.start()

    def finish(self) -> None:
        """The command's own answer is ready: the guard stands down (or, if it already fired, this
        waits for the process to end)."""
        self.lock.acquire()

    def fire(self) -> None:
        if not self.lock.acquire(blocking=False):
            return  # the command is printing its own answer
        a, where = self.a, _stuck_in(self.main_id)
        try:
            wall = a.clock.wall()
            note = f"the command's watchdog at {wall:.2f} s: {where.split(' < ')[0]} had not returned"
            if a.export in ("png", "svg", "sklearn"):
                print(f"satdt: note: no --export {a.export} after the watchdog ({note})", file=sys.stderr)
                a.export = None
            if self.data is None:  # still reading the data: nothing to answer with but the status
                out = {"method": a.method, "status": "UNKNOWN", "objective": None, "bound": None, "tree": None,
                       "runtime_s": None, "wall_s": round(a.clock.wall(), 3), "stats": {"watchdog": where}}
                print(json.dumps(out) if a.json else f"{a.method}: UNKNOWN (no data read within the time "
                      f"limit of {a.time_limit:g} s; {note})")
            elif getattr(a, "floor", None) is not None:  # CART's tree, computed before the engine
                model = a.floor
                model.result_.runtime = wall
                model.result_.stats.update(watchdog=where, note=note + "; CART's tree instead")
                _print_solve(a, model, self.data, from_guard=True)
            else:
                model = _degraded(a, self.data, "watchdog")
                model.result_.runtime = wall
                model.result_.stats.update(watchdog=where, note=note + ("; the majority leaf instead"
                                           if model.tree_ is not None else "; no tree (a consistent tree is asked)"))
                _print_solve(a, model, self.data, from_guard=True)
        finally:
            exit_now(EXIT_OK)


def _export(tree: Any, fmt: str) -> str:
    return {"text": tree.to_text, "json": lambda: tree.to_json(indent=2), "dot": tree.to_dot}[fmt]()


def _fit_light(a: argparse.Namespace, s: MethodSpec, data: Dataset, deadline: Deadline,
               progress: ProgressCallback | None = None) -> Any:
    """A light method (``sat-depth``, ``sat-size``, ``dp``) by the fit path itself, without
    scikit-learn, on the loaded :class:`Dataset`, under the command's limit (its runtime is the
    fit's, as an estimator's). None when the estimator must run (one class, bad parameters: the
    estimator reports them)."""
    if len(data.classes) < 2 or a.n_thresholds < 1 or isinstance(a.max_depth, list):
        return None
    clock = deadline.from_now()  # the fit's clock: the command's end
    if a.max_depth is None:  # the registry's default (the estimator's)
        a.max_depth = s.default_depth
    binarization, n_thresholds = a.binarization, a.n_thresholds
    plan = _plan_wide(a, data, deadline)
    if plan is not None and (a.method != "dp" or plan["strategy"] == "cart"):
        return a.floor  # consistent trees: no engine fits, CART grown until pure; dp: no column budget
    if plan is not None:
        binarization, n_thresholds = "quantile", plan["n_thresholds"]
    options: dict[str, Any] = {"max_depth": a.max_depth}
    if progress is not None:
        options["progress"] = progress
    if s.engines:  # sat-depth / sat-size: --solver names a SAT backend, which implies the SAT engine
        options.update(engine=a.engine or ("sat" if a.solver else "auto"),
                       sat_options={"solver": a.solver} if a.solver else {})
    else:
        options["lam"] = a.lam
    if getattr(a, "n_jobs", None) is not None:  # dp's threads (the parser refuses it elsewhere)
        options["n_jobs"] = a.n_jobs

    def keep_problem(problem: Any) -> None:
        a.problem = problem

    result = fit_problem(s, data, clock, binarization=binarization, n_thresholds=n_thresholds,
                         on_binarized=keep_problem, **options)
    if plan is not None and result.stats.get("timeout_in") is None:
        result = _degraded_dp_result(a, result, plan)
    # no tree (UNKNOWN: the time limit came first) is a result too: the status and the bound
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


def _check_export(a: argparse.Namespace) -> int | None:
    """``--export png|svg|sklearn`` needs ``--output`` (usage error), pictures need matplotlib
    (bad setup): checked before any solve. None when fine."""
    if a.export not in ("png", "svg", "sklearn"):
        return None
    if not a.output:
        print(f"satdt: error: --export {a.export} needs --output FILE", file=sys.stderr)
        return EXIT_USAGE
    if a.export == "sklearn":
        return None
    import importlib.util

    if importlib.util.find_spec("matplotlib") is None:
        return fail(f"--export {a.export} needs matplotlib: pip install 'satdt[plot]'")
    return None


def _degraded(a: argparse.Namespace, data: Dataset, step: str) -> Any:
    """The result when the time left cannot cover ``step`` (an import that cannot be interrupted):
    the majority-class leaf (FEASIBLE) for the methods any tree answers (DPDT included: its value
    of a leaf is errors / n), UNKNOWN without a tree for the consistent-tree questions, as the
    estimators return when binarization runs out."""
    name = result_objective(a.method, a.lam)
    if name == "dpdt":  # DPDT's value of a leaf: errors / n (no test), as DPDT's own first tree
        result = timeout_result(data, a.method, "regularized", 0.0, lam=0.0, step=step)
        result.objective_name = "dpdt"
    else:
        lam = (a.lam if a.lam is not None else 0.01) if name == "regularized" else None  # cpsat's default lam
        from ..heuristics.greedy import timeout_answer

        result = timeout_answer(data, a.method, name, 0.0, lam=lam, step=step,
                                max_depth=getattr(a, "max_depth", None))
    return _Answer(result, a.binarization)


def _weight_options(a: argparse.Namespace) -> dict:
    """``--class-weight``, ``--objective``, ``--costs FILE``, ``--missing learn`` as estimator
    parameters (only those given)."""
    out: dict[str, Any] = {}
    if getattr(a, "missing", "error") == "learn":
        out["missing"] = "learn"
    if getattr(a, "class_weight", None):
        out["class_weight"] = a.class_weight
    if getattr(a, "objective", None):
        out["objective"] = a.objective.replace("-", "_")
    if getattr(a, "costs", None):
        import numpy as np

        path = Path(a.costs)
        if not path.is_file():
            raise ValueError(f"--costs: no such file: {path}")
        text = path.read_text()
        try:
            out["costs"] = np.loadtxt(text.replace(",", " ").splitlines(), ndmin=2)
        except ValueError:
            raise ValueError(f"--costs {path}: not a matrix of numbers (k rows of k numbers, "
                             "comma- or space-separated)") from None
    return out


def cmd_solve(a: argparse.Namespace) -> int:
    """``satdt solve`` under the signal policy (:mod:`.signals`): SIGINT / SIGTERM stop the engine
    and the best tree so far is written, then the exit code is 130 / 143."""
    a.problem = a.data_read = a.floor = a.plan = None
    a.guard = None
    policy = a.signals = SignalPolicy(answer=_last_resort(a) if a.clock.whole_process else None).install()
    from .. import _early_signals

    if _early_signals.INSTALLED and policy.installed:
        _early_signals.INSTALLED = False
        if _early_signals.SEEN:  # a signal during the start-up: handled as if it came now
            policy._on_signal(_early_signals.SEEN[0])
    try:
        try:
            return _solve(a)
        except KeyboardInterrupt:
            if interrupted() is None:  # not ours (no policy in this thread): as before
                raise
            return _answer_interrupted(a)
        except Exception:  # noqa: BLE001 - the escalation's KeyboardInterrupt, turned by a native
            if not policy.escalated:  # solver into its own error type
                raise
            return _answer_interrupted(a)
    finally:
        if a.clock.whole_process:  # the program: it ends right after; a late signal is ignored
            policy.finish()
        else:  # a call in a caller's process: its own handlers back
            policy.restore()


def _last_resort(a: argparse.Namespace) -> Any:
    """The listener's answer when the main thread does not return to Python after a signal: the
    majority leaf (as the time-limit watchdog), then the process ends with 128 + the signal."""
    def answer(signum: int) -> None:
        guard = a.guard
        if guard is None or not guard.lock.acquire(blocking=False):
            if guard is None:
                exit_now(128 + signum)
            return  # the command is printing its answer
        try:
            if a.data_read is None:
                print(json.dumps({"method": a.method, "status": "UNKNOWN", "tree": None,
                                  "stats": {"interrupted": True}}) if a.json
                      else f"{a.method}: UNKNOWN (interrupted by signal {signum} before the data was read)")
            elif getattr(a, "floor", None) is not None:
                model = a.floor
                model.result_.stats.update(interrupted=True, watchdog=_stuck_in(guard.main_id),
                                           note=f"signal {signum}: the engine did not stop; CART's tree")
                _print_solve(a, model, a.data_read, from_guard=True)
            else:
                model = _degraded(a, a.data_read, f"signal {signum}")
                model.result_.stats.update(interrupted=True, watchdog=_stuck_in(guard.main_id),
                                           note=f"signal {signum}: the engine did not stop; the majority leaf")
                _print_solve(a, model, a.data_read, from_guard=True)
        finally:
            exit_now(128 + signum)
    return answer


def _answer_interrupted(a: argparse.Namespace) -> int:
    """After the KeyboardInterrupt of the policy's escalation: the greedy tree on the binarized
    problem when there is one (the light path), else the majority leaf."""
    signum = interrupted()
    a.signals.answering.set()
    data = a.data_read
    if data is None:
        if a.guard is not None:
            a.guard.finish()
        a.signals.finish()
        print(json.dumps({"method": a.method, "status": "UNKNOWN", "tree": None, "stats": {"interrupted": True}})
              if a.json else f"{a.method}: UNKNOWN (interrupted by signal {signum} before the data was read)")
        return 128 + signum
    if getattr(a, "floor", None) is not None:
        model = a.floor
    elif a.problem is not None and spec(a.method).light:
        from ..deadline import clear_interrupt, interrupt
        from ..fallback import greedy_result

        name = result_objective(a.method, a.lam)
        clear_interrupt()  # the greedy's own short clock must run (the escalation is spent)
        try:
            result = greedy_result(a.problem, data, a.method, name, a.max_depth, lam=a.lam,
                                   step=f"signal {signum}", seconds=0.4)
        finally:
            interrupt(signum)
        model = _Answer(result, a.binarization)
    else:
        model = _degraded(a, data, f"signal {signum}")
        if model.result_ is not None:
            model.result_.stats["note"] = (f"signal {signum}: the engine did not return within "
                                           f"{ESCALATE_AFTER:g} s; " + ("the majority leaf" if model.tree_ is not None
                                                                        else "no tree"))
    model.result_.stats["timeout_in"] = f"signal {signum}"
    return _print_solve(a, model, data)


def _solve(a: argparse.Namespace) -> int:
    clock = a.clock
    deadline = clock.deadline(a.time_limit)  # the whole command: start-up, reading, imports included
    refused = _check_export(a)
    if refused is not None:
        return refused
    check_output(a.output, a.data)
    if getattr(a, "proof", None) is not None:
        from ..proof import check_proof_options

        check_proof_options(a.method, a.binarization, a.proof)
    if a.max_memory is not None:
        set_max_memory(a.max_memory)
    progress = progress_callback(a)
    a.guard = _Guard(a)
    learn_missing = getattr(a, "missing", "error") == "learn"
    data = a.guard.data = a.data_read = load_dataset(a.data, missing=True) if learn_missing else load_dataset(a.data)
    s = spec(a.method)
    # the estimator's own checks and options (weights, missing values) need the estimator
    light = (s.light and all(getattr(a, k, None) is None for k in ("warm_start", "min_leaf", "alpha", "cart_depth",
                                                                     "class_weight", "objective", "costs"))
             and (a.lam is None or "lam" in s.options) and not learn_missing)
    model = _fit_light(a, s, data, deadline, progress) if light else None
    if model is not None:
        return _print_solve(a, model, data)
    if a.method in ("maxsat", "binoct", "oct", "cpsat", *_HEURISTIC_FLOORS) and a.binarization == "all":
        # the resource model before the heavy imports (numpy only): CART's floor is then the
        # answer of the watchdog and of an import not started
        _engine_floor(a, data, deadline)  # may set quantile thresholds (a.plan)
        if getattr(a, "floor_only", False):  # no model fits: CART's tree, the plan's note in stats
            return _print_solve(a, a.floor, data)

    def too_late(step: str) -> int:  # the best result so far: CART's floor, else the majority leaf
        if a.floor is not None:
            a.floor.result_.stats["timeout_in"] = step
            return _print_solve(a, a.floor, data)
        return _print_solve(a, _degraded(a, data, step), data)

    for module in ("satdt.estimators", "pandas", s.engine_module):
        if not clock.can_import(module, deadline):  # too late to start
            return too_late(f"start-up (the import of {module} not started: {deadline.remaining():.2f} s left)")
    est = estimators_module()
    if a.time_limit is not None and deadline.remaining() <= 0.01:  # no time left to give an estimator
        return too_late("start-up (the imports took the time limit)")
    if s.engines and a.engine is None and a.solver:
        a.engine = "sat"  # --solver names a SAT backend: it implies the SAT engine
    model = est.make_estimator(a.method, max_depth=a.max_depth, lam=a.lam, alpha=a.alpha,
                               cart_depth=a.cart_depth, binarization=a.binarization,
                               n_thresholds=a.n_thresholds, solver=a.solver, time_limit=deadline.from_now(),
                               engine=a.engine, warm_start=a.warm_start, min_leaf=a.min_leaf,
                               progress=progress, n_jobs=getattr(a, "n_jobs", None), **_weight_options(a))
    multiway_note = None
    if a.method == "adapttree" and a.max_depth is not None and data.schema.categories:
        # a multiway split is stored as a chain of binary tests, one level each: with a depth
        # bound the tree would come out deeper than asked, so binary tests only (said in stats)
        model.set_params(multiway="none")
        multiway_note = (f"--max-depth {a.max_depth} with categorical columns: binary tests only "
                         "(multiway='none'); a multiway split would be a chain deeper than the bound")
    frame = data_frame(data)
    try:  # the estimator's clock ends with the command's (time_limit=deadline.from_now()): no time lost
        model.fit(frame, data.labels)
    except NoTreeFoundError:
        # a proof (InfeasibleError) or the time limit before any tree: model.result_ holds the
        # status and the bound, a result either way (exit 0)
        if getattr(model, "result_", None) is None:
            raise
    if multiway_note is not None:
        model.result_.stats["note"] = multiway_note
    if a.floor is not None:
        model = _at_least_the_floor(a, model)
    return _print_solve(a, model, data)


#: methods that run as asked on wide data, with CART's tree on all thresholds as the floor of their answer
_HEURISTIC_FLOORS = ("dpdt", "adapttree", "rdt")


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


def _no_tree_lines(a: argparse.Namespace, summary: dict, data: Dataset) -> list[str]:
    """The text of a result without a tree: a proof (INFEASIBLE) or a time limit (UNKNOWN)."""
    if summary["depth_bound"] is not None:
        bound = f"  (bound: depth >= {summary['depth_bound']})"
    elif summary["bound"] is not None:
        bound = f"  (bound {summary['bound']})"
    else:
        bound = "  (no bound)"
    lines = [f"{a.method} on {data.name}: {summary['status']}{bound}"]
    if summary["status"] == INFEASIBLE:
        lines.append(f"proven: {summary['proof']}  ({summary['runtime_s']} s)")
    else:
        stats = summary["stats"] or {}
        where = stats.get("timeout_in")
        lines.append(f"no tree found within the time limit of {a.time_limit:g} s"
                     if a.time_limit is not None else "no tree found")
        lines[-1] += (f" (stopped during {where})" if where else "") + f"  ({summary['wall_s']} s)"
    return lines


def _print_solve(a: argparse.Namespace, model: Any, data: Dataset, from_guard: bool = False) -> int:
    guard = getattr(a, "guard", None)
    if guard is not None and not from_guard:
        guard.finish()  # from here on the watchdog stands down
    signals = getattr(a, "signals", None)
    if signals is not None:
        signals.finish()  # and the signal policy's escalation
    signum = interrupted()
    if signum is not None and model.result_ is not None:
        model.result_.stats["interrupted"] = True
        model.result_.stats.setdefault("signal", signum)
    if getattr(a, "proof", None) is not None and not from_guard:
        from ..proof import proof_for_cli

        proof_for_cli(a, model, data)
    summary = solve_summary(a.method, model, data)
    summary["wall_s"] = round(a.clock.wall(), 3)  # what the user waited for: from process start
    summary["startup_s"] = round(a.clock.startup, 3)  # of which before main(): Python, first imports
    if summary["tree"] is None:  # proven INFEASIBLE, or UNKNOWN (time limit): the status is the result
        if a.json:
            print(json.dumps(summary))
        else:
            print("\n".join(_no_tree_lines(a, summary, data)))
        if a.export is not None:
            print(f"satdt: note: no tree to export ({summary['status']})", file=sys.stderr)
        elif a.output:  # --output without --export: the JSON result, a status without a tree too
            write_atomic(Path(a.output), json.dumps(summary) + "\n")
        return EXIT_OK if signum is None else 128 + signum
    if a.json:
        print(json.dumps(summary))
    else:
        print(f"{a.method} on {data.name}: {summary['status']}  {summary['objective_name']} = "
              f"{summary['objective']}  (bound {summary['bound']})")
        print(f"depth {summary['depth']}, {summary['n_nodes']} nodes, {summary['n_leaves']} leaves, "
              f"{summary['errors']} training errors (accuracy {summary['train_accuracy']:.4f}), "
              f"{summary['runtime_s']} s (wall {summary['wall_s']} s)")
        if a.export is None:
            print(model.tree_.to_text())
    if a.export in ("png", "svg"):
        from ..plot import plot_tree

        suffix = "." + a.export
        path = Path(a.output)
        with atomic_path(path) as tmp:
            plot_tree(model.tree_, tmp, title=f"{a.method} on {data.name}: {summary['status']}, "
                      f"depth {summary['depth']}, {summary['n_leaves']} leaves, "
                      f"training accuracy {summary['train_accuracy']:.4f}",
                      fmt=a.export)
    elif a.export == "sklearn":  # checked on the training rows: same predictions, float32 included
        import joblib

        with atomic_path(Path(a.output)) as tmp:
            joblib.dump(model.tree_.to_sklearn(data.X, data.labels), tmp)
    elif a.export is not None:
        text = _export(model.tree_, a.export)
        if a.output:
            write_atomic(Path(a.output), text + "\n")
        elif not a.json:
            print(text)
    elif a.output:  # --output without --export: the JSON result
        write_atomic(Path(a.output), json.dumps(summary) + "\n")
    return EXIT_OK if signum is None else 128 + signum
