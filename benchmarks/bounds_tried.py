"""Two lower bounds tried for the large noisy sets at depth >= 4 (issue 21, item 2), not kept.

On magic, htru, fault, rice and page the complete search's bound stays at the conflict floor
within a minute (its top node has thousands of tests, each needing two exact subproblems of
depth D - 1), and the rows' bound (``satdt/solvers/dp/rows_bound.py``) needs only a few dozen
errors from the few hundred rows the exact search takes. This script measures two other valid
bounds on one thread, the compiled search answering every exact subproblem:

``--bound intervals`` (Quant-BnB's threshold intervals, Mazumder et al. 2022): for a node of depth
``d >= 3`` on the rows ``S``, every test of a chain with its level in ``[lo, hi]`` sends the rows of
rank ``< lo`` left and those of rank ``>= hi`` right, so (an optimum never falls when rows are
added) ``opt_{d-1}(S & rank < lo) + opt_{d-1}(S & rank >= hi)`` bounds every tree whose top test
is in the interval; the node's bound is the least over the intervals of every chain (and the
leaf). Nodes of depth <= 2 are solved exactly; intervals are halved at the median rank of the rows
between their ends, best first (the interval of least bound, down to the nodes it rests on).

``--bound parts``: a tree's errors on all the rows are the sum of its errors on the parts of a
partition, each at least that part's optimum, so the sum of the parts' optima bounds the
optimum (random parts of ``m`` distinct rows, each solved exactly at depth ``D``).

Measured (stop 38; ``benchmarks/results/anytime.md``, "Two more bounds tried")::

    python benchmarks/bounds_tried.py magic 4 --bound intervals --seconds 60
    python benchmarks/bounds_tried.py magic 4 --bound parts --part-rows 50 100 200 400
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_anytime import paths  # noqa: E402

from satdt.binarize import Binarizer  # noqa: E402
from satdt.data import load_dataset  # noqa: E402
from satdt.deadline import Deadline  # noqa: E402
from satdt.solvers.dp.accuracy import new_search  # noqa: E402


class _Node:
    """Rows ``S`` at depth ``d``: a proven lower bound ``lb``, the leaf's cost, its intervals."""

    def __init__(self, S: np.ndarray, d: int, lb: float, leaf: float):
        self.S, self.d, self.leaf = S, d, leaf
        self.lb = min(lb, leaf)
        self.exact = lb >= leaf
        self.fresh = True  # lb inherited (from a subset of the rows) or 0, not computed on S
        self.intervals: list[_Interval] | None = None


class _Interval:
    """The tests of chain ``c`` with levels in ``[lo, hi]``; ``band``: the rows between the ends."""

    def __init__(self, c: int, lo: int, hi: int, left: _Node, right: _Node, band: int):
        self.c, self.lo, self.hi, self.left, self.right, self.band = c, lo, hi, left, right, band

    @property
    def lb(self) -> float:
        return self.left.lb + self.right.lb


class IntervalBound:
    """The threshold-interval bound of depth ``d`` on all the rows of ``search`` (module docstring)."""

    def __init__(self, search, d: int):
        self.search, self.rank = search, search.ch.rank
        self.solves = 0
        self.root = self._node(np.arange(search.counts.shape[0], dtype=np.int64), d, 0.0)

    def _node(self, S: np.ndarray, d: int, lb: float) -> _Node:
        N = self.search.counts[S].sum(0)
        leaf = self.search.q * float(N.sum() - N.max()) + self.search.lc if S.size else 0.0
        return _Node(S, d, lb, leaf)

    def _interval(self, node: _Node, r: np.ndarray, c: int, lo: int, hi: int, left=None, right=None,
                  lb_left: float = 0.0, lb_right: float = 0.0) -> _Interval:
        S = node.S
        left = left or self._node(S[r < lo], node.d - 1, lb_left)
        right = right or self._node(S[r >= hi], node.d - 1, lb_right)
        return _Interval(c, lo, hi, left, right, int(((r >= lo) & (r < hi)).sum()))

    def refine(self, node: _Node | None = None) -> None:
        """One step of best-first refinement under ``node`` (default: the top)."""
        node = node or self.root
        if node.exact:
            return
        if node.d <= 2:  # solved exactly
            self.solves += 1
            out = self.search.run(node.d, node.leaf + 1, rows=node.S)
            node.lb, node.exact, node.fresh = float(out.cost), True, False
            return
        if node.intervals is None:
            R = self.rank[node.S]
            node.intervals = [self._interval(node, R[:, c], c, int(R[:, c].min()) + 1, int(R[:, c].max()))
                              for c in range(R.shape[1]) if R[:, c].min() < R[:, c].max()]
            node.fresh = False
            if not node.intervals:
                node.lb, node.exact = node.leaf, True
            return
        e = min(node.intervals, key=lambda x: x.lb)
        kids = [k for k in (e.left, e.right) if not k.exact]
        fresh = [k for k in kids if k.fresh]
        if fresh:
            self.refine(max(fresh, key=lambda k: k.S.size))
        elif e.band > 0 and (16 * e.band >= node.S.size or not kids):
            r = self.rank[node.S, e.c]
            m = min(max(int(np.median(r[(r >= e.lo) & (r < e.hi)])), e.lo), e.hi - 1)
            i = node.intervals.index(e)
            node.intervals[i:i + 1] = [self._interval(node, r, e.c, e.lo, m, left=e.left, lb_right=e.right.lb),
                                       self._interval(node, r, e.c, m + 1, e.hi, right=e.right, lb_left=e.left.lb)]
        elif kids:
            self.refine(max(kids, key=lambda k: k.S.size))
        e = min(node.intervals, key=lambda x: x.lb)
        node.lb = max(node.lb, min(node.leaf, e.lb))
        # the least bound is a tree's cost: the leaf's, or that of one test (no row between the
        # interval's ends) with both children solved
        if node.lb >= node.leaf or (e.band == 0 and e.left.exact and e.right.exact and e.lb <= node.lb):
            node.exact = True


def intervals(search, d: int, seconds: float) -> None:
    bound = IntervalBound(search, d)
    start, last, tick = time.perf_counter(), -1.0, 1.0
    while time.perf_counter() - start < seconds and not bound.root.exact:
        bound.refine()
        now = time.perf_counter() - start
        if bound.root.lb > last or now > tick:  # each rise, and a line at 1, 2, 4, ... s
            if now > tick:
                tick = 2 * now
            last = bound.root.lb
            print(f"{now:7.2f} s  bound {bound.root.lb:.0f}  exact solves {bound.solves}", flush=True)
    print(f"after {time.perf_counter() - start:.1f} s: bound {bound.root.lb:.0f}, {bound.solves} exact solves")


def parts(search, d: int, sizes: list[int], seconds: float) -> None:
    n = search.counts.shape[0]
    order = np.random.default_rng(0).permutation(n)
    for m in sizes:
        k, values, start = n // m, [], time.perf_counter()
        for i in range(k):
            out = search.run(d, 1e18, rows=np.sort(order[i * m:(i + 1) * m]), time_cap=seconds)
            if not out.finished:
                break
            values.append(out.cost)
            if time.perf_counter() - start > seconds:
                break
        each = (time.perf_counter() - start) / max(1, len(values))
        print(f"parts of {m} rows ({k}): {len(values)} solved, {each:.3f} s each, mean optimum "
              f"{np.mean(values) if values else float('nan'):.2f} -> bound about "
              f"{np.mean(values) * k if values else 0:.0f} in about {each * k:.0f} s", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("set")
    ap.add_argument("depth", type=int)
    ap.add_argument("--bound", choices=["intervals", "parts"], default="intervals")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--part-rows", type=int, nargs="+", default=[50, 100, 200, 400])
    a = ap.parse_args()
    problem = Binarizer("all").problem(load_dataset(str(paths(a.set)[0])))
    search = new_search(problem, Deadline(None), None, n_jobs=1)
    print(f"{a.set}: {search.counts.shape[0]} distinct rows, {search.B} binary columns, depth {a.depth}")
    if a.bound == "intervals":
        intervals(search, a.depth, a.seconds)
    else:
        parts(search, a.depth, a.part_rows, min(a.seconds, 30.0))


if __name__ == "__main__":
    main()
