"""The most accurate tree of depth <= d by dynamic programming and branch and bound (MurTree-style).

Public API: :func:`solve_max_accuracy_dp` (fewest errors) and :func:`solve_regularized_dp`
(OSDT/GOSDT's ``errors / n + lam * leaves``, any tree shape up to the depth), and on top of them
Avellaneda's two questions for consistent data: :func:`solve_min_depth_dp` (DT_depth) and
:func:`solve_min_size_dp` (DT_size), the DP alternative to :mod:`satdt.solvers.sat`. Both run the same
search on integer costs ``q * errors + leaf_cost * leaves``: ``q = 1, leaf_cost = 0`` for
accuracy, ``p / q`` = the exact engine lambda of
:func:`~satdt.objectives.scaled_objective` and ``leaf_cost = p * n`` for the
regularized objective (see :func:`solve_regularized_dp` for how each bound carries the leaf cost).

The search follows MurTree (Demirovic et al., JMLR 2022) over the binary columns of a
:class:`~satdt.binarize.BinaryProblem`, with the threshold-neighbourhood bounds of ConTree
(Brita et al., 2025), fully numpy-vectorized:

* **Column chains.** The ``all``/``quantile``/``tree`` binarizations give, per numeric feature,
  nested columns ``x > t_1 ⊇ x > t_2 ⊇ ...``. Each such *chain* is stored as one integer rank per
  distinct row (how many of its columns are True); a column is ``rank >= level``. Categorical
  columns (and any column set that is not nested) are chains of length one. The class counts of
  every column on any row subset ("frequency counting", MurTree §4.2) then come from one
  ``np.bincount`` over ``rows x chains`` and a suffix sum per chain: O(rows * features + columns),
  not O(rows * columns). The histograms are int64 (an integer cumsum is several times faster
  than a float one), and a root search renumbers its node's slots to the ranks that occur
  there (:class:`_LocalSlots`), so each root it tries costs O(rows * features + columns of the
  node) rather than O(... + columns of the problem).
* **Depth 1** (exact): for each column the class counts on the right (``F``) and left
  (``N - F``); errors = ``|S| - max_c F - max_c (N - F)``.
* **Depth 2, pair solver** (MurTree's specialised depth-two algorithm): per class ``c`` the pair
  counts ``P_c = (X * w_c)^T X`` by BLAS (float32, exact for totals < 2^24, else float64), from
  which every root column's best depth-one subtree on each side follows with array ops. Memory
  per chunk of ``k`` roots: ``5 * C * k * B`` floats (chunked, about 200 MB).
* **Depth >= 2, root search** (MurTree's general case): for each root column, solve the left and
  the right child at depth ``d - 1`` (recursively; depth-1 children inline from the counts),
  memoised on (row subset, depth) with MurTree's upper-bound semantics: a call with budget
  ``ub`` returns the exact optimum when it is below ``ub``, else a *lower bound* ``>= ub`` that is
  cached (MurTree §4.5).
* **Bounds used for pruning** (every one valid for the optimum of a fixed row set and depth):

  - *leaf-conflict bound*: rows identical in every column but of different classes are
    misclassified by every tree (``min_errors`` of the subset);
  - *similarity bound* (MurTree §4.6, ConTree's neighbourhood bound): for row sets ``A`` and
    ``A'`` and any depth, ``opt(A') >= opt(A) - w(A \\ A')`` (a tree's errors on ``A'`` are its
    errors on ``A`` minus at most the removed rows). After the children of a root column ``i``
    are solved (or bounded), this raises the child bounds of *every* other root column ``j`` at
    once, with ``w(L_i \\ L_j)`` etc. read off the column counts of ``L_i`` and ``R_i``;
  - *upper bound*: the best tree so far (initially the CART tree of that depth,
    :func:`~satdt.solvers.common.cart_binary_tree`); a root is skipped when the sum of its
    children's lower bounds reaches it, a right child is searched only with the budget left
    by its left child.

  Roots are taken best-first by their children's lower bounds (ties: the depth-one error of the
  split), so the search stops as soon as the smallest remaining bound reaches the incumbent.

The result is exact: OPTIMAL means every root of every searched node was solved or pruned by
one of the valid bounds above. On the time limit the best tree found is returned as FEASIBLE with
the best proven bound of the top-level search.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import numpy as np

from ..binarize import BinaryProblem
from ..objectives import exact_objective, scaled_objective
from ..result import FEASIBLE, INFEASIBLE, OPTIMAL, UNKNOWN, SolveResult
from ..tree import Node, Tree
from .boxdp import BoxLattice, box_count, box_work
from .common import Deadline, TreeCheckError, cart_binary_tree, finalize_tree

__all__ = ["solve_max_accuracy_dp", "solve_regularized_dp", "solve_min_depth_dp", "solve_min_size_dp",
           "DEFAULT_PAIR_OPS"]

# depth-2 nodes whose pair solver costs fewer estimated operations use it; larger ones use the
# root search with depth-one children (measured on the datasets of benchmarks/bench_dp.py)
DEFAULT_PAIR_OPS = 3e8
_SMALL_MATRIX = 20_000_000  # cells of problem.X up to which it may be copied as float64
_LOCAL_MARGIN = 64  # a node renumbers its slots when the problem has 1.2x (+ this) more than it uses
_CHUNK_FLOATS = 8_000_000  # floats per (C, k, B) work array in the pair solver (~32 MB float32)
# DT_depth / DT_size: algorithm="auto" takes the box DP (satdt.solvers.boxdp) up to this many boxes
# (2 bytes each per depth level, all levels kept) and cell operations per level; "boxes" is
# refused above the max
BOX_AUTO_CELLS = 40_000_000
BOX_AUTO_WORK = 1e10
BOX_MAX_CELLS = 250_000_000
ALGORITHMS = ("auto", "search", "boxes")


class _Timeout(Exception):
    """Raised inside the search when the deadline passes."""


@dataclass
class _Entry:
    """Memo of one (row subset, depth): a lower bound, and the optimum with its tree when known."""

    lb: float
    cost: float | None = None
    node: Node | None = None


@dataclass
class _Chains:
    """Columns grouped into nested chains; column ``g`` (chain order) is ``rank[:, chain[g]] >= level[g]``."""

    rank: np.ndarray        # (m, p) int32
    chain: np.ndarray       # (B,) chain of each column, chain order
    level: np.ndarray       # (B,) level >= 1
    orig: np.ndarray        # (B,) column index in problem.X
    slot: np.ndarray        # (B,) bincount slot of (chain, level)
    end: np.ndarray         # (B,) first slot after the column's chain
    base: np.ndarray        # (p,) first slot of each chain (level 0)
    n_slots: int


def _build_chains(problem: BinaryProblem) -> _Chains:
    """Group the columns of ``problem.X`` into nested chains (per numeric feature, by threshold).

    The rank of each distinct row in a chain is read from the original feature value
    (``searchsorted`` over the chain's thresholds) and then checked against ``problem.X``
    column by column (row chunks); a group that does not match exactly is split into chains of
    length one, whose rank is the column itself. So the representation is exact for any column
    set.
    """
    X = problem.X
    m, B = X.shape
    groups: dict[int, list[tuple[float, int]]] = {}
    singles: list[list[int]] = []
    tests = problem.tests if len(problem.tests) == B else [None] * B
    for j, t in enumerate(tests):
        if t is None or t.category is not None:
            singles.append([j])
        else:
            groups.setdefault(t.feature, []).append((t.threshold, j))
    first = np.full(m, -1, dtype=np.int64)
    if m and problem.row_of.size:
        first[problem.row_of[::-1]] = np.arange(problem.row_of.size)[::-1]
    chains: list[list[int]] = []
    ranks: list[np.ndarray] = []
    for f in sorted(groups):
        ts, cols = zip(*sorted(groups[f]))
        cols = list(cols)
        rank = None
        if (first >= 0).all():
            rank = np.searchsorted(np.asarray(ts), problem.data.X[first, f], side="left").astype(np.int32)
            if not _matches(X, cols, rank):
                rank = None
        if rank is not None:
            chains.append(cols)
            ranks.append(rank)
        else:
            chains.extend([j] for j in cols)
            ranks.extend(X[:, j].astype(np.int32) for j in cols)
    chains.extend(singles)
    ranks.extend(X[:, c[0]].astype(np.int32) for c in singles)
    p = len(chains)
    rank = np.column_stack(ranks).astype(np.int32) if p else np.zeros((m, 0), dtype=np.int32)
    lens = np.array([len(c) for c in chains], dtype=np.int64)
    base = np.concatenate([[0], np.cumsum(lens + 1)[:-1]]).astype(np.int64) if p else np.zeros(0, np.int64)
    chain = np.repeat(np.arange(p), lens)
    level = np.concatenate([np.arange(1, k + 1) for k in lens]) if p else np.zeros(0, np.int64)
    orig = np.concatenate([np.asarray(c) for c in chains]) if p else np.zeros(0, np.int64)
    slot = base[chain] + level
    end = base[chain] + lens[chain] + 1
    return _Chains(rank, chain.astype(np.int64), level.astype(np.int32), orig.astype(np.int64),
                   slot, end, base, int((lens + 1).sum()))


def _matches(X: np.ndarray, cols: list[int], rank: np.ndarray) -> bool:
    """True when column ``cols[k]`` of ``X`` equals ``rank > k`` on every row."""
    K = len(cols)
    c = np.asarray(cols)
    contiguous = K > 0 and (np.diff(c) == 1).all()
    levels = np.arange(K, dtype=np.int32)
    step = max(1, 4_000_000 // max(1, K))
    for s in range(0, X.shape[0], step):
        block = X[s:s + step, c[0]:c[-1] + 1] if contiguous else X[s:s + step][:, c]
        if not np.array_equal(block, rank[s:s + step, None] > levels):
            return False
    return True


def _chain_counts(flat: np.ndarray, w: np.ndarray, n_slots: int, slot: np.ndarray,
                  end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weights of a row subset on the right of columns, from chain slots (frequency counting).

    ``flat`` holds each row's slot in every chain (rows x chains, row-major), ``w`` the rows'
    weights (rows x K). Column ``g`` is "slot in ``[slot[g], end[g])``" (its level up to the
    end of its chain). Returns ``F`` (K, len(slot)) int64 and ``present`` (len(slot),): whether
    a row sits exactly at the column's slot (the first K - 1 weights summed, i.e. the classes).
    """
    W = np.repeat(w, flat.size // max(1, w.shape[0]), axis=0) if w.shape[0] else w
    # prefix sums with a leading zero; the weights are integer counts, and an int64 cumsum is
    # several times faster than a float one (measured 26 vs 200 us on 3 x 20k)
    H = np.zeros((w.shape[1], n_slots + 1), dtype=np.int64)
    for c in range(w.shape[1]):
        H[c, 1:] = np.bincount(flat, weights=W[:, c], minlength=n_slots)
    occupied = H[0, 1:] != 0     # (a per-class loop: numpy's any(axis=0) is slow on few rows)
    for c in range(1, w.shape[1] - 1):
        occupied |= H[c, 1:] != 0
    present = occupied[slot]
    np.cumsum(H, axis=1, out=H)
    F = np.take(H, end, axis=1)
    F -= np.take(H, slot, axis=1)
    return F, present


def _chain_errors(ch: _Chains, counts: np.ndarray, tree: Tree) -> float:
    """Errors of a tree over the binary columns on the distinct rows (weights ``counts``), with
    each column read from its chain rank (no copy of the binary matrix)."""
    col = {int(o): g for g, o in enumerate(ch.orig)}

    def rec(node: Node, S: np.ndarray) -> float:
        if node.is_leaf:
            return float(counts[S].sum() - counts[S, node.label].sum())
        g = col[node.feature]
        r = ch.rank[S, ch.chain[g]] >= ch.level[g]
        return rec(node.left, S[~r]) + rec(node.right, S[r])

    return rec(tree.root, np.arange(counts.shape[0]))


@dataclass
class _LocalSlots:
    """One node's rows renumbered to the chain ranks that occur among them.

    ``flat`` (|S|, chains): each row's local slot per chain; ``slot``/``end``: the local slot
    range of each column of the node; ``n_slots``: the distinct (chain, rank) pairs of ``S``.
    Counting a subset of ``S`` then costs O(rows x chains + columns of the node) instead of
    O(rows x chains + all columns of the problem).
    """

    flat: np.ndarray
    w: np.ndarray
    n_slots: int
    slot: np.ndarray
    end: np.ndarray

    def counts(self, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return _chain_counts(self.flat[pos].ravel(), self.w[pos], self.n_slots, self.slot, self.end)

    def present(self, pos: np.ndarray) -> np.ndarray:
        return (np.bincount(self.flat[pos].ravel(), minlength=self.n_slots) > 0)[self.slot]


def _leaf_errors(counts: np.ndarray) -> float:
    return float(counts.sum() - counts.max())


class _Search:
    """The memoised branch and bound over row subsets (indices of distinct rows, sorted)."""

    def __init__(self, problem: BinaryProblem, deadline: Deadline, pair_ops: float,
                 q: int = 1, leaf_cost: int = 0, chains: _Chains | None = None):
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
        self.ch = _build_chains(problem) if chains is None else chains
        self.B = len(self.ch.chain)
        self.allcols = np.arange(self.B)
        self.ftype = np.float32 if counts.sum() < 2 ** 24 else np.float64
        self.memo: dict[tuple[bytes, int], _Entry] = {}
        self.stats = {"nodes": 0, "pair_solves": 0, "roots_evaluated": 0, "memo_hits": 0}
        self.top: dict | None = None
        self._ticks = 0

    # ------------------------------------------------------------ helpers
    def check_time(self) -> None:
        if self.deadline.expired():
            raise _Timeout

    def column_counts(self, S: np.ndarray, cols: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Frequency counting: weight of each class (+ conflict errors) on the right of columns.

        Returns ``F`` (C + 1, len(cols)) int64 for the columns ``cols`` (default: all) and
        ``present`` (len(cols),): whether some row of ``S`` has exactly the column's chain rank
        (so each distinct split of a chain is kept once).
        """
        ch = self.ch
        if cols is None:
            cols = self.allcols
        return _chain_counts((ch.rank[S] + ch.base).ravel(), self.wext[S], ch.n_slots,
                             ch.slot[cols], ch.end[cols])

    def localize(self, S: np.ndarray, U: np.ndarray) -> _LocalSlots | None:
        """:class:`_LocalSlots` of ``S`` for its columns ``U`` (each present in ``S``), or None
        when the problem has few more slots than ``S`` uses (no gain)."""
        ch = self.ch
        if ch.n_slots < 1.2 * (U.size + ch.base.size) + _LOCAL_MARGIN:
            return None
        g = ch.rank[S] + ch.base
        used, inv = np.unique(g, return_inverse=True)
        # a column's slot occurs in S; its chain ends where the next chain's slots begin
        slot = np.searchsorted(used, ch.slot[U])
        end = np.searchsorted(used, ch.end[U])
        return _LocalSlots(inv.reshape(g.shape), self.wext[S], int(used.size), slot, end)

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
        return self.q * _leaf_errors(N) + self.lc

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
        if d == 0 or _leaf_errors(N) == 0:
            return leaf, self.leaf(S)
        F, present = self.column_counts(S)
        total = float(N.sum())
        U = self.useful(F, present, N, self.allcols)
        if U.size == 0:
            return leaf, self.leaf(S)
        Fc = F[:self.C, U]
        nR = Fc.sum(0)
        score = (Fc ** 2).sum(0) / nR + ((N[:, None] - Fc) ** 2).sum(0) / (total - nR)
        g = int(U[int(np.argmax(score))])
        r = self.goes_right(S, g)
        cl, nl = self.greedy(S[~r], d - 1)
        cr, nr = self.greedy(S[r], d - 1)
        if cl + cr < leaf:
            return cl + cr, self.split(g, nl, nr)
        return leaf, self.leaf(S)

    def binary_errors(self, tree: Tree) -> float:
        """Errors of a tree over the binary columns on the distinct rows, through the chains."""
        return _chain_errors(self.ch, self.counts, tree)

    def binary_cost(self, tree: Tree) -> float:
        """``q * errors + leaf_cost * leaves`` of a tree over the binary columns."""
        return self.q * self.binary_errors(tree) + self.lc * tree.n_leaves

    # ------------------------------------------------------------ main recursion
    def solve(self, S: np.ndarray, d: int, ub: float, F: np.ndarray | None = None,
              cols: np.ndarray | None = None, present: np.ndarray | None = None,
              top: bool = False) -> tuple[float, Node | None]:
        """Optimum of ``S`` at depth <= ``d`` if it is below ``ub`` (with its tree), else a lower
        bound ``>= ub`` and no tree (a tree may still be returned when the optimum is known).

        ``F`` (counts of the columns ``cols`` on ``S``) may be given by the parent; ``cols`` must
        then hold every column that splits ``S``.
        """
        self.stats["nodes"] += 1
        N = self.counts[S].sum(0)
        leaf = self.leaf_cost(N)
        # every split tree costs >= q * (leaf-conflict errors) + 2 leaves: if the leaf is no
        # worse, it is optimal; else that is a lower bound of the optimum
        lb0 = self.q * float(self.wext[S, self.C].sum()) + 2.0 * self.lc
        if d == 0 or leaf <= lb0:
            return leaf, self.leaf(S)
        key = (S.tobytes(), d)
        entry = self.memo.get(key)
        if entry is not None:
            self.stats["memo_hits"] += 1
            if entry.node is not None:
                return entry.cost, entry.node
            if entry.lb >= ub:
                return entry.lb, None
            lb0 = max(lb0, entry.lb)
        if lb0 >= ub:
            return lb0, None
        self.check_time()
        if F is None:
            F, present = self.column_counts(S)
            cols = self.allcols
        elif present is None:
            present = self._present(S, cols)
        keep = self.useful(F, present, N, cols)
        F, U = np.take(F, keep, axis=1), cols[keep]
        if d == 1 or U.size == 0:
            cost, g = self.depth1(F, N, U)
            node = self.stump(S, g)
            self._store(key, cost, cost, node)
            return cost, node
        if d == 2 and U.size ** 2 * self.C * (S.size + 40) <= self.pair_ops:
            cost, node = self.pair_depth2(S, U, F, N)
            self._store(key, cost, cost, node)
            return cost, node
        cost, node, lb = self.root_search(S, d, ub, F, N, U, leaf, lb0, top)
        self._store(key, lb, cost, node)
        if node is not None:
            return cost, node
        return lb, None

    def _present(self, S: np.ndarray, cols: np.ndarray) -> np.ndarray:
        ch = self.ch
        flat = (ch.rank[S] + ch.base).ravel()
        return (np.bincount(flat, minlength=ch.n_slots) > 0)[ch.slot[cols]]

    def _store(self, key: tuple[bytes, int], lb: float, cost: float | None, node: Node | None) -> None:
        old = self.memo.get(key)
        if old is not None and old.node is None:
            lb = max(lb, old.lb)
        self.memo[key] = _Entry(lb, cost if node is not None else None, node)

    # ------------------------------------------------------------ depth 2: pair counts
    def pair_depth2(self, S: np.ndarray, U: np.ndarray, F: np.ndarray, N: np.ndarray) -> tuple[float, Node]:
        """MurTree's specialised depth-two solver from pair counts ``P_c = (X * w_c)^T X``.

        For root ``i`` and child column ``j`` the four cells are ``RR = P[i, j]``,
        ``RL = F[i] - P[i, j]``, ``LR = F[j] - P[i, j]``, ``LL = N - F[i] - F[j] + P[i, j]``;
        the best right (left) subtree maximises ``max_c RR + max_c RL`` (``LR``, ``LL``) over
        ``j``, and ``j = i`` is the leaf. With a leaf cost the maximised value is
        ``q * gain - leaf_cost * [j != i]`` (a stump has one leaf more than a leaf), and the
        cost of the pair is ``q * |S| - value_left - value_right + 2 * leaf_cost``.
        """
        self.stats["pair_solves"] += 1
        ch, C, ft = self.ch, self.C, self.ftype
        Xs = (ch.rank[np.ix_(S, ch.chain[U])] >= ch.level[U]).astype(ft)
        W = self.counts[S].astype(ft)
        Fu = F[:C].astype(ft)                 # (C, B)
        Nf = N.astype(ft)
        tot = float(N.sum())
        B = U.size
        best = (np.inf, -1, -1, -1)
        k = max(1, int(_CHUNK_FLOATS // max(1, C * B)))
        for s in range(0, B, k):
            self.check_time()
            I = np.arange(s, min(B, s + k))
            P = np.stack([(Xs[:, I] * W[:, c:c + 1]).T @ Xs for c in range(C)])  # (C, k, B)
            Fi = Fu[:, I][:, :, None]                                            # (C, k, 1)
            right_gain = P.max(0) + (Fi - P).max(0)                              # (k, B)
            LR = Fu[:, None, :] - P
            left_gain = LR.max(0) + ((Nf[:, None, None] - Fi) - LR).max(0)
            rows = np.arange(I.size)
            if self.lc > 0 or self.q != 1:
                right_gain = self.q * right_gain.astype(np.float64) - self.lc
                left_gain = self.q * left_gain.astype(np.float64) - self.lc
                right_gain[rows, I] += self.lc      # j = i: a leaf, no extra leaf
                left_gain[rows, I] += self.lc
                base = self.q * tot + 2.0 * self.lc
            else:
                base = tot
            jr = right_gain.argmax(1)
            jl = left_gain.argmax(1)
            cost = base - right_gain[rows, jr] - left_gain[rows, jl]
            b = int(np.argmin(cost))
            if cost[b] < best[0]:
                best = (float(cost[b]), int(U[I[b]]), int(U[jl[b]]), int(U[jr[b]]))
        cost, gi, gl, gr = best
        leaf = self.leaf_cost(N)
        if not cost < leaf:
            return leaf, self.leaf(S)
        r = self.goes_right(S, gi)
        node = self.split(gi, self.stump(S[~r], gl), self.stump(S[r], gr))
        return cost, node

    # ------------------------------------------------------------ depth >= 2: root search
    def root_search(self, S: np.ndarray, d: int, ub: float, F: np.ndarray, N: np.ndarray,
                    U: np.ndarray, leaf: float, lb0: float, top: bool
                    ) -> tuple[float | None, Node | None, float]:
        """Try every root column of ``U`` best-first, pruning with the bounds of the module doc.

        Returns (cost, node, lower bound): cost and node of the optimum when it is below ``ub``
        (then the bound equals the cost), else (None, None, a lower bound >= ``ub``).
        """
        C = self.C
        total = float(N.sum())
        Fu = F                                      # (C + 1, B), right side of each root
        ftot = Fu[:C].sum(0)
        conf = float(self.wext[S, C].sum())
        q, lc = self.q, self.lc
        lbR = q * Fu[C] + lc                        # leaf-conflict bound of each side (+ a leaf)
        lbL = q * (conf - Fu[C]) + lc
        # tie-break: errors of the depth-one tree with that root
        err1 = total - Fu[:C].max(0) - (N[:, None] - Fu[:C]).max(0)
        tie = err1 / (total + 1.0)
        open_ = np.ones(U.size, dtype=bool)
        local = self.localize(S, U)
        best_cost, best_node = (leaf, None) if leaf < ub else (np.inf, None)
        bound = min(ub, leaf)
        state = {"leaf": leaf, "lbL": lbL, "lbR": lbR, "best": best_cost, "node": best_node}
        if top:
            self.top = state
        while True:
            self.check_time()
            key = np.where(open_, lbL + lbR + tie, np.inf)
            t = int(np.argmin(key))
            if not key[t] < bound:      # tie < 1, bounds are integers: lbL + lbR >= bound
                break
            open_[t] = False
            self.stats["roots_evaluated"] += 1
            g = int(U[t])
            r = self.goes_right(S, g)
            SL, SR = S[~r], S[r]
            if local is not None:
                posL = np.flatnonzero(~r)
                FL, presL = local.counts(posL)
            else:
                FL, presL = self.column_counts(SL, U)
            FR = F - FL
            nL, nR = total - ftot[t], ftot[t]
            # left child
            vL, nodeL = self.child(SL, d - 1, bound - lbR[t], FL, U, presL)
            self._similar(U, vL, FL, nL, lbL, lbR, left=True)
            if nodeL is None or vL + lbR[t] >= bound:
                continue
            presR = local.present(np.flatnonzero(r)) if local is not None and d > 2 else None
            vR, nodeR = self.child(SR, d - 1, bound - vL, FR, U, presR)
            self._similar(U, vR, FR, nR, lbR, lbL, left=False)
            if nodeR is not None and vL + vR < bound:
                best_cost, best_node = vL + vR, (g, nodeL, nodeR)
                bound = min(ub, best_cost)
                state["best"], state["node"] = best_cost, best_node
                if best_cost <= lb0:
                    break
        if best_cost < ub:
            if best_node is None:
                return leaf, self.leaf(S), leaf
            g, nodeL, nodeR = best_node
            return best_cost, self.split(g, nodeL, nodeR), best_cost
        lb = min(leaf, float(np.min(lbL + lbR)))
        return None, None, max(lb, ub, lb0)

    def _similar(self, U: np.ndarray, v: float, Fa: np.ndarray, n: float,
                 lb_same: np.ndarray, lb_other: np.ndarray, left: bool) -> None:
        """Similarity bound from a child ``A`` of root ``i`` with ``opt(A) >= v``.

        For every root ``j``: ``opt(A_j) >= v - w(A \\ A_j)``. With ``A = L_i``:
        ``w(L_i \\ L_j) = w(L_i ∩ x_j)`` (``Fa``) and ``w(L_i \\ R_j) = |L_i| - w(L_i ∩ x_j)``;
        with ``A = R_i`` the roles of the two sides swap.
        """
        if not v > 0:
            return
        right_of_j = self.q * Fa[:self.C].sum(0)    # (q x) weight of A on the right of each root j
        n = self.q * n
        if left:
            np.maximum(lb_same, v - right_of_j, out=lb_same)         # A \ L_j = A ∩ x_j
            np.maximum(lb_other, v - (n - right_of_j), out=lb_other)  # A \ R_j = A ∩ ¬x_j
        else:
            np.maximum(lb_same, v - (n - right_of_j), out=lb_same)    # A \ R_j = A ∩ ¬x_j
            np.maximum(lb_other, v - right_of_j, out=lb_other)        # A \ L_j = A ∩ x_j

    def child(self, S: np.ndarray, d: int, ub: float, F: np.ndarray, cols: np.ndarray,
              present: np.ndarray | None) -> tuple[float, Node | None]:
        """Solve one child; depth-one children inline from their column counts (not memoised)."""
        if d == 1:
            cost, g = self.depth1(F, self.counts[S].sum(0), cols)
            return cost, _LazyStump(self, S, g)
        return self.solve(S, d, ub, F, cols, present)


class _LazyStump(Node):
    """A depth-one subtree built only if it ends up in the returned tree."""

    def __init__(self, search: _Search, S: np.ndarray, g: int):  # noqa: D107
        super().__init__()
        self._args = (search, S, g)

    def build(self) -> Node:
        search, S, g = self._args
        return search.stump(S, g)


def _materialize(node: Node) -> Node:
    if isinstance(node, _LazyStump):
        return node.build()
    if node.is_leaf:
        return Node.leaf(node.label)
    return Node.split(node.feature, node.threshold, _materialize(node.left), _materialize(node.right))


def _finalize(problem: BinaryProblem, binary_tree: Tree,
              binary_errors: Callable[[Tree], float]) -> tuple[Tree, int]:
    """:func:`finalize_tree`, or for a large matrix its equivalent without a float64 copy of it.

    Same steps: map to the original features with majority leaves, prune, count errors with
    :meth:`Tree.predict_index` on the original rows, and check they do not exceed the errors on
    the binarized rows (counted here through the chains).
    """
    if problem.X.size <= _SMALL_MATRIX:
        return finalize_tree(problem, binary_tree)
    bin_errors = binary_errors(binary_tree)
    tree = problem.to_original(binary_tree, relabel=True)
    tree.prune()
    data = problem.data
    errors = int((tree.predict_index(data.X) != data.y).sum())
    if errors > bin_errors:
        raise TreeCheckError(f"tree maps to {errors} errors on the original rows but had "
                             f"{bin_errors:g} on the binarized rows")
    return tree, errors


def _validate(problem: BinaryProblem, max_depth: int, upper_bound: int | None, pair_ops: float) -> None:
    if not isinstance(problem, BinaryProblem):
        raise ValueError(f"problem must be a BinaryProblem, got {type(problem).__name__}")
    if isinstance(max_depth, bool) or not isinstance(max_depth, (int, np.integer)) or max_depth < 0:
        raise ValueError(f"max_depth must be a non-negative integer, got {max_depth!r}")
    if upper_bound is not None and (isinstance(upper_bound, bool) or not isinstance(upper_bound, (int, np.integer))
                                    or upper_bound < 0):
        raise ValueError(f"upper_bound must be a non-negative integer or None, got {upper_bound!r}")
    if not pair_ops >= 0:
        raise ValueError(f"pair_ops must be non-negative, got {pair_ops!r}")


def solve_max_accuracy_dp(problem: BinaryProblem, *, max_depth: int, time_limit: float | None = None,
                          upper_bound: int | None = None, pair_ops: float = DEFAULT_PAIR_OPS,
                          optimize_above_bound: bool = True, _search: "_Search | None" = None,
                          _binary_out: list | None = None) -> SolveResult:
    """Most accurate tree of depth <= ``max_depth`` over the binary columns, by DP / branch and bound.

    Parameters
    ----------
    problem : BinaryProblem
    max_depth : int
        Non-negative; 0 gives the majority leaf.
    time_limit : float or None
        Wall-clock seconds for the whole call; on expiry the best tree so far is returned as
        FEASIBLE with the best proven bound.
    upper_bound : int or None
        Errors of a tree known to exist (e.g. a tree being certified): the search only looks
        for trees with at most that many errors (faster); if it was wrong (no such tree), the
        search is repeated without it.
    pair_ops : float
        Depth-two nodes whose pair-count solver costs at most this many estimated operations use
        it; larger ones use the root search (0: never the pair solver).
    optimize_above_bound : bool
        When no tree has at most ``upper_bound`` errors: search again for the optimum (True), or
        stop with that proof (False: FEASIBLE, the best tree at hand, ``bound = upper_bound + 1``;
        a yes/no question such as DT_depth's "is there a tree with 0 errors?").

    Returns
    -------
    SolveResult
        ``method="dp"``, ``objective_name="errors"``, ``objective`` = training errors of the
        returned tree re-evaluated on the original rows, ``bound`` = proven lower bound (equal to
        ``objective`` when OPTIMAL). ``stats``: search nodes, roots evaluated, pair solves, memo
        entries, incumbent source.
    """
    _validate(problem, max_depth, upper_bound, pair_ops)
    if _search is None:
        deadline = Deadline(time_limit)
        search = _Search(problem, deadline, float(pair_ops))
    else:  # a search of the same problem and costs: its memo (row subset, depth) stays valid
        search, deadline = _search, _search.deadline
    d = int(max_depth)
    S = np.arange(problem.n_distinct, dtype=np.int64)
    floor = float(problem.min_errors)

    # incumbent: the CART tree of that depth over the binary columns (scikit-learn's when the
    # matrix is small, else the same Gini-greedy rule from the column counts: sklearn needs the
    # matrix as float64)
    try:
        if d == 0 or problem.n_binary == 0:
            inc_tree, source = Tree(root=search.leaf(S), classes=problem.classes), "leaf"
        elif problem.X.size <= _SMALL_MATRIX:
            inc_tree, source = cart_binary_tree(problem, d), "cart"
        else:
            inc_tree = Tree(root=search.greedy(S, d)[1], classes=problem.classes)
            source = "greedy"
    except _Timeout:
        inc_tree, source = Tree(root=search.leaf(S), classes=problem.classes), "leaf"
    inc_cost = search.binary_errors(inc_tree)
    bound = floor
    proven = False
    try:
        ub = inc_cost if upper_bound is None else min(inc_cost, float(upper_bound) + 1.0)
        for attempt in range(2):
            cost, node = search.solve(S, d, ub, top=True)
            if node is not None and cost < inc_cost:
                inc_tree = Tree(root=_materialize(node), classes=problem.classes)
                inc_cost, source = float(cost), "dp"
            if node is not None or ub >= inc_cost:
                break
            if not optimize_above_bound:  # proven: no tree with fewer than ub errors
                bound = max(bound, ub)
                raise _Timeout
            ub = inc_cost  # the given upper bound was not achievable: search again without it
        proven, bound = True, inc_cost
    except _Timeout:
        top = search.top
        if top is not None:
            if top["node"] is not None and top["best"] < inc_cost:
                g, nodeL, nodeR = top["node"]
                inc_tree = Tree(root=_materialize(search.split(g, nodeL, nodeR)), classes=problem.classes)
                inc_cost, source = float(top["best"]), "dp"
            lb = min(top["leaf"], float(np.min(top["lbL"] + top["lbR"])), inc_cost)
            bound = max(bound, floor, lb)
    tree, errors = _finalize(problem, inc_tree, search.binary_errors)
    if errors != inc_cost:
        raise TreeCheckError(f"dp tree has {errors} errors on the original rows, search said {inc_cost:g}")
    if _binary_out is not None:  # the tree over the binary columns, for a warm start elsewhere
        _binary_out.append(inc_tree)
    status = OPTIMAL if proven or bound >= errors else FEASIBLE
    stats = dict(search.stats, memo_entries=len(search.memo), tree_source=source,
                 chains=int(search.ch.base.size), columns=search.B, distinct_rows=problem.n_distinct)
    return SolveResult(tree=tree, status=status, objective=errors,
                       bound=int(errors if status == OPTIMAL else np.ceil(bound - 1e-9)),
                       runtime=deadline.elapsed(), method="dp", objective_name="errors", stats=stats)


def _validate_lam(lam: float) -> None:
    try:
        ok = not isinstance(lam, bool) and lam >= 0 and math.isfinite(lam)
    except TypeError:
        ok = False
    if not ok:
        raise ValueError(f"lam must be a finite number >= 0, got {lam!r}")


def solve_regularized_dp(problem: BinaryProblem, *, lam: float, max_depth: int,
                         time_limit: float | None = None,
                         pair_ops: float = DEFAULT_PAIR_OPS, _incumbent: Tree | None = None) -> SolveResult:
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
      than ``p * n / q`` rows are never used (:meth:`_Search.useful`);
    * the depth-two pair solver charges ``p * n`` per leaf of each side.

    Parameters
    ----------
    problem : BinaryProblem
    lam : float
        Penalty per leaf, ``>= 0`` (``0``: the most accurate tree, as
        :func:`solve_max_accuracy_dp`; above ``0.5`` the single leaf is optimal).
    max_depth : int
        Non-negative.
    time_limit : float or None
        Wall-clock seconds for the whole call; on expiry the best tree so far is returned as
        FEASIBLE with a proven lower bound.
    pair_ops : float
        As in :func:`solve_max_accuracy_dp`.

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
    deadline = Deadline(time_limit)
    d = int(max_depth)
    n = int(problem.n_rows)
    scaled = scaled_objective(Fraction(lam), n, d)
    leaf_cost = scaled.p * n
    search = _Search(problem, deadline, float(pair_ops), q=scaled.q, leaf_cost=leaf_cost)
    if scaled.q * n + leaf_cost * 2 ** d >= 2 ** 53:
        raise ValueError(f"lam={lam!r} needs integers above 2**53 on {n} rows at depth {d}")
    S = np.arange(problem.n_distinct, dtype=np.int64)
    floor = search.q * float(problem.min_errors) + search.lc

    # incumbent: the Gini-greedy tree of that depth, pruned bottom-up against the leaf cost
    try:
        if d == 0 or problem.n_binary == 0:
            raise _Timeout
        inc_tree, source = Tree(root=search.greedy(S, d)[1], classes=problem.classes), "greedy"
    except _Timeout:
        inc_tree, source = Tree(root=search.leaf(S), classes=problem.classes), "leaf"
    inc_cost = search.binary_cost(inc_tree)
    if _incumbent is not None and _incumbent.depth() <= d:  # a given tree over the binary columns
        given = search.binary_cost(_incumbent)
        if given < inc_cost:
            inc_tree, inc_cost, source = _incumbent, given, "given"
    bound, proven = floor, False
    try:
        cost, node = search.solve(S, d, inc_cost, top=True)
        if node is not None and cost < inc_cost:
            inc_tree = Tree(root=_materialize(node), classes=problem.classes)
            inc_cost, source = float(cost), "dp"
        proven, bound = True, inc_cost
    except _Timeout:
        top = search.top
        if top is not None:
            if top["node"] is not None and top["best"] < inc_cost:
                g, nodeL, nodeR = top["node"]
                inc_tree = Tree(root=_materialize(search.split(g, nodeL, nodeR)), classes=problem.classes)
                inc_cost, source = float(top["best"]), "dp"
            lb = min(top["leaf"], float(np.min(top["lbL"] + top["lbR"])), inc_cost)
            bound = max(floor, lb)
    tree, errors = _finalize(problem, inc_tree, search.binary_errors)
    leaves = tree.n_leaves
    engine = scaled.engine_value(errors, leaves)
    # finalizing never adds errors and only removes leaves; a proven optimum cannot improve
    if engine > inc_cost or (proven and engine != inc_cost):
        raise TreeCheckError(f"dp tree has engine value {engine} (errors {errors}, leaves {leaves}) "
                             f"on the original rows, search said {inc_cost:g}")
    value = exact_objective(errors, leaves, n, scaled.lam)
    status = OPTIMAL if proven or bound >= engine else FEASIBLE
    if status == OPTIMAL:
        exact_bound = value
    else:
        exact_bound = min(value, scaled.lower_bound(bound, 2 ** d, int(problem.min_errors)))
    tree.meta.update(method="dp", objective="regularized", lam=float(scaled.lam))
    stats = dict(search.stats, memo_entries=len(search.memo), tree_source=source,
                 chains=int(search.ch.base.size), columns=search.B, distinct_rows=problem.n_distinct,
                 errors=errors, leaves=leaves, train_accuracy=1.0 - errors / n, lam=lam,
                 lam_engine=f"{scaled.p}/{scaled.q}", engine_bound=float(bound))
    if status == OPTIMAL:
        stats["engine_objective"] = int(engine)
    return SolveResult(tree=tree, status=status, objective=float(value), bound=float(exact_bound),
                       runtime=deadline.elapsed(), method="dp", objective_name="regularized", stats=stats)


# --------------------------------------------------------------------------- DT_depth / DT_size
def _present_classes(problem: BinaryProblem) -> int:
    return int((problem.counts.sum(axis=0) > 0).sum())


def _consistent_fallback(problem: BinaryProblem, max_depth: int | None) -> Tree | None:
    """A consistent CART tree (grown until pure; exists for consistent data) in the original
    features, or None when it is deeper than ``max_depth``."""
    tree, errors = finalize_tree(problem, cart_binary_tree(problem, None))
    if errors != 0 or (max_depth is not None and tree.depth() > max_depth):
        return None
    return tree


def _choose_algorithm(problem: BinaryProblem, algorithm: str) -> tuple[_Chains, dict]:
    """The chains of ``problem`` (shared by both algorithms) and ``{"algorithm": "boxes" or
    "search", ...}``: the box DP when ``algorithm`` asks for it, or allows it (``"auto"``) and the
    boxes are few."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {', '.join(map(repr, ALGORITHMS))}, got {algorithm!r}")
    chains = _build_chains(problem)
    if algorithm == "search":
        return chains, {"algorithm": "search"}
    cells, work = box_count(chains), box_work(chains)
    classes = problem.counts.shape[1]
    if algorithm == "boxes" and (cells > BOX_MAX_CELLS or classes > 64):
        raise ValueError(f"algorithm='boxes' needs at most {BOX_MAX_CELLS:.3g} boxes and 64 classes; this "
                         f"problem has {cells:.3g} boxes and {classes} classes (use 'search')")
    if algorithm == "auto" and (cells > BOX_AUTO_CELLS or work > BOX_AUTO_WORK or classes > 64):
        return chains, {"algorithm": "search"}
    return chains, {"algorithm": "boxes", "boxes": int(cells), "box_work_per_level": float(work)}


def _new_lattice(problem: BinaryProblem, chains: _Chains, deadline: Deadline) -> BoxLattice:
    """The box tables of ``problem``, raising ``_Timeout`` when the deadline passes."""
    def check_time() -> None:
        if deadline.expired():
            raise _Timeout

    return BoxLattice(chains, problem.counts, check_time)


def _box_tree(problem: BinaryProblem, lattice: BoxLattice, depth: int, leaves: int) -> Tree:
    """The box DP's tree of depth ``<= depth`` with ``leaves`` leaves, finalized and checked: no
    error on the original rows, and pruning cannot remove a leaf of a proven minimum."""
    binary = Tree(root=lattice.tree(depth), classes=problem.classes)
    tree, errors = _finalize(problem, binary, lambda t: _chain_errors(lattice.chains, problem.counts, t))
    if errors or tree.n_leaves != leaves or tree.depth() > depth:
        raise TreeCheckError(f"box DP tree has {errors} errors, {tree.n_leaves} leaves and depth "
                             f"{tree.depth()}; the tables said 0, {leaves} and <= {depth}")
    return tree


def solve_min_depth_dp(problem: BinaryProblem, *, max_depth: int | None = None,
                       time_limit: float | None = None, pair_ops: float = DEFAULT_PAIR_OPS,
                       algorithm: str = "auto", _binary_out: list | None = None) -> SolveResult:
    """DT_depth by DP: the smallest ``k`` with a consistent tree of depth ``k``.

    ``k`` goes up from ``ceil(log2(classes))``. Two exact algorithms answer "is there a consistent
    tree of depth ``k``?":

    * ``"search"``: one :func:`solve_max_accuracy_dp` call per depth on the time left (one memo
      for every depth); a proven optimum above 0 errors is the same claim as an UNSAT answer of
      the SAT encoding.
    * ``"boxes"``: the table of depth ``k`` of :class:`~satdt.solvers.boxdp.BoxLattice` (every
      box of the data at once); for data with few distinct values per feature.

    ``"auto"`` (default) takes the boxes when there are at most ``BOX_AUTO_CELLS`` of them and a
    level costs at most ``BOX_AUTO_WORK`` cell operations, else the search.

    Returns
    -------
    SolveResult
        ``method="dp-depth"``, ``objective_name="depth"``: OPTIMAL (minimum depth), INFEASIBLE
        (none within ``max_depth``), FEASIBLE on timeout (a consistent CART tree, ``bound`` =
        proven lower bound on the depth) or UNKNOWN (no tree within ``max_depth`` at hand).
        ``stats``: ``algorithm``, ``depth_times_s`` (seconds of each depth; with the search also
        its errors), with the boxes ``leaves_by_depth`` (fewest leaves at each depth, None: none).
    """
    if max_depth is not None:
        _validate(problem, max_depth, None, pair_ops)
    problem.check_consistent()
    deadline = Deadline(time_limit)
    steps: dict[int, object] = {}
    stats: dict = {"distinct_rows": int(problem.n_distinct), "binary_features": int(problem.n_binary),
                   "engine": "dp"}

    def result(tree: Tree | None, status: str, bound: int | None) -> SolveResult:
        stats["depth_times_s"] = dict(steps)
        objective = None if tree is None else tree.depth()
        if tree is not None:
            _check_consistent_tree(problem, tree, "dp-depth")
        return SolveResult(tree, status, objective, objective if status == OPTIMAL else bound,
                           deadline.elapsed(), "dp-depth", "depth", stats)

    k = max(0, math.ceil(math.log2(max(1, _present_classes(problem)))))
    binary_out = [] if _binary_out is None else _binary_out
    chains, how = _choose_algorithm(problem, algorithm)
    stats.update(how)
    try:
        if how["algorithm"] == "boxes":
            if max_depth is not None and k > max_depth:
                return result(None, INFEASIBLE, k)
            lattice = _new_lattice(problem, chains, deadline)
            leaves_by_depth = stats.setdefault("leaves_by_depth", {})
            while max_depth is None or k <= max_depth:
                t0 = time.perf_counter()
                leaves = lattice.value(k)
                steps[k], leaves_by_depth[k] = round(time.perf_counter() - t0, 4), leaves
                if leaves is not None:
                    tree = _box_tree(problem, lattice, k, leaves)
                    if tree.depth() != k:
                        raise TreeCheckError(f"box DP: depth {k} is minimal but the tree has depth {tree.depth()}")
                    return result(tree, OPTIMAL, k)
                if lattice.fixed:
                    raise TreeCheckError("box DP: no consistent tree at any depth on consistent data")
                k += 1
            return result(None, INFEASIBLE, k)
        search = _Search(problem, deadline, float(pair_ops), chains=chains)  # one memo for every depth
        while True:
            if max_depth is not None and k > max_depth:
                return result(None, INFEASIBLE, k)
            if deadline.expired():
                break
            t0 = time.perf_counter()
            r = solve_max_accuracy_dp(problem, max_depth=k, upper_bound=0, optimize_above_bound=False,
                                      _search=search, _binary_out=binary_out)
            steps[k] = (round(time.perf_counter() - t0, 4), int(r.objective))
            if r.objective == 0:
                return result(r.tree, OPTIMAL, k)
            if r.bound < 1:  # timeout before a proof either way
                break
            k += 1
    except _Timeout:  # the box tables ran out of time: no consistent tree below depth k
        pass
    fallback = _consistent_fallback(problem, max_depth)
    return result(fallback, FEASIBLE if fallback is not None else UNKNOWN, k)


def _check_consistent_tree(problem: BinaryProblem, tree: Tree, method: str) -> None:
    data = problem.data
    errors = int((tree.predict_index(data.X) != data.y).sum())
    if errors:
        raise TreeCheckError(f"{method}: the returned tree misclassifies {errors} training rows")


def solve_min_size_dp(problem: BinaryProblem, *, max_depth: int | None = None,
                      time_limit: float | None = None, pair_ops: float = DEFAULT_PAIR_OPS,
                      algorithm: str = "auto") -> SolveResult:
    """DT_size by DP: the fewest nodes of a consistent tree of depth ``<= K``.

    ``K = max_depth``, or the minimum depth (:func:`solve_min_depth_dp`, on the same clock). The
    ``algorithm`` is chosen as in :func:`solve_min_depth_dp`:

    * ``"boxes"``: ``opt(full box, K)`` of :class:`~satdt.solvers.boxdp.BoxLattice`, whose tables
      already hold the minimum depth (one pass answers both questions).
    * ``"search"``: one :func:`solve_regularized_dp` call at depth ``K`` with the *lexicographic*
      penalty ``lam = 1 / (n * (2**K + 1))``: a leaf costs less than one error over any tree of
      depth ``<= K`` (at most ``2**K`` leaves), so the optimum has the fewest errors (0 when a
      consistent tree of depth ``<= K`` exists) and, among those, the fewest leaves. On a timeout
      the engine's lower bound ``B`` on ``q * errors + p * n * leaves`` bounds every consistent
      tree's leaves by ``B / (p * n)``.

    nodes = ``2 * leaves - 1``.

    Returns
    -------
    SolveResult
        ``method="dp-size"``, ``objective_name="nodes"``: OPTIMAL, INFEASIBLE (no consistent tree
        of depth ``<= max_depth``), FEASIBLE (smallest consistent tree found, ``bound`` = proven
        lower bound on nodes) or UNKNOWN. ``stats["algorithm"]`` says which algorithm ran.
    """
    if max_depth is not None:
        _validate(problem, max_depth, None, pair_ops)
    problem.check_consistent()
    deadline = Deadline(time_limit)
    n_classes = _present_classes(problem)
    stats: dict = {"distinct_rows": int(problem.n_distinct), "binary_features": int(problem.n_binary),
                   "engine": "dp"}
    low_leaves = max(1, n_classes)
    candidates: list[Tree] = []

    def result(status: str, bound: int | None) -> SolveResult:
        tree = min(candidates, key=lambda t: t.n_nodes) if candidates else None
        if tree is not None:
            _check_consistent_tree(problem, tree, "dp-size")
        objective = None if tree is None else tree.n_nodes
        if status == OPTIMAL:
            bound = objective
        return SolveResult(tree, status, objective, bound, deadline.elapsed(), "dp-size", "nodes", stats)

    chains, how = _choose_algorithm(problem, algorithm)
    stats.update(how)
    if n_classes <= 1:
        leaf = Tree(root=Node.leaf(int(problem.majority[0])), classes=problem.classes)
        candidates.append(finalize_tree(problem, leaf)[0])
        return result(OPTIMAL, 1)
    if max_depth is not None and max_depth < math.ceil(math.log2(n_classes)):
        return result(INFEASIBLE, None)
    if how["algorithm"] == "boxes":
        return _min_size_boxes(problem, chains, max_depth, deadline, stats, candidates, low_leaves, result)
    return _min_size_search(problem, max_depth, deadline, pair_ops, stats, candidates, low_leaves, result)


def _min_size_boxes(problem, chains, max_depth, deadline, stats, candidates, low_leaves, result):
    """DT_size from the box tables (see :func:`solve_min_size_dp`)."""
    k = max(0, math.ceil(math.log2(_present_classes(problem))))
    t0 = time.perf_counter()
    try:
        lattice = _new_lattice(problem, chains, deadline)
        if max_depth is None:
            while lattice.value(k) is None:
                if lattice.fixed:
                    raise TreeCheckError("box DP: no consistent tree at any depth on consistent data")
                low_leaves = max(low_leaves, k + 2)  # depth > k: a path of k + 1 splits
                k += 1
            K = k
        else:
            K = int(max_depth)
        leaves = lattice.value(K)
        stats.update(size_depth=K, size_time_s=round(time.perf_counter() - t0, 4),
                     leaves_by_depth={**{d: lattice.value(d) for d in range(lattice.depth_done() + 1)}, K: leaves})
        if leaves is None:
            return result(INFEASIBLE, None)
        candidates.append(_box_tree(problem, lattice, K, leaves))
        return result(OPTIMAL, None)
    except _Timeout:
        fallback = _consistent_fallback(problem, max_depth)
        candidates.extend([fallback] if fallback is not None else [])
        return result(FEASIBLE if candidates else UNKNOWN, 2 * low_leaves - 1)


def _min_size_search(problem, max_depth, deadline, pair_ops, stats, candidates, low_leaves, result):
    """DT_size by the lexicographic regularized search (see :func:`solve_min_size_dp`)."""
    binary_trees: list[Tree] = []
    if max_depth is None:
        depth = solve_min_depth_dp(problem, time_limit=deadline.remaining(), pair_ops=pair_ops,
                                   algorithm="search", _binary_out=binary_trees)
        stats["depth_times_s"] = depth.stats["depth_times_s"]
        if depth.status != OPTIMAL:
            if depth.tree is not None:
                candidates.append(depth.tree)
            return result(FEASIBLE if candidates else UNKNOWN, 2 * max(low_leaves, depth.bound + 1) - 1)
        K = int(depth.objective)
        candidates.append(depth.tree)
        low_leaves = max(low_leaves, K + 1)  # a tree of minimum depth K has a path of K splits
    else:
        K = int(max_depth)
    if deadline.expired():
        return result(FEASIBLE if candidates else UNKNOWN, 2 * low_leaves - 1)
    n = int(problem.n_rows)
    lam = Fraction(1, n * (2 ** K + 1))
    # warm start: the consistent tree of the depth search (a greedy one rarely is consistent, and
    # an inconsistent incumbent costs more than any consistent tree: no pruning until one is found)
    warm = binary_trees[-1] if binary_trees else None
    r = solve_regularized_dp(problem, lam=lam, max_depth=K, time_limit=deadline.remaining(), pair_ops=pair_ops,
                             _incumbent=warm)
    errors = int(r.stats["errors"])
    stats.update(size_depth=K, size_time_s=round(r.runtime, 4), search_nodes=r.stats.get("nodes"),
                 lam_engine=r.stats["lam_engine"])
    if r.status == OPTIMAL:
        if errors > 0:
            if candidates:  # a consistent tree of depth <= K was found: the search contradicts it
                raise TreeCheckError(f"dp-size: optimum at depth {K} has {errors} errors, "
                                     f"but a consistent tree of depth <= {K} exists")
            return result(INFEASIBLE, None)
        candidates[:] = [r.tree]
        return result(OPTIMAL, None)
    if errors == 0:
        candidates.append(r.tree)
    p = int(r.stats["lam_engine"].split("/")[0])
    bound_leaves = math.ceil(r.stats["engine_bound"] / (p * n) - 1e-9)
    low_leaves = max(low_leaves, bound_leaves)
    if candidates and min(t.n_nodes for t in candidates) <= 2 * low_leaves - 1:
        return result(OPTIMAL, None)
    if not candidates:
        fallback = _consistent_fallback(problem, K)
        if fallback is not None:
            candidates.append(fallback)
    return result(FEASIBLE if candidates else UNKNOWN, 2 * low_leaves - 1)
