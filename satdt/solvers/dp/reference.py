"""The numpy reference of the compiled search: the same branch and bound, vectorized with numpy.

This is not an engine: the solvers run :class:`~satdt.solvers.dp.search.CoreSearch`. It is kept,
documented and tested, as the readable statement of the algorithm (see the docstring of
:mod:`satdt.solvers.dp`) against which the compiled core (``core/``) is checked on random
instances (``tests/test_dp.py``, ``tests/test_dp_core_cpp.py``). Pass ``engine="reference"`` to
the solve functions to run it.

What it states as the core does: the recursion with its memo and MurTree's upper-bound
semantics, depth one from the column counts, the leaf-conflict, similarity and OSDT leaf-support
bounds, best-first roots, the pair-count depth-two solver, and ConTree's depth-two scan for long
chains (:meth:`ReferenceSearch.depth2_scan`: the same roots in the same order, so a depth-two
scan evaluates as many roots here as in the core). The greedy incumbent is
:meth:`~satdt.solvers.dp.search.SearchBase.greedy`, tested equal to the core's.

What it does not mirror, each a way of computing the same optimum faster, checked by outcome
(the same optimum, here, in the core and by brute force; ``tests/core/test_core.cpp`` toggles the
core's depth-two paths against a brute force):

* *Counting*: the core counts a node on its view (ranks renumbered to the node's columns) by
  histograms or, for short chains, by bitsets and popcounts (AVX-512 when present); here one
  ``np.bincount`` over (optionally renumbered, :class:`LocalSlots`) chain slots.
* *Which depth-two solver*: the core's rule (``use_pair_solver``: bitsets or 2-D histograms,
  whichever is estimated cheaper, against the root search; the scan for long chains) differs
  from the one here (``|U|^2 C (|S| + 40) <= pair_ops``, BLAS pair counts), so for the same
  ``pair_ops`` a node may take another path; ``pair_ops = 0`` means no pair solver in both.
* *The general root search*: the core evaluates the larger child first, halves ConTree's
  interval of open roots in each chain and gives the second child ConTree's extra budget (the
  rows between the root and its interval's ends); :meth:`ReferenceSearch.root_search` takes the
  left child first, the least-bound root each time and the plain budget. Same bounds, other
  order: the root counts differ.
* *The scan's inner loop*: see :meth:`ReferenceSearch.depth2_scan` (the core skips split points
  that cannot beat the best; here every column's errors come from the counts).
* *Progress reports and Ctrl-C polling*: the core's host interface (``core/host.h``); here only
  the deadline.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...binarize import BinaryProblem
from ...tree import Node
from ...deadline import Deadline
from .chains import Chains, LocalSlots
from .search import SearchBase, SearchOutcome, SearchTimeout

__all__ = ["ReferenceSearch"]

_LOCAL_MARGIN = 64  # a node renumbers its slots when the problem has 1.2x (+ this) more than it uses
_CHUNK_FLOATS = 8_000_000  # floats per (C, k, B) work array in the pair solver (~32 MB float32)
# a depth-two node without the pair solver takes ConTree's depth-two scan when it has at least
# this many columns per chain (long chains: thresholds of numeric features), as the core does
# (core/search.cpp, solve_node); infinity turns the scan off
_SCAN_COLUMNS_PER_CHAIN = 4


@dataclass
class _Entry:
    """Memo of one (row subset, depth): a lower bound, and the optimum with its tree when known."""

    lb: float
    cost: float | None = None
    node: Node | None = None


class ReferenceSearch(SearchBase):
    """The memoised branch and bound over row subsets (indices of distinct rows, sorted), in numpy."""

    def __init__(self, problem: BinaryProblem, deadline: Deadline, pair_ops: float,
                 q: int = 1, leaf_cost: int = 0, chains: Chains | None = None):
        super().__init__(problem, deadline, pair_ops, q, leaf_cost, chains)
        self.ftype = np.float32 if self.counts.sum() < 2 ** 24 else np.float64  # pair counts
        self.memo: dict[tuple[bytes, int], _Entry] = {}
        self.top: dict | None = None
        self.stats["depth2_scans"] = 0

    @property
    def memo_entries(self) -> int:
        return len(self.memo)

    def run(self, d: int, ub: float, *, width: int = 0, rows: np.ndarray | None = None,
            time_cap: float | None = None) -> SearchOutcome:
        if width or rows is not None or time_cap is not None:
            raise ValueError("the reference search runs the complete search of all rows to the deadline only")
        S = np.arange(self.counts.shape[0], dtype=np.int64)
        self.top = None
        try:
            cost, node = self.solve(S, d, ub, top=True)
        except SearchTimeout:
            top = self.top
            if top is None:
                return SearchOutcome(False)
            best = None
            if top["node"] is not None:
                g, nodeL, nodeR = top["node"]
                best = materialize(self.split(g, nodeL, nodeR))
            lb = min(top["leaf"], float(np.min(top["lbL"] + top["lbR"])), top["best"])
            return SearchOutcome(False, top["best"] if best is not None else None, best, lb)
        if node is None:
            return SearchOutcome(True, None, None, cost)
        return SearchOutcome(True, cost, materialize(node), cost)

    def localize(self, S: np.ndarray, U: np.ndarray) -> LocalSlots | None:
        """:class:`LocalSlots` of ``S`` for its columns ``U`` (each present in ``S``), or None
        when the problem has few more slots than ``S`` uses (no gain)."""
        ch = self.ch
        if ch.n_slots < 1.2 * (U.size + ch.base.size) + _LOCAL_MARGIN:
            return None
        g = ch.rank[S] + ch.base
        used, inv = np.unique(g, return_inverse=True)
        # a column's slot occurs in S; its chain ends where the next chain's slots begin
        slot = np.searchsorted(used, ch.slot[U])
        end = np.searchsorted(used, ch.end[U])
        return LocalSlots(inv.reshape(g.shape), self.wext[S], int(used.size), slot, end)

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
        if d == 2 and U.size >= _SCAN_COLUMNS_PER_CHAIN * np.unique(self.ch.chain[U]).size:
            cost, node, lb = self.depth2_scan(S, F, N, U, ub, leaf, lb0, top)
        else:
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
        best_cost, best_node, bound, state = self._roots_start(leaf, ub, lbL, lbR, top)
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
                best_cost, best_node, bound = self._improved(state, vL + vR, (g, nodeL, nodeR), ub)
                if best_cost <= lb0:
                    break
        return self._roots_outcome(S, leaf, best_cost, best_node, ub, lb0, lbL, lbR)

    # ------------------------------------------------------------ depth 2, long chains: the scan
    def depth2_scan(self, S: np.ndarray, F: np.ndarray, N: np.ndarray, U: np.ndarray, ub: float,
                    leaf: float, lb0: float, top: bool) -> tuple[float | None, Node | None, float]:
        """ConTree's specialised depth-two solver [3] for a node whose columns are mostly
        thresholds of a few numeric features (the core's ``depth2_scan``, ``core/scan.cpp``).

        Roots best-first by ``lbL + lbR`` (the leaf-conflict bounds, ties by the depth-one
        errors), halving the interval of open roots of the chain as in :meth:`root_search`'s
        statement in the core (``interval_middle``). For the root evaluated, each side's best
        depth-one subtree among those that can make the root beat the bound: a stump of ``e``
        errors counts only if ``q * e + 2 * leaf_cost < bound - (the other side's bound)``, i.e.
        ``e < cap``; if neither the leaf nor any stump is below the cap, the side gets the lower
        bound ``q * cap + 2 * leaf_cost`` and no tree. Then the *monotonicity bounds* on the
        other roots ``j`` of the same chain (the optimum of a side is monotone in its rows; a
        side of ``j`` differs from that of the root by the rows between the two levels, weight
        ``gap``): below the root, ``L_j`` is ``L_t`` minus those rows (``lbL_j >= vL - q gap``)
        and ``R_j`` contains ``R_t`` (``lbR_j >= vR``); above it, the other way round. No
        similarity bound (each root raises the bounds of its own chain only).

        The core finds each side's best stump in one pass over the units sorted by each chain,
        skipping split points where the errors cannot have dropped below the best (moving ``w``
        rows changes a side's errors by at most ``w``) and summing blocks of units for two
        classes; here each side's errors at every column come from its column counts. Both give
        the first column of least errors below the cap. Returns as :meth:`root_search`.
        """
        self.stats["depth2_scans"] += 1
        C, q, lc = self.C, self.q, self.lc
        total = float(N.sum())
        Fc = F[:C]
        ftot = Fc.sum(0)
        conf = float(self.wext[S, C].sum())
        lbR = q * F[C] + lc                         # leaf-conflict bound of each side (+ a leaf)
        lbL = q * (conf - F[C]) + lc
        err1 = total - Fc.max(0) - (N[:, None] - Fc).max(0)
        tie = err1 / (total + 1.0)
        chain = self.ch.chain[U]
        open_ = np.ones(U.size, dtype=bool)
        best_cost, best_node, bound, state = self._roots_start(leaf, ub, lbL, lbR, top)
        while True:
            self.check_time()
            key = np.where(open_, lbL + lbR + tie, np.inf)
            t = int(np.argmin(key))
            if not key[t] < bound:
                break
            # ConTree's interval: the run of open roots of t's chain below the bound, its middle
            same = np.flatnonzero(chain == chain[t])  # the chain's roots, in level order
            lo = hi = int(np.searchsorted(same, t))
            while lo > 0 and open_[same[lo - 1]] and lbL[same[lo - 1]] + lbR[same[lo - 1]] < bound:
                lo -= 1
            while hi + 1 < same.size and open_[same[hi + 1]] and lbL[same[hi + 1]] + lbR[same[hi + 1]] < bound:
                hi += 1
            t = int(same[(lo + hi) // 2])
            open_[t] = False
            self.stats["roots_evaluated"] += 1
            g = int(U[t])
            r = self.goes_right(S, g)
            sides = []
            for rows, tot_side, other_lb in ((S[~r], N - Fc[:, t], lbR[t]), (S[r], Fc[:, t], lbL[t])):
                n_side, mx = float(tot_side.sum()), float(tot_side.max())
                cap_cost = bound - other_lb - 2.0 * lc
                cap = 0.0 if cap_cost <= 0 else float(np.ceil(cap_cost / q))
                best_err = min(n_side - mx, cap)      # the leaf, or the cap
                FS = self.column_counts(rows, U)[0][:C]
                mr, ml = FS.max(0), (tot_side[:, None] - FS).max(0)
                err = np.where((ml > 0) & (mr > 0), n_side - ml - mr, np.inf)
                k = int(np.argmin(err))
                val, node = q * (n_side - mx) + lc, self.leaf(rows)
                if err[k] < best_err:
                    if q * err[k] + 2.0 * lc < val:
                        val, node = q * float(err[k]) + 2.0 * lc, self.stump(rows, int(U[k]))
                elif cap < n_side - mx and val >= q * cap + 2.0 * lc:
                    val, node = q * cap + 2.0 * lc, None  # neither the leaf nor a stump beats the bound
                sides.append((val, node))
            (vL, nodeL), (vR, nodeR) = sides
            # monotonicity bounds on the roots of the same chain
            below, above = same[same < t], same[same > t]
            np.maximum.at(lbL, below, vL - q * (ftot[below] - ftot[t]))
            np.maximum.at(lbR, below, vR)
            np.maximum.at(lbL, above, vL)
            np.maximum.at(lbR, above, vR - q * (ftot[t] - ftot[above]))
            lbL[t], lbR[t] = max(lbL[t], vL), max(lbR[t], vR)
            if nodeL is not None and nodeR is not None and vL + vR < bound:
                best_cost, best_node, bound = self._improved(state, vL + vR, (g, nodeL, nodeR), ub)
                if best_cost <= lb0:
                    break
        return self._roots_outcome(S, leaf, best_cost, best_node, ub, lb0, lbL, lbR)

    def _roots_start(self, leaf: float, ub: float, lbL: np.ndarray, lbR: np.ndarray, top: bool):
        """A root search's start: the leaf as the best tree when below ``ub``, the bound to beat,
        and the state the top-level search reports (its roots' bounds, kept live)."""
        best_cost, best_node = (leaf, None) if leaf < ub else (np.inf, None)
        state = {"leaf": leaf, "lbL": lbL, "lbR": lbR, "best": best_cost, "node": best_node}
        if top:
            self.top = state
        return best_cost, best_node, min(ub, leaf), state

    @staticmethod
    def _improved(state: dict, cost: float, node, ub: float):
        """A better split found by a root search: the new best, its node and the bound to beat
        (kept in the reported state too)."""
        state["best"], state["node"] = cost, node
        return cost, node, min(ub, cost)

    def _roots_outcome(self, S: np.ndarray, leaf: float, best_cost: float, best_node, ub: float, lb0: float,
                       lbL: np.ndarray, lbR: np.ndarray):
        """A root search's answer: the best split found below ``ub`` (or the leaf when it is
        cheaper), else no tree with the lower bound of every root (both children's bounds)."""
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
            return cost, LazyStump(self, S, g)
        return self.solve(S, d, ub, F, cols, present)


class LazyStump(Node):
    """A depth-one subtree built only if it ends up in the returned tree."""

    def __init__(self, search: ReferenceSearch, S: np.ndarray, g: int):  # noqa: D107
        super().__init__()
        self._args = (search, S, g)

    def build(self) -> Node:
        search, S, g = self._args
        return search.stump(S, g)


def materialize(node: Node) -> Node:
    if isinstance(node, LazyStump):
        return node.build()
    if node.is_leaf:
        return Node.leaf(node.label)
    return Node.split(node.feature, node.threshold, materialize(node.left), materialize(node.right))