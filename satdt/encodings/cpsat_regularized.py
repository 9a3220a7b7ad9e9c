"""The regularized objective of OSDT/GOSDT [4, 5] as an exact CP-SAT [14] model over trees of any
shape.

Objective: ``errors / n + lam * leaves`` over every tree of depth ``<= D`` on the binary columns
of a :class:`~satdt.binarize.BinaryProblem` (errors weighted by the merged row counts, ``n`` the
number of original rows).

Tree skeleton
-------------
The complete binary tree of depth ``D`` in heap order: position ``t`` at level
``l = floor(log2(t + 1))`` has children ``2t+1`` (left, column False) and ``2t+2`` (right,
column True); positions ``0 .. 2**D - 2`` are *internal positions*, the ``2**D`` positions of
level ``D`` can only be leaves. Every position is a split, a leaf, or absent, so every tree shape
of depth ``<= D`` has exactly one representation.

Variables (one :class:`ortools.sat.python.cp_model.CpModel`, kept in numpy object arrays)
--------------------------------------------------------------------------------------------
``a[t, j]``
    internal position ``t`` splits on binary column ``j`` (*split variables*).
``s[t]``
    ``t`` is a split, ``s[t] = sum_j a[t, j]`` (*split indicator*; 0 at level ``D``).
``c[t, k]``
    ``t`` is a leaf of class ``k`` (*label variables*); ``leaf[t] = sum_k c[t, k]``.
``p[t, g, k]``
    *chain prefixes*: the binary columns of one numeric feature sorted by threshold form a
    chain ``g`` whose right-going row sets are nested, so a row goes right at ``t`` through
    chain ``g`` iff ``t`` splits on one of the first ``k`` columns of ``g`` (``k`` = the number of
    the chain's columns on which the row is True): one *term* per chain instead of one per
    column. Other columns are terms of their own.
``z[i, l]``
    distinct row ``i`` goes right at level ``l`` (*direction variables*, one per level as in
    Avellaneda's DT_depth encoding [6]).
``reach[i, t]``
    distinct row ``i`` reaches position ``t`` (*path variables*; the root is reached by all).
``err[u]``
    *unit* ``u`` (a distinct row ``i`` with one class ``k`` it has rows of, weight
    ``counts[i, k]``) is misclassified (*error variables*).

Constraint families
-------------------
*Shape*: ``s[0] + leaf[0] = 1``; ``s[child] + leaf[child] = s[t]`` (a child exists exactly when
its parent splits); ``sum_j a[t, j] = s[t]``; ``sum_k c[t, k] = leaf[t]``.

*Chain prefixes*: ``p[t, g, k] = p[t, g, k-1] + a[t, g_{k-1}]``.

*Direction clauses* (row ``i`` at internal ``t`` of level ``l``, terms ``T_i`` of the row):
``reach[i, t] and v -> z[i, l]`` for each ``v`` in ``T_i``, and
``reach[i, t] and z[i, l] -> OR T_i``.

*Path equivalences*: ``reach[i, 2t+1] <-> reach[i, t] and s[t] and not z[i, l]``,
``reach[i, 2t+2] <-> reach[i, t] and s[t] and z[i, l]`` (each row reaches exactly one leaf).

*Error clauses*: ``reach[i, t] and leaf[t] -> c[t, k_u] or err[u]`` for each unit ``u`` of row
``i`` and position ``t``.

Errors ``= sum_u w_u err[u]`` (at an optimum exactly the misclassified rows).

Exact integer objective (:func:`engine_lambda`, :func:`set_objective`)
--------------------------------------------------------------------
The float ``lam`` is read as the exact rational ``Fraction(lam)``. Two trees with errors
``e1, e2`` and leaves ``L1, L2`` compare by the sign of ``(e1 - e2) + lam * n * (L1 - L2)``,
i.e. by the position of ``lam`` against the fractions ``(e2 - e1) / (n (L1 - L2))``, whose
denominators are at most ``N = n (2**D - 1)``. :func:`engine_lambda` replaces ``lam`` by the
simplest rational ``p / q`` that lies on the same side of (or equals) every fraction of
denominator ``<= N`` (``lam`` itself if its denominator is ``<= N``, else the mediant of its two
neighbours in the Farey sequence of order ``N``; ``2`` when ``lam > 1``, where the order is
lexicographic in (leaves, errors)). The model minimizes the integer
``q * errors + p * n * leaves``: it orders all trees exactly as ``errors / n + lam * leaves``,
ties included, so its optima are exactly the optima of the real objective (and
:meth:`ScaledObjective.lower_bound` turns an engine bound back into an exact bound).

OSDT necessary conditions as constraints (``lam > 0``; :func:`add_osdt_bounds`)
------------------------------------------------------------------------------
Every optimal tree satisfies them, so they cut no optimum:

* *Support* (OSDT Theorem 3.3, from leaf accuracy, Theorem 3.5; off by default: on monk1 it
  made the solve 3-5x slower): a non-root leaf classifies at least ``K = ceil(lam * n)`` rows
  correctly (otherwise replacing its parent by its sibling subtree is strictly better), so it
  has support ``>= K`` and every split ``>= 2K``:
  ``sum_i w_i reach[i, t] >= K * (leaf[t] + 2 s[t])``.
* *Leaf count*: ``lam * leaves <=`` the objective of the best single leaf.
* *Sibling leaves differ* (symmetry breaking): ``c[left, k] + c[right, k] <= 1`` (two sibling
  leaves of one class merge into one leaf with the same errors and one leaf less).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

import numpy as np
from ortools.sat.python import cp_model

from .. import heaptree
from ..binarize import BinaryProblem
from ..deadline import DeadlineExpired
from ..objectives import (ScaledObjective, engine_lambda, exact_objective,  # noqa: F401 (re-exported)
                          farey_neighbours, scaled_objective)
from ..tree import Tree

__all__ = ["RegularizedEncoding", "build_model", "set_objective", "add_osdt_bounds",
           "engine_lambda", "farey_neighbours", "ScaledObjective", "scaled_objective",
           "threshold_chains", "exact_objective", "BuildInterrupted"]


class BuildInterrupted(DeadlineExpired, RuntimeError):
    """``build_model`` stopped because its ``should_stop`` callback said so (time limit); one of
    the :class:`~satdt.deadline.DeadlineExpired` family (a ``RuntimeError`` too, as before)."""


# ---------------------------------------------------------------------- column structure

def threshold_chains(problem: BinaryProblem) -> list[np.ndarray]:
    """The chains of nested columns: :meth:`BinaryProblem.threshold_chains` (a row is True on a
    prefix of each chain, read from the thresholds alone, no binary matrix)."""
    return list(problem.threshold_chains())


# ---------------------------------------------------------------------- the model

@dataclass
class RegularizedEncoding:
    """The CP-SAT model and its variables (see the module docstring for the families)."""

    problem: BinaryProblem
    max_depth: int
    model: cp_model.CpModel
    a: np.ndarray            # (n_internal, B) split variables
    s: list                  # (n_positions,) split indicators (0 at level D)
    c: np.ndarray            # (n_positions, C) label variables
    leaf: list               # (n_positions,) leaf indicators
    z: np.ndarray            # (m, D) direction variables
    reach: np.ndarray        # (m, n_positions) path variables (column 0 unused: the root)
    err: list                # (U,) error variables
    prefix: list             # per internal position, (prefix variable, its columns)
    unit_row: np.ndarray
    unit_class: np.ndarray
    unit_weight: np.ndarray
    chains: list[np.ndarray]
    n_rows: int
    stats: dict = field(default_factory=dict)
    osdt_lams: list = field(default_factory=list)

    @property
    def n_internal(self) -> int:
        return 2 ** self.max_depth - 1

    @property
    def n_positions(self) -> int:
        return 2 ** (self.max_depth + 1) - 1

    @property
    def max_leaves(self) -> int:
        return 2 ** self.max_depth

    def errors_expr(self) -> cp_model.LinearExpr:
        """Misclassified original rows (weighted error variables)."""
        return cp_model.LinearExpr.weighted_sum(self.err, self.unit_weight.tolist())

    def leaves_expr(self) -> cp_model.LinearExpr:
        return cp_model.LinearExpr.sum(self.leaf)

    # ------------------------------------------------------------- decode / hint
    def decode(self, value) -> Tree:
        """The tree over the binary columns given a ``value(var) -> bool`` function."""

        def split_of(t: int) -> int | None:
            return next((j for j in range(self.a.shape[1]) if value(self.a[t, j])), None)

        def label_of(t: int) -> int:
            return next((k for k in range(self.c.shape[1]) if value(self.c[t, k])), 0)

        return heaptree.decode(self.max_depth, split_of, label_of, self.problem.classes)

    def hint_values(self, tree: Tree) -> dict:
        """A complete assignment (variable -> 0/1) describing ``tree`` (binary columns,
        depth <= D, in the positions of the skeleton)."""
        if tree.depth() > self.max_depth:
            raise ValueError(f"hint tree has depth {tree.depth()} > max_depth {self.max_depth}")
        X = self.problem.X
        m, B = X.shape[0], self.a.shape[1]
        P, I, D = self.n_positions, self.n_internal, self.max_depth
        split_col = np.full(P, -1)
        label = np.full(P, -1)
        reach = np.zeros((m, P), dtype=bool)
        zval = np.zeros((m, max(D, 1)), dtype=bool)
        for node, t, rows in heaptree.positions(tree, X):
            reach[:, t] = rows
            if node.is_leaf:
                label[t] = node.label
                continue
            split_col[t] = node.feature
            zval[rows, heaptree.level(t)] = X[rows, node.feature]
        final_label = np.full(m, -1)
        for t in np.flatnonzero(label >= 0):
            final_label[reach[:, t]] = label[t]
        # a prefix variable (chain[:k]) is 1 when the split's column is among the chain's first k:
        # read from the column's place in its chain (summing each prefix was quadratic in the
        # chain's length: 29 s for htru's 12,000-threshold chains at depth 4)
        place = {int(col): (int(chain[0]), i) for chain in self.chains for i, col in enumerate(chain)}
        vals: dict = {}
        for t in range(I):
            chosen = np.zeros(B, dtype=np.int64)
            first, index = -1, -1
            if split_col[t] >= 0:
                chosen[split_col[t]] = 1
                first, index = place[int(split_col[t])]
            vals.update(zip(self.a[t], chosen.tolist()))
            for var, cols in self.prefix[t]:
                vals[var] = int(int(cols[0]) == first and len(cols) > index)
            vals[self.s[t]] = int(split_col[t] >= 0)
        for t in range(P):
            vals[self.leaf[t]] = int(label[t] >= 0)
            onehot = (np.arange(self.c.shape[1]) == label[t]).astype(int)
            vals.update(zip(self.c[t], onehot.tolist()))
        for t in range(1, P):
            vals.update(zip(self.reach[:, t], reach[:, t].astype(int).tolist()))
        for l in range(D):
            vals.update(zip(self.z[:, l], zval[:, l].astype(int).tolist()))
        wrong = final_label[self.unit_row] != self.unit_class
        vals.update(zip(self.err, wrong.astype(int).tolist()))
        return vals


def _bool_array(model: cp_model.CpModel, shape: tuple[int, ...], name: str,
                check: Callable[[], None] | None = None) -> np.ndarray:
    """Boolean variables of ``shape``; ``check`` is called every 20,000 (about 0.1 s)."""
    size = int(np.prod(shape))
    out = np.empty(size, dtype=object)
    step = 20_000
    for lo in range(0, size, step):
        if check is not None:
            check()
        out[lo:lo + step] = [model.new_bool_var(f"{name}{k}") for k in range(lo, min(size, lo + step))]
    return out.reshape(shape)


def _row_terms(problem: BinaryProblem, chains: list[np.ndarray]
               ) -> tuple[list[np.ndarray], list[list[int]]]:
    """The terms (column prefixes of the chains) and, per distinct row, the terms on which it
    goes right (from the original features: the length of a row's True prefix in a chain is the
    number of the chain's thresholds below its value)."""
    values = np.asarray(problem.data.X[problem.first], dtype=float)
    term_cols: list[np.ndarray] = []
    per_chain: list[np.ndarray] = []
    for cols in chains:
        if len(cols) == 1:
            ones = problem.tests[int(cols[0])].column(values).astype(np.int64)
        else:                                    # length of the row's True prefix in the chain
            thresholds = np.array([problem.tests[int(j)].threshold for j in cols])
            ones = np.searchsorted(thresholds, values[:, problem.tests[int(cols[0])].feature], side="left")
        base = len(term_cols)
        term_cols.extend(cols[:k] for k in range(1, len(cols) + 1))
        per_chain.append(np.where(ones > 0, base + ones - 1, -1))
    if not per_chain:
        return term_cols, [[] for _ in range(problem.n_distinct)]
    table = np.column_stack(per_chain)
    return term_cols, [row[row >= 0].tolist() for row in table]


def _term_vars(model: cp_model.CpModel, a_t: np.ndarray, term_cols: list[np.ndarray], t: int,
               check: Callable[[], None] | None = None) -> tuple[list, list]:
    """Term variables of one internal position (chain prefixes defined on the fly); ``check``
    is called every 10,000 terms (magic has 120,000 a position, ~2 s)."""
    term_var: list = []
    prefix: list = []
    for g, cols in enumerate(term_cols):
        if check is not None and g % 10_000 == 9_999:
            check()
        if len(cols) == 1:
            term_var.append(a_t[cols[0]])
        else:
            v = model.new_bool_var(f"p{t}_{g}")
            model.add(v == term_var[g - 1] + a_t[cols[-1]])
            prefix.append((v, cols))
            term_var.append(v)
    return term_var, prefix


def build_model(problem: BinaryProblem, max_depth: int,
                should_stop: Callable[[], bool] | None = None) -> RegularizedEncoding:
    """Build the shape, prefix, direction, path and error families (no objective yet).

    ``should_stop`` is polled once per position; when it returns True the build raises
    :class:`BuildInterrupted` (so a time limit also bounds the model building).
    """

    def check() -> None:
        if should_stop is not None and should_stop():
            raise BuildInterrupted("model building stopped at the time limit")

    if max_depth < 0:
        raise ValueError(f"max_depth must be >= 0, got {max_depth}")
    model = cp_model.CpModel()
    X, counts = problem.X, problem.counts
    m, B = X.shape
    C = counts.shape[1]
    D = max_depth
    I, P = 2 ** D - 1, 2 ** (D + 1) - 1
    B_eff = B if I > 0 else 0

    unit_row, unit_class = np.nonzero(counts)
    unit_weight = counts[unit_row, unit_class]
    U = len(unit_row)
    units_of_row = [np.flatnonzero(unit_row == i) for i in range(m)]

    a = _bool_array(model, (I, B_eff), "a", check)
    c = _bool_array(model, (P, C), "c", check)
    leaf = list(_bool_array(model, (P,), "leaf"))
    s: list = [model.new_bool_var(f"s{t}") for t in range(I)] + [0] * (P - I)
    z = _bool_array(model, (m, D), "z", check)
    reach = np.empty((m, P), dtype=object)
    if P > 1:
        reach[:, 1:] = _bool_array(model, (m, P - 1), "reach", check)
    err = list(_bool_array(model, (U,), "err", check))
    check()

    # shape
    for t in range(P):
        model.add(cp_model.LinearExpr.sum(list(c[t])) == leaf[t])
    for t in range(I):
        model.add(cp_model.LinearExpr.sum(list(a[t])) == s[t])
    model.add(s[0] + leaf[0] == 1)
    for t in range(1, P):
        model.add(s[t] + leaf[t] == s[(t - 1) // 2])

    chains = list(problem.threshold_chains()) if B_eff else []
    term_cols, row_terms = _row_terms(problem, chains)
    prefix: list = []
    for t in range(I):
        check()
        term_var, pre = _term_vars(model, a[t], term_cols, t, check)
        prefix.append(pre)
        l, st = heaptree.level(t), s[t]
        for i in range(m):
            if i % 2000 == 1999:
                check()
            zi = z[i, l]
            lc, rc = reach[i, 2 * t + 1], reach[i, 2 * t + 2]
            terms = [term_var[g] for g in row_terms[i]]
            if t == 0:
                for v in terms:                                       # direction clauses
                    model.add_implication(v, zi)
                model.add_bool_or(terms + [~zi])
                model.add_bool_and([st, ~zi]).only_enforce_if(lc)     # path equivalences
                model.add_bool_or([~st, zi, lc])
                model.add_bool_and([st, zi]).only_enforce_if(rc)
                model.add_bool_or([~st, ~zi, rc])
            else:
                rt = reach[i, t]
                for v in terms:
                    model.add_bool_or([~rt, ~v, zi])
                model.add_bool_or(terms + [~zi, ~rt])
                model.add_bool_and([rt, st, ~zi]).only_enforce_if(lc)
                model.add_bool_or([~rt, ~st, zi, lc])
                model.add_bool_and([rt, st, zi]).only_enforce_if(rc)
                model.add_bool_or([~rt, ~st, ~zi, rc])
    # error clauses
    for t in range(P):
        check()
        lt, ct = leaf[t], c[t]
        for i in range(m):
            path = [] if t == 0 else [~reach[i, t]]
            for u in units_of_row[i]:
                model.add_bool_or(path + [~lt, ct[unit_class[u]], err[u]])

    enc = RegularizedEncoding(problem=problem, max_depth=D, model=model, a=a, s=s, c=c, leaf=leaf,
                              z=z, reach=reach, err=err, prefix=prefix, unit_row=unit_row,
                              unit_class=unit_class, unit_weight=unit_weight, chains=chains,
                              n_rows=int(problem.n_rows))
    enc.stats = {"positions": P, "binary_columns": B, "distinct_rows": m, "units": U,
                 "chains": len(chains), "routing_terms": int(sum(len(r) for r in row_terms)),
                 "variables": len(model.proto.variables),
                 "constraints": len(model.proto.constraints)}
    return enc


def add_osdt_bounds(enc: RegularizedEncoding, lam: float | Fraction, *, support: bool = False,
                    leaf_count: bool = True, symmetry: bool = True) -> None:
    """Add the OSDT necessary conditions valid for every optimum at every lambda >= ``lam``.

    Support (Theorems 3.3 / 3.5), the leaf-count bound and sibling-label symmetry breaking;
    see the module docstring. Nothing for ``lam = 0``. Calls with increasing lambdas add the
    stronger bounds (the older ones stay valid).
    """
    lam = Fraction(lam)
    if lam <= 0:
        return
    model, n = enc.model, enc.n_rows
    K = math.ceil(lam * n)
    P = enc.n_positions
    w = enc.problem.weights.tolist()
    if support and K > 1:
        for t in range(1, P):
            support = cp_model.LinearExpr.weighted_sum(list(enc.reach[:, t]), w)
            model.add(support >= K * enc.leaf[t] + 2 * K * enc.s[t])
    e1 = int(enc.problem.counts.sum() - enc.problem.counts.sum(axis=0).max())
    max_leaves = math.floor(Fraction(e1, n) / lam) + 1
    if leaf_count and max_leaves < enc.max_leaves:
        model.add(enc.leaves_expr() <= max_leaves)
    if symmetry and not enc.osdt_lams:
        for t in range(enc.n_internal):
            for k in range(enc.c.shape[1]):
                model.add(enc.c[2 * t + 1, k] + enc.c[2 * t + 2, k] <= 1)
    enc.osdt_lams.append(lam)


def set_objective(enc: RegularizedEncoding, lam: float | Fraction) -> ScaledObjective:
    """Minimize ``q * errors + p * n * leaves`` with ``p / q = engine_lambda(lam)``
    (replaces any previous objective)."""
    scaled = scaled_objective(lam, enc.n_rows, enc.max_depth)
    enc.model.clear_objective()
    enc.model.minimize(scaled.q * enc.errors_expr() + (scaled.p * scaled.n) * enc.leaves_expr())
    return scaled
