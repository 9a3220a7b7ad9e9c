"""The ``satdt`` command line.

Exit codes: 0 success (whatever the solver status), 1 bad input or data, 2 usage error.
Errors go to stderr as one line, never a traceback for a user mistake.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .binarize import STRATEGIES
from .data import DataError, Dataset, bundled_datasets, load_dataset
from .deadline import Deadline, DeadlineExpired, set_max_memory
from .progress import ProgressCallback, stderr_printer
from .result import INFEASIBLE, InfeasibleError, NoTreeFoundError, explain_infeasible, timeout_result
from .tree import Tree
from .verify import ENGINES, OBJECTIVES, certify

# Start fast: scikit-learn, pandas and OR-tools load only in the commands that use them.
# satdt.estimators (scikit-learn) is imported by _estimators(); `satdt solve` for the methods of
# _LIGHT_METHODS on a plain CSV runs without it (tests/test_import_time.py).
_LIGHT_METHODS = {"sat-depth": "depth", "sat-size": "size", "dp": "dp"}


def _estimators() -> Any:
    from . import estimators

    return estimators


def _process_age() -> float:
    """Seconds since this process started (Linux: ``/proc/self/stat`` against the boot clock,
    10 ms resolution), so that ``--time-limit`` counts the interpreter's start-up and the imports
    before :func:`main` ran. 0 where that cannot be read."""
    try:
        with open("/proc/self/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):  # pragma: no cover - not Linux
        return 0.0
    return age if 0.0 <= age < 3600.0 else 0.0


# CPU seconds of the imports a command may still need after start-up (measured on this project's
# machine: scikit-learn with satdt.estimators ~1.2 s, pandas ~0.4 s, OR-tools ~0.3 s, PySAT ~0.1 s).
# Before each, the CLI checks that the time left covers it (scaled by how much slower than its CPU
# time this process has run so far: a loaded machine); if not, it does not start it and returns
# the best result so far (see _degraded). An import cannot be interrupted once started.
_IMPORT_CPU = {"satdt.estimators": 1.2, "satdt.select": 1.2, "pandas": 0.4, "satdt.solvers.cpsat": 0.3,
               "satdt.solvers.mip": 0.3, "satdt.solvers.maxsat": 0.15, "satdt.solvers.dpdt": 0.05}
_METHOD_MODULES = {"cpsat": ["satdt.solvers.cpsat"], "binoct": ["satdt.solvers.mip"], "oct": ["satdt.solvers.mip"],
                   "maxsat": ["satdt.solvers.maxsat"], "dpdt": ["satdt.solvers.dpdt"]}


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
        if mark in name and not name.endswith("cli.py") and (name, func) not in seen:  # a recursion once
            seen.add((name, func))
            chain.append(f"{name.rsplit(mark, 1)[1]}:{frame.f_lineno} {func}")
        frame = frame.f_back
    if len(chain) > 6:  # the innermost frames, then the outermost (the solver the command called)
        chain = chain[:3] + ["..."] + chain[-3:]
    return " < ".join(chain)


class _Guard:
    """The ``satdt solve`` program's last resort for ``--time-limit``: a step that does not stop in
    time (a native call, a build without deadline checks) is not waited for. At the limit plus
    half the tolerance (max(1 s, 5 %)) a daemon thread prints the majority-class leaf (FEASIBLE;
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
        fire_at = a.clock.start + limit + 0.5 * max(1.0, 0.05 * limit)
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
            else:
                model = _degraded(a, self.data, "watchdog")
                model.result_.runtime = wall
                model.result_.stats.update(watchdog=where, note=note + ("; the majority leaf instead"
                                           if model.tree_ is not None else "; no tree (a consistent tree is asked)"))
                _print_solve(a, model, self.data, from_guard=True)
        finally:
            _exit_now(EXIT_OK)


class _Clock:
    """The command's clock: started at process start when :func:`main` runs as the ``satdt``
    program (``argv`` None), at the call otherwise (tests, a caller's own process)."""

    def __init__(self, whole_process: bool):
        now, cpu = time.perf_counter(), time.process_time()
        age = _process_age() if whole_process else 0.0
        self.whole_process = whole_process
        self.start = now - age
        self.startup = age  # seconds from the process start to main(): interpreter, satdt.cli imports
        # wall / CPU of the start-up so far: > 1 on a loaded machine. Clamped to [1, 2]: the
        # start-up's ratio also holds disk reads (measured 4x at load 6 while the imports after it
        # ran at ~1.4x their CPU time)
        self.slowdown = min(2.0, max(1.0, age / cpu)) if whole_process and cpu > 0.05 else 1.0

    def wall(self) -> float:
        return time.perf_counter() - self.start

    def deadline(self, time_limit: float | None) -> Deadline:
        deadline = Deadline(time_limit)
        deadline.start = self.start  # the limit covers the whole command, start-up included
        return deadline

    def can_import(self, module: str, deadline: Deadline) -> bool:
        """Import ``module`` unless the time left cannot cover it; False when not imported."""
        if module in sys.modules:
            return True
        left = deadline.remaining()
        if left is not None and left < _IMPORT_CPU.get(module, 0.1) * self.slowdown:
            return False
        __import__(module)
        return True


# the names of satdt.estimators.METHODS, so that checking --method imports no scikit-learn (its
# import is ~1.2 s of CPU, which --time-limit counts); tests/test_cli.py checks they agree
_METHOD_NAMES = frozenset({"sat-depth", "sat-size", "maxsat", "dp", "binoct", "oct", "cpsat", "dpdt",
                           "adapttree", "rdt"})


class _MethodChoices:
    """``--method`` choices: the names of ``satdt.estimators.METHODS``, read from it only when a
    name outside :data:`_METHOD_NAMES` is checked or the choices are listed (help, errors)."""

    def __contains__(self, name: object) -> bool:
        return name in _METHOD_NAMES or name in _estimators().METHODS

    def __iter__(self):
        return iter(sorted(_estimators().METHODS))

EXIT_OK, EXIT_INPUT, EXIT_USAGE = 0, 1, 2


def _number(kind: type, low: float, strict: bool) -> Any:
    """An argparse type: a finite ``kind`` (int or float) above ``low``."""
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {'an integer' if kind is int else 'a number'}: {text!r}") from None
        if not np.isfinite(value) or (value <= low if strict else value < low):
            raise argparse.ArgumentTypeError(f"must be {'>' if strict else '>='} {low:g}, got {text}")
        return value
    return parse


_positive_float = _number(float, 0, strict=True)
_nonneg_float = _number(float, 0, strict=False)
_nonneg_int = _number(int, 0, strict=False)
_positive_int = _number(int, 0, strict=True)


def _list_of(parse: Any) -> Any:
    """An argparse type: a comma-separated list of values each read by ``parse``."""
    def parse_list(text: str) -> list:
        parts = [p for p in text.split(",") if p.strip()]
        if not parts:
            raise argparse.ArgumentTypeError(f"expected a comma-separated list, got {text!r}")
        return [parse(p.strip()) for p in parts]
    return parse_list


def _depth_list(text: str) -> int | list[int]:
    parts = [_nonneg_int(p) for p in text.split(",")]
    return parts[0] if len(parts) == 1 else parts


def _add_limits(cmd: argparse.ArgumentParser) -> None:
    """``--progress`` / ``--quiet`` and ``--max-memory`` of the commands that run an engine."""
    shown = cmd.add_mutually_exclusive_group()
    shown.add_argument("--progress", action="store_true",
                       help="print progress lines on stderr (default when stderr is a terminal)")
    shown.add_argument("--quiet", action="store_true", help="no progress lines")
    cmd.add_argument("--max-memory", type=_positive_float, default=None, metavar="GB",
                     help="refuse models and matrices estimated above this size (default: 75%% of RAM, "
                          "or SATDT_MAX_MEMORY)")


def _progress_callback(a: argparse.Namespace) -> ProgressCallback | None:
    """The stderr printer when asked (``--progress``) or when stderr is a terminal, not ``--quiet``."""
    if getattr(a, "quiet", False):
        return None
    if getattr(a, "progress", False) or sys.stderr.isatty():
        return stderr_printer()
    return None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="satdt", description="Provably optimal decision trees.")
    sub = parser.add_subparsers(dest="command", required=True)

    solve = sub.add_parser("solve", help="find a tree for a dataset")
    solve.add_argument("data", help="a CSV file (header row, last column = label) or a bundled dataset name")
    solve.add_argument("--method", required=True, choices=_MethodChoices(), metavar="METHOD",
                       help="one of: %(choices)s")
    solve.add_argument("--max-depth", type=_nonneg_int, default=None)
    solve.add_argument("--lam", type=_nonneg_float, default=None, help="cpsat, dp: penalty per leaf (dp without it: plain accuracy)")
    solve.add_argument("--alpha", type=_nonneg_float, default=None, help="oct: penalty per split; dpdt: per test")
    solve.add_argument("--cart-depth", type=_depth_list, default=None, help="dpdt: CART depth, or a per-depth list 3,2,2")
    solve.add_argument("--binarization", choices=STRATEGIES, default="all")
    solve.add_argument("--n-thresholds", type=int, default=10, help="thresholds per feature (quantile, tree)")
    solve.add_argument("--solver", default=None, help="SAT backend (sat-*) or MIP backend (binoct, oct)")
    solve.add_argument("--engine", choices=("auto", "sat", "dp"), default=None,
                       help="sat-depth, sat-size: auto (default: the measured rule, stats say which ran and "
                            "why), Avellaneda's SAT encodings, or the DP engine (branch and bound, or the DP "
                            "over every box on data with few distinct values); --solver alone implies sat")
    solve.add_argument("--min-leaf", type=_positive_int, default=None, help="oct: minimum rows per nonempty leaf (N_min)")
    solve.add_argument("--warm-start", choices=("cart", "dpdt", "none"), default=None,
                       help="binoct, oct, cpsat: starting tree (default cart)")
    solve.add_argument("--time-limit", type=_positive_float, default=None,
                       help="wall-clock seconds for the whole command (reading and binarization included); "
                            "the best tree so far is returned")
    _add_limits(solve)
    solve.add_argument("--json", action="store_true", help="print one JSON object")
    solve.add_argument("--export", choices=("text", "json", "dot", "png", "svg", "sklearn"), default=None,
                       help="tree format to write (png, svg: a picture, needs --output and matplotlib; "
                            "sklearn: a fitted DecisionTreeClassifier saved with joblib, needs --output)")
    solve.add_argument("--output", default=None, help="file for --export (default: standard output)")

    verify = sub.add_parser("verify", help="certify whether a given tree is optimal")
    verify.add_argument("data", help="a CSV file or a bundled dataset name (the tree's training data)")
    source = verify.add_mutually_exclusive_group(required=True)
    source.add_argument("--sklearn", metavar="MODEL.joblib", help="a fitted scikit-learn DecisionTreeClassifier (joblib)")
    source.add_argument("--tree", metavar="TREE.json", help="a tree as written by `satdt solve --export json`")
    verify.add_argument("--objective", choices=OBJECTIVES, default="accuracy")
    verify.add_argument("--max-depth", type=_nonneg_int, default=None, help="depth bound (default: the tree's)")
    verify.add_argument("--lam", type=_nonneg_float, default=None, help="regularized: penalty per leaf")
    verify.add_argument("--alpha", type=_nonneg_float, default=None, help="dpdt: penalty per test")
    verify.add_argument("--engine", choices=ENGINES, default="auto",
                        help="exact engine (auto: dp, or for depth and size the measured rule of sat-depth; "
                             "accuracy: dp, cpsat, maxsat, binoct; regularized: dp, cpsat; depth, size: dp, sat)")
    verify.add_argument("--time-limit", type=_positive_float, default=None,
                        help="wall-clock seconds for the whole command; the engine gets what is left after "
                             "reading and loading the tree, and its best bound so far is reported (UNKNOWN)")
    _add_limits(verify)
    verify.add_argument("--json", action="store_true")

    bench = sub.add_parser("bench", help="run methods x datasets x depths and tabulate the results")
    bench.add_argument("--methods", default="sat-depth,cpsat,cart-gini", help="comma-separated method names")
    bench.add_argument("--datasets", default="iris,monk1,mouse", help="comma-separated names or CSV paths")
    bench.add_argument("--depths", default="2,3", help="comma-separated depths (ignored by sat-depth)")
    bench.add_argument("--lam", type=_nonneg_float, default=None)
    bench.add_argument("--alpha", type=_nonneg_float, default=None)
    bench.add_argument("--time-limit", type=_positive_float, default=60.0)
    bench.add_argument("--jobs", type=int, default=1, help="parallel tasks (joblib processes)")
    bench.add_argument("--data-dir", default=None, help="folder searched for dataset names")
    bench.add_argument("--output", default=None, help="CSV file of all rows")
    bench.add_argument("--json", action="store_true")

    select = sub.add_parser("select", help="choose lam or depth by cross-validation, then refit on all rows")
    select.add_argument("data", help="a CSV file (header row, last column = label) or a bundled dataset name")
    select.add_argument("--method", required=True, choices=_MethodChoices(), metavar="METHOD",
                        help="one of: %(choices)s")
    grid = select.add_mutually_exclusive_group(required=True)
    grid.add_argument("--lams", type=_list_of(_nonneg_float), default=None,
                      help="comma-separated penalties: lam of dp, cpsat; alpha of oct, dpdt")
    grid.add_argument("--depths", type=_list_of(_nonneg_int), default=None, help="comma-separated depth bounds")
    select.add_argument("--folds", type=_number(int, 1, strict=True), default=5, help="K of K-fold (>= 2)")
    select.add_argument("--one-se", action="store_true",
                        help="the simplest setting within one standard error of the best mean")
    select.add_argument("--max-depth", type=_nonneg_int, default=None, help="depth bound along a --lams path")
    select.add_argument("--binarization", choices=STRATEGIES, default="all")
    select.add_argument("--time-limit", type=_positive_float, default=None,
                        help="wall-clock seconds for the whole command (all folds and the refit): each fit "
                             "gets an even share of the time left when it starts; fits that would start "
                             "after the limit are not run (NOT_RUN, their setting not chosen)")
    _add_limits(select)
    select.add_argument("--jobs", type=int, default=1, help="parallel fits (joblib processes)")
    select.add_argument("--seed", type=int, default=0, help="seed of the fold split")
    select.add_argument("--heuristics", type=_list_of(str), default=[],
                        help="also cross-validate cart,dpdt on the same folds and grid, for comparison")
    select.add_argument("--json", action="store_true", help="print one JSON object")

    sub.add_parser("datasets", help="list the bundled datasets")
    return parser


def _fail(message: str) -> int:
    print(f"satdt: error: {message}", file=sys.stderr)
    return EXIT_INPUT


def solve_summary(method: str, model: Any, data: Dataset) -> dict[str, Any]:
    """The JSON object of ``satdt solve --json`` (DESIGN.md keys)."""
    result, tree = model.result_, getattr(model, "tree_", None)
    if tree is None:  # a proven INFEASIBLE: no tree, the proof and its bound instead
        out = {"method": method, "dataset": data.name, "status": result.status,
               "objective_name": result.objective_name, "objective": None, "bound": result.bound,
               "errors": None, "train_accuracy": None, "n_rows": data.n_rows, "depth": None,
               "n_nodes": None, "n_leaves": None, "runtime_s": round(result.runtime, 4),
               "binarization": getattr(model, "binarization", None), "stats": _jsonable(result.stats),
               "tree": None, "proof": result.stats.get("proof"),
               "depth_bound": result.stats.get("depth_bound")}
        return out
    errors = int((tree.predict_index(data.X) != data.y).sum())
    out = {
        "method": method, "dataset": data.name, "status": result.status,
        "objective_name": result.objective_name, "objective": result.objective, "bound": result.bound,
        "errors": errors, "train_accuracy": 1.0 - errors / data.n_rows, "n_rows": data.n_rows,
        "depth": tree.depth(), "n_nodes": tree.n_nodes, "n_leaves": tree.n_leaves,
        "runtime_s": round(result.runtime, 4),
        "binarization": getattr(model, "binarization", None),
        "stats": _jsonable(result.stats), "tree": tree.to_dict(),
    }
    front = getattr(model, "pareto_front_", None)
    if front is not None:
        out["pareto_front"] = _jsonable(front)                         # accuracy vs average tests
        out["pareto_front_nodes"] = _jsonable(model.pareto_front_nodes_)  # accuracy vs nodes
    return out


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, float) and not np.isfinite(obj):
        return None
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    return str(obj)


def _export(tree: Any, fmt: str) -> str:
    return {"text": tree.to_text, "json": lambda: tree.to_json(indent=2), "dot": tree.to_dot}[fmt]()


def _light_solve(a: argparse.Namespace, data: Dataset, deadline: Deadline,
                 progress: ProgressCallback | None = None) -> Any:
    """``sat-depth`` / ``sat-size`` / ``dp`` without scikit-learn: what ``ConsistentTreeClassifier.fit``
    / ``DPTreeClassifier.fit`` do (binarize, the engine, runtime of the whole call), on the loaded
    :class:`Dataset`. None when the estimator must run (one class, bad parameters: the estimator
    reports them)."""
    from types import SimpleNamespace

    from .binarize import Binarizer

    if len(data.classes) < 2 or a.n_thresholds < 1:
        return None
    if a.method == "dp" and (a.max_depth is None or isinstance(a.max_depth, list)):
        return None
    start = time.perf_counter()  # the estimator's runtime: from fit (data loaded) to its end
    binarizer = Binarizer(a.binarization, n_thresholds=a.n_thresholds)
    extra = {} if progress is None else {"progress": progress}
    try:
        problem = binarizer.problem(data, deadline=deadline)
    except DeadlineExpired:  # the time limit struck in the binarization: the majority leaf
        name = ("errors" if a.lam is None else "regularized") if a.method == "dp" else _LIGHT_METHODS[a.method]
        result = timeout_result(data, a.method, "nodes" if name == "size" else name,
                                time.perf_counter() - start, lam=a.lam)
        # sat-depth / sat-size: UNKNOWN without a tree (a leaf is not consistent), still a result
        return SimpleNamespace(result_=result, tree_=result.tree, binarization=a.binarization)
    if a.method == "dp":
        from .solvers.dp import solve_dp

        result = solve_dp(problem, max_depth=a.max_depth, lam=a.lam, time_limit=deadline.budget(), **extra)
        result.stats.setdefault("engine_s", round(result.runtime, 4))
        result.runtime = max(result.runtime, time.perf_counter() - start)
        return SimpleNamespace(result_=result, tree_=result.tree, binarization=a.binarization)
    from .solvers.consistent import solve_consistent

    engine = a.engine or ("sat" if a.solver else "auto")
    options = {"solver": a.solver} if a.solver else {}
    result = solve_consistent(problem, _LIGHT_METHODS[a.method], engine=engine, max_depth=a.max_depth,
                              time_limit=deadline.budget(), sat_options=options, **extra)
    result.stats.setdefault("engine_s", round(result.runtime, 4))
    result.runtime = max(result.runtime, time.perf_counter() - start)
    if result.status == INFEASIBLE:  # a proof, reported as a result (exit 0)
        explain_infeasible(result, max_depth=a.max_depth)
    # no tree (UNKNOWN: the time limit came first) is a result too: the status and the bound
    return SimpleNamespace(result_=result, tree_=result.tree, binarization=a.binarization)


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
        return _fail(f"--export {a.export} needs matplotlib: pip install 'satdt[plot]'")
    return None


# the objective of each method's result (as its estimator's _objective_name), for a result made
# by the CLI itself when the time ran out before the estimator could be imported
_OBJECTIVE = {"sat-depth": "depth", "sat-size": "nodes", "maxsat": "errors", "binoct": "errors",
              "oct": "errors", "cpsat": "regularized", "dpdt": "dpdt"}


def _degraded(a: argparse.Namespace, data: Dataset, step: str) -> Any:
    """The result when the time left cannot cover ``step`` (an import that cannot be interrupted):
    the majority-class leaf (FEASIBLE) for the methods any tree answers (DPDT included: its value
    of a leaf is errors / n), UNKNOWN without a tree for the consistent-tree questions, as the
    estimators return when binarization runs out."""
    from types import SimpleNamespace

    name = ("errors" if a.lam is None else "regularized") if a.method == "dp" else _OBJECTIVE.get(a.method, "errors")
    if name == "dpdt":  # DPDT's value of a leaf: errors / n (no test), as DPDT's own first tree
        result = timeout_result(data, a.method, "regularized", 0.0, lam=0.0, step=step)
        result.objective_name = "dpdt"
    else:
        lam = (a.lam if a.lam is not None else 0.01) if name == "regularized" else None  # cpsat's default lam
        result = timeout_result(data, a.method, name, 0.0, lam=lam, step=step)
    return SimpleNamespace(result_=result, tree_=result.tree, binarization=a.binarization)


def cmd_solve(a: argparse.Namespace) -> int:
    clock = a.clock
    deadline = clock.deadline(a.time_limit)  # the whole command: start-up, reading, imports included
    refused = _check_export(a)
    if refused is not None:
        return refused
    if a.max_memory is not None:
        set_max_memory(a.max_memory)
    progress = _progress_callback(a)
    a.guard = _Guard(a)
    data = a.guard.data = load_dataset(a.data)
    light = (a.method in _LIGHT_METHODS and a.warm_start is None and a.min_leaf is None
             and (a.lam is None or a.method == "dp") and a.alpha is None and a.cart_depth is None)
    model = _light_solve(a, data, deadline, progress) if light else None
    if model is not None:
        return _print_solve(a, model, data)
    for module in ("satdt.estimators", "pandas", *_METHOD_MODULES.get(a.method, ())):
        if not clock.can_import(module, deadline):  # too late to start: the best result so far
            return _print_solve(a, _degraded(a, data, f"start-up (the import of {module} not started: "
                                                       f"{deadline.remaining():.2f} s left)"), data)
    est = _estimators()
    if a.method in _LIGHT_METHODS and a.engine is None and a.solver:
        a.engine = "sat"  # --solver names a SAT backend: it implies the SAT engine
    model = est.make_estimator(a.method, max_depth=a.max_depth, lam=a.lam, alpha=a.alpha,
                               cart_depth=a.cart_depth, binarization=a.binarization,
                               n_thresholds=a.n_thresholds, solver=a.solver, time_limit=deadline.budget(),
                               engine=a.engine, warm_start=a.warm_start, min_leaf=a.min_leaf,
                               progress=progress)
    frame = _frame(data)
    if a.time_limit is not None:  # the estimator's clock starts at fit: give it what is left now
        model.set_params(time_limit=deadline.budget())
    try:
        model.fit(frame, data.labels)
    except NoTreeFoundError:
        # a proof (InfeasibleError) or the time limit before any tree: model.result_ holds the
        # status and the bound, a result either way (exit 0)
        if getattr(model, "result_", None) is None:
            raise
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
        return EXIT_OK
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
        from .plot import plot_tree

        suffix = "." + a.export
        path = Path(a.output)
        plot_tree(model.tree_, path, title=f"{a.method} on {data.name}: {summary['status']}, "
                  f"depth {summary['depth']}, {summary['n_leaves']} leaves, "
                  f"training accuracy {summary['train_accuracy']:.4f}",
                  fmt=a.export if path.suffix.lower() != suffix else None)
    elif a.export == "sklearn":  # checked on the training rows: same predictions, float32 included
        import joblib

        joblib.dump(model.tree_.to_sklearn(data.X, data.labels), a.output)
    elif a.export is not None:
        text = _export(model.tree_, a.export)
        if a.output:
            Path(a.output).write_text(text + "\n")
        elif not a.json:
            print(text)
    return EXIT_OK


def _frame(data: Dataset) -> Any:
    """The data as a user would pass it: named columns, categorical columns as their values."""
    import pandas as pd

    cats = data.schema.categories
    columns = {j: ([cats[j][int(c)] for c in data.X[:, j]] if j in cats else data.X[:, j])
               for j in range(data.X.shape[1])}
    frame = pd.DataFrame(columns)
    frame.columns = data.feature_names
    return frame


def _load_model(a: argparse.Namespace) -> Any:
    if a.tree:
        try:
            return Tree.from_dict(json.loads(Path(a.tree).read_text()))
        except json.JSONDecodeError as exc:
            raise DataError(f"{a.tree} is not valid JSON: {exc}") from None
    import joblib

    path = Path(a.sklearn)
    if not path.is_file():
        raise DataError(f"no such file: {path}")
    try:
        return joblib.load(path)
    except Exception as exc:  # unpickling errors have many types
        raise DataError(f"{path} is not a readable joblib model: {exc}") from None


def cmd_verify(a: argparse.Namespace) -> int:
    import inspect

    from .progress import ProgressReporter

    deadline = a.clock.deadline(a.time_limit)  # the whole command, start-up included
    if a.max_memory is not None:
        set_max_memory(a.max_memory)
    progress = _progress_callback(a)
    data = load_dataset(a.data)
    model = _load_model(a)
    if a.objective == "regularized" and a.lam is None:
        raise DataError("--objective regularized needs --lam")
    if a.objective == "dpdt" and a.alpha is None:
        raise DataError("--objective dpdt needs --alpha")
    extra = {}
    if progress is not None and "progress" in inspect.signature(certify).parameters:
        extra["progress"] = progress  # the engine's own events
    reporter = ProgressReporter("verify", None if extra else progress)  # else: start and done from here
    reporter.emit("start", message=f"certify {a.objective} on {data.name}")
    cert = certify(model, data, objective=a.objective, max_depth=a.max_depth, lam=a.lam, alpha=a.alpha,
                   time_limit=deadline.budget(), engine=a.engine, **extra)
    reporter.emit("done", incumbent=cert.best_found, bound=cert.bound, message=cert.status)
    if a.json:
        print(json.dumps(_jsonable({**cert.to_dict(), "wall_s": round(a.clock.wall(), 3)})))
        return EXIT_OK
    print(f"{cert.status}: objective {cert.objective} (depth <= {cert.max_depth}) on {data.name}")
    if cert.proof is not None:  # INFEASIBLE: the search space is empty, proven
        print(f"proven: {cert.proof}; given tree: {cert.tree_value:g}")
        return EXIT_OK
    print(f"given tree: {cert.tree_value:g}   optimum: {cert.optimum}   bound: {cert.bound}   "
          f"gap: {cert.gap}" + (f" ({cert.gap_errors} training errors)" if cert.gap_errors is not None else "")
          + (f"   loses at most: {cert.max_gap:g}" if cert.max_gap is not None and cert.optimum is None else ""))
    if cert.better_tree is not None:
        print("a better tree:")
        print(cert.better_tree.to_text())
    return EXIT_OK


def cmd_bench(a: argparse.Namespace) -> int:
    from .bench import HEURISTICS, Task, peers, resolve_dataset, run_benchmark, to_markdown

    est = _estimators()

    methods = [m for m in a.methods.split(",") if m]
    known = set(est.METHODS) | set(HEURISTICS) | set(peers())
    unknown = [m for m in methods if m not in known]
    if unknown:
        raise ValueError(f"unknown method(s) {', '.join(unknown)}; choose from {', '.join(sorted(known))}")
    try:
        depths = [int(d) for d in a.depths.split(",") if d]
    except ValueError:
        raise ValueError(f"--depths must be comma-separated integers, got {a.depths!r}") from None
    if any(d < 0 for d in depths):
        raise ValueError(f"--depths must be integers >= 0, got {a.depths!r}")
    datasets = [d for d in a.datasets.split(",") if d]
    for dataset in datasets:  # a typo fails here, before any task runs
        resolve_dataset(dataset, a.data_dir)
    tasks = []
    for dataset in datasets:
        for method in methods:
            for depth in ([None] if method == "sat-depth" else depths):
                tasks.append(Task(method, dataset, max_depth=depth, lam=a.lam, alpha=a.alpha,
                                  time_limit=a.time_limit))

    def progress(done: int, total: int, row: dict) -> None:
        print(f"[{done}/{total}] {row['dataset']} {row['method']} depth={row['max_depth']}: "
              f"{row.get('status')} {row.get('errors', '')} errors, {row['time_s']} s"
              + (f" ({row['error']})" if row.get("error") else ""), file=sys.stderr)

    rows = run_benchmark(tasks, n_jobs=a.jobs, data_dir=a.data_dir, progress=progress)
    if a.output:
        import pandas as pd

        pd.DataFrame(rows).to_csv(a.output, index=False)
    print(json.dumps(_jsonable(rows)) if a.json else to_markdown(rows))
    return EXIT_OK


def cmd_select(a: argparse.Namespace) -> int:
    clock = a.clock
    deadline = clock.deadline(a.time_limit)  # the whole command: start-up, folds and refit
    if a.max_memory is not None:
        set_max_memory(a.max_memory)
    progress = _progress_callback(a)
    data = load_dataset(a.data)
    for module in ("satdt.select", "pandas"):
        if not clock.can_import(module, deadline):  # too late to start: no fold can run
            why = f"time limit reached during start-up (the import of {module} not started)"
            out = {"method": a.method, "dataset": data.name, "param": None, "folds": a.folds, "status": "UNKNOWN",
                   "chosen": None, "table": [], "refit": None, "tree": None, "note": why, "runtime_s": 0.0,
                   "wall_s": round(clock.wall(), 3), "time_limit": a.time_limit, "heuristics": {}}
            print(json.dumps(out) if a.json else f"{a.method} on {data.name}: UNKNOWN: no tree within the time "
                  f"limit of {a.time_limit:g} s: {why}  ({out['wall_s']} s)")
            return EXIT_OK
    from .select import TreeSelectorCV

    frame = _frame(data)
    selector = TreeSelectorCV(a.method, lams=a.lams, depths=a.depths, folds=a.folds, one_se=a.one_se,
                              max_depth=a.max_depth, time_limit=deadline if a.time_limit is not None else None,
                              options={"binarization": a.binarization}, n_jobs=a.jobs, random_state=a.seed,
                              heuristics=a.heuristics, progress=progress)
    try:
        selector.fit(frame, data.labels)
    except NoTreeFoundError as exc:  # no setting scored on every fold, or the refit had no tree
        if not hasattr(selector, "cv_results_"):
            raise
        return _print_select_without_tree(a, selector, data, str(exc))
    param, row = selector.param_, selector.cv_results_[selector.best_index_]
    refit = solve_summary(a.method, selector.best_estimator_, data)
    out = {"method": a.method, "dataset": data.name, "param": param, "folds": a.folds,
           "rule": "one-se" if a.one_se else "best", "status": refit["status"],
           "chosen": {param: row[param], "mean_accuracy": row["mean_accuracy"], "std_accuracy": row["std_accuracy"]},
           "table": selector.cv_results_,
           "refit": {k: refit[k] for k in ("status", "objective_name", "objective", "bound", "errors",
                                           "train_accuracy", "depth", "n_nodes", "n_leaves", "runtime_s")},
           "tree": refit["tree"], "runtime_s": round(selector.runtime_, 4),
           "wall_s": round(clock.wall(), 3), "time_limit": a.time_limit,
           "heuristics": selector.heuristics_}
    if a.json:
        print(json.dumps(_jsonable(out)))
        return EXIT_OK
    print(f"{a.method} on {data.name}: {a.folds}-fold cross-validation over {param} (held-out accuracy)")
    _print_cv_table(param, selector.cv_results_, selector.best_index_)
    for name, h in selector.heuristics_.items():
        print(f"{name} (heuristic, same folds) over {h['param']}:")
        _print_cv_table(h["param"], h["table"], h["chosen_index"])
    rule = "the simplest within one standard error of the best mean" if a.one_se else "the best mean"
    print(f"chosen: {param} = {row[param]:g} ({rule}); refit on all {data.n_rows} rows: {refit['status']}, "
          f"depth {refit['depth']}, {refit['n_leaves']} leaves, training accuracy {refit['train_accuracy']:.4f}"
          f"  ({out['wall_s']} s)")
    print(selector.tree_.to_text())
    return EXIT_OK


def _print_select_without_tree(a: argparse.Namespace, selector: Any, data: Dataset, why: str) -> int:
    """``satdt select`` when no tree came out (every setting INFEASIBLE or unscored, or the refit
    out of time before any tree): status UNKNOWN with the table, exit 0 (a result, not an error)."""
    param = selector.param_
    chosen = selector.best_index_
    out = {"method": a.method, "dataset": data.name, "param": param, "folds": a.folds,
           "rule": "one-se" if a.one_se else "best", "status": "UNKNOWN",
           "chosen": None if chosen is None else {param: selector.cv_results_[chosen][param]},
           "table": selector.cv_results_, "refit": None, "tree": None, "note": why,
           "runtime_s": round(getattr(selector, "runtime_", 0.0), 4), "wall_s": round(a.clock.wall(), 3),
           "time_limit": a.time_limit, "heuristics": selector.heuristics_}
    if a.json:
        print(json.dumps(_jsonable(out)))
        return EXIT_OK
    print(f"{a.method} on {data.name}: {a.folds}-fold cross-validation over {param} (held-out accuracy)")
    _print_cv_table(param, selector.cv_results_, chosen)
    limit = f" within the time limit of {a.time_limit:g} s" if a.time_limit is not None else ""
    print(f"UNKNOWN: no tree{limit}: {why}  ({out['wall_s']} s)")
    return EXIT_OK


def _print_cv_table(param: str, table: list[dict], chosen: int | None) -> None:
    print(f"  {param:>10s}  {'mean':>7s}  {'std':>7s}  {'train':>7s}  {'leaves':>6s}  {'depth':>5s}  "
          f"{'tests/row':>9s}  status")
    for i, r in enumerate(table):
        statuses = sorted(set(r["statuses"]))
        print(f"{'*' if i == chosen else ' '} {r[param]:>10g}  {r['mean_accuracy']:7.4f}  "
              f"{r['std_accuracy']:7.4f}  {r['mean_train_accuracy']:7.4f}  {r['mean_leaves']:6.1f}  "
              f"{r['mean_depth']:5.1f}  {r['mean_avg_tests']:9.2f}  {'/'.join(statuses)}")


def cmd_datasets(a: argparse.Namespace) -> int:
    for name, path in bundled_datasets().items():
        data = load_dataset(name)
        print(f"{name:16s} {data.n_rows:6d} rows {data.X.shape[1]:4d} features {len(data.classes):3d} classes")
    return EXIT_OK


COMMANDS = {"solve": cmd_solve, "verify": cmd_verify, "bench": cmd_bench, "select": cmd_select,
            "datasets": cmd_datasets}


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. As the ``satdt`` program (``argv`` None: the process is the command) the
    clock of ``--time-limit`` starts when the process started, so the interpreter's start-up and
    the imports count; called with ``argv`` (tests, another program) it starts at the call."""
    clock = _Clock(whole_process=argv is None)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: usage error (2) or --help (0)
        return int(exc.code or 0)
    args.clock = clock
    try:
        code = COMMANDS[args.command](args)
    except BrokenPipeError:  # output piped into `head` and closed: not an error
        sys.stderr.close()
        return EXIT_OK
    except (DataError, ValueError, OSError, NoTreeFoundError, MemoryError) as exc:
        return _fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    except KeyboardInterrupt:
        return _fail("interrupted")
    if argv is None and (args.command in ("solve", "verify") or (args.command == "select" and args.jobs == 1)):
        _exit_now(code)
    return code


def _exit_now(code: int) -> None:
    """End the ``satdt`` process once its output is written, without the interpreter's teardown
    (freeing every module and array, joining solver threads: 0.3 s and more measured on a loaded
    machine, after the answer is already out). Only for commands that hold no worker pool."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # closed by the reader: nothing more to write
        code = code or EXIT_OK
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
