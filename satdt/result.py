"""The result every method returns, the one status vocabulary of engines and certificates, and the
final check of a returned tree (:func:`finalize_tree`, :class:`TreeCheckError`)."""

from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

from .tree import Tree

if TYPE_CHECKING:  # pragma: no cover - annotations only
    from .binarize import BinaryProblem
    from .deadline import Deadline

__all__ = ["Status", "OPTIMAL", "FEASIBLE", "INFEASIBLE", "UNKNOWN", "NOT_OPTIMAL", "STATUSES",
           "OBJECTIVE_NAMES", "SolveResult", "engine_result", "objective_value", "trivial_bound", "timeout_result", "TreeCheckError", "finalize_tree"]


class Status(str, Enum):
    """What an engine proved (:class:`SolveResult`) or a certificate found (:mod:`satdt.verify`).

    A ``str``: ``Status.OPTIMAL == "OPTIMAL"``, it prints and serializes to JSON as its name.
    """

    OPTIMAL = "OPTIMAL"          # proven by the engine (UNSAT of the next bound, gap 0, CP-SAT OPTIMAL)
    FEASIBLE = "FEASIBLE"        # a tree, no proof (time limit); ``bound`` holds the best bound known
    INFEASIBLE = "INFEASIBLE"    # proven: no tree within the given limits (e.g. depth) exists
    UNKNOWN = "UNKNOWN"          # no tree and no proof (time limit before any tree)
    NOT_OPTIMAL = "NOT_OPTIMAL"  # certificates only: a strictly better tree was found

    def __str__(self) -> str:
        return self.value

    __format__ = str.__format__


OPTIMAL, FEASIBLE, INFEASIBLE, UNKNOWN = Status.OPTIMAL, Status.FEASIBLE, Status.INFEASIBLE, Status.UNKNOWN
NOT_OPTIMAL = Status.NOT_OPTIMAL
STATUSES = (OPTIMAL, FEASIBLE, INFEASIBLE, UNKNOWN)  # of a SolveResult

#: ``SolveResult.objective_name`` of each objective of :func:`satdt.verify.certify` (whose
#: names say what is optimized: ``accuracy`` is minimized as training errors, ``size`` as nodes)
OBJECTIVE_NAMES = {"accuracy": "errors", "depth": "depth", "size": "nodes", "regularized": "regularized",
                   "dpdt": "dpdt"}


@dataclass
class SolveResult:
    """What a solver found.

    Attributes
    ----------
    tree : Tree or None
        In the original features; re-evaluated on the training rows.
    status : Status
        One of :data:`STATUSES` (a string given here is converted).
    objective : float or None
        The tree's value for ``objective_name`` (evaluated on the data, not read from the engine).
    bound : float or None
        Best proven bound on the optimum (equal to ``objective`` when OPTIMAL).
    runtime : float
        Wall-clock seconds of the whole call.
    method : str
    objective_name : str
        E.g. ``"depth"``, ``"nodes"``, ``"errors"``, ``"regularized"`` (the values of
        :data:`OBJECTIVE_NAMES`, plus method-specific ones such as ``"splits"``).
    stats : dict
        Engine figures: variables, clauses/constraints, rows used, iterations, solver name...
    """

    tree: Tree | None
    status: Status
    objective: float | None
    bound: float | None
    runtime: float
    method: str = ""
    objective_name: str = ""
    stats: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"unknown status {self.status!r}")
        self.status = Status(self.status)

    @property
    def proven(self) -> bool:
        return self.status in (OPTIMAL, INFEASIBLE)

    @property
    def gap(self) -> float | None:
        """``objective - bound`` (0 when OPTIMAL); None without both."""
        return None if self.objective is None or self.bound is None else self.objective - self.bound

    def keep_work(self, work: Any) -> None:
        """Keep ``work`` on this result for a later step in this process (the DP's binary problem and compiled
        search, whose memo of optima its certificate's producer reuses: :func:`satdt.proof.certify_result`,
        which takes it); not a field: never compared or printed; a deep copy or a pickle holds None (a shallow
        copy shares it)."""
        self._work = _Transient(work)

    def work(self) -> Any:
        """What :meth:`keep_work` kept (None when nothing was, it was taken, or this result is a deep copy)."""
        held = self.__dict__.get("_work")
        return None if held is None else held.value

    def take_work(self) -> Any:
        """What :meth:`keep_work` kept, taken off this result (None when nothing is kept): one caller only ever
        gets it (the compiled search is not safe to run from two threads at once)."""
        held = self.__dict__.pop("_work", None)
        return None if held is None else held.value

    def drop_work(self) -> None:
        """Let the kept work go (its memory: a fitted estimator's result keeps none)."""
        self.__dict__.pop("_work", None)

    def summary(self) -> dict[str, Any]:
        """Plain-JSON summary (no tree)."""
        out = {"method": self.method, "status": self.status, "objective_name": self.objective_name,
               "objective": self.objective, "bound": self.bound, "runtime_s": round(self.runtime, 4)}
        if self.tree is not None:
            out.update(depth=self.tree.depth(), n_nodes=self.tree.n_nodes, n_leaves=self.tree.n_leaves)
        return out


#: True inside :func:`keeping_work`: a solve's result there will be certified in this process
_KEEP_WORK = contextvars.ContextVar("satdt_keep_work", default=False)


@contextlib.contextmanager
def keeping_work():
    """Within it, an OPTIMAL DP solve of the accuracy objective keeps its compiled search on its result
    (:meth:`SolveResult.keep_work`) for :func:`satdt.proof.certify_result`, which takes it: its producer then reads
    the solve's memo of optima instead of solving those sets again. Outside it nothing is kept (a kept search
    holds its memo and its thread pool)."""
    token = _KEEP_WORK.set(True)
    try:
        yield
    finally:
        _KEEP_WORK.reset(token)


def work_wanted() -> bool:
    """Whether the caller is inside :func:`keeping_work`."""
    return _KEEP_WORK.get()


class _Transient:
    """A value a :class:`SolveResult` keeps for later in the process only: copies and pickles hold None."""

    __slots__ = ("value",)

    def __init__(self, value: Any = None):
        self.value = value

    def __reduce__(self):
        return _Transient, ()

    def __deepcopy__(self, memo: dict) -> "_Transient":
        return _Transient()


def engine_result(tree: Tree | None, objective: Any, *, method: str, objective_name: str,
                  runtime: float | Deadline, status: str | None = None, proven: bool = False,
                  bound: Any = None, stats: dict[str, Any] | None = None) -> SolveResult:
    """The one place a :class:`SolveResult` is made from an engine's outcome.

    Parameters
    ----------
    tree, objective
        The finalized tree (original features, re-evaluated) and its value for
        ``objective_name``; None when the engine has no tree.
    status
        What the engine said, when it says it: OPTIMAL (its proof), INFEASIBLE (its proof that
        no tree meets the limits), FEASIBLE or UNKNOWN.
    proven
        The engine proved ``tree`` optimal (the same as ``status=OPTIMAL``).
    bound
        The best proven lower bound on the optimum (None: none).
    runtime
        Seconds, or the call's :class:`~satdt.deadline.Deadline` (its elapsed time).

    The status and bound are derived the same way for every engine: with a tree, OPTIMAL when
    the engine proved it or its bound reaches the tree's value (then ``bound = objective``),
    else FEASIBLE with the bound capped at the tree's value (no tree beats the optimum, so a
    bound above a tree at hand is no bound); without a tree, INFEASIBLE when the engine proved
    it, else UNKNOWN. Values may be exact (``Fraction``): the comparisons are exact, the result
    holds floats.
    """
    if tree is None:
        status, objective = (INFEASIBLE if status == INFEASIBLE else UNKNOWN), None
    else:
        if status == INFEASIBLE:
            raise ValueError("an INFEASIBLE result has no tree")
        optimal = proven or status == OPTIMAL or (bound is not None and bound >= objective)
        status = OPTIMAL if optimal else FEASIBLE
        if optimal or bound is not None and bound > objective:
            bound = objective
    if not isinstance(runtime, (int, float)):
        runtime = runtime.elapsed()
    return SolveResult(tree, status, _plain(objective), _plain(bound), runtime, method, objective_name,
                       {} if stats is None else stats)


def objective_value(objective_name: str, tree: Tree, errors: float, n: float, lam: float | None = None,
                    alpha: float | None = None, X: Any = None) -> float:
    """The value of ``tree`` for a :class:`SolveResult` objective from its training ``errors`` on
    ``n`` rows: ``errors``; ``regularized``, ``errors / n + lam * leaves``; ``dpdt``,
    ``errors / n + alpha * `` the average tests per row of ``X``; ``depth``; ``nodes``."""
    if objective_name == "errors":
        return float(errors)
    if objective_name == "regularized":
        return errors / n + float(lam or 0.0) * tree.n_leaves
    if objective_name == "dpdt":
        return errors / n + float(alpha or 0.0) * tree.average_tests(X)
    if objective_name == "depth":
        return float(tree.depth())
    if objective_name == "nodes":
        return float(tree.n_nodes)
    raise ValueError(f"no value for the objective {objective_name!r}")


def trivial_bound(objective_name: str, lam: float | None = None) -> float | None:
    """The bound every tree meets without a search: no error (``errors``); no error and one leaf
    (``regularized``: ``lam``); none for the other objectives."""
    return {"errors": 0.0, "regularized": float(lam or 0.0)}.get(objective_name)


def _plain(value: Any) -> Any:
    """A Fraction as a float; ints, floats and None as they are."""
    from fractions import Fraction

    return float(value) if isinstance(value, Fraction) else value


class NoTreeFoundError(RuntimeError):
    """The solver stopped (time limit) before it found any tree (raised by the estimators' ``fit``
    and the ``satdt solve`` command; re-exported by :mod:`satdt.estimators`)."""


class InfeasibleError(NoTreeFoundError):
    """The engine proved that no tree meets the limits (status INFEASIBLE): a result, not a
    failure. ``result`` is the :class:`SolveResult` (``stats["proof"]`` says what was proven, and
    ``stats["depth_bound"]`` the proven lower bound on the depth when the depth was the limit)."""

    def __init__(self, message: str, result: SolveResult):
        super().__init__(message)
        self.result = result


def explain_infeasible(result: SolveResult, max_depth: int | None = None,
                       min_leaf: int | None = None) -> SolveResult:
    """Record in ``result.stats`` what an INFEASIBLE status proves: ``proof`` (one sentence) and,
    for a depth limit on error-free trees, ``depth_bound`` (the minimum depth is at least this)."""
    if result.status != INFEASIBLE:
        return result
    if min_leaf is not None:
        proof = (f"no tree of depth <= {max_depth} has at least {min_leaf} training rows in every "
                 "nonempty leaf")
    elif max_depth is not None and result.objective_name in ("depth", "nodes"):
        proof = (f"no tree of depth <= {max_depth} classifies every training row: the minimum depth "
                 f"is at least {max_depth + 1}")
        result.stats["depth_bound"] = max_depth + 1
        if result.objective_name == "depth" and result.bound is None:
            result.bound = max_depth + 1
    else:
        proof = "no tree meets the limits (proven by the engine)"
    result.stats["proof"] = proof
    return result


def timeout_result(data: Any, method: str, objective_name: str, runtime: float,
                   lam: float | None = None, step: str = "binarization") -> SolveResult:
    """The majority-class leaf when the time limit struck before an engine could start (during
    ``step``): FEASIBLE for the objectives any tree meets (``"errors"``, ``"regularized"`` with
    ``lam``); UNKNOWN without a tree for the objectives of consistent trees (``"depth"``,
    ``"nodes"``), which a leaf does not meet. Never an exception: a time limit is a result.
    :func:`satdt.heuristics.greedy.timeout_answer` gives CART's tree instead when it is better."""
    import numpy as np

    from .tree import Node

    stats = {"timeout_in": step, "note": f"time limit reached during {step}; no engine ran"}
    counts = np.bincount(data.y, weights=getattr(data, "weight", None), minlength=len(data.classes)).astype(np.int64)
    if objective_name not in ("errors", "regularized"):
        return engine_result(None, None, runtime=runtime, method=method, objective_name=objective_name, stats=stats)
    tree = Tree(Node.leaf(int(np.argmax(counts))), classes=data.classes,
                feature_names=list(data.feature_names))
    tree.fit_counts(data.X, data.y, getattr(data, "weight", None))
    errors = int(counts.sum() - counts.max())
    stats["errors"] = errors
    return engine_result(tree, objective_value(objective_name, tree, errors, int(counts.sum()), lam),
                         bound=trivial_bound(objective_name, lam), runtime=runtime, method=method,
                         objective_name=objective_name, stats=stats)


class TreeCheckError(AssertionError):
    """A tree failed its re-evaluation on the data: a bug in an engine, never a user error."""


def finalize_tree(problem: BinaryProblem, binary_tree: Tree, prune: bool = True,
                  binary_errors=None) -> tuple[Tree, int]:
    """Map a tree over binary columns to the original features, prune it, re-evaluate it.

    Leaves are relabelled with their majority class on the training rows (this never adds an
    error), empty-sided splits and same-class sibling leaves are removed (no change in
    predictions on the training rows). ``binary_errors`` (a callable of the binary tree) counts
    the errors over the binary columns without ``problem.X`` (the DP reads its column chains).

    Returns
    -------
    tree : Tree
        In the original features, with class counts at every node.
    errors : int
        Its training errors (weighted by ``data.weight``), counted with :meth:`Tree.errors` on
        the original rows.
    """
    bin_errors = problem.errors(binary_tree) if binary_errors is None else binary_errors(binary_tree)
    tree = problem.to_original(binary_tree, relabel=True)
    if prune:
        tree.prune()
    data = problem.data
    errors = int(tree.errors(data.X, data.y, data.weight))
    if errors > bin_errors:
        raise TreeCheckError(f"tree maps to {errors} errors on the original rows but had "
                             f"{bin_errors} on the binarized rows")
    return tree, errors
