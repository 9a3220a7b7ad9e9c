"""``satdt solve``: one method on one dataset, its result as text or JSON, the tree exported.

One fit path, :func:`satdt.fit.fit_problem`: called here directly for the registry's light
methods (``MethodSpec.light``: no scikit-learn) on the loaded data, through the method's
estimator otherwise; one limit, the command's :class:`~satdt.deadline.Deadline`, handed to both
as a clock of the fit that ends with it (:meth:`~satdt.deadline.Deadline.from_now`), so
``runtime_s`` is the fit's and ``wall_s`` the command's.
And the command's watchdog (:class:`_Guard`) that answers with the best tree so far when a step
does not stop within the time limit. The answers made without an estimator (the majority leaf,
CART's floor) and the resource plans for tall or wide data are :mod:`.plans`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from ..data import Dataset, load_dataset
from ..deadline import Deadline, interrupted, set_max_memory
from ..fit import fit_problem
from ..methods import MethodSpec, result_objective, spec
from ..progress import ProgressCallback
from ..result import INFEASIBLE, NoTreeFoundError, keeping_work
from .signals import ESCALATE_AFTER, SignalPolicy
from .common import (EXIT_OK, EXIT_USAGE, atomic_path, check_output, estimators_module, exit_now, fail,
                     data_frame, progress_callback, solve_summary, write_atomic)
from .plans import (_HEURISTIC_FLOORS, _Answer, _at_least_the_floor, _degraded, _degraded_dp_result, _engine_floor,
                    _plan_wide)


# Start fast: scikit-learn, pandas and OR-tools load only in the commands that use them.
# satdt.estimators (scikit-learn) is imported by estimators_module(); `satdt solve` for the registry's
# light methods (MethodSpec.light) on a plain CSV runs without it (tests/test_import_time.py).


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


#: the share of a time limit's tolerance (max(1 s, 5 %)) after which the command's watchdog
#: answers; before it, a step cut by the limit still has its grace for CART's tree
#: (:data:`~satdt.heuristics.greedy.CART_GRACE`; with a quarter, on 200,000 rows at depth 4-6 the
#: watchdog fired first and printed the majority leaf)
WATCHDOG_SHARE = 0.5
#: the shares of the tolerance the watchdog's own answer may take: the compiled greedy tree of the
#: light path, then CART's tree (:func:`~satdt.heuristics.greedy.timeout_answer`), then the
#: majority leaf; with the printing and the process's exit (0.05-0.2 s measured on 10^6 rows at
#: load 2-3) all within the tolerance
WATCHDOG_GREEDY_SHARE = 0.15
WATCHDOG_CART_SHARE = 0.15


class _Guard:
    """The ``satdt solve`` program's last resort for ``--time-limit``: a step that does not stop in
    time (a native call, a build without deadline checks) is not waited for. At the limit plus
    a share of the tolerance (max(1 s, 5 %): :data:`WATCHDOG_SHARE`) a daemon thread prints the
    best it can make at once (CART's tree computed before the engine, the greedy tree of the
    binarized problem, CART's tree, the majority-class leaf: FEASIBLE; UNKNOWN without a tree for
    sat-depth / sat-size), with ``stats["watchdog"]`` naming where the
    main thread was, and ends the process. Only as the program (not a library call: a library
    cannot end its caller's process), and only when the command has not started printing."""

    def __init__(self, a: argparse.Namespace):
        self.a = a
        self.data: Dataset | None = None
        self.lock = threading.Lock()
        self.main_id = threading.get_ident()
        limit = a.time_limit
        self.tolerance = 1.0 if limit is None else Deadline(limit).tolerance()
        if limit is None or not a.clock.whole_process:
            return
        fire_at = a.clock.start + limit + WATCHDOG_SHARE * self.tolerance
        timer = threading.Timer(max(0.0, fire_at - time.perf_counter()), self.fire)
        timer.daemon = True
        timer.start()

    def finish(self) -> None:
        """The command's own answer is ready: the guard stands down (or, if it already fired, this
        waits for the process to end)."""
        self.lock.acquire()

    def _greedy(self, wall: float) -> Any:
        """The greedy tree of the binarized problem of the light path (``a.problem``), grown
        within :data:`WATCHDOG_GREEDY_SHARE` of the tolerance (the compiled greedy checks its
        clock at every node), as an answer that is never worse than the majority leaf; None
        without a problem or when it does not finish (the leaf then)."""
        a = self.a
        if getattr(a, "problem", None) is None or not spec(a.method).light:
            return None
        from ..fallback import greedy_result

        result = greedy_result(a.problem, self.data, a.method, result_objective(a.method, a.lam), a.max_depth,
                               lam=a.lam, step="watchdog", seconds=WATCHDOG_GREEDY_SHARE * self.tolerance)
        if result.tree is None or result.stats.get("tree_source") != "greedy":
            return None
        result.runtime = wall
        return _Answer(result, a.binarization)

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
                _no_certificate(a)
                out = {"method": a.method, "status": "UNKNOWN", "objective": None, "bound": None, "tree": None,
                       "runtime_s": None, "wall_s": round(a.clock.wall(), 3), "stats": {"watchdog": where}}
                print(json.dumps(out) if a.json else f"{a.method}: UNKNOWN (no data read within the time "
                      f"limit of {a.time_limit:g} s; {note})")
            elif getattr(a, "floor", None) is not None:  # CART's tree, computed before the engine
                model = a.floor
                model.result_.runtime = wall
                model.result_.stats.update(watchdog=where, note=note + "; CART's tree instead")
                _print_solve(a, model, self.data, from_guard=True)
            elif (greedy := self._greedy(wall)) is not None:  # the light path, binarized
                greedy.result_.stats.update(watchdog=where, note=note + "; the greedy (CART) tree instead")
                _print_solve(a, greedy, self.data, from_guard=True)
            else:
                model = _degraded(a, self.data, "watchdog", grace=WATCHDOG_CART_SHARE * self.tolerance)
                model.result_.runtime = wall
                model.result_.stats.update(watchdog=where, note=note + ("; the majority leaf instead"
                                           if model.tree_ is not None else "; no tree (a consistent tree is asked)"))
                _print_solve(a, model, self.data, from_guard=True)
        finally:
            exit_now(EXIT_OK)


def _no_certificate(a: argparse.Namespace) -> None:
    """``--proof``'s note when the answer is UNKNOWN before the data was read (no model to certify)."""
    if getattr(a, "proof", None) is not None:
        print("satdt: note: no certificate written: the result is UNKNOWN, not OPTIMAL", file=sys.stderr)


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


def _weight_options(a: argparse.Namespace, data: Dataset) -> dict:
    """``--class-weight``, ``--objective``, ``--costs FILE``, ``--missing learn`` as estimator
    parameters (only those given); ``data``'s classes tell a header row of numbers in ``--costs``."""
    out: dict[str, Any] = {}
    if getattr(a, "missing", "error") == "learn":
        out["missing"] = "learn"
    if getattr(a, "class_weight", None):
        out["class_weight"] = a.class_weight
    if getattr(a, "objective", None):
        out["objective"] = a.objective.replace("-", "_")
    if getattr(a, "costs", None):
        out["costs"] = _read_costs(Path(a.costs), data.classes)
    return out


def _read_costs(path: Path, classes: Any) -> Any:
    """``--costs FILE``: k rows of k numbers (comma- or space-separated; ``#`` comments), in the order of the
    sorted ``classes``; or under a header row naming the classes (predicted), its rows then led by their true
    class or, without, in the header's order: a DataFrame, read by its labels (UTF-8, a BOM allowed). A first
    row of numbers over k rows of k is that header when it names each class once (classes 0, 1, 2)."""
    import numpy as np

    if not path.is_file():
        raise ValueError(f"--costs: no such file: {path}")
    lines = [line.split("#")[0] for line in path.read_text(encoding="utf-8-sig").splitlines()]
    rows = [[c.strip() for c in (line.split(",") if "," in line else line.split())] for line in lines if line.strip()]
    rows = [r[:-1] if len(r) > 1 and r[-1] == "" else r for r in rows]  # (a trailing comma)
    numbers = lambda cells: [float(c) for c in cells]  # noqa: E731 (ValueError on a word)
    try:
        if not rows:  # (numpy would warn, then read a 0 x 1 matrix)
            raise ValueError("empty")
        try:
            matrix = np.array([numbers(r) for r in rows], dtype=float)
            return _numeric_header(rows, matrix, classes)
        except ValueError:
            import pandas as pd

            head, body = rows[0], rows[1:]
            if any(len(r) != len(body[0]) for r in body) or len(body[0]) != len(body):  # rows of their class
                head = head[1:] if len(head) == len(body) + 1 else head  # (an empty or named corner cell)
                return pd.DataFrame([numbers(r[1:]) for r in body], index=[r[0] for r in body], columns=head)
            return pd.DataFrame([numbers(r) for r in body], index=head, columns=head)
    except (ValueError, IndexError, AssertionError):
        raise ValueError(f"--costs {path}: not a matrix of numbers (k rows of k numbers, comma- or space-separated, "
                         "in the order of the sorted classes; or under a header row of the classes)") from None


def _numeric_header(rows: list[list[str]], matrix: Any, classes: Any) -> Any:
    """``matrix`` read from the cells ``rows``; as a DataFrame under its first row when that row, over k rows
    of k numbers, names each of the k ``classes`` once (a header of numeric class names)."""
    from ..weights import class_position

    k = len(classes)
    if matrix.shape != (k + 1, k):
        return matrix
    if sorted(p for p in (class_position(c, classes) for c in rows[0]) if p is not None) != list(range(k)):
        return matrix
    import pandas as pd

    return pd.DataFrame(matrix[1:], index=rows[0], columns=rows[0])


def _in_weight_terms(a: argparse.Namespace, model: Any, data: Dataset) -> None:
    """A fallback answer no estimator made (CART's floor, the majority leaf: unweighted) in the
    terms of ``--class-weight``, ``--objective`` and ``--costs``: its leaves relabelled with their
    least-cost class, its value, bound and objective name those the estimator would report."""
    options = {k: v for k, v in _weight_options(a, data).items() if k != "missing"}
    result = getattr(model, "result_", None)
    if not options or not isinstance(model, _Answer) or result is None or result.tree is None \
            or result.objective_name not in ("errors", "regularized"):
        return
    from ..weights import relabel_for_options

    lam = None
    if result.objective_name == "regularized":
        lam = float(a.lam if a.lam is not None else spec(a.method).defaults.get("lam", 0.01))
    result.objective, result.bound, result.objective_name = relabel_for_options(
        result.tree, data, lam=lam, general_costs=a.method != "oct", **options)
    result.stats["weighted"] = True


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
            with keeping_work() if getattr(a, "proof", None) is not None else nullcontext():  # (the DP's memo)
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
                _no_certificate(a)
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

        weighted = (("--class-weight", getattr(a, "class_weight", None)), ("--costs", getattr(a, "costs", None)),
                    ("--objective balanced-accuracy", getattr(a, "objective", None) == "balanced-accuracy"))
        check_proof_options(a.method, a.binarization, a.proof, tuple(option for option, given in weighted if given),
                            a.output)
    if a.max_memory is not None:
        set_max_memory(a.max_memory)
    progress = progress_callback(a)
    a.guard = _Guard(a)
    learn_missing = getattr(a, "missing", "error") == "learn"
    data = a.guard.data = a.data_read = load_dataset(a.data, missing=True) if learn_missing else load_dataset(a.data)
    if getattr(a, "proof", None) is not None:  # missing values, categories that print alike: before the solve
        from ..proof import check_proof_data

        check_proof_data(a.proof, a.binarization, data)
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
                               progress=progress, n_jobs=getattr(a, "n_jobs", None), **_weight_options(a, data))
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
    _in_weight_terms(a, model, data)
    signum = interrupted()
    if signum is not None and model.result_ is not None:
        model.result_.stats["interrupted"] = True
        model.result_.stats.setdefault("signal", signum)
    if getattr(a, "proof", None) is not None:
        from ..proof import proof_for_cli

        proof_for_cli(a, model, data, produce=not from_guard)
        signum = interrupted()  # a signal while producing it: no certificate, the exit code says so
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
            # (the leaves' counts as the fit counts them: --class-weight's weights)
            weights = model._count_weights(data.labels, None) if hasattr(model, "_count_weights") else None
            joblib.dump(model.tree_.to_sklearn(data.X, data.labels, sample_weight=weights), tmp)
    elif a.export is not None:
        text = _export(model.tree_, a.export)
        if a.output:
            write_atomic(Path(a.output), text + "\n")
        elif not a.json:
            print(text)
    elif a.output:  # --output without --export: the JSON result
        write_atomic(Path(a.output), json.dumps(summary) + "\n")
    return EXIT_OK if signum is None else 128 + signum
