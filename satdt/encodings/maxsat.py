"""Weighted MaxSAT: the most accurate perfect tree of depth d (Avellaneda's clauses [6], soft
labels).

Solved by PySAT's RC2 [12, 13] in :mod:`satdt.solvers.maxsat`.

Hard clauses are those of :class:`~satdt.encodings.sat_depth.DepthEncoding` for every distinct
row (feature selection and *feature clauses*), with the *class clauses* replaced by
*prediction clauses*: for each distinct row ``e`` and each class ``c`` that occurs in it, a
variable ``p[e, c]`` ("row e is predicted class c") with

``not path(e, t)  or  not p[e, c]  or  (c[t, b] if bit b of c else not c[t, b])``

for every leaf ``t`` and class bit ``b``. Soft clauses: the unit ``p[e, c]`` with weight
``counts[e, c]`` (the original rows of class ``c`` merged into ``e``). A row reaches one leaf,
which has one class, so at most one ``p[e, c]`` holds per row and the cost of a model, the
weight of the falsified soft clauses, is the number of misclassified original rows. For a
distinct row of a single class this is the one soft clause "this row is classified correctly",
weighted by its count.
"""

from __future__ import annotations

import numpy as np
from pysat.formula import WCNF

from .sat_depth import ClauseBlock, DepthEncoding, new_block

__all__ = ["MaxSatEncoding"]


class MaxSatEncoding(DepthEncoding):
    """Depth-``d`` perfect tree, every distinct row, soft "row classified as class c" clauses.

    Parameters
    ----------
    X : ndarray of bool, shape (m, B)
    counts : ndarray of int, shape (m, C)
        Original rows of each class per distinct row.
    depth : int
    **kwargs
        ``pool``, ``at_most_one`` of :class:`DepthEncoding`.
    """

    def __init__(self, X: np.ndarray, counts: np.ndarray, depth: int, **kwargs):
        counts = np.asarray(counts, dtype=np.int64)
        super().__init__(X, np.argmax(counts, axis=1), counts.shape[1], depth, **kwargs)
        self.counts = counts
        self.pair_row, self.pair_class = np.nonzero(counts)      # (row, class) pairs with weight
        self.pair_weight = counts[self.pair_row, self.pair_class]
        self.p = np.zeros(0, dtype=np.int64)

    def hard_clauses(self) -> list[ClauseBlock]:
        """Feature selection, feature clauses of every row, prediction clauses."""
        rows = np.arange(self.X.shape[0])
        self.added[rows] = True
        z = new_block(self.pool, (rows.size, self.depth))
        self.z[rows] = z
        blocks = self.structure_clauses()
        blocks += [self._feature_clauses(rows, z, level) for level in range(self.depth)]
        blocks.append(self._prediction_clauses())
        return blocks

    def _prediction_clauses(self) -> np.ndarray:
        """Shape (pairs * 2**d * n_bits, d + 2)."""
        k = self.depth
        self.p = new_block(self.pool, (self.pair_row.size,))
        out = np.empty((self.p.size, self.n_leaves, self.n_bits, k + 2), dtype=np.int64)
        out[..., :k] = self._not_path(self.z[self.pair_row], self._prefix[k])[:, :, None, :]
        out[..., k] = -self.p[:, None, None]
        code = self._code[self.pair_class]
        out[..., k + 1] = np.where(code[:, None, :], self.c[None, :, :], -self.c[None, :, :])
        return out.reshape(-1, k + 2)

    def soft_clauses(self) -> tuple[np.ndarray, np.ndarray]:
        """Soft unit literals ``p[e, c]`` and their weights ``counts[e, c]``."""
        return self.p, self.pair_weight

    def wcnf(self) -> WCNF:
        """The whole formula as a :class:`pysat.formula.WCNF`."""
        formula = WCNF()
        for block in self.hard_clauses():
            formula.extend(block.tolist() if isinstance(block, np.ndarray) else block)
        lits, weights = self.soft_clauses()
        formula.extend([[lit] for lit in lits.tolist()], weights=weights.tolist())
        return formula

    def errors_of(self, feature: np.ndarray, leaf_class: np.ndarray) -> int:
        """Weighted errors of the decoded perfect tree on the distinct rows."""
        pred = leaf_class[self.leaf_of(feature)]
        return int(self.counts.sum() - self.counts[np.arange(self.counts.shape[0]), pred].sum())
