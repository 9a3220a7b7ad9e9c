"""OCT: optimal classification trees as a MIP (Bertsimas & Dunn, Machine Learning 2017 [8]),
axis-aligned.

Pure model building: :func:`build_oct` returns a solver-neutral
:class:`~satdt.encodings.mip_model.MipModel` and the index arrays to read a tree back or write a
warm start (over the heap positions of :mod:`satdt.heaptree`); :mod:`satdt.solvers.mip` solves it.

The formulation over a :class:`~satdt.binarize.BinaryProblem`
--------------------------------------------------------------
Complete tree of depth ``D``: branch nodes ``t = 0 .. 2^D - 2`` (heap order), leaves
``0 .. 2^D - 1``. The features are the binary columns (``x[i, j]`` in {0, 1}, True = right),
so OCT's per-feature gaps are ``eps_j = eps_min = eps_max = 1`` and its threshold ``b_t`` lives in
[0, 1]: a used split has ``b_t = 1`` (left: ``x = 0``, right: ``x = 1``); an unused one sends every
row right, as in OCT.

Variables (OCT's names)
    ``a[t, j]`` binary, split of node ``t`` on column ``j``; ``d[t]`` binary, node ``t`` splits;
    ``b[t]`` in [0, 1], threshold; ``z[i, l]`` binary, distinct row ``i`` in leaf ``l``;
    ``lnz[l]`` binary (OCT's ``l_t``), leaf ``l`` holds rows; ``c[l, k]`` binary, leaf label;
    ``L[l]`` >= 0, misclassified rows at leaf ``l``. OCT's ``N_kt = sum_i counts[i, k] z[i, l]``
    and ``N_t = sum_i w_i z[i, l]`` are written out as these sums (weighted rows) instead of
    separate variables.

Constraints
    (OCT-1) *misclassification lower bound*: ``L_t >= N_t - N_kt - n (1 - c_kt)``;
    (OCT-2) *misclassification upper bound*: ``L_t <= N_t - N_kt + n c_kt``;
    (OCT-3) *one label per nonempty leaf*: ``sum_k c_kt = l_t``;
    (OCT-4) *each row in one leaf*: ``sum_t z_it = 1``;
    (OCT-5) *leaf nonempty*: ``z_it <= l_t``;
    (OCT-6) *minimum leaf size*: ``sum_i w_i z_it >= N_min l_t``;
    (OCT-7) *right-branch split*: ``a_m . x_i >= b_m - (1 - z_it)`` for every right ancestor m;
    (OCT-8) *left-branch split*: ``a_m . (x_i + eps - eps_min) + eps_min <= b_m + (1 + eps_max)(1 - z_it)``,
    i.e. ``a_m . x_i + 1 <= b_m + 2 (1 - z_it)``, for every left ancestor m;
    (OCT-9) *one feature if split*: ``sum_j a_jt = d_t``;
    (OCT-10) *threshold range*: ``0 <= b_t <= d_t``;
    (OCT-11) *split only under a split*: ``d_t <= d_p(t)``.

Objective: ``min (1 / L_hat) sum_t L_t + alpha sum_t d_t`` with ``L_hat`` the errors of the
baseline (predict the majority class everywhere). The solver module scales it by ``L_hat`` (the
same optimum; integral errors when ``alpha = 0``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import heaptree
from ..binarize import BinaryProblem
from ..deadline import Deadline
from ..tree import Tree
from .mip_model import MipModel

__all__ = ["OctModel", "build_oct", "baseline_errors"]


def baseline_errors(problem: BinaryProblem) -> int:
    """OCT's ``L_hat``: errors of predicting the most frequent class for every row."""
    per_class = problem.counts.sum(axis=0)
    return int(per_class.sum() - per_class.max())


@dataclass
class OctModel:
    """A built OCT model and the index arrays to read it."""

    mip: MipModel
    depth: int
    alpha: float
    min_leaf: int
    scale: float       # objective in the model = scale * OCT objective (scale = L_hat)
    a: np.ndarray      # (branch nodes, columns)
    d: np.ndarray      # (branch nodes,)
    b: np.ndarray      # (branch nodes,)
    z: np.ndarray      # (rows, leaves)
    lnz: np.ndarray    # (leaves,)
    c: np.ndarray      # (leaves, classes)
    L: np.ndarray      # (leaves,)

    def decode(self, x: np.ndarray, classes: np.ndarray) -> Tree:
        """The tree a solution describes: a node splits (on ``argmax a``) when ``d = 1`` and
        ``b >= 1/2``; otherwise every row goes right (OCT-7/8 leave no row on its left)."""
        first_leaf = heaptree.n_internal(self.depth)

        def split_of(h: int) -> int | None:
            return int(np.argmax(x[self.a[h]])) if x[self.d[h]] > 0.5 and x[self.b[h]] >= 0.5 else None

        return heaptree.decode(self.depth, split_of, lambda h: np.argmax(x[self.c[h - first_leaf]]), classes,
                               unused="right")

    def hint(self, problem: BinaryProblem, tree: Tree) -> np.ndarray | None:
        """A full feasible solution encoding ``tree``, or None if it breaks the minimum leaf size."""
        split_col, leaf_label, _ = heaptree.embed(tree, self.depth)
        leaf = heaptree.route(problem.X, split_col, self.depth, pass_right=True)
        w = problem.weights
        size = np.bincount(leaf, weights=w, minlength=2 ** self.depth)
        nonempty = size > 0
        if np.any(size[nonempty] < self.min_leaf):
            return None
        x = np.zeros(self.mip.n_vars)
        used = split_col >= 0
        x[self.a[np.flatnonzero(used), split_col[used]]] = 1.0
        x[self.d[used]] = 1.0
        x[self.b[used]] = 1.0
        x[self.z[np.arange(problem.n_distinct), leaf]] = 1.0
        x[self.lnz[nonempty]] = 1.0
        ids = np.flatnonzero(nonempty)
        x[self.c[ids, leaf_label[ids]]] = 1.0
        per_leaf = np.zeros((2 ** self.depth, problem.n_classes))
        np.add.at(per_leaf, leaf, problem.counts)
        x[self.L] = per_leaf.sum(axis=1) - per_leaf[np.arange(len(leaf_label)), leaf_label]
        return x


def build_oct(problem: BinaryProblem, depth: int, alpha: float = 0.0, min_leaf: int = 1,
              deadline: Deadline | None = None) -> OctModel:
    """Build axis-aligned OCT over the binary columns (see the module docstring).

    Parameters
    ----------
    problem : BinaryProblem
    depth : int
        Depth ``D`` of the complete tree, at least 1.
    alpha : float
        Complexity weight per split (>= 0), as in OCT.
    min_leaf : int
        ``N_min``: least number of (original, weighted) rows in a nonempty leaf, >= 1.
    deadline : Deadline or None
        Checked per leaf and ancestor (:class:`~satdt.deadline.DeadlineExpired`).
    """

    def check() -> None:
        if deadline is not None:
            deadline.check("building the OCT model")

    if depth < 1:
        raise ValueError(f"max_depth must be at least 1, got {depth}")
    if not alpha >= 0:
        raise ValueError(f"alpha must be >= 0, got {alpha}")
    if int(min_leaf) != min_leaf or min_leaf < 1:
        raise ValueError(f"min_leaf must be a positive integer, got {min_leaf}")
    if problem.n_binary == 0:
        raise ValueError("OCT needs at least one binary column (every feature is constant)")
    counts = problem.counts.astype(float)
    w = counts.sum(axis=1)
    m, C = counts.shape
    B = problem.n_binary
    n = float(w.sum())
    L_hat = float(max(baseline_errors(problem), 1))
    n_int, n_leaf = 2 ** depth - 1, 2 ** depth

    mip = MipModel()
    a = mip.add_vars((n_int, B), 0, 1, True)
    d = mip.add_vars(n_int, 0, 1, True, obj=alpha * L_hat)
    b = mip.add_vars(n_int, 0, 1, False)
    z = mip.add_vars((m, n_leaf), 0, 1, True)
    lnz = mip.add_vars(n_leaf, 0, 1, True)
    c = mip.add_vars((n_leaf, C), 0, 1, True)
    L = mip.add_vars(n_leaf, 0, n, False, obj=1.0)

    # (OCT-1) L_t - sum_i (w_i - counts_ik) z_it - n c_kt >= -n ; (OCT-2) ... + n c_kt ... <= 0
    rr = np.arange(m)
    for l in range(n_leaf):
        check()
        miss = (w[:, None] - counts)                              # (m, C): rows not of class k
        k_idx = np.repeat(np.arange(C), m)
        i_idx = np.tile(rr, C)
        rows = np.concatenate([np.arange(C), k_idx, np.arange(C)])
        cols = np.concatenate([np.full(C, L[l]), z[i_idx, l], c[l]])
        coef = miss.T.ravel()
        keep = np.concatenate([np.ones(C, bool), coef != 0, np.ones(C, bool)])
        mip.add_cons("(OCT-1) misclassification lower bound", rows[keep], cols[keep],
                     np.concatenate([np.ones(C), -coef, np.full(C, -n)])[keep], -n, np.inf, C)
        mip.add_cons("(OCT-2) misclassification upper bound", rows[keep], cols[keep],
                     np.concatenate([np.ones(C), -coef, np.full(C, -n)])[keep], -np.inf, 0.0, C)
    # (OCT-3) sum_k c_kt - l_t = 0
    mip.add_cons("(OCT-3) one label per nonempty leaf", np.concatenate([np.repeat(np.arange(n_leaf), C), np.arange(n_leaf)]),
                 np.concatenate([c.ravel(), lnz]), np.concatenate([np.ones(n_leaf * C), -np.ones(n_leaf)]),
                 0.0, 0.0, n_leaf)
    # (OCT-4) sum_t z_it = 1
    mip.add_cons("(OCT-4) each row in one leaf", np.repeat(rr, n_leaf), z.ravel(), 1.0, 1.0, 1.0, m)
    # (OCT-5) z_it - l_t <= 0
    k = m * n_leaf
    mip.add_cons("(OCT-5) leaf nonempty", np.concatenate([np.arange(k), np.arange(k)]),
                 np.concatenate([z.ravel(), np.tile(lnz, m)]),
                 np.concatenate([np.ones(k), -np.ones(k)]), -np.inf, 0.0, k)
    # (OCT-6) sum_i w_i z_it - N_min l_t >= 0
    mip.add_cons("(OCT-6) minimum leaf size", np.concatenate([np.tile(np.arange(n_leaf), m), np.arange(n_leaf)]),
                 np.concatenate([z.ravel(), lnz]),
                 np.concatenate([np.repeat(w, n_leaf), -np.full(n_leaf, float(min_leaf))]), 0.0, np.inf, n_leaf)
    # (OCT-7) / (OCT-8): per leaf and ancestor, one constraint per row
    check()
    nzr, nzc = np.nonzero(problem.X)
    for l in range(n_leaf):
        for parent, right in heaptree.ancestors(l, depth):
            check()
            rows = np.concatenate([nzr, rr, rr])
            cols = np.concatenate([a[parent, nzc], np.full(m, b[parent]), z[:, l]])
            if right:   # x_i . a_m - b_m - z_it >= -1
                vals = np.concatenate([np.ones(len(nzr)), -np.ones(m), -np.ones(m)])
                mip.add_cons("(OCT-7) right-branch split", rows, cols, vals, -1.0, np.inf, m)
            else:       # x_i . a_m - b_m + 2 z_it <= 1
                vals = np.concatenate([np.ones(len(nzr)), -np.ones(m), 2.0 * np.ones(m)])
                mip.add_cons("(OCT-8) left-branch split", rows, cols, vals, -np.inf, 1.0, m)
    # (OCT-9) sum_j a_jt - d_t = 0
    mip.add_cons("(OCT-9) one feature if split", np.concatenate([np.repeat(np.arange(n_int), B), np.arange(n_int)]),
                 np.concatenate([a.ravel(), d]), np.concatenate([np.ones(n_int * B), -np.ones(n_int)]),
                 0.0, 0.0, n_int)
    # (OCT-10) b_t - d_t <= 0
    mip.add_cons("(OCT-10) threshold range", np.concatenate([np.arange(n_int)] * 2), np.concatenate([b, d]),
                 np.concatenate([np.ones(n_int), -np.ones(n_int)]), -np.inf, 0.0, n_int)
    # (OCT-11) d_t - d_p(t) <= 0
    if n_int > 1:
        child = np.arange(1, n_int)
        mip.add_cons("(OCT-11) split only under a split", np.concatenate([np.arange(n_int - 1)] * 2),
                     np.concatenate([d[child], d[(child - 1) // 2]]),
                     np.concatenate([np.ones(n_int - 1), -np.ones(n_int - 1)]), -np.inf, 0.0, n_int - 1)
    return OctModel(mip=mip, depth=depth, alpha=float(alpha), min_leaf=int(min_leaf), scale=L_hat,
                    a=a, d=d, b=b, z=z, lnz=lnz, c=c, L=L)
