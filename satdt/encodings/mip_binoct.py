"""BinOCT: the most accurate tree of depth d as a binary linear program (Verwer & Zhang, AAAI-19
[7]).

Pure model building: :func:`build_binoct` returns a solver-neutral
:class:`~satdt.encodings.mip_model.MipModel` (variable bounds, integrality, objective and a
sparse constraint matrix built with numpy in bulk) and the index arrays needed to read a tree
back (:meth:`BinOctModel.decode`) or to write a warm start (:meth:`BinOctModel.hint`), both over
the heap positions of :mod:`satdt.heaptree`. :mod:`satdt.solvers.mip` loads the model into an
OR-tools engine.

The formulation, over a :class:`~satdt.binarize.BinaryProblem`
----------------------------------------------------------------
The tree is complete of depth ``d``: internal nodes ``n = 0 .. 2^d - 2`` in heap order (children
``2n+1`` / ``2n+2``), leaves ``l = 0 .. 2^d - 1`` left to right.

BinOCT's *features* are groups of binary columns: the columns of one numeric original feature,
ordered by threshold (a row's *position* ``v`` in the group is the number of its thresholds the
row exceeds, so threshold index ``k`` sends it right iff ``v > k``); a categorical test is a group
of its own with one threshold. The threshold index is chosen in **binary**: per node, bits
``t[n, i]`` shared by all features, read as a path in a balanced binary search tree over the
threshold indices of the chosen feature (bit = 0: left half ``[lo, mid]``, 1: right half
``[mid+1, hi]``); ``ceil(log2 K)`` bits cover ``K`` thresholds and every bit pattern names one.

Variables
    ``f[n, g]`` binary, node ``n`` tests feature (group) ``g``;
    ``t[n, i]`` binary, threshold bits of node ``n``;
    ``c[l, k]`` binary, leaf ``l`` predicts class ``k``;
    ``lam[r, l]`` in [0, 1], distinct row ``r`` reaches leaf ``l`` (continuous, as in BinOCT:
    integral once ``f`` and ``t`` are);
    ``e[l, k]`` >= 0, errors on class-``k`` rows at leaf ``l``.

Constraints (BinOCT's families)
    (1) *one feature per node*: ``sum_g f[n, g] = 1``;
    (2) *one leaf per row*: ``sum_l lam[r, l] = 1``;
    (3) *one class per leaf*: ``sum_k c[l, k] = 1``;
    (4) *left threshold constraints* (rows that must go right are kept out of the leaves under
        the left child), one per node, feature and threshold range of the search tree, over all
        rows of that range at once with big-M ``M = |rows|``: if ``f[n, g] = 1``, the bits so far
        spell the range ``[lo, hi]`` and the next bit is 0 (threshold <= mid), rows with position
        in ``[mid+1, hi]`` reach no left leaf;
    (5) *right threshold constraints*, symmetrically: next bit 1 (threshold > mid), rows with
        position in ``[lo+1, mid+1]`` reach no right leaf;
    (6) *bound constraints*: rows below every threshold of ``g`` (position 0) reach no right
        leaf, rows above every threshold (position ``K``) no left leaf;
    (7) *error constraints*: ``e[l, k] >= sum_r counts[r, k] lam[r, l] - M_k c[l, k]`` with
        ``M_k`` the number of class-``k`` rows.

Objective: ``min sum_{l,k} e[l, k]``: the training errors, weighted rows counted by their counts.
By induction down the search tree, (4)-(6) fix for every node the side of every row once ``f``
and ``t`` are fixed, so the optimum equals the fewest errors of any tree of depth <= d over the
problem's binary columns.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import heaptree
from ..binarize import BinaryProblem
from ..deadline import Deadline
from ..tree import Tree
from .mip_model import MipModel

__all__ = ["BinOctModel", "build_binoct", "feature_groups", "threshold_tree", "threshold_bits",
           "threshold_from_bits"]


# ------------------------------------------------------------------ feature groups, threshold search tree
def feature_groups(problem: BinaryProblem) -> list[np.ndarray]:
    """BinOCT features: the chains of :meth:`BinaryProblem.threshold_chains` (the binary columns
    of one numeric feature ordered by threshold; each categorical test a group of its own)."""
    return list(problem.threshold_chains())


def threshold_tree(K: int) -> list[tuple[int, int, int, int, tuple[tuple[int, int], ...]]]:
    """Internal nodes of the balanced search tree over threshold indices ``0 .. K-1``.

    Each entry is ``(lo, mid, hi, bit, prefix)``: range ``[lo, hi]`` split into ``[lo, mid]``
    (bit ``bit`` = 0) and ``[mid+1, hi]`` (bit = 1); ``prefix`` lists the ``(bit, value)`` pairs
    that spell the range.
    """
    out = []

    def rec(lo: int, hi: int, prefix: tuple) -> None:
        if hi <= lo:
            return
        mid = (lo + hi) // 2
        out.append((lo, mid, hi, len(prefix), prefix))
        rec(lo, mid, prefix + ((len(prefix), 0),))
        rec(mid + 1, hi, prefix + ((len(prefix), 1),))

    rec(0, K - 1, ())
    return out


def threshold_bits(K: int, k: int, n_bits: int) -> np.ndarray:
    """The bits that select threshold index ``k`` among ``K`` (unused bits 0)."""
    bits = np.zeros(n_bits, dtype=np.int64)
    lo, hi, i = 0, K - 1, 0
    while hi > lo:
        mid = (lo + hi) // 2
        if k > mid:
            bits[i], lo = 1, mid + 1
        else:
            hi = mid
        i += 1
    return bits


def threshold_from_bits(K: int, bits: np.ndarray) -> int:
    """Inverse of :func:`threshold_bits`: follow the bits down the search tree."""
    lo, hi, i = 0, K - 1, 0
    while hi > lo:
        mid = (lo + hi) // 2
        if bits[i] > 0.5:
            lo = mid + 1
        else:
            hi = mid
        i += 1
    return lo


# ------------------------------------------------------------------ the model
@dataclass
class BinOctModel:
    """A built BinOCT model and the index arrays to read it."""

    mip: MipModel
    depth: int
    groups: list[np.ndarray]
    n_bits: int
    f: np.ndarray      # (nodes, groups)
    t: np.ndarray      # (nodes, bits)
    c: np.ndarray      # (leaves, classes)
    lam: np.ndarray    # (rows, leaves)
    e: np.ndarray      # (leaves, classes)

    def decode(self, x: np.ndarray, classes: np.ndarray) -> Tree:
        """The tree over binary columns that a solution ``x`` describes (every node splits)."""
        first_leaf = heaptree.n_internal(self.depth)

        def split_of(h: int) -> int:
            g = int(np.argmax(x[self.f[h]]))
            return int(self.groups[g][threshold_from_bits(len(self.groups[g]), x[self.t[h]] if self.n_bits
                                                          else np.empty(0))])

        return heaptree.decode(self.depth, split_of, lambda h: np.argmax(x[self.c[h - first_leaf]]), classes)

    def hint(self, problem: BinaryProblem, tree: Tree) -> np.ndarray:
        """A full feasible solution of the model that encodes ``tree`` (depth <= d)."""
        split_col, leaf_label, _ = heaptree.embed(tree, self.depth)
        where = {int(j): (g, k) for g, cols in enumerate(self.groups) for k, j in enumerate(cols)}
        x = np.zeros(self.mip.n_vars)
        for n, j in enumerate(split_col):
            g, k = where[int(j)] if j >= 0 else (0, 0)
            x[self.f[n, g]] = 1.0
            if self.n_bits:
                x[self.t[n]] = threshold_bits(len(self.groups[g]), k, self.n_bits)
        # pass-through nodes split on (group 0, index 0) with equal labels below: route accordingly
        cols = np.where(split_col >= 0, split_col, self.groups[0][0])
        leaf = heaptree.route(problem.X, cols, self.depth)
        x[self.lam[np.arange(problem.n_distinct), leaf]] = 1.0
        x[self.c[np.arange(len(leaf_label)), leaf_label]] = 1.0
        per_leaf = np.zeros(self.e.shape)
        np.add.at(per_leaf, leaf, problem.counts)
        per_leaf[np.arange(len(leaf_label)), leaf_label] = 0.0
        x[self.e] = per_leaf
        return x


def build_binoct(problem: BinaryProblem, depth: int, deadline: Deadline | None = None) -> BinOctModel:
    """Build BinOCT for the most accurate tree of depth <= ``depth`` (see the module docstring).

    Parameters
    ----------
    problem : BinaryProblem
        Distinct weighted rows; needs at least one binary column.
    depth : int
        At least 1.
    deadline : Deadline or None
        Checked per node and feature group (:class:`~satdt.deadline.DeadlineExpired`).
    """
    if depth < 1:
        raise ValueError(f"max_depth must be at least 1, got {depth}")
    if problem.n_binary == 0:
        raise ValueError("BinOCT needs at least one binary column (every feature is constant)")
    X, counts = problem.X, problem.counts
    m, C = counts.shape
    groups = list(problem.threshold_chains())
    n_bits = int(np.ceil(np.log2(max(len(g) for g in groups))))
    n_int, n_leaf = 2 ** depth - 1, 2 ** depth
    mip = MipModel()
    f = mip.add_vars((n_int, len(groups)), 0, 1, True)
    t = mip.add_vars((n_int, n_bits), 0, 1, True)
    c = mip.add_vars((n_leaf, C), 0, 1, True)
    lam = mip.add_vars((m, n_leaf), 0, 1, False)
    e = mip.add_vars((n_leaf, C), 0, float(counts.sum()), False, obj=1.0)

    # (1) one feature per node, (2) one leaf per row, (3) one class per leaf
    for name, block in (("(1) one feature per node", f), ("(2) one leaf per row", lam),
                        ("(3) one class per leaf", c)):
        r = np.repeat(np.arange(block.shape[0]), block.shape[1])
        mip.add_cons(name, r, block.ravel(), 1.0, 1.0, 1.0, block.shape[0])

    lo_leaf, mid_leaf, hi_leaf = heaptree.leaf_ranges(depth)
    for g, cols in enumerate(groups):
        K = len(cols)
        pos = X[:, cols].sum(axis=1)                 # position of each row among the thresholds
        order = np.argsort(pos, kind="stable")
        start = np.searchsorted(pos[order], np.arange(K + 2))   # rows with pos v: order[start[v]:start[v+1]]
        ranges = [(0, 0, "right", (), None), (K, K, "left", (), None)]          # (6) bound constraints
        for lo, mid, hi, bit, prefix in threshold_tree(K):
            ranges.append((mid + 1, hi, "left", prefix, (bit, 0)))             # (4) left threshold
            ranges.append((lo + 1, mid + 1, "right", prefix, (bit, 1)))        # (5) right threshold
        for n in range(n_int):
            if deadline is not None:
                deadline.check("building the BinOCT model")
            for a, b, side, prefix, nxt in ranges:
                R = order[start[a]:start[b + 1]]
                if len(R) == 0:
                    continue
                _add_threshold_row(mip, n, g, R, side, prefix, nxt, f, t, lam,
                                   (lo_leaf[n], mid_leaf[n]) if side == "left" else (mid_leaf[n], hi_leaf[n]))

    # (7) error constraints: e[l,k] - sum_r counts[r,k] lam[r,l] + M_k c[l,k] >= 0
    Mk = counts.sum(axis=0).astype(float)
    rr, cc = np.nonzero(counts)
    n_rows_e = n_leaf * C
    rows_all, cols_all, vals_all = [], [], []
    for l in range(n_leaf):
        base = l * C
        rows_all += [base + cc, base + np.arange(C), base + np.arange(C)]
        cols_all += [lam[rr, l], e[l], c[l]]
        vals_all += [-counts[rr, cc].astype(float), np.ones(C), Mk]
    mip.add_cons("(7) error constraints", np.concatenate(rows_all), np.concatenate(cols_all),
                 np.concatenate(vals_all), 0.0, np.inf, n_rows_e)
    return BinOctModel(mip=mip, depth=depth, groups=groups, n_bits=n_bits, f=f, t=t, c=c, lam=lam, e=e)


def _add_threshold_row(mip: MipModel, n: int, g: int, R: np.ndarray, side: str,
                       prefix: tuple, nxt: tuple | None, f: np.ndarray, t: np.ndarray,
                       lam: np.ndarray, leaves: tuple[int, int]) -> None:
    """One aggregated threshold constraint: rows ``R`` reach no leaf in ``leaves`` when node ``n``
    tests group ``g`` and its bits spell ``prefix`` then ``nxt``.

    ``sum lam[R, leaves] <= M (1 - f) + M * sum_{bits that differ from the pattern}`` with
    ``M = |R|``; a pattern bit 0 differs when ``t = 1``, a pattern bit 1 when ``1 - t = 1``.
    """
    M = float(len(R))
    pattern = list(prefix) + ([nxt] if nxt is not None else [])
    leaf_ids = np.arange(leaves[0], leaves[1])
    lam_cols = lam[np.ix_(R, leaf_ids)].ravel()
    bit_cols = np.array([t[n, i] for i, _ in pattern], dtype=np.int64)
    bit_vals = np.array([-M if v == 0 else M for _, v in pattern], dtype=float)
    n_ones = sum(v for _, v in pattern)
    cols = np.concatenate([lam_cols, [f[n, g]], bit_cols])
    vals = np.concatenate([np.ones(len(lam_cols)), [M], bit_vals])
    family = {("left", True): "(6) bound constraints", ("right", True): "(6) bound constraints",
              ("left", False): "(4) left threshold constraints",
              ("right", False): "(5) right threshold constraints"}[(side, nxt is None)]
    mip.add_cons(family, np.zeros(len(cols), dtype=np.int64), cols, vals, -np.inf, M + M * n_ones, 1)
