"""What one call of the SAT search carries across depths and bounds, and the way out.

:class:`SearchState` holds the options, the rows in the encoding, the counters of the ``stats``
and the progress reporter; :func:`make_result` turns a tree over the binary columns into the
:class:`~satdt.result.SolveResult` (original features, pruned, re-evaluated: a consistent tree
or an error). :class:`Answer` is the vocabulary of one SAT question at a fixed bound (SAT /
UNSAT / out of time); what a whole search proves is a :class:`~satdt.result.Status`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from ...binarize import BinaryProblem
from ...deadline import Deadline
from ...encodings.sat_depth import DepthEncoding
from ...progress import ProgressCallback, ProgressReporter
from ...result import SolveResult, Status, engine_result
from ...tree import Node, Tree
from ..common import TreeCheckError, finalize_tree
from . import tuning
from .backend import SatBackend, check_solver_name

__all__ = ["Answer", "SearchState", "validate", "new_state", "open_backend", "make_result", "leaf_tree",
           "DEFAULT_ROWS_PER_ROUND", "DEFAULT_AT_MOST_ONE",
           "DEFAULT_USELESS", "ROW_PICKS", "DEFAULT_ROW_PICK", "DEFAULT_REPAIR"]

DEFAULT_ROWS_PER_ROUND = 10
DEFAULT_AT_MOST_ONE = "none"
DEFAULT_USELESS = False
ROW_PICKS = ("random", "leaf")
DEFAULT_ROW_PICK = "random"
DEFAULT_REPAIR = True


class Answer(str, Enum):
    """The answer to one SAT question at a fixed depth (and bound on the splits), over the rows
    the encoding needs: a model that classifies every row, UNSAT, or the time ran out first.

    A ``str`` (``Answer.SAT == "sat"``): the steps of ``stats["size_steps"]`` serialize as before.
    """

    SAT = "sat"
    UNSAT = "unsat"
    TIMEOUT = "timeout"

    def __str__(self) -> str:
        return self.value

    __format__ = str.__format__


@dataclass
class SearchState:
    """What one call carries across depths and bounds."""

    problem: BinaryProblem
    labels: np.ndarray
    deadline: Deadline
    solver: str
    rows_per_round: int
    at_most_one: str
    incremental: bool
    rng: np.random.Generator
    phases: bool = False
    row_pick: str = "random"
    used: np.ndarray = None  # bool mask of distinct rows in the encoding
    rounds: int = 0
    sat_calls: int = 0
    build_time: float = 0.0
    solve_time: float = 0.0
    depth_times: dict = field(default_factory=dict)
    size_steps: list = field(default_factory=list)  # (bound on splits, Answer, s)
    repair: bool = True
    repairs: list = field(default_factory=list)  # (rows in the encoding, repaired?, s) per attempt
    core_rows: int = 0  # rows added from the unrepairable regions of failed repairs
    conflicts: int = 0  # conflicts of the main incremental loop's SAT calls
    depth_start_conflicts: int = 0  # state.conflicts when the current depth started
    seed_models: list = field(default_factory=list)  # (depth, wrong rows, feature, leaf_class): a depth's best models

    repair_outcomes: dict = field(default_factory=dict)  # "repaired" / "stuck" / "out of budget" -> count
    call_log: list = field(default_factory=list)  # (depth, rows, conflicts, s) per main SAT call
    last: dict = field(default_factory=dict)  # variables/clauses of the last encoding
    report: ProgressReporter = None  # progress events (a no-op without a callback)
    objective: str = "depth"  # units of the reported incumbent and bound: "depth" or "nodes"
    closed_conflicts: int = 0  # conflicts of the solvers already closed
    trying: str = ""  # what is being tried (the message of progress ticks)

    def keep_model(self, depth: int, n_wrong: int, feature: np.ndarray, leaf_class: np.ndarray) -> None:
        """Keep the :data:`~satdt.solvers.sat.tuning.SEED_MODELS` models of ``depth`` that
        misclassify the fewest rows."""
        models = [m for m in self.seed_models if m[0] == depth]
        if len(models) >= tuning.SEED_MODELS and n_wrong >= models[-1][1]:
            return
        if any(m[1] == n_wrong and np.array_equal(m[2], feature) for m in models):
            return
        models.append((depth, int(n_wrong), feature, leaf_class))
        models.sort(key=lambda m: m[1])
        self.seed_models = models[:tuning.SEED_MODELS]

    def improve(self, incumbent: float | None = None, bound: float | None = None, message: str | None = None) -> None:
        """Report a better incumbent (smaller) or a higher proven bound; others are dropped."""
        rep = self.report
        if rep is None or not rep.active:
            return
        message = self.trying if message is None else message
        if incumbent is not None and (rep.incumbent is None or incumbent < rep.incumbent):
            rep.emit("incumbent", incumbent=incumbent, message=message)
        if bound is not None and (rep.bound is None or bound > rep.bound):
            rep.emit("bound", bound=bound, message=message)

    def tick(self, backend: "SatBackend | None" = None) -> None:
        """A throttled progress tick with the conflicts so far."""
        if self.report is None or not self.report.active:
            return
        conflicts = self.closed_conflicts + (backend.conflicts() if backend is not None else 0)
        self.report.tick(conflicts=conflicts, message=self.trying)

    def close(self, backend: "SatBackend") -> None:
        """Close a solver, keeping its conflicts for the progress counts."""
        if self.report is not None and self.report.active:
            self.closed_conflicts += backend.conflicts()
        backend.close()

    def initial_rows(self) -> np.ndarray:
        """One distinct row per class (all rows when not incremental)."""
        if not self.incremental:
            return np.arange(self.problem.n_distinct)
        _, first = np.unique(self.labels, return_index=True)
        return first

    def stats(self, backend: str | None = None) -> dict:
        return {"rows_used": int(self.used.sum()), "distinct_rows": int(self.problem.n_distinct),
                "binary_features": int(self.problem.n_binary), "rounds": self.rounds,
                "sat_calls": self.sat_calls, "backend": self.solver, "incremental": self.incremental,
                "rows_per_round": self.rows_per_round, "at_most_one": self.at_most_one,
                "build_time_s": round(self.build_time, 4), "sat_time_s": round(self.solve_time, 4),
                "depth_times_s": {k: round(v, 4) for k, v in self.depth_times.items()},
                "size_steps": list(self.size_steps), "repair": self.repair,
                "repairs": len(self.repairs), "repaired": sum(ok for _, ok, _ in self.repairs),
                "repair_time_s": round(sum(t for _, _, t in self.repairs), 4), "core_rows": self.core_rows,
                "repair_outcomes": dict(self.repair_outcomes),
                "conflicts": self.conflicts, "call_log": self.call_log,
                **self.last}


def validate(problem: BinaryProblem, max_depth: int | None, solver: str, rows_per_round: int,
             row_pick: str = "random") -> None:
    """Check the options shared by DT_depth and DT_size (ValueError naming the wrong one)."""
    check_solver_name(solver)
    if row_pick not in ROW_PICKS:
        raise ValueError(f"unknown row_pick {row_pick!r}; choose one of {', '.join(ROW_PICKS)}")
    if max_depth is not None and (not isinstance(max_depth, (int, np.integer)) or max_depth < 0):
        raise ValueError(f"max_depth must be a non-negative integer or None, got {max_depth!r}")
    if not isinstance(rows_per_round, (int, np.integer)) or rows_per_round < 1:
        raise ValueError(f"rows_per_round must be a positive integer, got {rows_per_round!r}")


def new_state(problem, time_limit, solver, rows_per_round, at_most_one, incremental, seed,
              phases: bool = False, row_pick: str = "random", progress: ProgressCallback | None = None,
              objective: str = "depth") -> SearchState:
    """The state of one call: its deadline (started now), its progress reporter (``"start"``
    emitted), no row used yet."""
    deadline = Deadline.of(time_limit)
    report = ProgressReporter("sat", progress, tuning.PROGRESS_INTERVAL)
    problem.check_consistent()
    labels = problem.majority
    state = SearchState(problem=problem, labels=labels, deadline=deadline, solver=solver,
                        rows_per_round=int(rows_per_round), at_most_one=at_most_one, incremental=incremental,
                        rng=np.random.default_rng(seed), phases=phases, row_pick=row_pick,
                        used=np.zeros(problem.n_distinct, dtype=bool), report=report, objective=objective)
    if report.active:
        report.emit("start", message=f"{'DT_depth' if objective == 'depth' else 'DT_size'}, "
                                     f"{problem.n_distinct} distinct rows, {problem.n_binary} binary columns")
    return state


def open_backend(state: SearchState, encoding: DepthEncoding) -> SatBackend:
    """A fresh solver holding the encoding's structure and the rows used so far."""
    if not state.used.any():
        state.used[state.initial_rows()] = True
    backend = SatBackend(state.solver, time_limited=state.deadline.remaining() is not None)
    t0 = time.perf_counter()
    # past the deadline the load stops; the first solve then answers None (out of time)
    if backend.add(encoding.structure_clauses(), state.deadline):
        backend.add(encoding.row_clauses(np.flatnonzero(state.used)), state.deadline)
    state.build_time += time.perf_counter() - t0
    return backend


def make_result(state: SearchState, binary_tree: Tree | None, status: Status, objective_name: str,
                bound: float | None, method: str) -> SolveResult:
    """Finalize (original features, pruned, re-evaluated) and wrap a tree."""
    tree = objective = None
    if binary_tree is not None:
        tree, errors = finalize_tree(state.problem, binary_tree)
        if errors != 0:
            raise TreeCheckError(f"{method}: the returned tree misclassifies {errors} training rows")
        objective = tree.depth() if objective_name == "depth" else tree.n_nodes
    result = engine_result(tree, objective, status=status, bound=bound, runtime=state.deadline, method=method,
                           objective_name=objective_name, stats=state.stats())
    state.improve(result.objective, result.bound)
    if state.report.active:
        state.report.emit("done", conflicts=state.closed_conflicts, message=status)
    return result


def leaf_tree(state: SearchState) -> Tree:
    """The one-leaf tree of a problem with one class."""
    return Tree(root=Node.leaf(int(state.labels[0])), classes=state.problem.classes)
