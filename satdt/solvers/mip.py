"""The most accurate tree of depth <= d with BinOCT [7] or OCT [8], solved by an OR-tools [14] MIP
engine.

References are numbered as in ``satdt/REFERENCES.md``.

Public API: :func:`solve_binoct`, :func:`solve_oct`. Both build their model with
:mod:`satdt.encodings.mip_binoct` / :mod:`satdt.encodings.mip_oct` (arrays, in bulk), hand it to
one engine of the ``ortools`` wheel and return a :class:`~satdt.result.SolveResult` whose tree is
re-evaluated on the original rows (:func:`~satdt.solvers.common.finalize_tree`).

Engines (``backend``) and the two OR-tools interfaces (``interface``):

=========  ==================  ================================
backend    MathOpt             pywraplp (MPSolver)
=========  ==================  ================================
"highs"    HIGHS               "HIGHS"
"scip"     GSCIP               "SCIP"
"cbc"      (not in MathOpt)    "CBC"
"cpsat"    CP_SAT              "CP_SAT"
=========  ==================  ================================

MathOpt gets the model as a ``ModelProto`` whose sparse matrix is filled from numpy arrays in
one go; pywraplp gets an ``MPModelProto`` built the same way in C++ (``model_builder`` helper)
and loaded with ``LoadModelFromProto``. Gap tolerances are set to 0; the status is decided from
the engine's *bound*, never from its status word alone: OPTIMAL when the bound (rounded up to
whole errors) reaches the errors of the re-evaluated tree, FEASIBLE otherwise (``bound`` = the
engine's best bound in errors, rounded up), UNKNOWN without a tree (INFEASIBLE when the engine
proves that there is none, e.g. OCT's min_leaf above the rows). The start tree (by default
CART [11] of the same depth, :mod:`satdt.warmstart`) is a MIP hint where the engine takes one
and always the fallback tree when the engine finds nothing better in time.

Time and memory: one :class:`~satdt.deadline.Deadline` covers the call. The model's size is
estimated before it is built (:func:`estimate_binoct`, :func:`estimate_oct`): a model that would
not fit in :func:`~satdt.deadline.max_memory` is refused (:class:`~satdt.deadline.MemoryLimitError`
naming its size), one that could not be built and handed to the engine in the time left is not
built (the fallback tree is returned, FEASIBLE, ``stats["engine_status"]`` says why). Building
and filling the engine's model check the deadline in steps; the engine gets the time left and is
interrupted at the deadline by :meth:`Deadline.watch` (some engines overrun their own limit in
presolve). ``progress``: start, each incumbent of the CP-SAT backend (MathOpt's solution
callback), ticks every ~2 s, done (:mod:`satdt.progress`).
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..binarize import BinaryProblem
from ..deadline import Deadline, DeadlineExpired
from ..encodings.mip_binoct import build_binoct
from ..encodings.mip_model import MipModel
from ..encodings.mip_oct import baseline_errors, build_oct
from ..progress import ProgressCallback, ProgressReporter
from ..result import FEASIBLE, INFEASIBLE, UNKNOWN, SolveResult, engine_result
from ..tree import Tree
from ..warmstart import best_start_tree, single_leaf, warm_start_trees
from .common import finalize_tree, n_cores
from .mip_size import (BYTES_PER_NONZERO, ENGINE_START_SECONDS_PER_NONZERO, SECONDS_PER_NONZERO,  # noqa: F401
                       SECONDS_PER_ROW, _engine_limit, _fits, binoct_threshold_rows, estimate_binoct,
                       estimate_oct)

__all__ = ["solve_binoct", "solve_oct", "BACKENDS", "INTERFACES", "DEFAULT_BACKEND", "solve_mip_model",
           "estimate_binoct", "estimate_oct"]

BACKENDS = ("highs", "scip", "cbc", "cpsat")
INTERFACES = ("mathopt", "pywraplp")
DEFAULT_BACKEND = "cpsat"
# interface used for a backend when none is given (chosen by measurement, benchmarks/results/mip.md)
DEFAULT_INTERFACE = {"highs": "mathopt", "scip": "mathopt", "cbc": "pywraplp", "cpsat": "mathopt"}
_PYWRAPLP_NAMES = {"highs": "HIGHS", "scip": "SCIP", "cbc": "CBC", "cpsat": "CP_SAT"}
_EPS = 1e-6
#: nonzeros handed to the proto between two deadline checks
_CHUNK = 1 << 21


@dataclass
class EngineResult:
    """What one engine call gave: a solution (or None), its objective, the best bound."""

    x: np.ndarray | None
    objective: float | None
    bound: float | None
    engine_status: str
    seconds: float
    stats: dict = field(default_factory=dict)


def _check_backend(backend: str, interface: str | None) -> str:
    if backend not in BACKENDS:
        raise ValueError(f"unknown MIP backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if interface is None:
        interface = DEFAULT_INTERFACE[backend]
    if interface not in INTERFACES:
        raise ValueError(f"unknown OR-tools interface {interface!r}; choose one of {', '.join(INTERFACES)}")
    if backend == "cbc" and interface == "mathopt":
        raise ValueError("CBC is available through pywraplp only (interface='pywraplp')")
    return interface


@contextlib.contextmanager
def _quiet_stdout(active: bool):
    """Silence the C library's stdout (file descriptor 1) for the duration of an engine call."""
    if not active:
        yield
        return
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


def _extend(field_, values: np.ndarray, deadline: Deadline) -> None:
    """``field_.extend(values)`` in chunks, checking the deadline between them (a proto field
    takes about a second per 10^7 values)."""
    for lo in range(0, len(values), _CHUNK):
        deadline.check("loading the MIP")
        field_.extend(values[lo:lo + _CHUNK])


class _Watch:
    """What the engine's callbacks saw last (incumbent and bound in errors, nodes), for ticks."""

    def __init__(self, reporter: ProgressReporter, errors_of: Callable[[np.ndarray, np.ndarray], float] | None,
                 to_errors: Callable[[float], float] | None):
        self.reporter, self.errors_of, self.to_errors = reporter, errors_of, to_errors
        self.incumbent: float | None = None
        self.bound: float | None = None
        self.nodes: int | None = None

    def poll(self) -> dict:
        return {"incumbent": self.incumbent, "bound": self.bound, "nodes": self.nodes}

    def mathopt(self, data):
        from ortools.math_opt import callback_pb2

        stats = data.mip_stats
        self.nodes = int(stats.explored_nodes)
        if math.isfinite(stats.dual_bound) and self.to_errors is not None:
            self.bound = max(self.bound or 0.0, math.ceil(self.to_errors(stats.dual_bound) - _EPS))
        if data.event == callback_pb2.CALLBACK_EVENT_MIP_SOLUTION and data.HasField("primal_solution_vector"):
            sv = data.primal_solution_vector
            value = self.errors_of(np.asarray(sv.ids, dtype=np.int64), np.asarray(sv.values)) \
                if self.errors_of is not None else stats.primal_bound
            value = float(round(value))
            if self.incumbent is None or value < self.incumbent:
                best = self.reporter.incumbent
                self.incumbent = value
                if best is not None and value >= best:
                    return callback_pb2.CallbackResultProto()  # no better than the warm start
                self.incumbent = value
                self.reporter.emit("incumbent", incumbent=value, bound=self.bound, nodes=self.nodes)
        return callback_pb2.CallbackResultProto()


def _arrays(mip: MipModel, deadline: Deadline) -> tuple[np.ndarray, ...]:
    """The model's bounds, integrality, objective, CSR matrix and row bounds, checking the
    deadline after each step (the matrix takes seconds for 10^7 nonzeros)."""
    lb, ub, integer, obj = mip.bounds()
    deadline.check("building the MIP")
    A, rlb, rub = mip.matrix()
    deadline.check("building the MIP")
    return lb, ub, integer, obj, A, rlb, rub


# ------------------------------------------------------------------ MathOpt
def _solve_mathopt(mip: MipModel, backend: str, deadline: Deadline,
                   hint: np.ndarray | None, threads: int, watch: _Watch | None = None) -> EngineResult:
    from ortools.math_opt import model_parameters_pb2, model_pb2, parameters_pb2, result_pb2
    from ortools.math_opt import callback_pb2
    from ortools.math_opt.core.python import solver as core

    lb, ub, integer, obj, A, rlb, rub = _arrays(mip, deadline)
    n = mip.n_vars
    model = model_pb2.ModelProto()
    ids = np.arange(n, dtype=np.int64)
    _extend(model.variables.ids, ids, deadline)
    _extend(model.variables.lower_bounds, lb, deadline)
    _extend(model.variables.upper_bounds, ub, deadline)
    _extend(model.variables.integers, integer.tolist(), deadline)
    model.objective.maximize = False
    model.objective.offset = mip.offset
    nz = np.flatnonzero(obj)
    model.objective.linear_coefficients.ids.extend(nz)
    model.objective.linear_coefficients.values.extend(obj[nz])
    _extend(model.linear_constraints.ids, np.arange(A.shape[0], dtype=np.int64), deadline)
    _extend(model.linear_constraints.lower_bounds, rlb, deadline)
    _extend(model.linear_constraints.upper_bounds, rub, deadline)
    coo_rows = np.repeat(np.arange(A.shape[0], dtype=np.int64), np.diff(A.indptr))
    _extend(model.linear_constraint_matrix.row_ids, coo_rows, deadline)
    _extend(model.linear_constraint_matrix.column_ids, A.indices.astype(np.int64), deadline)
    _extend(model.linear_constraint_matrix.coefficients, A.data, deadline)
    nonzeros = int(A.nnz)
    del A, coo_rows

    solver_type = {"highs": parameters_pb2.SOLVER_TYPE_HIGHS, "scip": parameters_pb2.SOLVER_TYPE_GSCIP,
                   "cpsat": parameters_pb2.SOLVER_TYPE_CP_SAT}[backend]
    params = parameters_pb2.SolveParametersProto()
    params.relative_gap_tolerance = 0.0
    params.absolute_gap_tolerance = 0.0
    time_limit = _engine_limit(deadline, nonzeros)  # filling the proto (seconds for 10^7 nonzeros) counts
    if time_limit is not None:
        params.time_limit.FromNanoseconds(int(max(time_limit, 1e-3) * 1e9))
    if backend == "cpsat":
        params.threads = threads
    if backend == "highs":
        params.highs.bool_options["output_flag"] = False
        params.highs.bool_options["log_to_console"] = False
    mparams = model_parameters_pb2.ModelSolveParametersProto()
    if hint is not None:
        h = mparams.solution_hints.add()
        h.variable_values.ids.extend(ids)
        h.variable_values.values.extend(hint)
    from ortools.util.python.pybind_solve_interrupter import PySolveInterrupter

    interrupter = PySolveInterrupter()
    registration = callback_pb2.CallbackRegistrationProto()
    user_cb = None
    if watch is not None and backend == "cpsat":  # the engine of MathOpt that reports solutions
        registration.request_registration.append(callback_pb2.CALLBACK_EVENT_MIP_SOLUTION)
        user_cb = watch.mathopt
    start = time.perf_counter()
    # GSCIP rejects MathOpt's interrupter (an event-handler error): it gets its time limit only;
    # the others are interrupted just after their own limit (SCIP/HiGHS presolve overrun it)
    # (armed without a limit too: an interrupt, satdt.deadline.interrupt, fires it)
    stop = contextlib.nullcontext() if backend == "scip" else \
        Deadline(None if time_limit is None else time_limit + 0.05).watch(interrupter.interrupt)
    with _quiet_stdout(backend == "highs"), stop, \
            (watch.reporter.periodic(watch.poll) if watch is not None else contextlib.nullcontext()):
        res = core.solve(model, solver_type, parameters_pb2.SolverInitializerProto(), params, mparams,
                         None, registration, user_cb, None if backend == "scip" else interrupter)
    seconds = time.perf_counter() - start
    reason = result_pb2.TerminationReasonProto.Name(res.termination.reason).replace("TERMINATION_REASON_", "")
    x = None
    for sol in res.solutions:
        if sol.HasField("primal_solution") and sol.primal_solution.feasibility_status == 2:  # FEASIBLE
            x = np.zeros(n)
            x[np.asarray(sol.primal_solution.variable_values.ids, dtype=np.int64)] = \
                np.asarray(sol.primal_solution.variable_values.values)
            break
    bounds = res.termination.objective_bounds
    bound = bounds.dual_bound if math.isfinite(bounds.dual_bound) else None
    objective = bounds.primal_bound if (x is not None and math.isfinite(bounds.primal_bound)) else None
    if reason in ("INFEASIBLE", "NUMERICAL_ERROR", "OTHER_ERROR", "IMPRECISE"):
        if reason == "OTHER_ERROR":
            raise RuntimeError(f"MathOpt {backend} failed: {res.termination.detail}")
    return EngineResult(x, objective, bound, reason, seconds,
                        {"interface": "mathopt", "engine_status": reason,
                         "nodes": int(res.solve_stats.node_count)})


# ------------------------------------------------------------------ pywraplp
def _solve_pywraplp(mip: MipModel, backend: str, deadline: Deadline,
                    hint: np.ndarray | None, threads: int, watch: _Watch | None = None) -> EngineResult:
    from ortools.linear_solver import linear_solver_pb2, pywraplp
    from ortools.linear_solver.python import model_builder_helper as mbh

    lb, ub, integer, obj, A, rlb, rub = _arrays(mip, deadline)
    helper = mbh.ModelBuilderHelper()
    helper.fill_model_from_sparse_data(lb, ub, obj, rlb, rub, A)
    for j in np.flatnonzero(integer):       # integrality has no bulk setter; one call per integer var
        helper.set_var_integrality(int(j), True)
    fd, path = tempfile.mkstemp(suffix=".pb")
    os.close(fd)
    try:
        helper.write_model_to_proto_file(path)
        proto = linear_solver_pb2.MPModelProto()
        with open(path, "rb") as fh:
            proto.ParseFromString(fh.read())
    finally:
        os.unlink(path)
    solver = pywraplp.Solver.CreateSolver(_PYWRAPLP_NAMES[backend])
    if solver is None:
        raise RuntimeError(f"pywraplp backend {backend} is not available in this ortools build")
    deadline.check("loading the MIP")
    err = solver.LoadModelFromProto(proto)
    if err:
        raise RuntimeError(f"pywraplp could not load the model: {err}")
    variables = solver.variables()
    if hint is not None and backend != "highs":   # SetHint crashes pywraplp's HiGHS (ortools 9.15)
        solver.SetHint(variables, [float(v) for v in hint])
    time_limit = _engine_limit(deadline, int(A.nnz))  # building the solver's model counts
    if time_limit is not None:
        solver.SetTimeLimit(max(1, int(time_limit * 1000)))
    if backend == "cpsat":
        solver.SetNumThreads(threads)
    params = pywraplp.MPSolverParameters()
    params.SetDoubleParam(params.RELATIVE_MIP_GAP, 0.0)
    start = time.perf_counter()
    stop = Deadline(None if time_limit is None else time_limit + 0.05).watch(solver.InterruptSolve)
    with _quiet_stdout(backend == "highs"), stop, \
            (watch.reporter.periodic(watch.poll) if watch is not None else contextlib.nullcontext()):
        status = solver.Solve(params)
    seconds = time.perf_counter() - start
    names = {pywraplp.Solver.OPTIMAL: "OPTIMAL", pywraplp.Solver.FEASIBLE: "FEASIBLE",
             pywraplp.Solver.INFEASIBLE: "INFEASIBLE", pywraplp.Solver.NOT_SOLVED: "NOT_SOLVED",
             pywraplp.Solver.ABNORMAL: "ABNORMAL", pywraplp.Solver.UNBOUNDED: "UNBOUNDED"}
    name = names.get(status, str(status))
    x = objective = bound = None
    if status in (pywraplp.Solver.OPTIMAL, pywraplp.Solver.FEASIBLE):
        resp = linear_solver_pb2.MPSolutionResponse()
        solver.FillSolutionResponseProto(resp)
        x = np.asarray(resp.variable_value, dtype=float)
        objective = solver.Objective().Value()
    if status in (pywraplp.Solver.OPTIMAL, pywraplp.Solver.FEASIBLE, pywraplp.Solver.NOT_SOLVED):
        b = solver.Objective().BestBound()
        bound = b if math.isfinite(b) and abs(b) < 1e30 else None
        if status == pywraplp.Solver.OPTIMAL and backend == "cpsat" and bound is None:
            bound = objective
    return EngineResult(x, objective, bound, name, seconds,
                        {"interface": "pywraplp", "engine_status": name, "nodes": int(solver.nodes())
                         if backend in ("scip", "cbc") else None})


def solve_mip_model(mip: MipModel, backend: str, interface: str | None = None,
                    time_limit: Deadline | float | None = None, hint: np.ndarray | None = None,
                    watch: _Watch | None = None) -> EngineResult:
    """Solve a :class:`MipModel` with one OR-tools engine (minimization).

    ``time_limit``: seconds or the caller's :class:`Deadline`; raises
    :class:`~satdt.deadline.DeadlineExpired` if it passes while the model is loaded (before the
    engine starts).
    """
    interface = _check_backend(backend, interface)
    threads = max(1, n_cores())
    deadline = Deadline.of(time_limit)
    if interface == "mathopt":
        return _solve_mathopt(mip, backend, deadline, hint, threads, watch)
    return _solve_pywraplp(mip, backend, deadline, hint, threads, watch)


# ------------------------------------------------------------------ public API
def _validate(problem: BinaryProblem, max_depth: int) -> None:
    if not isinstance(max_depth, (int, np.integer)) or isinstance(max_depth, bool) or max_depth < 1:
        raise ValueError(f"max_depth must be an integer >= 1, got {max_depth!r}")
    if not isinstance(problem, BinaryProblem):
        raise ValueError("problem must be a satdt.binarize.BinaryProblem")


def _trivial(problem: BinaryProblem, deadline: Deadline, method: str) -> SolveResult:
    """No binary column: the single leaf is the only tree, and it is optimal."""
    final, errors = finalize_tree(problem, single_leaf(problem))
    return engine_result(final, errors, proven=True, runtime=deadline, method=method, objective_name="errors",
                         stats={"note": "no binary column: a single leaf"})


def solve_binoct(problem: BinaryProblem, *, max_depth: int, backend: str = DEFAULT_BACKEND,
                 time_limit: float | Deadline | None = None, warm_start: bool = True,
                 interface: str | None = None, progress: ProgressCallback | None = None) -> SolveResult:
    """Most accurate tree of depth <= ``max_depth`` with BinOCT (Verwer & Zhang, AAAI-19).

    Parameters
    ----------
    problem : BinaryProblem
    max_depth : int
        At least 1.
    backend : {"highs", "scip", "cbc", "cpsat"}
    time_limit : float, Deadline or None
        Wall-clock seconds for the whole call (model building included).
    warm_start : bool, "cart", "dpdt" or Tree
        Hint the engine with a tree of this depth (and keep it as the fallback tree): True or
        ``"cart"`` for CART, ``"dpdt"`` for the most accurate tree of DPDT's front, or any tree
        over the original features, mapped to the binary columns by routing.
    interface : {"mathopt", "pywraplp"} or None
        OR-tools interface; None picks the measured default for the backend.
    progress : callable or None
        Receives :class:`~satdt.progress.ProgressEvent` objects (incumbent and bound in errors).

    Returns
    -------
    SolveResult
        ``objective`` = training errors of the returned (re-evaluated) tree, ``bound`` = proven
        lower bound on the errors of every tree of depth <= ``max_depth`` over the binarization.
        A model too large for the time left is not built: the warm-start tree, FEASIBLE.

    Raises
    ------
    MemoryLimitError
        When the model's estimated size exceeds :func:`~satdt.deadline.max_memory`.
    """
    _validate(problem, max_depth)
    _check_backend(backend, interface)
    deadline = Deadline.of(time_limit)
    reporter = ProgressReporter("mip", progress)
    reporter.emit("start", bound=problem.min_errors, message=f"BinOCT depth {max_depth} ({backend})")
    if problem.n_binary == 0:
        return _done(reporter, _trivial(problem, deadline, "binoct"))
    stats = {"formulation": "BinOCT", "backend": backend, "distinct_rows": problem.n_distinct,
             "binary_columns": problem.n_binary, "estimated_nonzeros": estimate_binoct(problem, int(max_depth))}
    refused = _fits(stats["estimated_nonzeros"], deadline, "BinOCT",
                    rows=binoct_threshold_rows(problem, int(max_depth)))
    start_tree = best_start_tree(problem, warm_start, int(max_depth), problem.errors, deadline)
    if start_tree is not None:
        reporter.emit("incumbent", incumbent=problem.errors(start_tree), message="warm start")
    model = None
    if refused is None:
        try:
            model = build_binoct(problem, int(max_depth), deadline=deadline)
        except DeadlineExpired:
            refused = "NOT_RUN (time limit reached while building the model)"
    if model is None:
        stats["engine_status"] = refused
        return _done(reporter, _finish(problem, None, None, start_tree, None, backend, interface, deadline, stats,
                                       "binoct", lambda v: v, None))
    stats.update(**model.mip.stats(), build_s=round(deadline.elapsed(), 4), feature_groups=len(model.groups),
                 threshold_bits=model.n_bits)
    hint = model.hint(problem, start_tree) if start_tree is not None else None
    to_errors = lambda v: v  # noqa: E731  (the objective is the error count)
    e = model.e.ravel()
    watch = _Watch(reporter, _sum_of(e, model.mip.n_vars), to_errors) if reporter.active else None
    return _done(reporter, _finish(problem, model, model.mip, start_tree, hint, backend, interface, deadline, stats,
                                   "binoct", to_errors, None, watch))


def solve_oct(problem: BinaryProblem, *, max_depth: int, alpha: float = 0.0, min_leaf: int = 1,
              backend: str = DEFAULT_BACKEND, time_limit: float | Deadline | None = None,
              warm_start: bool = True, interface: str | None = None,
              progress: ProgressCallback | None = None) -> SolveResult:
    """Optimal classification tree of depth <= ``max_depth`` with OCT (Bertsimas & Dunn 2017).

    Minimizes ``errors / L_hat + alpha * splits`` (``L_hat`` = errors of the majority-class
    baseline) over trees whose nonempty leaves hold at least ``min_leaf`` rows. With
    ``alpha = 0`` and ``min_leaf = 1`` this is the fewest errors at depth <= ``max_depth``.

    Parameters are those of :func:`solve_binoct`, plus ``alpha`` (>= 0) and ``min_leaf``
    (N_min, a positive integer). Progress events report errors (the incumbent's leaf errors,
    the bound in errors), as ``SolveResult.objective``.

    Returns
    -------
    SolveResult
        ``objective`` = training errors of the returned tree (``objective_name = "errors"``);
        ``stats["oct_objective"]`` its OCT objective, ``stats["oct_bound"]`` the engine's bound
        on it. OPTIMAL means the OCT objective is proven optimal; ``bound`` is a proven lower
        bound on the errors of an OCT-optimal tree.
    """
    _validate(problem, max_depth)
    _check_backend(backend, interface)
    deadline = Deadline.of(time_limit)
    if not alpha >= 0 or not math.isfinite(alpha):
        raise ValueError(f"alpha must be a finite number >= 0, got {alpha}")
    if isinstance(min_leaf, bool) or int(min_leaf) != min_leaf or min_leaf < 1:
        raise ValueError(f"min_leaf must be a positive integer, got {min_leaf}")
    reporter = ProgressReporter("mip", progress)
    reporter.emit("start", bound=problem.min_errors, message=f"OCT depth {max_depth} ({backend})")
    if problem.n_binary == 0:
        return _done(reporter, _trivial(problem, deadline, "oct"))
    scale = float(max(baseline_errors(problem), 1))
    stats = {"formulation": "OCT", "backend": backend, "alpha": float(alpha), "min_leaf": int(min_leaf),
             "distinct_rows": problem.n_distinct, "binary_columns": problem.n_binary,
             "baseline_errors": baseline_errors(problem), "estimated_nonzeros": estimate_oct(problem, int(max_depth))}
    refused = _fits(stats["estimated_nonzeros"], deadline, "OCT", extra_bytes=16 * problem.n_distinct * problem.n_binary // 2)
    max_splits = 2 ** int(max_depth) - 1

    def to_errors(model_bound: float) -> float:
        # model objective = errors + alpha * L_hat * splits; splits <= max_splits
        return model_bound - float(alpha) * scale * max_splits if alpha > 0 else model_bound

    model = None
    if refused is None:
        try:
            model = build_oct(problem, int(max_depth), float(alpha), int(min_leaf), deadline=deadline)
        except DeadlineExpired:
            refused = "NOT_RUN (time limit reached while building the model)"
    candidates = warm_start_trees(problem, warm_start, int(max_depth), deadline)
    if model is not None:
        # trees that break N_min are neither a hint nor a fallback
        candidates = [t for t in candidates if model.hint(problem, t) is not None]
    elif int(min_leaf) > 1:
        candidates = [t for t in candidates if _leaf_sizes_ok(problem, t, int(min_leaf))]
    # the best valid one by OCT's value
    start_tree = min(candidates, key=lambda t: problem.errors(t) + float(alpha) * scale * t.n_splits, default=None)
    if start_tree is not None:
        reporter.emit("incumbent", incumbent=problem.errors(start_tree), message="warm start")
    if model is None:
        stats["engine_status"] = refused
        return _done(reporter, _finish(problem, None, None, start_tree, None, backend, interface, deadline, stats,
                                       "oct", to_errors, (float(alpha), scale)))
    stats.update(**model.mip.stats(), build_s=round(deadline.elapsed(), 4))
    hint = model.hint(problem, start_tree) if start_tree is not None else None
    watch = _Watch(reporter, _sum_of(model.L.ravel(), model.mip.n_vars), to_errors) if reporter.active else None
    return _done(reporter, _finish(problem, model, model.mip, start_tree, hint, backend, interface, deadline, stats,
                                   "oct", to_errors, (float(alpha), model.scale), watch))


def _leaf_sizes_ok(problem: BinaryProblem, tree: Tree, min_leaf: int) -> bool:
    """Every nonempty leaf of a binary-column tree holds at least ``min_leaf`` rows (N_min)."""
    sizes = [int(problem.weights[rows].sum()) for _, rows in problem.route(tree)]
    return all(s == 0 or s >= min_leaf for s in sizes)


def _sum_of(columns: np.ndarray, n_vars: int) -> Callable[[np.ndarray, np.ndarray], float]:
    """The sum of some variables of a sparse solution vector (the errors of an incumbent)."""
    mask = np.zeros(n_vars, dtype=bool)
    mask[columns] = True

    def total(ids: np.ndarray, values: np.ndarray) -> float:
        keep = (ids >= 0) & (ids < n_vars)
        return float(values[keep][mask[ids[keep]]].sum())

    return total


def _done(reporter: ProgressReporter, result: SolveResult) -> SolveResult:
    reporter.emit("done", incumbent=result.objective, bound=result.bound, message=result.status)
    return result


def _finish(problem, model, mip, start_tree, hint, backend, interface, deadline, stats, method,
            to_errors, oct_params, watch: _Watch | None = None) -> SolveResult:
    """Run the engine in the time left, pick the better of its tree and the fallback, decide the
    status. ``model`` None: the model was not built (``stats["engine_status"]`` says why)."""
    remaining = deadline.remaining()
    engine = None
    if model is None:
        pass
    elif remaining is None or remaining > 0.05:
        try:
            engine = solve_mip_model(mip, backend, interface, deadline, hint, watch)
        except DeadlineExpired as exc:
            stats["engine_status"] = f"NOT_RUN (time limit reached while {str(exc).split(' during ')[-1]})"
        else:
            stats.update(engine.stats)
            stats["engine_s"] = round(engine.seconds, 4)
            stats["engine_objective"] = engine.objective
            stats["engine_bound"] = engine.bound
    else:
        stats["engine_status"] = "NOT_RUN (time limit)"
    candidates = []
    if engine is not None and engine.x is not None:
        candidates.append(("engine", model.decode(engine.x, problem.classes)))
    if start_tree is not None:
        candidates.append(("cart", start_tree))
    best = None
    for source, tree in candidates:
        final, errors = finalize_tree(problem, tree)
        value = _oct_value(final, errors, oct_params) if oct_params else float(errors)
        if best is None or value < best[3] - 1e-12:
            best = (source, final, errors, value)
    runtime = deadline.elapsed()
    if best is None:
        # the engine's proof that the model has no solution (e.g. OCT's min_leaf above the rows)
        infeasible = engine is not None and engine.engine_status == "INFEASIBLE"
        return engine_result(None, None, status=INFEASIBLE if infeasible else UNKNOWN,
                             bound=None if infeasible else _err_bound(engine, to_errors, problem), runtime=runtime,
                             method=method, objective_name="errors", stats=stats)
    source, final, errors, value = best
    stats["tree_source"] = source
    if oct_params:
        stats["oct_objective"] = value
        stats["oct_bound"] = (engine.bound / oct_params[1]) if engine and engine.bound is not None else None
    # the proof: the engine's bound reaches the value of the tree we return
    proven = False
    if engine is not None and engine.bound is not None:
        if oct_params and oct_params[0] > 0:
            proven = engine.bound / oct_params[1] >= value - 1e-6 * max(1.0, abs(value))
        else:
            proven = math.ceil(engine.bound - _EPS) >= errors
    bound = None if proven else _err_bound(engine, to_errors, problem)
    if oct_params and oct_params[0] > 0 and not proven:
        # OCT with a split penalty: its bound is on the errors, its optimum on OCT's value, so a
        # bound that reaches the tree's errors proves nothing about that value
        return SolveResult(final, FEASIBLE, errors, min(bound, errors), runtime, method, "errors", stats)
    return engine_result(final, errors, proven=proven, bound=bound, runtime=runtime, method=method,
                         objective_name="errors", stats=stats)


def _err_bound(engine: EngineResult | None, to_errors, problem: BinaryProblem) -> int:
    """Best proven lower bound on the errors (integral, rounded up); at least the unavoidable
    errors of rows identical after binarization."""
    trivial = problem.min_errors
    if engine is None or engine.bound is None:
        return trivial
    return max(trivial, int(math.ceil(to_errors(engine.bound) - _EPS)))


def _oct_value(tree: Tree, errors: int, oct_params) -> float:
    alpha, scale = oct_params
    return errors / scale + alpha * tree.n_splits
