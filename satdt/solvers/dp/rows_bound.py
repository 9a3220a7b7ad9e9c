"""A lower bound from a sample of the rows, grown by the rows its optimum gets wrong.

No tree costs less on a subset ``R`` of the rows than on all of them (each row adds ``q`` times
its misclassified weight, never less than 0, and the leaves cost the same), so the optimum on
``R``, proven by the complete search on ``R``'s rows, is a lower bound of the whole problem's
optimum: ``opt(R) <= opt(all rows)``. This is incremental example addition (Avellaneda [6]: solve
on a few rows, add rows the tree gets wrong, solve again) used for the bound instead of for
consistency:

1. ``R`` starts as ``FIRST_ROWS`` distinct rows drawn at random (a fixed seed).
2. :meth:`RowsBound.step` solves ``R`` exactly at the problem's depth, with the incumbent's cost
   as upper bound, for at most the time given. Finished with a tree ``T`` of cost ``opt(R)``: the
   bound is ``opt(R)``; the rows outside ``R`` that ``T`` gets wrong are the ones that raise it,
   and a share of them (``GROWTH`` of ``|R|``, at least ``MIN_GROWTH``, drawn at random) joins
   ``R``. When there are none, ``T`` costs on all rows what it costs on ``R``: it is optimal.
   Finished without a tree: no tree on ``R`` costs less than the incumbent, which is optimal.
   Cut by the time: the search's proven bound on ``R`` (its top-level roots' bounds) still
   counts, and the next step resumes on the same ``R`` with twice the time (the memo keeps what
   was solved: subproblems whose rows the growth does not touch are hits after it too).

On noisy data the bound stays far below the optimum (a few hundred rows are what the exact
search can take at depth 4-6 within seconds, and their optimum has few errors); where the optimum
has few errors (a consistent tree but for a handful of rows) it often reaches it: a proof that
the complete search on all rows would take far longer to give.

References are numbered as in ``satdt/REFERENCES.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...tree import Node
from .search import SearchBase

__all__ = ["RowsBound", "RowsStep", "FIRST_ROWS", "GROWTH", "MIN_GROWTH"]

FIRST_ROWS = 64    # distinct rows of the first sample
GROWTH = 0.125     # rows added after a finished step, as a share of the sample
MIN_GROWTH = 16    # ... and at least this many (all the rows the optimum gets wrong, if fewer)


@dataclass
class RowsStep:
    """What one :meth:`RowsBound.step` proved: ``bound`` (a lower bound of the whole problem's
    optimum, or None), ``optimal`` (a tree of that cost on all rows, when the sample's optimum
    gets no other row wrong: ``node``), ``beyond`` (no tree costs less than the upper bound)."""

    bound: float | None
    node: Node | None = None
    optimal: bool = False
    beyond: bool = False


class RowsBound:
    """The sample ``R`` of distinct rows and its solves on ``search`` (see the module docstring).

    Parameters
    ----------
    search : SearchBase
        The compiled search of the problem (its memo holds the sample's subproblems).
    d : int
        The depth of the trees.
    seed : int
        Of the random draws (the first sample, the rows added).
    """

    def __init__(self, search: SearchBase, d: int, seed: int = 0):
        self.search, self.d = search, int(d)
        self._rng = np.random.default_rng(seed)
        n = search.counts.shape[0]
        self.rows = np.sort(self._rng.choice(n, size=min(FIRST_ROWS, n), replace=False)).astype(np.int64)
        self.cap_factor = 1.0  # doubled after every step cut by its time
        self.bound: float | None = None
        self.steps = 0

    def step(self, ub: float, cap: float) -> RowsStep:
        """Solve the sample for at most ``cap * cap_factor`` seconds with upper bound ``ub`` (the
        incumbent's cost), then grow it (see the module docstring)."""
        self.steps += 1
        out = self.search.run(self.d, ub, rows=self.rows, time_cap=cap * self.cap_factor)
        if not out.finished:
            self.cap_factor *= 2
            return self._raise(out.bound)
        self.cap_factor = 1.0
        if out.node is None:  # opt(R) >= ub: nothing beats the incumbent
            return RowsStep(self._raise(ub).bound, beyond=True)
        wrong = np.setdiff1d(self._wrong(out.node), self.rows, assume_unique=True)
        if wrong.size == 0:  # the sample's optimum costs as much on every row: it is optimal
            return RowsStep(self._raise(out.cost).bound, out.node, optimal=True)
        take = min(wrong.size, max(MIN_GROWTH, int(GROWTH * self.rows.size)))
        self.rows = np.union1d(self.rows, self._rng.choice(wrong, size=take, replace=False))
        return self._raise(out.cost)

    def _raise(self, bound: float | None) -> RowsStep:
        if bound is not None and (self.bound is None or bound > self.bound):
            self.bound = float(bound)
        return RowsStep(self.bound)

    def _wrong(self, node: Node) -> np.ndarray:
        """The distinct rows holding a row that ``node`` misclassifies."""
        search, counts = self.search, self.search.counts
        out = []

        def route(node: Node, S: np.ndarray) -> None:
            if S.size == 0:
                return
            if node.is_leaf:
                out.append(S[counts[S].sum(1) > counts[S, node.label]])
                return
            right = search.goes_right_binary(S, node.feature)
            route(node.left, S[~right])
            route(node.right, S[right])

        route(node, np.arange(counts.shape[0], dtype=np.int64))
        return np.sort(np.concatenate(out)) if out else np.zeros(0, np.int64)
