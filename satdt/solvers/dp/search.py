"""The search interface shared by the compiled branch and bound and its numpy reference.

:class:`SearchBase` holds what both need (chains, integer costs ``q * errors + leaf_cost *
leaves``, leaves and splits over the binary columns, the Gini-greedy incumbent, tree costs);
:class:`CoreSearch` runs the compiled search of ``core/`` (``_core``, the engine); the numpy
:class:`~satdt.solvers.dp.reference.ReferenceSearch` runs the same algorithm for tests. Both
answer :meth:`SearchBase.run` with one :class:`SearchOutcome`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...binarize import BinaryProblem
from ...deadline import Deadline, DeadlineExpired
from ...progress import ProgressReporter
from ...tree import Node, Tree
from .chains import Chains, build_chains, chain_counts, chain_errors, node_errors

__all__ = ["SearchBase", "CoreSearch", "SearchOutcome", "SearchTimeout", "leaf_errors", "CORE_PAIR_OPS",
           "resolve_n_jobs"]

# pair_ops of the compiled search: negative = its own rule (the depth-two pair solver where it is
# estimated cheaper than the root search), 0 = never, else the pair solver up to that many
# estimated operations
CORE_PAIR_OPS = -1.0

try:
    from . import _core
except ImportError as exc:  # pragma: no cover - the package is built with its extension
    _core = None
    _CORE_ERROR = exc


def resolve_n_jobs(n_jobs: int | None) -> int:
    """Threads of the compiled search for ``n_jobs``, scikit-learn's convention: None or -1 all
    the cores this process may use (:func:`satdt.solvers.common.n_cores`), ``-k`` all but
    ``k - 1`` of them (at least one), a positive integer that many (1: the serial search)."""
    from ..common import n_cores

    if n_jobs is None:
        return n_cores()
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0:
        raise ValueError(f"n_jobs must be a non-zero integer or None, got {n_jobs!r}")
    if n_jobs < 0:
        return max(1, n_cores() + 1 + int(n_jobs))
    return int(n_jobs)


class SearchTimeout(DeadlineExpired):
    """Raised inside a search when the deadline passes: the DP's case of the one
    :class:`~satdt.deadline.DeadlineExpired` family, caught inside the DP (whose answer is then
    the best tree so far)."""


@dataclass
class SearchOutcome:
    """What one top-level search call proved.

    ``finished``: the search ran to its end. Then ``node`` is the optimum's tree over the binary
    columns (cost ``cost``) when the optimum is below the upper bound given, else None and
    ``bound`` is a lower bound ``>=`` that upper bound. Not finished (time limit): ``node`` /
    ``cost`` the best top-level tree found so far (or None), ``bound`` a proven lower bound
    (None when the search proved nothing); ``roots``: the whole problem's complete search only,
    its top-level roots evaluated so far (over the slices) and those still open that could beat
    the incumbent (None otherwise).
    """

    finished: bool
    cost: float | None = None
    node: Node | None = None
    bound: float | None = None
    roots: tuple[int, int] | None = None


def _n_leaves(node: Node) -> int:
    return sum(1 for x in node.walk() if x.is_leaf)


def leaf_errors(counts: np.ndarray) -> float:
    return float(counts.sum() - counts.max())


class SearchBase:
    """What both searches share: the problem's chains and costs, leaves, splits, the greedy
    incumbent, and tree costs over the binary columns. Subclasses implement :meth:`run`."""

    def __init__(self, problem: BinaryProblem, deadline: Deadline, pair_ops: float,
                 q: int = 1, leaf_cost: int = 0, chains: Chains | None = None):
        self.deadline = deadline
        self.pair_ops = pair_ops
        # cost of a tree = q * errors + leaf_cost * leaves (max accuracy: q = 1, leaf_cost = 0);
        # integers, exact in float64 below 2**53
        self.q = float(q)
        self.lc = float(leaf_cost)
        counts = problem.counts.astype(np.float64)
        self.counts = counts
        self.C = counts.shape[1]
        # extra weight column: the leaf-conflict errors of each distinct row
        self.wext = np.column_stack([counts, counts.sum(1) - counts.max(1)])
        self.ch = build_chains(problem) if chains is None else chains
        self.B = len(self.ch.chain)
        self.allcols = np.arange(self.B)
        self.stats = {"nodes": 0, "pair_solves": 0, "roots_evaluated": 0, "memo_hits": 0}
        # live progress of :meth:`run` (set by the drivers): the reporter and the map from a
        # search cost to the objective the reporter speaks in
        self.reporter: ProgressReporter | None = None
        self.to_objective: Callable[[float], float] = float

    # ------------------------------------------------------------ helpers
    def check_time(self) -> None:
        if self.deadline.expired():
            raise SearchTimeout

    def column_counts(self, S: np.ndarray, cols: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Frequency counting: weight of each class (+ conflict errors) on the right of columns.

        Returns ``F`` (C + 1, len(cols)) int64 for the columns ``cols`` (default: all) and
        ``present`` (len(cols),): whether some row of ``S`` has exactly the column's chain rank
        (so each distinct split of a chain is kept once).
        """
        ch = self.ch
        if cols is None:
            cols = self.allcols
        return chain_counts((ch.rank[S] + ch.base).ravel(), self.wext[S], ch.n_slots,
                             ch.slot[cols], ch.end[cols])

    def useful(self, F: np.ndarray, present: np.ndarray, N: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Positions in ``cols`` (``F`` and ``present`` aligned with it) of the columns that split
        ``S`` into two non-empty sides, one per distinct split of a chain.

        With a leaf cost (regularized objective) also OSDT's *leaf support* bound (Hu et al.
        2019, Theorem 3.5): in an optimal tree every non-root leaf classifies ``k`` rows
        correctly with ``q * k >= leaf_cost`` (else replacing its parent by its sibling subtree
        loses at most ``k`` rows, saves one leaf and does not deepen the tree, a strictly better
        tree). A leaf below a split on column ``j`` gets at most ``max_c`` (class ``c`` on its
        side of ``j``) rows right, so splits with ``q * max_c F_side < leaf_cost`` on a side
        are dropped. The test is monotone in ``S``: a column dropped here is dropped on every
        subset, so children may search only the kept columns.
        """
        Fc = F[:self.C]
        ftot = Fc.sum(0)
        ok = present & (ftot < float(N.sum()) - 0.5)
        if self.lc > 0:
            ok &= (self.q * Fc.max(0) >= self.lc) & (self.q * (N[:, None] - Fc).max(0) >= self.lc)
        return np.flatnonzero(ok)

    def leaf_cost(self, N: np.ndarray) -> float:
        """Cost of one leaf with class counts ``N``: ``q * (|S| - max_c N_c) + leaf_cost``."""
        return self.q * leaf_errors(N) + self.lc

    def goes_right(self, S: np.ndarray, g: int) -> np.ndarray:
        return self.ch.rank[S, self.ch.chain[g]] >= self.ch.level[g]

    def leaf(self, S: np.ndarray) -> Node:
        return Node.leaf(int(np.argmax(self.counts[S].sum(0))))

    def split(self, g: int, left: Node, right: Node) -> Node:
        return Node.split(int(self.ch.orig[g]), 0.5, left, right)

    def stump(self, S: np.ndarray, g: int) -> Node:
        """Depth-one tree on ``S`` splitting on column ``g`` (a leaf when ``g < 0``)."""
        if g < 0:
            return self.leaf(S)
        r = self.goes_right(S, g)
        if r.all() or not r.any():
            return self.leaf(S)
        return self.split(g, self.leaf(S[~r]), self.leaf(S[r]))

    def depth1(self, F: np.ndarray, N: np.ndarray, U: np.ndarray) -> tuple[float, int]:
        """Best depth-one tree from the counts ``F`` of the columns ``U`` (aligned): (errors,
        column or -1 for a leaf). Columns constant on the rows cost the leaf, so need no filter."""
        total, leaf = float(N.sum()), self.leaf_cost(N)
        if U.size == 0:
            return leaf, -1
        Fc = F[:self.C]
        err = total - Fc.max(0) - (N[:, None] - Fc).max(0)
        k = int(np.argmin(err))
        cost = self.q * float(err[k]) + 2.0 * self.lc
        if cost < leaf:
            return cost, int(U[k])
        return leaf, -1

    def greedy(self, S: np.ndarray, d: int) -> tuple[float, Node]:
        """CART's greedy tree (Gini) of depth <= ``d`` from the column counts: an incumbent."""
        N = self.counts[S].sum(0)
        leaf = self.leaf_cost(N)
        if d == 0 or leaf_errors(N) == 0:
            return leaf, self.leaf(S)
        F, present = self.column_counts(S)
        total = float(N.sum())
        U = self.useful(F, present, N, self.allcols)
        if U.size == 0:
            return leaf, self.leaf(S)
        # in doubles: a class weight reaches 2**40 (satdt/weights.py), its square no int64; the
        # core's greedy (core/greedy.cpp, gini_square) squares the same doubles
        Fc = F[:self.C, U].astype(np.float64)
        nR = Fc.sum(0)
        score = (Fc ** 2).sum(0) / nR + ((N[:, None] - Fc) ** 2).sum(0) / (total - nR)
        g = int(U[int(np.argmax(score))])
        r = self.goes_right(S, g)
        cl, nl = self.greedy(S[~r], d - 1)
        cr, nr = self.greedy(S[r], d - 1)
        if cl + cr < leaf:
            return cl + cr, self.split(g, nl, nr)
        return leaf, self.leaf(S)

    def goes_right_binary(self, S: np.ndarray, feature: int) -> np.ndarray:
        """:meth:`goes_right` for a tree's node, whose ``feature`` is a column of ``problem.X``."""
        return self.goes_right(S, self.ch.column_of[int(feature)])

    def subtree_cost(self, node: Node, rows: np.ndarray) -> float:
        """``q * errors + leaf_cost * leaves`` of the subtree ``node`` on the distinct rows ``rows``."""
        return self.q * node_errors(self.ch, self.counts, node, rows) + self.lc * _n_leaves(node)

    def tree_cost(self, node: Node) -> float:
        """:meth:`subtree_cost` of a whole tree on all rows."""
        return self.subtree_cost(node, np.arange(self.counts.shape[0]))

    def binary_errors(self, tree: Tree) -> float:
        """Errors of a tree over the binary columns on the distinct rows, through the chains."""
        return chain_errors(self.ch, self.counts, tree)

    def binary_cost(self, tree: Tree) -> float:
        """``q * errors + leaf_cost * leaves`` of a tree over the binary columns."""
        return self.q * self.binary_errors(tree) + self.lc * tree.n_leaves

    def run(self, d: int, ub: float, *, width: int = 0, rows: np.ndarray | None = None,
            time_cap: float | None = None, roots: np.ndarray | None = None) -> SearchOutcome:  # pragma: no cover
        """Search the whole problem (or the distinct rows ``rows``) at depth ``d`` for a tree of
        cost below ``ub``, for at most ``time_cap`` seconds (and never past the deadline).
        ``width > 0``: the restricted search (:mod:`satdt.solvers.dp.anytime`); ``roots``: only
        these columns at the top node, depth >= 3 (:mod:`satdt.solvers.dp.distributed`); compiled
        core only."""
        raise NotImplementedError


class CoreSearch(SearchBase):
    """The compiled branch and bound (``_core.Search``); one memo across :meth:`run` calls.

    ``n_jobs`` (:func:`resolve_n_jobs`): threads of the core: the top node's roots in waves at
    depth 3 and in a pipeline deeper (at depth >= 6: the roots of the nodes of depth 4), the big kernels (a depth-two scan's chains per root, a pair solve's rows) below
    (see the package docstring); the same optimum for every value, and one tree for each value.
    Python is called (the deadline's ``stop``, the progress callback, signals) from the calling
    thread only.

    ``THREAD_WORK`` (class attribute): None, the core's thresholds of a kernel worth the threads;
    tests set ``(0, 0)`` so that every kernel of a small problem runs on them."""

    THREAD_WORK: tuple[float, float] | None = None
    #: the core scans the two chains of a feature with missing values (satdt/missing.py) as one
    #: where a node allows it (``_core.Search.set_pairing``); False for the side-by-side tests
    #: and benchmarks
    PAIRING: bool = True
    #: the missing rows' bound at depth-three nodes (core/roots.cpp, missing_bounds; bounds only)
    MISSING_BOUND: bool = True
    #: ``(bits, pair)``: the counts forced on every node (``_core.Search.set_count_paths``; -1 the
    #: core's estimate). The root search's: 0 scattered adds, 1 bitsets by bit-planes, 2 bitsets
    #: by row sums where the CPU has them (AVX-512 BW, else AVX2; the weights' totals below 2^32),
    #: 3 row sums by AVX2 even with AVX-512. The pair solver's: 0 bit-planes, 1 byte tables or,
    #: where the CPU has them, row sums, 2 row sums by AVX2 even with AVX-512. None: the estimate
    #: everywhere. The same counts on every path: for the tests and benchmarks
    COUNT_PATHS: tuple[int, int] | None = None

    def __init__(self, problem: BinaryProblem, deadline: Deadline, pair_ops: float,
                 q: int = 1, leaf_cost: int = 0, chains: Chains | None = None, n_jobs: int | None = 1):
        if _core is None:
            raise ImportError("satdt's compiled DP core is not built (reinstall with 'pip install -e .' "
                              f"and a C++ compiler): {_CORE_ERROR}")
        super().__init__(problem, deadline, pair_ops, q, leaf_cost, chains)
        self._core = self._new_core(problem.counts, n_jobs)
        self.stats["missing_pairs"] = int(self._core.missing_pairs)

    def _new_core(self, counts: np.ndarray, n_jobs: int | None):
        """The compiled search of these chains, class counts and cost, on ``n_jobs`` threads."""
        ch = self.ch
        if max(self.q, self.lc) >= 2 ** 53:  # (past the core's integers: its own check's words)
            raise ValueError("q * total weight + leaf_cost * leaves exceeds 2^53 at this depth")
        core = _core.Search(ch.rank, ch.chain.astype(np.int32), ch.level.astype(np.int32),
                            counts.astype(np.int64), int(self.q), int(self.lc), float(self.pair_ops),
                            resolve_n_jobs(n_jobs))
        if self.THREAD_WORK is not None:
            core.set_thread_work(*self.THREAD_WORK)
        if not self.PAIRING:
            core.set_pairing(False)
        if not self.MISSING_BOUND:
            core.set_missing_bound(False)
        if self.COUNT_PATHS is not None:
            core.set_count_paths(*self.COUNT_PATHS)
        return core

    @property
    def memo_entries(self) -> int:
        return int(self._core.stats()["memo_entries"])

    @property
    def threads(self) -> int:
        """Threads of the compiled search (``n_jobs`` resolved)."""
        return int(self._core.threads)

    def set_solo(self, on: bool) -> None:
        """Run on the calling thread alone (``on``) or on all the search's threads again: for the
        anytime schedule's complete lane while its heuristic lane has the other core."""
        self._core.set_solo(bool(on))

    def twin(self, deadline: Deadline, n_jobs: int = 1) -> "CoreSearch":
        """A second compiled search of the same problem and cost (same chains, same rows; a memo
        of its own) under ``deadline``, on ``n_jobs`` threads: a search that can run at the same
        time as this one, on another thread."""
        other = copy.copy(self)
        other.deadline = deadline
        other.stats = {"nodes": 0, "pair_solves": 0, "roots_evaluated": 0, "memo_hits": 0}
        other.reporter, other.to_objective = None, float
        other._core = self._new_core(self.counts, n_jobs)  # counts: whole numbers below 2**53
        return other

    def greedy(self, S: np.ndarray, d: int, grace: float = 0.0) -> tuple[float, Node]:
        """:meth:`SearchBase.greedy` on all rows by the compiled core (same choices, same tree;
        no rows x chains temporaries), on a subset by the numpy statement. ``grace``: seconds it
        may run past the deadline (the incumbent of a call whose time ran out before it)."""
        if len(S) != self.counts.shape[0]:
            return super().greedy(S, d)
        left = self.deadline.remaining()
        if left is not None:
            left = max(left, grace)
        out = self._core.greedy(int(d), 1e300 if left is None else left)
        if out is None:
            raise SearchTimeout
        return float(out[0]), self._tree(out[1])

    def _tree(self, arrays) -> Node:
        feat, left, right, label = (np.asarray(a) for a in arrays)

        def build(i: int) -> Node:
            if feat[i] < 0:
                return Node.leaf(int(label[i]))
            return self.split(int(feat[i]), build(int(left[i])), build(int(right[i])))

        return build(0)

    def _progress_callback(self) -> Callable | None:
        """What the core calls every few seconds and after each new incumbent: (elapsed, best
        cost or None, the top-level lower bound or None, nodes) -> an event of :attr:`reporter`
        (``"incumbent"``, ``"bound"`` when the bound rose, else ``"tick"``)."""
        reporter = self.reporter
        if reporter is None or not reporter.active:
            return None

        def report(elapsed: float, best: int | None, bound: int | None, nodes: int) -> None:
            value = None if best is None else self.to_objective(float(best))
            if value is not None and (reporter.incumbent is None or value < reporter.incumbent):
                reporter.emit("incumbent", incumbent=value, nodes=nodes)
            if bound is not None:
                low = self.to_objective(float(bound))
                if reporter.incumbent is not None:
                    low = min(low, reporter.incumbent)
                if reporter.bound is None or low > reporter.bound:
                    reporter.emit("bound", bound=low, nodes=nodes)
                    return
            if value is None or value >= (reporter.incumbent or 0):
                reporter.tick(nodes=nodes)

        return report

    def run(self, d: int, ub: float, *, width: int = 0, rows: np.ndarray | None = None,
            time_cap: float | None = None, roots: np.ndarray | None = None,
            stop: Callable[[], bool] | None = None, satisfice: bool = False) -> SearchOutcome:
        """See :meth:`SearchBase.run`; ``stop``: also ends the call (as a time cap does) once it
        returns True, polled with the deadline every 50 ms; ``satisfice``: any tree below ``ub``
        rather than the optimum, or the proof that none is (the DT_size witness questions of
        :mod:`satdt.proof.witness`; ``width`` 0)."""
        left = self.deadline.remaining()
        if time_cap is not None:
            left = time_cap if left is None else min(left, time_cap)
        interval = 2.0 if self.reporter is None else self.reporter.interval
        progress = self._progress_callback() if rows is None else None
        out = self._core.solve(int(d), int(min(ub, 2 ** 62)), 1e300 if left is None else max(left, 0.0),
                               progress, interval, int(width),
                               None if rows is None else np.ascontiguousarray(rows, dtype=np.int64),
                               # stops within 50 ms of satdt.deadline.interrupt (and of `stop`)
                               self.deadline.expired if stop is None else
                               (lambda: self.deadline.expired() or stop()),
                               None if roots is None else np.ascontiguousarray(roots, dtype=np.int64),
                               satisfice)
        self.stats.update(self._core.stats())
        if out["finished"]:
            node = None if out["tree"] is None else self._tree(out["tree"])
            return SearchOutcome(True, float(out["value"]) if node is not None else None, node,
                                 float(out["value"]))
        if not out["top_valid"]:
            return SearchOutcome(False)
        node = None if out["top_tree"] is None else self._tree(out["top_tree"])
        # the restricted search proves no bound (its roots are a subset of the tests)
        roots = (int(out["top_done"]), int(out["top_live"])) if out["top_done"] >= 0 else None
        return SearchOutcome(False, float(out["top_best"]) if node is not None else None, node,
                             float(out["top_bound"]) if width == 0 else None, roots)
