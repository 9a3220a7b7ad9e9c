"""CP-SAT [14] for the OSDT/GOSDT regularized objective ``errors / n + lam * leaves`` [4, 5].

References are numbered as in ``satdt/REFERENCES.md``.

:func:`solve_regularized` solves one lambda; :func:`solve_regularization_path` solves a list of
lambdas on one model (built once; per lambda only the objective changes, plus constraints that
stay valid for every larger lambda) with the previous tree as a start tree. The model is
:mod:`satdt.encodings.cpsat_regularized`.

Every returned tree goes through :func:`~satdt.solvers.common.finalize_tree` and its objective
is computed (exactly, in fractions) from that re-evaluated tree; for an OPTIMAL result it is
checked to equal CP-SAT's optimum.

Limits: the model build polls the call's :class:`~satdt.deadline.Deadline` and its size is
estimated first (:func:`estimate_model_bytes`; :class:`~satdt.deadline.MemoryLimitError` above
:func:`~satdt.deadline.max_memory`). ``progress``: start, each incumbent (a
``CpSolverSolutionCallback``) and bound (``best_bound_callback``) as exact objective values,
ticks every ~2 s, done (:mod:`satdt.progress`).
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction
from typing import Any, Sequence

import numpy as np
from ortools.sat.python import cp_model

from ..binarize import BinaryProblem
from ..encodings.cpsat_regularized import (BuildInterrupted, RegularizedEncoding, ScaledObjective,
                                           add_osdt_bounds, build_model, exact_objective,
                                           scaled_objective, set_objective)
from ..deadline import Deadline, DeadlineExpired, check_memory
from ..progress import ProgressCallback, ProgressReporter
from ..result import FEASIBLE, OPTIMAL, UNKNOWN, SolveResult, engine_result
from ..tree import Node, Tree
from ..warmstart import check_warm_start, single_leaf, warm_start_trees
from .common import TreeCheckError, finalize_tree, n_cores

__all__ = ["solve_regularized", "solve_regularization_path", "PathResults", "improve_tree",
           "distinct_optimal_trees", "estimate_model_bytes"]

METHOD = "cpsat"
WarmStart = Any  # None | "cart" | "dpdt" | Tree (original features): see satdt.warmstart
HintArg = WarmStart  # the former name
_UNSET: Any = object()


def _warm_start_arg(warm_start: WarmStart, hint: WarmStart) -> WarmStart:
    """``warm_start``, or the deprecated ``hint=`` keyword when a caller still passes it."""
    if hint is _UNSET:
        return warm_start
    warnings.warn("the hint= keyword of the CP-SAT solvers is deprecated; use warm_start= "
                  "(the same values)", DeprecationWarning, stacklevel=3)
    return hint


# ---------------------------------------------------------------------- parameters

def _check(lam: float, max_depth: int, time_limit: float | Deadline | None, num_workers: int | None) -> None:
    if not isinstance(max_depth, (int, np.integer)) or isinstance(max_depth, bool) or max_depth < 0:
        raise ValueError(f"max_depth must be a non-negative integer, got {max_depth!r}")
    try:
        ok = lam >= 0 and math.isfinite(lam)
    except TypeError:
        ok = False
    if not ok:
        raise ValueError(f"lam must be a finite number >= 0, got {lam!r}")
    if time_limit is not None and not isinstance(time_limit, Deadline) and not (time_limit > 0):
        raise ValueError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    if num_workers is not None and (int(num_workers) != num_workers or num_workers < 1):
        raise ValueError(f"num_workers must be a positive integer, got {num_workers!r}")


def _workers(num_workers: int | None) -> int:
    return min(int(num_workers or n_cores()), n_cores())


# bytes of the model per (distinct row, position) and (column, position) pair: in satdt.limits,
# which estimates the model from the shape before anything heavy is imported
from ..limits import CPSAT_BYTES_PER_COLUMN_POSITION as _BYTES_PER_COLUMN_POSITION  # noqa: E402
from ..limits import CPSAT_BYTES_PER_ROW_POSITION as _BYTES_PER_ROW_POSITION  # noqa: E402


def estimate_model_bytes(problem: BinaryProblem, max_depth: int) -> int:
    """Rough peak memory of :func:`~satdt.encodings.cpsat_regularized.build_model`: its path
    variables are per distinct row and tree position, its split variables per column and
    internal position."""
    positions = 2 ** (max_depth + 1) - 1
    return int(problem.n_distinct * positions * _BYTES_PER_ROW_POSITION
               + problem.n_binary * (2 ** max_depth) * _BYTES_PER_COLUMN_POSITION)


from ..limits import CPSAT_SECONDS_PER_BUILD_UNIT as SECONDS_PER_BUILD_UNIT  # noqa: E402
#: seconds per constraint CP-SAT takes past its own time limit (loading and presolving the model
#: before it looks at the limit): 1.3 s on fault's 920,784 constraints given 8 s, 0.7 s given 1 s
#: (1.4e-6 a constraint, at load 3), rounded up; the limit it is given is the time left less this
START_SECONDS_PER_CONSTRAINT = 2e-6


def estimate_build_units(problem: BinaryProblem, max_depth: int) -> int:
    """Variables and constraints :func:`~satdt.encodings.cpsat_regularized.build_model` makes one
    by one in Python: split and prefix variables per column and internal position, path
    variables per row and position, per row and internal position a direction clause per chain
    and six path clauses, per unit and position an error clause."""
    D = int(max_depth)
    I, P = 2 ** D - 1, 2 ** (D + 1) - 1
    m, B = problem.n_distinct, problem.n_binary
    units = int(np.count_nonzero(problem.counts))
    chains = len(problem.threshold_chains()) if I else 0
    return 2 * I * B + m * (P + D) + units + I * m * (chains + 6) + P * units


def _build_within(problem: BinaryProblem, max_depth: int, deadline: Deadline):
    """The CP-SAT model, built only when its estimated build and load fit in the time left
    (else ``BuildInterrupted``), the binary matrix it reads made within the deadline."""
    too_slow = _too_slow(problem, max_depth, deadline)
    if too_slow:
        raise BuildInterrupted(too_slow)
    problem.matrix(deadline)
    return build_model(problem, max_depth, should_stop=deadline.expired)


def _too_slow(problem: BinaryProblem, max_depth: int, deadline: Deadline) -> str | None:
    """Why the model is not built (it could not be in the time left), or None."""
    left = deadline.remaining()
    if left is None:
        return None
    units = estimate_build_units(problem, max_depth)
    need = units * (SECONDS_PER_BUILD_UNIT + START_SECONDS_PER_CONSTRAINT)  # built, then loaded by CP-SAT
    if need <= left:
        return None
    return (f"NOT_RUN (the model, about {units:.3g} variables and constraints, needs about {need:.0f} s "
            f"to build and load; {left:.1f} s left)")


def _check_size(problem: BinaryProblem, max_depth: int) -> None:
    check_memory(estimate_model_bytes(problem, max_depth),
                 f"the CP-SAT model ({problem.n_distinct} distinct rows, {problem.n_binary} columns, depth {max_depth})",
                 "use a smaller max_depth or binarization='quantile'")


class _Incumbents(cp_model.CpSolverSolutionCallback):
    """Reports each CP-SAT solution and bound as exact objective values (errors / n + lam * leaves)."""

    def __init__(self, enc: RegularizedEncoding, scaled: ScaledObjective, reporter: ProgressReporter):
        super().__init__()
        self.enc, self.scaled, self.reporter = enc, scaled, reporter
        self.errors, self.leaves = enc.errors_expr(), enc.leaves_expr()
        self.best_bound: float | None = None
        self.branches: int | None = None

    def bound_of(self, engine_bound: float) -> float:
        problem = self.enc.problem
        return float(self.scaled.lower_bound(engine_bound, self.enc.max_leaves, problem.min_errors))

    def on_solution_callback(self) -> None:
        value = float(exact_objective(int(self.value(self.errors)), int(self.value(self.leaves)),
                                      self.enc.problem.n_rows, self.scaled.lam))
        self.branches = int(self.num_branches)
        bound = self.bound_of(self.best_objective_bound)
        best = self.reporter.incumbent
        if best is None or value < best:
            self.reporter.emit("incumbent", incumbent=value, bound=max(bound, self.best_bound or bound),
                               nodes=self.branches)

    def on_bound(self, engine_bound: float) -> None:
        bound = self.bound_of(engine_bound)
        if self.best_bound is None or bound > self.best_bound:
            self.best_bound = bound
            self.reporter.emit("bound", bound=bound, nodes=self.branches)

    def poll(self) -> dict:
        return {"nodes": self.branches}


# ---------------------------------------------------------------------- warm starts

def _tree_value(problem: BinaryProblem, tree: Tree, lam: Fraction) -> Fraction:
    return exact_objective(problem.errors(tree), tree.n_leaves, problem.n_rows, lam)


def improve_tree(problem: BinaryProblem, tree: Tree, lam: float | Fraction) -> Tree:
    """Apply OSDT's improving moves to a tree over the binary columns until none applies.

    Leaves get their majority class; a subtree whose single leaf is no worse replaces it
    (pruning); a non-root leaf that classifies fewer than ``lam * n`` rows correctly is removed
    (its parent is replaced by its sibling subtree, OSDT Theorem 3.5); two sibling leaves of
    one class merge. Each move lowers ``errors / n + lam * leaves`` or the number of leaves,
    so the loop ends; the result meets the constraints of
    :func:`~satdt.encodings.cpsat_regularized.add_osdt_bounds` and is a valid hint.
    """
    lam = Fraction(lam)
    n = problem.n_rows
    counts = problem.counts
    tree = tree.copy()
    columns: dict[int, np.ndarray] = {}  # the tree's columns only: no binary matrix for a hint

    def column(j: int) -> np.ndarray:
        if j not in columns:
            columns[j] = problem.column(j)
        return columns[j]

    def cost(node: Node, rows: np.ndarray) -> tuple[Fraction, Node, bool]:
        c = counts[rows].sum(axis=0)
        if node.is_leaf:
            label = int(np.argmax(c)) if c.sum() > 0 else node.label
            changed = label != node.label
            return Fraction(int(c.sum() - c[label]), n) + lam, Node.leaf(label), changed
        right = column(node.feature)[rows]
        lrows, rrows = rows[~right], rows[right]
        lc, ln, lch = cost(node.left, lrows)
        rc, rn, rch = cost(node.right, rrows)
        for child, crow in ((ln, lrows), (rn, rrows)):
            if child.is_leaf and lam > 0 and counts[crow, child.label].sum() < lam * n:
                other = rn if child is ln else ln
                sub = cost(other, rows)
                return sub[0], sub[1], True
        as_leaf = int(c.sum() - c.max()), int(np.argmax(c))
        leaf_cost = Fraction(as_leaf[0], n) + lam
        if leaf_cost <= lc + rc or (ln.is_leaf and rn.is_leaf and ln.label == rn.label):
            return leaf_cost, Node.leaf(as_leaf[1]), True
        return lc + rc, Node.split(node.feature, 0.5, ln, rn), lch or rch

    root = tree.root
    for _ in range(10_000):
        _, root, changed = cost(root, np.arange(problem.n_distinct))
        if not changed:
            break
    return Tree(root=root, classes=problem.classes)


def _start_tree(problem: BinaryProblem, warm_start: WarmStart, lam: Fraction, max_depth: int,
                extra: Sequence[Tree] = (), deadline: Deadline | None = None) -> Tree:
    """The best of the single leaf, the improved start tree(s), by the exact objective."""
    candidates = [single_leaf(problem)]
    if warm_start is not None:
        check_warm_start(warm_start, allow_bool=False)
        candidates += warm_start_trees(problem, warm_start, max_depth, deadline)
    candidates.extend(extra)
    improved = [improve_tree(problem, t, lam) for t in candidates]
    return min(improved, key=lambda t: _tree_value(problem, t, lam))


# ---------------------------------------------------------------------- one solve

def _add_hint(enc: RegularizedEncoding, tree: Tree) -> None:
    model = enc.model
    model.clear_hints()
    for var, val in enc.hint_values(tree).items():
        model.add_hint(var, val)


def _result(problem: BinaryProblem, binary_tree: Tree | None, status: str, scaled: ScaledObjective,
            bound: Fraction | None, deadline: Deadline, stats: dict) -> SolveResult:
    if binary_tree is None:
        return engine_result(None, None, bound=bound, runtime=deadline, method=METHOD,
                             objective_name="regularized", stats=stats)
    tree, errors = finalize_tree(problem, binary_tree)
    value = exact_objective(errors, tree.n_leaves, problem.n_rows, scaled.lam)
    stats.update(errors=errors, leaves=tree.n_leaves,
                 train_accuracy=1.0 - errors / problem.n_rows)
    if status == OPTIMAL:
        engine = stats.get("engine_objective")
        mine = scaled.engine_value(errors, tree.n_leaves)
        if engine is not None and mine != engine:
            raise TreeCheckError(f"CP-SAT proved optimum {engine} but the finalized tree has "
                                 f"engine value {mine} (errors {errors}, leaves {tree.n_leaves})")
    tree.meta.update(method=METHOD, objective="regularized", lam=float(scaled.lam))
    return engine_result(tree, value, status=status, bound=bound, runtime=deadline, method=METHOD,
                         objective_name="regularized", stats=stats)


def _trivial_bound(problem: BinaryProblem, lam: Fraction) -> Fraction:
    return exact_objective(problem.min_errors, 1, problem.n_rows, lam)


def _interrupted(problem: BinaryProblem, start_tree: Tree | None, scaled: ScaledObjective,
                 deadline: Deadline) -> SolveResult:
    """The time limit struck while building: the start tree (FEASIBLE) or nothing (UNKNOWN)."""
    stats = {"solver": "cp-sat", "cpsat_status": "NOT_RUN", "lam": float(scaled.lam),
             "lam_engine": f"{scaled.p}/{scaled.q}"}
    status = FEASIBLE if start_tree is not None else UNKNOWN
    return _result(problem, start_tree, status, scaled, _trivial_bound(problem, scaled.lam),
                   deadline, stats)


def _solve_encoded(enc: RegularizedEncoding, scaled: ScaledObjective, start_tree: Tree | None,
                   deadline: Deadline, time_share: float | None, num_workers: int, seed: int,
                   log: bool, reporter: ProgressReporter | None = None) -> tuple[SolveResult, Tree | None]:
    """Run CP-SAT on the encoding with its current objective; returns the result and the
    binary tree (a start tree for the next lambda)."""
    problem = enc.problem
    stats: dict[str, Any] = dict(enc.stats)
    stats.update(solver="cp-sat", lam_engine=f"{scaled.p}/{scaled.q}", num_workers=num_workers,
                 seed=seed)
    trivial = _trivial_bound(problem, scaled.lam)

    def time_left() -> float | None:
        return deadline.remaining() if time_share is None else min(time_share, deadline.remaining())

    start_up = int(enc.stats.get("constraints", 0)) * START_SECONDS_PER_CONSTRAINT
    for step in ("hint", "solve"):  # checked before the hint (seconds on millions of variables) too
        limit = time_left()
        if limit is not None and (limit <= 0.01 or limit < start_up):
            stats["cpsat_status"] = "NOT_RUN" if limit <= 0.01 else \
                f"NOT_RUN (CP-SAT needs about {start_up:.1f} s to load the model; {limit:.1f} s left)"
            status = FEASIBLE if start_tree is not None else UNKNOWN
            return _result(problem, start_tree, status, scaled, trivial, deadline, stats), start_tree
        if step == "hint" and start_tree is not None:
            _add_hint(enc, start_tree)
            stats["hint_objective"] = float(_tree_value(problem, start_tree, scaled.lam))
            if reporter is not None:
                reporter.emit("incumbent", incumbent=stats["hint_objective"], message="hint")
    if limit is not None:
        limit = max(0.01, limit - start_up)  # CP-SAT ends its presolve past its own limit

    solver = cp_model.CpSolver()
    prm = solver.parameters
    prm.num_workers = num_workers
    prm.random_seed = int(seed)
    prm.log_search_progress = bool(log)
    if limit is not None:
        prm.max_time_in_seconds = float(limit)
    # an interrupt (satdt.deadline.interrupt: SIGTERM, or SIGINT when OR-tools' own handler is
    # not installed) stops the search as its time limit would
    stop = Deadline(None).watch(getattr(solver, "stop_search", None) or solver.StopSearch)
    if reporter is not None and reporter.active:
        watch = _Incumbents(enc, scaled, reporter)
        solver.best_bound_callback = watch.on_bound
        with reporter.periodic(watch.poll), stop:
            code = solver.solve(enc.model, watch)
    else:
        with stop:
            code = solver.solve(enc.model)
    name = solver.status_name(code)
    stats.update(cpsat_status=name, wall_time=solver.wall_time, conflicts=solver.num_conflicts,
                 branches=solver.num_branches)
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        stats["engine_objective"] = int(round(solver.objective_value))
        stats["engine_bound"] = float(solver.best_objective_bound)
        tree = enc.decode(lambda v: solver.boolean_value(v))
        if code == cp_model.OPTIMAL:
            return _result(problem, tree, OPTIMAL, scaled, None, deadline, stats), tree
        bound = max(trivial, scaled.lower_bound(solver.best_objective_bound, enc.max_leaves,
                                                problem.min_errors))
        if start_tree is not None and _tree_value(problem, start_tree, scaled.lam) < _tree_value(
                problem, tree, scaled.lam):
            tree = start_tree
        return _result(problem, tree, FEASIBLE, scaled, bound, deadline, stats), tree
    if code in (cp_model.INFEASIBLE, cp_model.MODEL_INVALID):
        raise TreeCheckError(f"CP-SAT says {name} for the regularized model; a single leaf is "
                             "always a solution (bug in the encoding)")
    status = FEASIBLE if start_tree is not None else UNKNOWN
    return _result(problem, start_tree, status, scaled, trivial, deadline, stats), start_tree


def solve_regularized(problem: BinaryProblem, *, lam: float, max_depth: int,
                      time_limit: float | Deadline | None = None, num_workers: int | None = None,
                      seed: int = 0, warm_start: WarmStart = "cart", osdt_bounds: bool = True,
                      log: bool = False, progress: ProgressCallback | None = None,
                      hint: WarmStart = _UNSET) -> SolveResult:
    """Minimize ``errors / n + lam * leaves`` over trees of depth <= ``max_depth``.

    Parameters
    ----------
    problem : BinaryProblem
    lam : float
        Penalty per leaf, ``>= 0`` (read as the exact rational value of the float).
    max_depth : int
        ``>= 0``; any tree shape up to this depth.
    time_limit : float or Deadline, optional
        Wall-clock seconds for the whole call (building included).
    num_workers : int, optional
        CP-SAT workers; defaults to and is capped at :func:`n_cores`.
    seed : int
        CP-SAT ``random_seed``.
    warm_start : None, "cart", "dpdt" or Tree
        Start tree, given to CP-SAT as its solution hint: CART of depth ``max_depth``, the best
        tree of DPDT's front (``"dpdt"``), or any tree over the original features (an
        estimator's ``tree_``, a DPDT tree), mapped to the binary columns by routing
        (:func:`~satdt.warmstart.tree_on_columns`); improved by :func:`improve_tree` and
        compared with the single leaf first.
    osdt_bounds : bool
        Add OSDT's necessary conditions (leaf accuracy, leaf count, distinct sibling labels).
    log : bool
        CP-SAT search log on stdout.
    progress : callable or None
        Receives :class:`~satdt.progress.ProgressEvent` objects (exact objective values).
    hint
        Deprecated name of ``warm_start`` (a ``DeprecationWarning``).

    Returns
    -------
    SolveResult
        ``objective_name="regularized"``; OPTIMAL only when CP-SAT proves it; FEASIBLE with a
        lower ``bound`` on the time limit; UNKNOWN without a tree.

    Raises
    ------
    MemoryLimitError
        When the model's estimated size exceeds :func:`~satdt.deadline.max_memory`.
    """
    warm_start = _warm_start_arg(warm_start, hint)
    _check(lam, max_depth, time_limit, num_workers)
    deadline = Deadline.of(time_limit)
    reporter = ProgressReporter("cpsat", progress)
    lam_f = Fraction(lam)
    reporter.emit("start", bound=float(_trivial_bound(problem, lam_f)), message=f"lam {lam}, depth <= {max_depth}")
    _check_size(problem, max_depth)
    start_tree = _start_tree(problem, warm_start, lam_f, max_depth, deadline=deadline) \
        if warm_start is not None else None
    try:
        enc = _build_within(problem, max_depth, deadline)
    except DeadlineExpired as exc:  # BuildInterrupted included
        result = _interrupted(problem, start_tree, scaled_objective(lam_f, problem.n_rows, max_depth), deadline)
        if str(exc).startswith("NOT_RUN"):
            result.stats["cpsat_status"] = str(exc)
        reporter.emit("done", incumbent=result.objective, bound=result.bound, message=result.status)
        return result
    if osdt_bounds:
        add_osdt_bounds(enc, lam_f)
    scaled = set_objective(enc, lam_f)
    enc.stats["build_time"] = deadline.elapsed()
    result, _ = _solve_encoded(enc, scaled, start_tree, deadline, None, _workers(num_workers),
                               seed, log, reporter)
    result.stats["lam"] = lam
    reporter.emit("done", incumbent=result.objective, bound=result.bound, message=result.status)
    return result


# ---------------------------------------------------------------------- path

class PathResults(list):
    """Results of :func:`solve_regularization_path`, one per lambda in the order given."""

    def __init__(self, lams: Sequence[float], results: Sequence[SolveResult]):
        super().__init__(results)
        self.lams = list(lams)

    def distinct_trees(self) -> list[tuple[list[float], SolveResult]]:
        """The distinct OPTIMAL trees along the path with the lambdas that gave each."""
        return distinct_optimal_trees(self.lams, self)


def distinct_optimal_trees(lams: Sequence[float], results: Sequence[SolveResult]
                           ) -> list[tuple[list[float], SolveResult]]:
    """Group OPTIMAL results by tree (same structure, same labels): ``[(lams, result), ...]``
    ordered by increasing lambda."""
    groups: dict[str, tuple[list[float], SolveResult]] = {}
    for lam, res in sorted(zip(lams, results), key=lambda p: p[0]):
        if res.status != OPTIMAL or res.tree is None:
            continue
        key = repr(_structure(res.tree.root))
        if key in groups:
            groups[key][0].append(lam)
        else:
            groups[key] = ([lam], res)
    return list(groups.values())


def _structure(node: Node) -> tuple:
    if node.is_leaf:
        return ("leaf", node.label)
    return (node.feature, node.threshold, str(node.category), _structure(node.left),
            _structure(node.right))


def solve_regularization_path(problem: BinaryProblem, *, lams: Sequence[float], max_depth: int,
                              time_limit: float | Deadline | None = None, num_workers: int | None = None,
                              seed: int = 0, warm_start: WarmStart = "cart", osdt_bounds: bool = True,
                              log: bool = False, progress: ProgressCallback | None = None,
                              hint: WarmStart = _UNSET) -> PathResults:
    """Solve the regularized objective for each lambda of ``lams`` on one CP-SAT model.

    The model is built once. Lambdas are solved in increasing order; per lambda only the
    objective is replaced and constraints valid for all larger lambdas are added: the OSDT
    bounds of that lambda and, after an OPTIMAL result with ``e`` errors and ``L`` leaves,
    ``leaves <= L`` and ``errors >= e`` (for ``lam2 > lam1`` every optimum at ``lam2`` has no
    more leaves and no fewer errors than any optimum at ``lam1``). The previous lambda's tree
    is a start tree (with ``warm_start``'s tree, improved; the best is used; ``hint`` is the
    deprecated name of ``warm_start``). ``time_limit`` covers the
    whole call; each lambda gets an equal share of the time left. ``progress`` gets one
    start and one done event per lambda (each with its own incumbents and bounds).

    Returns
    -------
    PathResults
        A list of :class:`SolveResult` in the order of ``lams``;
        ``.distinct_trees()`` gives the distinct optimal trees.
    """
    warm_start = _warm_start_arg(warm_start, hint)
    lams = list(lams)
    if not lams:
        raise ValueError("lams must hold at least one lambda")
    for lam in lams:
        _check(lam, max_depth, time_limit, num_workers)
    deadline = Deadline.of(time_limit)
    order = sorted(set(Fraction(x) for x in lams))
    workers = _workers(num_workers)
    _check_size(problem, max_depth)
    base_tree = _start_tree(problem, warm_start, order[0], max_depth, deadline=deadline) \
        if warm_start is not None else None
    try:
        enc = _build_within(problem, max_depth, deadline)
    except DeadlineExpired:  # BuildInterrupted included
        res = {lam: _interrupted(problem, None if base_tree is None else improve_tree(
            problem, base_tree, lam), scaled_objective(lam, problem.n_rows, max_depth), deadline)
            for lam in order}
        return PathResults(lams, [res[Fraction(x)] for x in lams])
    prev_tree: Tree | None = None
    solved: dict[Fraction, SolveResult] = {}
    for idx, lam in enumerate(order):
        if osdt_bounds:
            add_osdt_bounds(enc, lam)
        scaled = set_objective(enc, lam)
        extra = [t for t in (base_tree, prev_tree) if t is not None]
        start_tree = _start_tree(problem, None, lam, max_depth, extra) if extra else None
        left = deadline.remaining()
        share = None if left is None else left / (len(order) - idx)
        reporter = ProgressReporter("cpsat", progress)
        reporter.emit("start", bound=float(_trivial_bound(problem, lam)), message=f"lam {float(lam):g}")
        res, prev_tree = _solve_encoded(enc, scaled, start_tree, deadline, share, workers, seed, log, reporter)
        reporter.emit("done", incumbent=res.objective, bound=res.bound, message=res.status)
        res.stats["lam"] = float(lam)
        res.runtime = deadline.elapsed()
        solved[lam] = res
        if res.status == OPTIMAL:
            errors, leaves = res.stats["errors"], res.stats["leaves"]
            enc.model.add(enc.leaves_expr() <= leaves)
            enc.model.add(enc.errors_expr() >= errors)
    return PathResults(lams, [solved[Fraction(x)] for x in lams])
