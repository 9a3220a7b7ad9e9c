"""DT_size (Avellaneda, AAAI-20 [6]): the depth-K encoding plus a counter of used nodes.

The perfect tree of depth ``K`` of :mod:`satdt.encodings.sat_depth` gets one extra binary
column, the *leaf marker*, False for every row: a node that tests it sends every row left, i.e.
it is not a split of the real tree. A tree of depth ``<= K`` with ``S`` splits embeds into the
perfect tree by putting its splits at their own positions and the leaf marker at every node
below a real leaf.

Clause families on top of those of :class:`~satdt.encodings.sat_depth.DepthEncoding`
------------------------------------------------------------------------------------
*Leaf closure* (built by ``DepthEncoding`` whenever the marker is on; symmetry breaking that
makes the count exact): ``not m[v] or m[child]`` for each internal node ``v`` and internal
child, where ``m[v] = a[v, marker]``. Then every node that does not test the marker is
reachable and is a split of the real tree.

*Used-node counter*: ``sum_v not m[v] <= S`` (at most ``S`` splits, i.e. at most ``2S + 1``
nodes), with an incremental totalizer [19] (:class:`pysat.card.ITotalizer`, PySAT [12]) whose
output literal ``rhs[S]`` ("at least S + 1 splits") is negated as an assumption: one solver serves every
bound ``S``, and rows added for one bound stay for the next.
"""

from __future__ import annotations

import numpy as np
from pysat.card import ITotalizer

from .sat_depth import ClauseBlock, DepthEncoding

__all__ = ["SizeEncoding"]


class SizeEncoding(DepthEncoding):
    """Depth-``K`` perfect tree with a leaf marker and a bound on the number of splits.

    Parameters are those of :class:`DepthEncoding` (``leaf_marker`` is always on).
    """

    def __init__(self, X: np.ndarray, labels: np.ndarray, n_classes: int, depth: int, **kwargs):
        kwargs["leaf_marker"] = True
        super().__init__(X, labels, n_classes, depth, **kwargs)
        self.totalizer: ITotalizer | None = None

    @property
    def marker_vars(self) -> np.ndarray:
        """``m[v]``: node ``v`` is not a split (tests the leaf marker)."""
        return self.a[:, self.marker]

    def split_literals(self) -> list[int]:
        """One literal per internal node, true when the node is a split."""
        return (-self.marker_vars).tolist()

    def counter_clauses(self, upper: int) -> list[ClauseBlock]:
        """Build the totalizer over the split literals, able to bound the count by ``upper - 1``.

        Returns its clauses; call once.
        """
        upper = max(1, min(int(upper), self.n_internal))
        self.totalizer = ITotalizer(lits=self.split_literals(), ubound=upper, top_id=self.pool.top)
        self.pool.top = max(self.pool.top, self.totalizer.top_id)
        return [self.totalizer.cnf.clauses]

    def at_most(self, splits: int) -> list[int]:
        """Assumptions for "at most ``splits`` splits" (empty when the counter cannot bind)."""
        if self.totalizer is None:
            raise RuntimeError("call counter_clauses first")
        rhs = self.totalizer.rhs
        if splits >= len(rhs):
            return []
        return [-rhs[splits]]
