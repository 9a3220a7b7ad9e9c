"""A MIP in arrays, independent of any engine: the container every MIP encoding builds.

:class:`MipModel` holds ``min obj @ x + offset`` subject to ``row_lb <= A x <= row_ub``, variable
bounds and integrality, with variables and constraints added in numpy blocks (no per-coefficient
Python loop). The encodings (:mod:`satdt.encodings.mip_binoct`, :mod:`satdt.encodings.mip_oct`)
build one; :mod:`satdt.solvers.mip` hands it to an OR-tools engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["MipModel"]


@dataclass
class MipModel:
    """A MIP in arrays: ``min obj @ x + offset`` s.t. ``row_lb <= A x <= row_ub``, bounds, integrality.

    Variables and constraints are added in blocks; constraints as COO triplets with block-local
    row numbers. :meth:`matrix` gives the CSR matrix (duplicates summed, indices sorted).
    """

    var_lb: list = field(default_factory=list)
    var_ub: list = field(default_factory=list)
    var_int: list = field(default_factory=list)
    obj: list = field(default_factory=list)
    n_vars: int = 0
    rows: list = field(default_factory=list)
    cols: list = field(default_factory=list)
    vals: list = field(default_factory=list)
    row_lb: list = field(default_factory=list)
    row_ub: list = field(default_factory=list)
    n_cons: int = 0
    offset: float = 0.0
    families: dict = field(default_factory=dict)

    def add_vars(self, shape: tuple[int, ...] | int, lb: float, ub: float, integer: bool,
                 obj: float | np.ndarray = 0.0) -> np.ndarray:
        """A block of variables; returns their indices with the given ``shape``."""
        size = int(np.prod(shape))
        idx = np.arange(self.n_vars, self.n_vars + size, dtype=np.int64).reshape(shape)
        self.var_lb.append(np.full(size, lb, dtype=float))
        self.var_ub.append(np.full(size, ub, dtype=float))
        self.var_int.append(np.full(size, integer, dtype=bool))
        self.obj.append(np.broadcast_to(np.asarray(obj, dtype=float), (size,)).ravel().copy()
                        if np.ndim(obj) else np.full(size, float(obj)))
        self.n_vars += size
        return idx

    def add_cons(self, family: str, rows: np.ndarray, cols: np.ndarray, vals: np.ndarray,
                 lb: np.ndarray | float, ub: np.ndarray | float, n: int) -> None:
        """Add ``n`` constraints ``lb <= sum vals * x[cols] <= ub`` given as COO with rows in [0, n)."""
        if n == 0:
            return
        self.__dict__.pop("_matrix", None)
        rows = np.asarray(rows, dtype=np.int64).ravel()
        self.rows.append(rows + self.n_cons)
        self.cols.append(np.asarray(cols, dtype=np.int64).ravel())
        self.vals.append(np.broadcast_to(np.asarray(vals, dtype=float), rows.shape).ravel())
        self.row_lb.append(np.broadcast_to(np.asarray(lb, dtype=float), (n,)).ravel())
        self.row_ub.append(np.broadcast_to(np.asarray(ub, dtype=float), (n,)).ravel())
        self.families[family] = self.families.get(family, 0) + n
        self.n_cons += n

    def bounds(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Variable lower bounds, upper bounds, integrality and objective coefficients."""
        cat = lambda parts, dt: np.concatenate(parts).astype(dt) if parts else np.empty(0, dt)  # noqa: E731
        return cat(self.var_lb, float), cat(self.var_ub, float), cat(self.var_int, bool), cat(self.obj, float)

    def matrix(self, keep: bool = False):
        """Constraint matrix (scipy CSR, canonical) and its row bounds.

        Made once for :meth:`stats` and the engine's load (seconds for 10^7 nonzeros): ``keep``
        stores it for the next call, which takes it back (so the engine's copy is not doubled
        by a cached one); adding constraints drops it.
        """
        cached = self.__dict__.pop("_matrix", None)
        if cached is not None and cached[0].shape == (self.n_cons, self.n_vars):
            if keep:
                self.__dict__["_matrix"] = cached
            return cached
        out = self._build_matrix()
        if keep:
            self.__dict__["_matrix"] = out
        return out

    def _build_matrix(self):
        from scipy.sparse import csr_matrix

        cat = lambda parts, dt: np.concatenate(parts).astype(dt) if parts else np.empty(0, dt)  # noqa: E731
        A = csr_matrix((cat(self.vals, float), (cat(self.rows, np.int64), cat(self.cols, np.int64))),
                       shape=(self.n_cons, self.n_vars))
        A.sum_duplicates()
        A.sort_indices()
        A.eliminate_zeros()
        return A, cat(self.row_lb, float), cat(self.row_ub, float)

    def check(self, x: np.ndarray, tol: float = 1e-6) -> bool:
        """Is ``x`` feasible (bounds, integrality, constraints)?"""
        lb, ub, integer, _ = self.bounds()
        A, rlb, rub = self.matrix()
        ax = A @ x
        return bool(np.all(x >= lb - tol) and np.all(x <= ub + tol)
                    and np.all(np.abs(x[integer] - np.round(x[integer])) <= tol)
                    and np.all(ax >= rlb - tol) and np.all(ax <= rub + tol))

    def stats(self) -> dict:
        A, _, _ = self.matrix(keep=True)
        _, _, integer, _ = self.bounds()
        return {"variables": int(self.n_vars), "integer_variables": int(integer.sum()),
                "constraints": int(self.n_cons), "nonzeros": int(A.nnz),
                "constraint_families": dict(self.families)}
