"""The most accurate tree, and the regularized optimum, of depth <= d by the DP search.

:func:`solve_max_accuracy_dp` (fewest errors) and :func:`solve_regularized_dp` (OSDT/GOSDT's
``errors / n + lam * leaves`` [4, 5], any tree shape up to the depth) are one driver
(:func:`_drive`) parameterised by its cost (:class:`ErrorsCost`, :class:`RegularizedCost`: the
integer cost ``q * errors + leaf_cost * leaves`` and how it reads as the objective), over one
search (:func:`new_search`: the compiled :class:`~satdt.solvers.dp.search.CoreSearch`, or the
numpy reference for tests); the algorithm is described in :mod:`satdt.solvers.dp`. Every tree returned is mapped to the original features,
pruned and re-evaluated on the original rows.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Callable

import numpy as np

from ...binarize import BinaryProblem
from ...deadline import Deadline
from ...objectives import exact_objective, scaled_objective
from ...progress import ProgressCallback, ProgressReporter
from ...heuristics.greedy import CART_GRACE
from ...result import OPTIMAL, SolveResult, engine_result, work_wanted
from ...tree import Tree
from ..common import TreeCheckError, finalize_tree
from .anytime import anytime_search
from .chains import Chains
from .search import CORE_PAIR_OPS, CoreSearch, SearchBase, SearchOutcome, SearchTimeout, resolve_n_jobs

#: seconds left below which :class:`_SklearnCart` does not import scikit-learn (its import holds
#: the GIL for up to ~2 s on this machine: the search's answer at the limit would wait for it)
CART_IMPORT_SECONDS = 5.0

__all__ = ["solve_dp", "solve_max_accuracy_dp", "solve_regularized_dp", "new_search", "DEFAULT_PAIR_OPS",
           "ENGINES"]

# the numpy reference's pair solver runs on depth-2 nodes up to this many estimated operations
# (measured on the datasets of benchmarks/bench_dp.py); the compiled search uses CORE_PAIR_OPS
DEFAULT_PAIR_OPS = 3e8
_SMALL_MATRIX = 20_000_000  # cells of problem.X up to which it may be copied as float64
ENGINES = ("core", "reference")
#: an OPTIMAL result of a solve inside :func:`satdt.result.keeping_work` keeps its compiled search (its memo: the
#: certificate's producer reuses its depth-<=3 optima, :meth:`SolveResult.keep_work`) when the memo's entries x distinct rows x 4 bytes, a bound on its row lists, are
#: at most this (compas (GOSDT) depth 4: 6,124 entries x 2,308 rows: 57 MB, ~22 MB measured)
KEEP_MEMO_BYTES = 1 << 26


def new_search(problem: BinaryProblem, deadline: Deadline, pair_ops: float | None, engine: str = "core",
               q: int = 1, leaf_cost: int = 0, chains: Chains | None = None, n_jobs: int | None = 1) -> SearchBase:
    """The search of ``problem`` for the cost ``q * errors + leaf_cost * leaves``: ``engine="core"``
    (compiled, the default; ``n_jobs`` threads, :class:`CoreSearch`) or ``"reference"`` (numpy,
    for tests; one thread)."""
    if engine == "core":
        ops = CORE_PAIR_OPS if pair_ops is None else float(pair_ops)
        return CoreSearch(problem, deadline, ops, q=q, leaf_cost=leaf_cost, chains=chains, n_jobs=n_jobs)
    if engine == "reference":
        from .reference import ReferenceSearch
        ops = DEFAULT_PAIR_OPS if pair_ops is None else float(pair_ops)
        return ReferenceSearch(problem, deadline, ops, q=q, leaf_cost=leaf_cost, chains=chains)
    raise ValueError(f"engine must be one of {', '.join(map(repr, ENGINES))}, got {engine!r}")


def engine_name(search: SearchBase) -> str:
    return "dp-core" if isinstance(search, CoreSearch) else "dp-reference"


def _finalize(problem: BinaryProblem, binary_tree: Tree,
              binary_errors: Callable[[Tree], float]) -> tuple[Tree, int]:
    """:func:`finalize_tree`; with the errors over the binary columns counted through the chains
    (``binary_errors``) when ``problem.X`` is not built (problems made from the features' codes)
    or large (no float64 copy of it)."""
    from_chains = not problem.has_matrix or problem.n_distinct * problem.n_binary > _SMALL_MATRIX
    return finalize_tree(problem, binary_tree, binary_errors=binary_errors if from_chains else None)


def _incumbent(search: SearchBase, problem: BinaryProblem, S: np.ndarray, d: int) -> tuple[Tree, str]:
    """The search's first incumbent and its source: CART's Gini-greedy tree over the binary
    columns (pruned against the leaf cost), even when the time ran out before it (the compiled
    greedy gets :data:`~satdt.heuristics.greedy.CART_GRACE` seconds past the deadline, within the
    tolerance of a limit); the leaf at depth 0, without columns, or when even that runs out."""
    if d > 0 and problem.n_binary > 0:
        grace = {"grace": CART_GRACE} if isinstance(search, CoreSearch) else {}
        try:
            return Tree(root=search.greedy(S, d, **grace)[1], classes=problem.classes), "greedy"
        except SearchTimeout:
            pass
    return Tree(root=search.leaf(S), classes=problem.classes), "leaf"


#: the share of the time left that :func:`_answer_reserve` keeps at most
ANSWER_RESERVE_SHARE = 0.25


def _answer_reserve(problem: BinaryProblem, tree: Tree, search: SearchBase) -> float:
    """Seconds, under a time limit, between the end of the anytime search and the deadline, for
    the lanes to stop and the answer to be finalized on the original rows and printed: 0.1 s plus
    four times the time that finalizing ``tree`` (the first incumbent, of the same depth) takes
    now, so that the rows' number and the machine's load are in it (10^6 rows at depth 4: that
    finalization 0.2 s, the last one 0.6 s beside the other threads' ends, the printing 0.3 s;
    200,000 rows: ~0.05 s); at most :data:`ANSWER_RESERVE_SHARE` of the time left. 0 without a
    limit."""
    left = search.deadline.remaining()
    if left is None:
        return 0.0
    start = time.perf_counter()
    _finalize(problem, tree, search.binary_errors)
    return min(ANSWER_RESERVE_SHARE * left, 0.1 + 4.0 * (time.perf_counter() - start))


class _SklearnCart:
    """scikit-learn's CART tree of depth ``d`` (``random_state=0``, on the original features)
    mapped onto the binary columns by routing, fitted in a daemon thread beside the search under
    a time limit and taken at the end when it has fewer errors: the compiled greedy breaks ties
    between equal-Gini tests its own way, so its tree (and on a short limit the schedule's) may
    have a few errors more than the CART tree users compare with. :meth:`start` is called once the
    complete search's first slice has not proven the optimum (cells proven in it never import
    scikit-learn: ~0.5-2 s of CPU and ~60 MB). The search does not wait for it, but scikit-learn's
    import holds the GIL for long stretches (its compiled modules' loading): it starts only with
    :data:`CART_IMPORT_SECONDS` left, so that the import cannot delay the answer at the limit
    (with scikit-learn already imported, the fit alone, at any time left). Not on data with
    missing values (their rows' routing is the search's choice)."""

    def __init__(self, problem: BinaryProblem, d: int, deadline: Deadline):
        self._problem, self._d, self._deadline = problem, d, deadline
        self._out: list[Tree] = []
        self._started = False

    def start(self) -> None:
        """Fit in a daemon thread (once; nothing when the data does not allow it)."""
        import sys
        import threading

        if self._started:
            return
        self._started = True
        problem, d = self._problem, self._d
        left = self._deadline.remaining()
        if "sklearn.tree" not in sys.modules and (left is None or left < CART_IMPORT_SECONDS):
            return
        X = None if problem.data is None else problem.data.X
        if d < 1 or problem.n_binary == 0 or X is None or (X.dtype.kind == "f" and np.isnan(X).any()):
            return

        def fit() -> None:
            from ...warmstart import cart_binary_tree

            try:
                tree = cart_binary_tree(problem, d, original=True)
            except Exception:  # noqa: BLE001 - a comparator's failure must not sink the search
                return
            if tree is not None:
                self._out.append(tree)

        threading.Thread(target=fit, name="satdt-sklearn-cart", daemon=True).start()

    def tree(self) -> Tree | None:
        """The mapped tree if the fit has finished, else None (never waits)."""
        return self._out[0] if self._out else None


def _validate(problem: BinaryProblem, max_depth: int, upper_bound: int | None, pair_ops: float) -> None:
    if not isinstance(problem, BinaryProblem):
        raise ValueError(f"problem must be a BinaryProblem, got {type(problem).__name__}")
    if isinstance(max_depth, bool) or not isinstance(max_depth, (int, np.integer)) or max_depth < 0:
        raise ValueError(f"max_depth must be a non-negative integer, got {max_depth!r}")
    if upper_bound is not None and (isinstance(upper_bound, bool) or not isinstance(upper_bound, (int, np.integer))
                                    or upper_bound < 0):
        raise ValueError(f"upper_bound must be a non-negative integer or None, got {upper_bound!r}")
    if pair_ops is not None and not pair_ops >= 0:
        raise ValueError(f"pair_ops must be non-negative, got {pair_ops!r}")


def solve_max_accuracy_dp(problem: BinaryProblem, *, max_depth: int, time_limit: float | Deadline | None = None,
                          upper_bound: int | None = None, pair_ops: float | None = None,
                          optimize_above_bound: bool = True, _search: SearchBase | None = None, engine: str = "core",
                          _binary_out: list | None = None, progress: ProgressCallback | None = None,
                          n_jobs: int | None = None) -> SolveResult:
    """Most accurate tree of depth <= ``max_depth`` over the binary columns, by DP / branch and bound.

    Parameters
    ----------
    problem : BinaryProblem
    max_depth : int
        Non-negative; 0 gives the majority leaf.
    time_limit : float, Deadline or None
        Wall-clock seconds for the whole call; on expiry the best tree so far is returned as
        FEASIBLE with the best proven bound.
    upper_bound : int or None
        Errors of a tree known to exist (e.g. a tree being certified): the search only looks
        for trees with at most that many errors (faster); if it was wrong (no such tree), the
        search is repeated without it.
    pair_ops : float or None
        Depth-two nodes whose pair-count solver costs at most this many estimated operations use
        it; larger ones use the root search (0: never the pair solver; None: the engine's default,
        ``CORE_PAIR_OPS`` or ``DEFAULT_PAIR_OPS``).
    engine : {"core", "reference"}
        The compiled search (default) or its numpy reference (for tests).
    n_jobs : int or None
        Threads of the compiled search (scikit-learn's convention: None or -1 all the cores this
        process may use, 1 the serial search). The optimum is the same for every value, the tree
        the same on every run with one value; the threads evaluate the top node's roots in parallel
        (depth 3-5; at depth >= 6 those of the nodes of depth 4) and share the big depth-two kernels (a scan's chains, a pair solve's rows).
    optimize_above_bound : bool
        When no tree has at most ``upper_bound`` errors: search again for the optimum (True), or
        stop with that proof (False: FEASIBLE, the best tree at hand, ``bound = upper_bound + 1``;
        a yes/no question such as DT_depth's "is there a tree with 0 errors?").
    progress : callable or None
        Receives :class:`~satdt.progress.ProgressEvent` objects (errors as the incumbent).

    Returns
    -------
    SolveResult
        ``method="dp"``, ``objective_name="errors"``, ``objective`` = training errors of the
        returned tree re-evaluated on the original rows, ``bound`` = proven lower bound (equal to
        ``objective`` when OPTIMAL). ``stats``: search nodes, roots evaluated, pair solves, memo
        entries, incumbent source.
    """
    _validate(problem, max_depth, upper_bound, pair_ops)
    resolve_n_jobs(n_jobs)
    cost = ErrorsCost()
    if _search is None:
        search = new_search(problem, Deadline.of(time_limit), pair_ops, engine, n_jobs=n_jobs)
    else:  # a search of the same problem and costs: its memo (row subset, depth) stays valid
        search = _search
    return _drive(problem, search, int(max_depth), cost, upper_bound=upper_bound,
                  optimize_above_bound=optimize_above_bound, progress=progress, binary_out=_binary_out)


class ErrorsCost:
    """The cost of the most accurate tree: ``errors`` (``q = 1``, no leaf cost); the objective is
    the training errors, an integer, and so is its bound."""

    objective_name = "errors"
    q, leaf_cost = 1, 0

    def to_objective(self, cost: float) -> float:
        return float(cost)

    def describe(self, d: int) -> str:
        return f"depth {d}"

    def value(self, errors: int, leaves: int) -> int:
        return errors

    def answer(self, problem: BinaryProblem, d: int, errors: int, leaves: int, proven: bool,
               bound: float) -> tuple[int, int | None, dict]:
        """(objective, its proven bound from the search's ``bound``, extra stats) of the
        finalized tree (errors); no bound is needed for a proven optimum."""
        return errors, None if proven else int(np.ceil(bound - 1e-9)), {}

    def proven_stats(self, status: str, value: int) -> dict:
        return {}

    def tag(self, tree: Tree) -> None:
        pass


class RegularizedCost:
    """OSDT/GOSDT's ``errors / n + lam * leaves`` as the integer cost ``q * errors + p * n *
    leaves`` (:func:`~satdt.objectives.scaled_objective`: ``p / q`` orders every pair (errors,
    leaves) of trees of depth <= ``max_depth`` as ``lam`` does, ties included)."""

    objective_name = "regularized"

    def __init__(self, lam: float, n: int, d: int):
        self.lam, self.n = lam, n
        self.scaled = scaled_objective(Fraction(lam), n, d)
        self.q, self.leaf_cost = self.scaled.q, self.scaled.p * n
        if self.q * n + self.leaf_cost * 2 ** d >= 2 ** 53:
            raise ValueError(f"lam={lam!r} needs integers above 2**53 on {n} rows at depth {d}")

    def to_objective(self, cost: float) -> float:  # q * errors + p * n * leaves -> errors / n + lam * leaves
        return cost / (self.q * self.n)

    def describe(self, d: int) -> str:
        return f"depth {d}, lam {float(self.lam):g}"

    def value(self, errors: int, leaves: int) -> int:
        return self.scaled.engine_value(errors, leaves)

    def answer(self, problem: BinaryProblem, d: int, errors: int, leaves: int, proven: bool,
               bound: float) -> tuple[Fraction, Fraction | None, dict]:
        value = exact_objective(errors, leaves, self.n, self.scaled.lam)
        # the smallest exact objective of any pair whose engine value reaches the search's bound
        exact_bound = None if proven else self.scaled.lower_bound(bound, 2 ** d, int(problem.min_errors))
        stats = dict(errors=errors, leaves=leaves, train_accuracy=1.0 - errors / self.n, lam=self.lam,
                     lam_engine=f"{self.scaled.p}/{self.scaled.q}", engine_bound=float(bound))
        return value, exact_bound, stats

    def proven_stats(self, status: str, value: int) -> dict:
        return {"engine_objective": int(value)} if status == OPTIMAL else {}

    def tag(self, tree: Tree) -> None:
        tree.meta.update(method="dp", objective="regularized", lam=float(self.scaled.lam))


def _drive(problem: BinaryProblem, search: SearchBase, d: int, cost: ErrorsCost | RegularizedCost, *,
           upper_bound: int | None = None, optimize_above_bound: bool = True, start_tree: Tree | None = None,
           progress: ProgressCallback | None = None, binary_out: list | None = None) -> SolveResult:
    """The one DP driver: the incumbent (CART's greedy tree, or ``start_tree`` when cheaper), then
    the anytime schedule (or, with ``upper_bound``, the searches below that bound), the tree
    finalized on the original rows and checked against the search's cost, the result for
    ``cost``'s objective."""
    deadline = search.deadline
    S = np.arange(problem.n_distinct, dtype=np.int64)
    floor = search.q * float(problem.min_errors) + search.lc
    reporter = ProgressReporter("dp", progress)
    reporter.emit("start", bound=cost.to_objective(floor), message=cost.describe(d))

    # incumbent: CART's Gini-greedy tree of that depth over the binary columns, from the column
    # counts (no scikit-learn: its import alone costs more than most searches), pruned bottom-up
    # against the leaf cost
    inc_tree, source = _incumbent(search, problem, S, d)
    inc_cost = search.binary_cost(inc_tree)
    if start_tree is not None and start_tree.depth() <= d:  # a given tree over the binary columns
        given = search.binary_cost(start_tree)
        if given < inc_cost:
            inc_tree, inc_cost, source = start_tree, given, "given"
    # under a time limit: scikit-learn's CART tree, fitted beside the search once its first slice
    # has not proven the optimum (anytime_search's hook), taken at the end if better
    cart = _SklearnCart(problem, d, deadline) if upper_bound is None and deadline.remaining() is not None else None
    reporter.emit("incumbent", incumbent=cost.to_objective(inc_cost), message=source)
    bound = floor
    proven = False
    anytime_stats = None
    ub = inc_cost if upper_bound is None else min(inc_cost, float(upper_bound) + 1.0)
    for attempt in range(0 if upper_bound is None else 2):
        out = _run_reported(search, reporter, d, ub, cost.to_objective)
        if out.node is not None and out.cost < inc_cost:
            inc_tree = Tree(root=out.node, classes=problem.classes)
            inc_cost, source = float(out.cost), "dp"
        if not out.finished:
            if out.bound is not None:
                bound = max(bound, min(out.bound, inc_cost))
            break
        if out.node is not None or ub >= inc_cost:
            proven, bound = True, inc_cost
            break
        if not optimize_above_bound:  # proven: no tree with fewer than ub errors
            bound = max(bound, ub)
            break
        ub = inc_cost  # the given upper bound was not achievable: search again without it
    if upper_bound is None:  # the anytime schedule (anytime.py): the complete search and heuristics
        # under a limit it ends early enough for the answer to be finalized within the limit
        search.deadline = deadline.sooner(_answer_reserve(problem, inc_tree, search))
        try:
            found = anytime_search(search, d, inc_tree.root, inc_cost, source, reporter, cost.to_objective,
                                   unproven=None if cart is None else cart.start)
        finally:
            search.deadline = deadline
        inc_tree, inc_cost, source, proven = Tree(root=found.node, classes=problem.classes), found.cost, \
            found.source, found.proven
        if found.bound is not None:
            bound = max(bound, found.bound)
        anytime_stats = found.stats
    if cart is not None and not proven and (cart_tree := cart.tree()) is not None \
            and (cart_cost := search.binary_cost(cart_tree)) < inc_cost:
        inc_tree, inc_cost, source = cart_tree, cart_cost, "cart"
    tree, errors = _finalize(problem, inc_tree, search.binary_errors)
    leaves = tree.n_leaves
    value = cost.value(errors, leaves)
    # finalizing never adds errors and only removes leaves: the cost falls by leaf costs at most,
    # and not at all for a proven optimum, nor without leaf costs for the search's own trees
    # (majority leaves; a given start tree may have others)
    if value > inc_cost or ((proven or (cost.leaf_cost == 0 and start_tree is None)) and value != inc_cost):
        raise TreeCheckError(f"dp tree has {errors} errors and {leaves} leaves (cost {value}) on the original "
                             f"rows, search said {inc_cost:g}")
    if binary_out is not None:  # the tree over the binary columns, for a warm start elsewhere
        binary_out.append(inc_tree)
    proven = proven or bound >= value  # in the search's own (integer) cost
    objective, final_bound, extra = cost.answer(problem, d, errors, leaves, proven, bound)
    cost.tag(tree)
    stats = dict(search.stats, memo_entries=search.memo_entries, tree_source=source, engine=engine_name(search),
                 chains=int(search.ch.base.size), columns=search.B, distinct_rows=problem.n_distinct, **extra)
    if anytime_stats is not None:
        stats["anytime"] = anytime_stats
    result = engine_result(tree, objective, proven=proven, bound=final_bound, runtime=deadline, method="dp",
                           objective_name=cost.objective_name, stats=stats)
    stats.update(cost.proven_stats(result.status, value))
    if result.status == OPTIMAL and work_wanted() and cost.objective_name == "errors" and \
            isinstance(search, CoreSearch) and search.memo_entries * problem.n_distinct * 4 <= KEEP_MEMO_BYTES:
        result.keep_work((problem, search))  # (regularized: the engine's integer costs are not the certificate's)
    reporter.emit("done", incumbent=result.objective, bound=result.bound, nodes=int(search.stats["nodes"]),
                  message=result.status)
    return result


def _run_reported(search: SearchBase, reporter: ProgressReporter, d: int, ub: float,
                  to_objective: Callable[[float], float] = float) -> SearchOutcome:
    """:meth:`SearchBase.run` reporting to ``reporter`` (a search shared by several calls keeps
    the reporter of the call it runs for)."""
    search.reporter, search.to_objective = reporter, to_objective
    try:
        return search.run(d, ub)
    finally:
        search.reporter, search.to_objective = None, float


def _validate_lam(lam: float) -> None:
    try:
        ok = not isinstance(lam, bool) and lam >= 0 and math.isfinite(lam)
    except TypeError:
        ok = False
    if not ok:
        raise ValueError(f"lam must be a finite number >= 0, got {lam!r}")


def solve_regularized_dp(problem: BinaryProblem, *, lam: float, max_depth: int,
                         time_limit: float | Deadline | None = None,
                         pair_ops: float | None = None, start_tree: Tree | None = None,
                         engine: str = "core", progress: ProgressCallback | None = None,
                         n_jobs: int | None = None) -> SolveResult:
    """Minimize ``errors / n + lam * leaves`` over trees of depth <= ``max_depth`` (any shape),
    by the same DP / branch and bound as :func:`solve_max_accuracy_dp`.

    The objective is made integral exactly as in the CP-SAT model
    (:func:`~satdt.objectives.scaled_objective`): ``lam`` is read as the exact
    rational of the float and replaced by ``p / q`` that orders every pair (errors, leaves) of
    trees of depth <= ``max_depth`` as ``lam`` does, ties included; the search minimizes
    ``q * errors + p * n * leaves``. In the DP a leaf costs ``q * errors + p * n`` and a split
    the sum of its children. The bounds of the module doc carry over with the leaf cost:

    * a subtree costs at least ``q * (leaf-conflict errors) + p * n`` (one leaf), a split at
      least ``q * conflicts + 2 p n``, so a node whose leaf is no worse is a leaf (a split must
      save more than ``p * n``);
    * similarity bound: ``opt(A') >= opt(A) - q * w(A \\ A')`` (the leaves do not change);
    * OSDT leaf support (Theorem 3.5): split columns with a side whose best class has fewer
      than ``p * n / q`` rows are never used (:meth:`SearchBase.useful`);
    * the depth-two pair solver charges ``p * n`` per leaf of each side.

    Parameters
    ----------
    problem : BinaryProblem
    lam : float
        Penalty per leaf, ``>= 0`` (``0``: the most accurate tree, as
        :func:`solve_max_accuracy_dp`; above ``0.5`` the single leaf is optimal).
    max_depth : int
        Non-negative.
    time_limit : float, Deadline or None
        Wall-clock seconds for the whole call; on expiry the best tree so far is returned as
        FEASIBLE with a proven lower bound.
    pair_ops, engine, n_jobs
        As in :func:`solve_max_accuracy_dp`.
    start_tree : Tree or None
        A tree over the binary columns to start from (the incumbent when it beats the greedy
        tree), e.g. the consistent tree of DT_size's depth search.
    progress : callable or None
        Receives :class:`~satdt.progress.ProgressEvent` objects (the objective
        ``errors / n + lam * leaves`` as the incumbent).

    Returns
    -------
    SolveResult
        ``method="dp"``, ``objective_name="regularized"``, ``objective`` = ``errors / n +
        lam * leaves`` of the finalized tree (re-evaluated on the original rows; exact fraction
        rounded to float once), ``bound`` (equal when OPTIMAL). ``stats``: ``errors``,
        ``leaves``, ``train_accuracy``, ``lam``, ``lam_engine`` (``"p/q"``),
        ``engine_objective`` (OPTIMAL), search counters.
    """
    _validate(problem, max_depth, None, pair_ops)
    _validate_lam(lam)
    resolve_n_jobs(n_jobs)
    cost = RegularizedCost(lam, int(problem.n_rows), int(max_depth))
    search = new_search(problem, Deadline.of(time_limit), pair_ops, engine, q=cost.q, leaf_cost=cost.leaf_cost,
                        n_jobs=n_jobs)
    return _drive(problem, search, int(max_depth), cost, start_tree=start_tree, progress=progress)


def solve_dp(problem: BinaryProblem, *, max_depth: int, lam: float | None = None,
             time_limit: float | Deadline | None = None, progress: ProgressCallback | None = None,
             n_jobs: int | None = None) -> SolveResult:
    """The DP method of the estimator and the CLI: :func:`solve_max_accuracy_dp` when ``lam`` is
    None, else :func:`solve_regularized_dp` with that ``lam``.

    A guard at the entry: ``max_depth`` is capped where no optimum changes
    (:func:`satdt.limits.useful_depth`, noted in ``stats["depth_cap"]``), and a ``lam`` whose
    exact integer objective would pass ``2**53`` at that depth is refused with the largest depth
    that works; a problem beyond the resource model (:func:`satdt.limits.dp_budget`) is solved on
    quantile thresholds instead, CART's tree kept when better (:func:`satdt.solvers.dp.degrade.degrade_dp`)."""
    asked = max_depth
    if isinstance(max_depth, (int, np.integer)) and not isinstance(max_depth, bool) and max_depth > 0:
        from ...limits import dp_lam_fits, dp_max_depth_for_lam, useful_depth

        try:
            lam_ok = lam is None or Fraction(lam) >= 0
        except (TypeError, ValueError):
            lam_ok = False
        if lam_ok:
            max_depth = useful_depth(problem, int(max_depth), lam)
            if lam is not None and not dp_lam_fits(lam, int(problem.n_rows), max_depth):
                top = dp_max_depth_for_lam(lam, int(problem.n_rows))
                raise ValueError(f"dp with lam={lam:g} on {problem.n_rows} rows: the exact integer objective "
                                 f"stays below 2**53 up to depth {top} only; give a max depth <= {top}")
    if isinstance(max_depth, (int, np.integer)) and max_depth >= 2:
        from .degrade import degrade_dp

        degraded = degrade_dp(problem, int(max_depth), lam, time_limit, progress, solve_dp)
        if degraded is not None:  # beyond the resource model: quantile thresholds, CART kept
            return degraded
    if lam is None:
        result = solve_max_accuracy_dp(problem, max_depth=max_depth, time_limit=time_limit, progress=progress,
                                       n_jobs=n_jobs)
    else:
        result = solve_regularized_dp(problem, lam=lam, max_depth=max_depth, time_limit=time_limit,
                                      progress=progress, n_jobs=n_jobs)
    if max_depth != asked:
        result.stats["depth_cap"] = {"asked": int(asked), "used": int(max_depth),
                                     "why": "no optimal tree is deeper (satdt.limits.useful_depth)"}
    return result
