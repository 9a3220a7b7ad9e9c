"""The most accurate tree of depth <= d with weighted MaxSAT (PySAT's RC2 [12, 13]).

References are numbered as in ``satdt/REFERENCES.md``.

The formula is :class:`~satdt.encodings.maxsat.MaxSatEncoding`: Avellaneda's depth-d clauses [6] as
hard clauses, one soft clause per (distinct row, class) weighted by its count. RC2 is
core-guided: its cost only rises (a proven lower bound) until its single model, which is
optimal. Status OPTIMAL therefore only comes from RC2's model.

Time limit: RC2's oracle (glucose and the rest of the MiniSat family) is interrupted at the
deadline by :meth:`Deadline.watch <satdt.deadline.Deadline.watch>`
(``RC2.compute(expect_interrupt=True)`` + ``RC2.interrupt()``); then the CART tree of depth d
(warm start, an upper bound) is returned as FEASIBLE with RC2's cost so far as bound. The
formula's size is estimated first (:func:`estimate_formula`, :func:`estimate_formula_bytes`, within
~20 % above the measured peaks): above
:func:`~satdt.deadline.max_memory` it is refused (:class:`~satdt.deadline.MemoryLimitError`),
and when it cannot be loaded in the time left it is not built (the warm start, FEASIBLE); clause
blocks are loaded in slices, each block released once loaded, checking the deadline between
slices (a whole block's Python list made the peak 3x the formula: fault at depth 3 was killed
out of memory at 24 GB).

Progress (``progress=``): start, the warm start as incumbent, each rise of RC2's cost as a
bound (checked at each oracle call), ticks every ~2 s, done.

RC2 finishes processing the last core after an interrupt, and its core heuristics (exhaustion,
minimization) call the oracle with no time limit of their own (core exhaustion with no conflict
budget at all). :class:`_DeadlineMixin` makes those calls interruptible and skips them after
the deadline, always in the conservative direction (a skipped or interrupted call counts as
"satisfiable": the core is not exhausted further, not minimized further), so RC2's cost stays a
proven lower bound and a time limit is kept within a fraction of a second.

That override relies on RC2 internals (``RC2._call_oracle`` and the methods that call it), not on
PySAT's public API; :func:`check_rc2_hook` verifies them when this module is imported and raises
an ``ImportError`` naming the tested ``python-sat`` version if a PySAT release changes them.
"""

from __future__ import annotations

import time

import numpy as np
from pysat.examples.rc2 import RC2, RC2Stratified
from pysat.formula import WCNF

from ..binarize import BinaryProblem
from ..deadline import Deadline, check_memory, format_bytes
from ..limits import MAXSAT_SECONDS_PER_LITERAL, maxsat_literals
from ..progress import ProgressCallback, ProgressReporter
from ..result import FEASIBLE, OPTIMAL, UNKNOWN, SolveResult, engine_result
from ..tree import Tree
from ..encodings.maxsat import MaxSatEncoding
from ..warmstart import best_start_tree, single_leaf
from .common import TreeCheckError, finalize_tree
from .sat import INTERRUPTIBLE, _PYSAT_NAME, add_blocks, bulk_adder

__all__ = ["solve_max_accuracy", "MAXSAT_SOLVERS", "estimate_formula", "estimate_formula_bytes"]

#: peak bytes of loading the formula (:func:`estimate_formula_bytes`), measured on fault (quantile
#: 20 / 100 thresholds, depth 3: 1.5e7 / 6.8e7 literals, peaks 0.45 / 1.49 GB above the data):
#: the numpy clause blocks (int64, a literal each) ...
BYTES_PER_LITERAL = 8
#: ... the oracle's copy (glucose: literals, clause header, two watches; 50-54 measured) ...
BYTES_PER_CLAUSE = 56
#: ... and the Python list of the slice being handed over (a pointer and an int object a literal)
BYTES_PER_LISTED_LITERAL = 40
#: the resident size of the same build varies between runs (page sizes, the allocator, the
#: oracle's vector growth): 600, 742, 947 and 1,036 MB measured for one formula (4,000 rows, 60
#: quantile thresholds, depth 3) in fresh processes (947 on a fresh CI install against an estimate
#: of 914 MB at a margin of 1.25; 1,036 on another, stop 41, against 1,024 MB at 1.4); the estimate
#: is the sum above times this (1,097 MB there: within 2x of the least peak seen)
MEMORY_MARGIN = 1.5
#: literals handed to the oracle per slice of a clause block
CHUNK_LITERALS = 1 << 22
#: seconds per literal to build the blocks and load them into the oracle (in :mod:`satdt.limits`,
#: which plans from the shape before a binarization)
SECONDS_PER_LITERAL = MAXSAT_SECONDS_PER_LITERAL

#: RC2 oracles (interruptible, so time limits hold)
MAXSAT_SOLVERS = INTERRUPTIBLE


#: the python-sat release whose RC2 internals :class:`_DeadlineMixin` was written against (the pin
#: of pyproject.toml)
PYSAT_TESTED = "1.9.dev17"

#: RC2 methods that must reach the oracle through ``self._call_oracle`` for the override to work
_HOOK_CALLERS = ("compute_", "minimize_core", "exhaust_core")


def check_rc2_hook(*classes) -> None:
    """Check that RC2 still has the private hook the MaxSAT deadline overrides.

    :class:`_DeadlineMixin` overrides ``RC2._call_oracle(assumptions=..., expect_interrupt=...)``
    and counts on RC2's main loop and core heuristics calling it, on ``RC2.interrupt`` and on
    ``compute(expect_interrupt=...)``. Raises ``ImportError`` naming the tested python-sat
    version when any of that is missing (default: PySAT's ``RC2`` and ``RC2Stratified``).
    """
    import inspect

    import pysat

    classes = classes or (RC2, RC2Stratified)
    found = getattr(pysat, "__version__", "unknown")
    for cls in classes:
        problems = []
        hook = getattr(cls, "_call_oracle", None)
        if not callable(hook):
            problems.append("no method _call_oracle")
        else:
            try:
                params = inspect.signature(hook).parameters
            except (TypeError, ValueError):
                params = {}
            missing = [p for p in ("assumptions", "expect_interrupt") if p not in params]
            if missing:
                problems.append(f"_call_oracle has no parameter {', '.join(missing)}")
        for name in _HOOK_CALLERS:
            method = getattr(cls, name, None)
            code = getattr(method, "__code__", None)
            if code is None or "_call_oracle" not in code.co_names:
                problems.append(f"{name} does not call _call_oracle")
        if not callable(getattr(cls, "interrupt", None)):
            problems.append("no method interrupt")
        compute = getattr(cls, "compute", None)
        try:
            has_flag = compute is not None and "expect_interrupt" in inspect.signature(compute).parameters
        except (TypeError, ValueError):
            has_flag = False
        if not has_flag:
            problems.append("compute has no parameter expect_interrupt")
        if problems:
            raise ImportError(
                f"satdt.solvers.maxsat needs python-sat=={PYSAT_TESTED} (found {found}): the MaxSAT "
                f"time limit overrides a private hook of {cls.__module__}.{cls.__qualname__} that this "
                f"version changed ({'; '.join(problems)}). Install python-sat=={PYSAT_TESTED}.")


check_rc2_hook()


def _validate(max_depth, solver: str) -> None:
    if not isinstance(max_depth, (int, np.integer)) or isinstance(max_depth, bool) or max_depth < 0:
        raise ValueError(f"max_depth must be a non-negative integer, got {max_depth!r}")
    if solver not in MAXSAT_SOLVERS:
        raise ValueError(f"unknown MaxSAT oracle {solver!r}; choose one of {', '.join(MAXSAT_SOLVERS)}")


class _DeadlineMixin:
    """RC2 whose heuristic oracle calls honour a :class:`Deadline` (see the module doc) and
    report each rise of the cost (a proven lower bound) to a progress reporter."""

    deadline: Deadline | None = None
    reporter: ProgressReporter | None = None
    _reported_cost: int = -1

    def _call_oracle(self, assumptions=[], expect_interrupt=False):  # noqa: B006 (RC2's signature)
        if self.reporter is not None and self.cost > self._reported_cost:
            self._reported_cost = self.cost
            self.reporter.emit("bound", bound=max(self.cost, self.reporter.bound or 0))
        if expect_interrupt or self.deadline is None:
            return super()._call_oracle(assumptions=assumptions, expect_interrupt=expect_interrupt)
        # a heuristic call (core exhaustion / minimization): "satisfiable" is the safe answer
        if self.deadline.expired():
            return True
        result = self.oracle.solve_limited(assumptions=assumptions, expect_interrupt=True)
        return True if result is None else result


class _RC2(_DeadlineMixin, RC2):
    pass


class _RC2Stratified(_DeadlineMixin, RC2Stratified):
    pass


def estimate_formula(problem: BinaryProblem, max_depth: int) -> tuple[int, int]:
    """(hard clauses, literals) of :class:`MaxSatEncoding` from the shapes: the feature clauses
    of each level (distinct rows x nodes of the level x columns, width level + 2) dominate;
    then the prediction clauses ((row, class) pairs x leaves x class bits, width depth + 2)."""
    return maxsat_literals(problem.n_distinct, problem.n_binary, problem.n_classes,
                           int(np.count_nonzero(problem.counts)), max_depth)


def estimate_formula_bytes(problem: BinaryProblem, max_depth: int) -> int:
    """Peak bytes of building and loading :class:`MaxSatEncoding` (see the constants): every
    clause block at once, the oracle's clauses, one slice's Python list (the largest block's,
    when smaller than a slice), with :data:`MEMORY_MARGIN` for the run-to-run spread."""
    clauses, literals = estimate_formula(problem, max_depth)
    m, B = problem.n_distinct, problem.n_binary
    n_bits = max(1, int(np.ceil(np.log2(max(problem.n_classes, 2)))))
    pairs = int(np.count_nonzero(problem.counts))
    largest = max([m * 2 ** level * B * (level + 2) for level in range(max_depth)]
                  + [pairs * 2 ** max_depth * n_bits * (max_depth + 2)])
    return int(MEMORY_MARGIN * (literals * BYTES_PER_LITERAL + clauses * BYTES_PER_CLAUSE
                                + min(largest, CHUNK_LITERALS) * BYTES_PER_LISTED_LITERAL))


def _load_hard(add, ptr, hard: list, deadline: Deadline) -> int:
    """Add the hard clause blocks to the oracle in slices of at most :data:`CHUNK_LITERALS`
    literals (a slice's Python list costs ~40 bytes a literal: a whole block's would be the
    peak), each block released once added, checking the deadline between slices (stops adding
    when it passes). Returns the clauses added."""
    n_hard = 0
    hard.reverse()
    while hard:
        block = hard.pop()
        if isinstance(block, np.ndarray) and block.ndim == 2 and block.size:
            step = max(1, CHUNK_LITERALS // block.shape[1])
            for lo in range(0, block.shape[0], step):
                if deadline.expired():
                    return n_hard
                n_hard += add_blocks(add, ptr, [block[lo:lo + step]])
        else:
            if deadline.expired():
                return n_hard
            n_hard += add_blocks(add, ptr, [block])
        del block
    return n_hard


def _run_rc2(encoding: MaxSatEncoding, solver: str, stratified: bool, deadline: Deadline,
             stats: dict, hint: list[int] | None = None,
             reporter: ProgressReporter | None = None) -> tuple[list[int] | None, int]:
    """RC2 on the encoding; returns (model or None on timeout, cost = optimum or lower bound).
    ``hint``: literals the oracle tries first as phases (the start tree's assignment)."""
    t0 = time.perf_counter()
    hard = encoding.hard_clauses()
    lits, weights = encoding.soft_clauses()
    formula = WCNF()  # soft clauses only: the hard ones go straight into RC2's oracle, in bulk
    formula.extend([[lit] for lit in lits.tolist()], weights=weights.tolist())
    formula.nv = int(encoding.pool.top)
    cls = _RC2Stratified if stratified else _RC2
    rc2 = cls(formula, solver=_PYSAT_NAME.get(solver, solver), adapt=True, exhaust=True, minz=True)
    rc2.deadline = deadline
    if reporter is not None and reporter.active:
        rc2.reporter = reporter
    add, ptr = bulk_adder(rc2.oracle, solver)
    n_hard = _load_hard(add, ptr, hard, deadline)
    if hint:
        rc2.oracle.set_phases(hint)
    stats.update(variables=int(encoding.pool.top), clauses=n_hard, soft=int(lits.size),
                 phases=len(hint or ()))
    stats["build_time_s"] = round(time.perf_counter() - t0, 4)
    remaining = deadline.remaining()
    t1 = time.perf_counter()
    ticks = reporter.periodic(lambda: {"bound": max(rc2.cost, reporter.bound or 0)}) \
        if reporter is not None and reporter.active else None
    try:
        if remaining is not None and remaining <= 0:
            model = None
        else:  # interruptible without a limit too: satdt.deadline.interrupt (a signal) stops it
            with deadline.watch(rc2.interrupt):
                if ticks is None:
                    model = rc2.compute(expect_interrupt=True)
                else:
                    with ticks:
                        model = rc2.compute(expect_interrupt=True)
        return model, int(rc2.cost)
    finally:
        stats["maxsat_time_s"] = round(time.perf_counter() - t1, 4)
        rc2.delete()


def solve_max_accuracy(problem: BinaryProblem, *, max_depth: int, time_limit: float | Deadline | None = None,
                       solver: str = "glucose4", stratified: bool = True, at_most_one: str = "none",
                       warm_start: bool = True, phases: bool = False,
                       progress: ProgressCallback | None = None) -> SolveResult:
    """Fewest training errors of a tree of depth <= ``max_depth`` (weighted MaxSAT, RC2).

    Parameters
    ----------
    problem : BinaryProblem
        Any data (conflicting rows are fine: they cost their minority counts).
    max_depth : int
    time_limit : float or Deadline, optional
        Wall-clock seconds for the whole call.
    solver : str
        RC2's SAT oracle, one of :data:`MAXSAT_SOLVERS`.
    stratified : bool
        :class:`RC2Stratified` (weight levels) instead of plain :class:`RC2`.
    at_most_one : str
        At-most-one encoding of the feature selection (:mod:`satdt.encodings.sat_depth`).
    warm_start : bool, "cart", "dpdt" or Tree
        Incumbent of depth ``max_depth`` (True / ``"cart"``: CART; ``"dpdt"``: the most accurate
        tree of DPDT's front; or a tree over the original features, mapped by routing): returned
        as FEASIBLE on timeout, OPTIMAL at once when it meets the leaf-conflict floor.
    phases : bool
        Also give the start tree to RC2's SAT oracle as phases (``set_phases``: the oracle tries
        that tree's assignment first).
    progress : callable or None
        Receives :class:`~satdt.progress.ProgressEvent` objects (errors).

    Returns
    -------
    SolveResult
        objective_name ``"errors"`` (re-evaluated on the original rows); OPTIMAL when RC2
        finishes; FEASIBLE (CART tree, bound = RC2's cost so far) or UNKNOWN on timeout, or
        when the formula cannot be loaded in the time left.

    Raises
    ------
    MemoryLimitError
        When the formula's estimated size exceeds :func:`~satdt.deadline.max_memory`.
    """
    _validate(max_depth, solver)
    deadline = Deadline.of(time_limit)
    reporter = ProgressReporter("maxsat", progress)
    stats: dict = {"backend": f"rc2{'-stratified' if stratified else ''}+{solver}",
                   "distinct_rows": int(problem.n_distinct), "binary_features": int(problem.n_binary)}
    method = "maxsat"
    floor = problem.min_errors  # no tree beats it
    reporter.emit("start", bound=floor, message=f"depth <= {max_depth}")

    def result(tree: Tree | None, status: str, bound: float | None) -> SolveResult:
        final, errors = finalize_tree(problem, tree) if tree is not None else (None, None)
        out = engine_result(final, errors, status=status, bound=bound, runtime=deadline, method=method,
                            objective_name="errors", stats=stats)
        reporter.emit("done", incumbent=out.objective, bound=out.bound, message=out.status)
        return out

    if max_depth == 0 or problem.n_binary == 0:
        return result(single_leaf(problem), OPTIMAL, None)
    clauses, literals = estimate_formula(problem, max_depth)
    stats.update(estimated_clauses=clauses, estimated_literals=literals)
    nbytes = estimate_formula_bytes(problem, max_depth)
    stats["estimated_bytes"] = nbytes
    check_memory(nbytes, f"the MaxSAT formula (about {clauses:.3g} clauses, "
                 f"{literals:.3g} literals)", "use a smaller max_depth or binarization='quantile'")
    start_tree = best_start_tree(problem, warm_start, max_depth, problem.errors, deadline)
    if start_tree is not None:
        reporter.emit("incumbent", incumbent=problem.errors(start_tree), message="warm start")
    if start_tree is not None and problem.errors(start_tree) == floor:
        return result(start_tree, OPTIMAL, None)  # proven: it meets the floor no tree beats
    left = deadline.remaining()
    if left is not None and literals * SECONDS_PER_LITERAL > left:
        stats["maxsat_status"] = (f"NOT_RUN (the formula, about {literals:.3g} literals / "
                                  f"{format_bytes(nbytes)}, needs about "
                                  f"{literals * SECONDS_PER_LITERAL:.0f} s to load; {left:.1f} s left)")
        return result(start_tree, FEASIBLE, floor) if start_tree is not None else result(None, UNKNOWN, floor)
    encoding = MaxSatEncoding(problem.X, problem.counts, max_depth, at_most_one=at_most_one)
    hint = encoding.phase_literals(start_tree) if phases and start_tree is not None else None
    model, cost = _run_rc2(encoding, solver, stratified, deadline, stats, hint, reporter)
    if model is None:
        bound = max(cost, floor)
        return result(start_tree, FEASIBLE, bound) if start_tree is not None else result(None, UNKNOWN, bound)
    feature, leaf_class = encoding.decode(model)
    tree = encoding.to_tree(feature, leaf_class, problem.classes)
    errors = problem.errors(tree)
    if errors != cost:
        raise TreeCheckError(f"maxsat: decoded tree has {errors} errors, RC2 reported cost {cost}")
    return result(tree, OPTIMAL, None)
