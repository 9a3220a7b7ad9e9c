"""Avellaneda's SAT encoding of a perfect decision tree of depth k (AAAI-20, "DT_depth" [6]).

Clauses go to PySAT [12] solvers; references are numbered as in ``satdt/REFERENCES.md``.

The tree is a perfect binary tree of depth ``k`` in the heap positions of :mod:`satdt.heaptree`:
``2**k - 1`` internal nodes (node ``v`` has children ``2v+1`` (left) and ``2v+2`` (right); level
``l`` holds nodes ``2**l - 1 .. 2**(l+1) - 2``) and ``2**k`` leaves, numbered left to right. A
row's path is the bit string of its directions, most significant bit first: the node of level
``l`` on the path whose first ``l`` directions are ``p`` is number ``int(p, 2)`` of that level.
Routing, embedding and decoding are :mod:`satdt.heaptree`'s.

Variables (all from one explicit :class:`pysat.formula.IDPool`, allocated in contiguous blocks)
------------------------------------------------------------------------------------------------
``a[v, j]``
    internal node ``v`` tests binary column ``j`` (*feature variables*).
``z[e, l]``
    distinct row ``e`` goes right at level ``l`` (*direction variables*, one per level and per
    row added to the encoding, never per node).
``c[t, b]``
    bit ``b`` of the class of leaf ``t`` (*class variables*, binary-encoded:
    ``ceil(log2 C)`` bits, one bit for two classes).

Clause families
---------------
*Feature selection* (exactly one per node): ``OR_j a[v, j]`` (at least one) plus an at-most-one
encoding (``at_most_one``: ``"seqcounter"``, ``"pairwise"``, any :class:`pysat.card.EncType`
name, or ``"none"``: without it a model may select several columns at a node, all of which send
every row that reaches the node the same way, so decoding any one of them gives the same tree).

*Feature clauses* (per row ``e``, level ``l``, node ``v`` at that level, column ``j``):
``not path(e, v)  or  not a[v, j]  or  (z[e, l] if X[e, j] else not z[e, l])`` — a row that
reaches ``v`` goes the way its value of the tested column says. ``path(e, v)`` is the
conjunction of the ``l`` direction literals of ``v``'s prefix, so the clause has ``l + 2``
literals.

*Class clauses* (per row ``e``, leaf ``t``, class bit ``b``):
``not path(e, t)  or  (c[t, b] if bit b of class(e) else not c[t, b])`` — a row that reaches
``t`` has its class there.

Rows are added incrementally (:meth:`DepthEncoding.row_clauses`): the clauses of a new set of
rows can be given to the same incremental solver. All clauses are built with numpy, vectorized
over rows, nodes and columns, and returned as integer arrays (one per clause length).
"""

from __future__ import annotations

from math import ceil, log2
from typing import Union

import numpy as np
from pysat.card import CardEnc, EncType
from pysat.formula import IDPool

from .. import heaptree
from ..heaptree import prefix_bits
from ..tree import Tree

__all__ = ["DepthEncoding", "implied_pairs", "ClauseBlock", "new_block", "prefix_bits", "AT_MOST_ONE"]

#: clauses of one length as a 2-D int array, or a list of clauses (pysat.card output)
ClauseBlock = Union[np.ndarray, list]

AT_MOST_ONE = ("none", "pairwise", "seqcounter", "sortnetwrk", "cardnetwrk", "totalizer", "mtotalizer",
               "kmtotalizer", "ladder", "bitwise")


def new_block(pool: IDPool, shape: tuple[int, ...]) -> np.ndarray:
    """Reserve ``prod(shape)`` consecutive variable ids of ``pool``; return them shaped.

    ``IDPool`` hands out ``top + 1`` next, so raising ``top`` reserves the block for us.
    """
    size = int(np.prod(shape, dtype=np.int64))
    start = pool.top + 1
    pool.top += size
    return np.arange(start, start + size, dtype=np.int64).reshape(shape)


def class_bits(n_classes: int) -> int:
    """Bits of the binary class code of a leaf (at least one)."""
    return max(1, int(ceil(log2(n_classes)))) if n_classes > 1 else 1


def implied_pairs(X: np.ndarray, groups: np.ndarray | None = None,
                  diagonal: bool = True) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per direction ``d`` (0, 1): the column pairs ``(i, j)`` of the boolean matrix ``X`` with
    column ``j`` constant over the rows where column ``i`` is ``d`` (``diagonal=False``: without
    ``i == j``; with ``groups``, the original feature of each column: only pairs of one feature,
    e.g. ordered thresholds, not the pairs of two features a small sample happens to imply).

    Integer products, one per feature with ``groups`` (wine's 1,259 columns: 13 products of ~100
    columns instead of one of 1,259, which took 1.4 s); never a float (BLAS) product, whose
    threads stay spinning after the call (iris DT_depth: 0.066 -> 0.112 s of CPU).
    """
    X = np.asarray(X, dtype=bool)
    if groups is None:
        blocks = [np.arange(X.shape[1])]
    else:
        g = np.asarray(groups)
        order = np.argsort(g, kind="stable")
        cuts = np.flatnonzero(np.diff(g[order])) + 1
        blocks = np.split(order, cuts)
    pairs = []
    for d in (0, 1):
        found_i, found_j = [], []
        for cols in blocks:
            Xc = X[:, cols].astype(np.int64)
            Xd = Xc if d else 1 - Xc
            ones = Xd.T @ Xc                                  # rows with X_i = d and X_j = 1
            size = Xd.sum(axis=0)[:, None]
            implied = (ones == 0) | (ones == size)
            if not diagonal:
                np.fill_diagonal(implied, False)
            i, j = np.nonzero(implied)
            found_i.append(cols[i])
            found_j.append(cols[j])
        i, j = np.concatenate(found_i), np.concatenate(found_j)
        order = np.lexsort((j, i))                            # row-major, as np.nonzero gives them
        pairs.append((i[order], j[order]))
    return pairs


class DepthEncoding:
    """Clauses for "a perfect tree of depth ``depth`` classifies the added rows correctly".

    Parameters
    ----------
    X : ndarray of bool, shape (m, B)
        Distinct binarized rows (True = goes right).
    labels : ndarray of int, shape (m,)
        Class index of each distinct row (the data must be consistent).
    n_classes : int
    depth : int
        ``k >= 1``.
    pool : IDPool, optional
        Variable pool (a new one by default).
    at_most_one : str
        Encoding of "at most one column per node" (see module docstring).
    leaf_marker : bool
        Add a column that is False for every row (every row goes left): a node testing it is a
        pass-through, which lets the perfect tree hold any tree of depth <= k (DT_size, see
        :mod:`satdt.encodings.sat_size`), with the *leaf closure* ``m[v] -> m[child]``.
    useless : bool
        Add the *useless-split clauses* (implies ``leaf_marker``): ``not a[u, i] or not a[v, j]``
        when ``v`` lies in the ``d``-subtree of ``u`` and column ``j`` is constant over the rows
        whose column ``i`` equals ``d`` (a repeated column, a weaker threshold of the same
        feature, ...): every row reaching ``v`` would go the same way. Every pruned tree of depth
        <= k still embeds (its leaves above level k as leaf markers), so optima are unchanged.
    canonical : bool
        Add the *canonical-split clauses* (no leaf marker needed, for DT_depth): the useless-split
        clauses without the pairs ``i == j``, i.e. ``not a[u, i] or not a[v, j]`` for ``j != i``
        constant over the rows whose column ``i`` equals the side ``d`` of ``u`` that ``v`` lies in
        (on ordered thresholds of one feature: a node's left subtree tests no higher threshold of
        its feature, its right subtree no lower one). Sound for "some perfect tree of depth k
        classifies every row" (the rows are every distinct row of ``X``): top-down, a node whose
        test is excluded sends every row that reaches it one way (``c``); testing its parent's
        column instead (never excluded when the levels above obey the clauses) sends them all to
        the parent's side ``d``, and the old subtree ``c`` copied to side ``d`` keeps every row's
        leaf class, while its nodes' excluded sets shrink or stay. With ``groups``, only pairs of
        columns of one feature. Ignored when ``useless`` is on.
    groups : ndarray of int, optional
        Original feature of each column: when the useless-split clauses would exceed
        ``max_useless`` clauses, only pairs of columns of one feature are kept.
    """

    def __init__(self, X: np.ndarray, labels: np.ndarray, n_classes: int, depth: int, *,
                 pool: IDPool | None = None, at_most_one: str = "none", leaf_marker: bool = False,
                 useless: bool = False, groups: np.ndarray | None = None, max_useless: int = 2_000_000,
                 canonical: bool = False):
        if depth < 1:
            raise ValueError(f"the SAT encoding needs depth >= 1, got {depth}")
        if at_most_one not in AT_MOST_ONE:
            raise ValueError(f"unknown at_most_one encoding {at_most_one!r}; choose one of {', '.join(AT_MOST_ONE)}")
        X = np.asarray(X, dtype=bool)
        leaf_marker = leaf_marker or useless
        self.useless = useless
        self.canonical = bool(canonical) and not useless
        self.groups = groups
        self.max_useless = max_useless
        if leaf_marker:
            X = np.hstack([X, np.zeros((X.shape[0], 1), dtype=bool)])
        self.X = X
        self.labels = np.asarray(labels, dtype=np.int64)
        self.n_classes = int(n_classes)
        self.depth = int(depth)
        self.leaf_marker = leaf_marker
        self.at_most_one = at_most_one
        self.pool = pool if pool is not None else IDPool()
        self.n_internal = 2 ** depth - 1
        self.n_leaves = 2 ** depth
        self.n_bits = class_bits(self.n_classes)
        self.n_columns = X.shape[1]
        self.a = new_block(self.pool, (self.n_internal, self.n_columns))
        self.c = new_block(self.pool, (self.n_leaves, self.n_bits))
        self.z = np.zeros((X.shape[0], depth), dtype=np.int64)  # 0 = row not added yet
        self.added = np.zeros(X.shape[0], dtype=bool)
        self._prefix = [prefix_bits(level) for level in range(depth + 1)]
        # class code bits of each class: (C, n_bits), most significant first
        shifts = np.arange(self.n_bits - 1, -1, -1)[None, :]
        self._code = ((np.arange(self.n_classes)[:, None] >> shifts) & 1).astype(bool)

    # ------------------------------------------------------------ variables
    @property
    def marker(self) -> int | None:
        """Index of the leaf-marker column, or None."""
        return self.n_columns - 1 if self.leaf_marker else None

    @property
    def n_rows_added(self) -> int:
        return int(self.added.sum())

    # -------------------------------------------------------------- clauses
    def structure_clauses(self) -> list[ClauseBlock]:
        """Feature selection: at least one column per node, plus the at-most-one encoding."""
        blocks: list[ClauseBlock] = [self.a.copy()]
        if self.at_most_one == "pairwise":
            i, j = np.triu_indices(self.n_columns, k=1)
            blocks.append(np.stack([-self.a[:, i], -self.a[:, j]], axis=-1).reshape(-1, 2))
        elif self.at_most_one != "none":
            enc = getattr(EncType, self.at_most_one)
            for v in range(self.n_internal):
                cnf = CardEnc.atmost(lits=self.a[v].tolist(), bound=1, vpool=self.pool, encoding=enc)
                blocks.append(cnf.clauses)
        if self.leaf_marker:
            blocks.append(self._closure_clauses())
        if self.useless:
            blocks += self._useless_clauses()
        elif self.canonical:
            blocks += self._useless_clauses(diagonal=False)
        return blocks

    def _closure_clauses(self) -> np.ndarray:
        """Leaf closure: a pass-through node has pass-through internal children."""
        parents = np.arange((self.n_internal - 1) // 2)   # internal nodes with internal children
        m = self.a[:, self.marker]
        left = np.stack([-m[parents], m[2 * parents + 1]], axis=1)
        right = np.stack([-m[parents], m[2 * parents + 2]], axis=1)
        return np.vstack([left, right])

    def _implied_pairs(self, diagonal: bool = True) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per direction d: column pairs (i, j) with j constant over the rows where column i is d
        (``diagonal=False``: without the pairs i == j, and with ``groups`` only pairs of one
        feature); at most ``max_useless`` clauses over the tree."""
        X = self.X[:, :self.n_columns - (1 if self.leaf_marker else 0)]  # real columns
        pairs = implied_pairs(X, self.groups if not diagonal else None, diagonal)
        n_anc = sum(lv * 2 ** lv for lv in range(self.depth))  # (node, ancestor) pairs, over 2 dirs
        if self.groups is not None and diagonal and n_anc * max(p[0].size for p in pairs) > self.max_useless:
            g = np.asarray(self.groups)
            pairs = [(i[g[i] == g[j]], j[g[i] == g[j]]) for i, j in pairs]
        cap = self.max_useless // max(n_anc, 1)
        if n_anc * max(p[0].size for p in pairs) > self.max_useless:
            # still too many (one feature with many thresholds): any subset of the clauses is
            # sound; keep the pairs of the nearest columns (neighbouring thresholds)
            keep = [np.argsort(np.abs(i - j), kind="stable")[:cap] for i, j in pairs]
            pairs = [(i[o], j[o]) for (i, j), o in zip(pairs, keep)]
        return pairs

    def _useless_clauses(self, diagonal: bool = True) -> list[np.ndarray]:
        """Useless-split (``diagonal=False``: canonical-split) clauses over every (ancestor, node)
        pair of the perfect tree."""
        pairs = self._implied_pairs(diagonal)
        blocks = []
        for lv in range(1, self.depth):
            v = heaptree.level_positions(lv)
            for lu in range(lv):
                u = heaptree.ancestor(v, lv - lu)
                d = heaptree.ancestor(v, lv - lu - 1) % 2 == 0  # v lies right of u (even = right child)
                for direction in (0, 1):
                    i, j = pairs[direction]
                    sel = d == direction
                    if i.size == 0 or not sel.any():
                        continue
                    cl = np.stack(np.broadcast_arrays(-self.a[u[sel]][:, i], -self.a[v[sel]][:, j]), axis=-1)
                    blocks.append(cl.reshape(-1, 2))
        return blocks

    def row_clauses(self, rows: np.ndarray) -> list[ClauseBlock]:
        """Feature clauses and class clauses of ``rows`` (distinct-row indices not added yet).

        Returns one int array per clause length; rows already added are skipped.
        """
        rows = np.asarray(rows, dtype=np.int64)
        rows = np.unique(rows[~self.added[rows]])
        if rows.size == 0:
            return []
        self.added[rows] = True
        z = new_block(self.pool, (rows.size, self.depth))
        self.z[rows] = z
        blocks = [self._feature_clauses(rows, z, level) for level in range(self.depth)]
        blocks.append(self._class_clauses(rows, z))
        return blocks

    @staticmethod
    def _not_path(z: np.ndarray, prefix: np.ndarray) -> np.ndarray:
        """(r, N, l) literals whose disjunction says "row r does not follow prefix N"."""
        zl = z[:, None, :prefix.shape[1]]
        return np.where(prefix[None, :, :], -zl, zl)

    def _feature_clauses(self, rows: np.ndarray, z: np.ndarray, level: int) -> np.ndarray:
        """Feature clauses of a level: shape (r * 2**level * B, level + 2)."""
        prefix = self._prefix[level]
        r, n_nodes, B = rows.size, prefix.shape[0], self.n_columns
        out = np.empty((r, n_nodes, B, level + 2), dtype=np.int64)
        out[..., :level] = self._not_path(z, prefix)[:, :, None, :]
        out[..., level] = -self.a[heaptree.level_positions(level)][None, :, :]
        zl = z[:, level][:, None]
        out[..., level + 1] = np.where(self.X[rows], zl, -zl)[:, None, :]
        return out.reshape(-1, level + 2)

    def _class_clauses(self, rows: np.ndarray, z: np.ndarray) -> np.ndarray:
        """Class clauses: shape (r * 2**k * n_bits, k + 1)."""
        k = self.depth
        prefix = self._prefix[k]
        r = rows.size
        out = np.empty((r, self.n_leaves, self.n_bits, k + 1), dtype=np.int64)
        out[..., :k] = self._not_path(z, prefix)[:, :, None, :]
        code = self._code[self.labels[rows]]                      # (r, n_bits)
        out[..., k] = np.where(code[:, None, :], self.c[None, :, :], -self.c[None, :, :])
        return out.reshape(-1, k + 1)

    # ------------------------------------------------------------- decoding
    def phase_literals(self, tree: Tree) -> list[int]:
        """Literals that place ``tree`` (over the binary columns, depth <= ``depth``) in the
        perfect tree (:func:`satdt.heaptree.embed`): its split columns at their nodes, a
        shallower leaf passed down the left path (with the leaf marker where there is one), each
        reached leaf's class code. Given to a solver as phases (``set_phases``), they steer it to
        that tree first (a warm start)."""
        split_col, leaf_label, reached = heaptree.embed(tree, self.depth, pass_right=False)
        splits = np.flatnonzero(split_col >= 0)
        lits = self.a[splits, split_col[splits]].tolist()
        if self.leaf_marker:  # pass-through nodes on a leaf's left path: their leftmost leaf is reached
            lo = heaptree.leaf_ranges(self.depth)[0]
            lits += self.a[np.flatnonzero((split_col < 0) & reached[lo]), self.marker].tolist()
        leaves = np.flatnonzero(reached)
        code = self._code[leaf_label[leaves]]
        lits += np.where(code, self.c[leaves], -self.c[leaves]).ravel().tolist()
        return lits

    def decode(self, model: list[int] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Tested column of each internal node and class of each leaf from a model.

        Codes above ``n_classes - 1`` (leaves no row reaches) decode to class 0. When a node
        selects several columns (no at-most-one encoding), all send its rows the same way; the
        leaf marker, if among them, wins.
        """
        model = np.asarray(model, dtype=np.int64)
        value = np.zeros(self.pool.top + 1, dtype=bool)
        known = model[np.abs(model) <= self.pool.top]
        value[np.abs(known)] = known > 0
        chosen = value[self.a]
        feature = np.where(chosen.any(axis=1), np.argmax(chosen, axis=1), 0)
        if self.leaf_marker:  # a selected marker wins: the node was counted as no split
            feature[chosen[:, self.marker]] = self.marker
        bits = value[self.c].astype(np.int64)
        weights = 1 << np.arange(self.n_bits - 1, -1, -1)
        leaf_class = bits @ weights
        leaf_class[leaf_class >= self.n_classes] = 0
        return feature, leaf_class

    def leaf_of(self, feature: np.ndarray, X: np.ndarray | None = None) -> np.ndarray:
        """Leaf reached by each row of ``X`` (default: every distinct row) in the perfect tree
        (:func:`satdt.heaptree.route`)."""
        return heaptree.route(self.X if X is None else X, feature, self.depth)

    def wrong_rows(self, feature: np.ndarray, leaf_class: np.ndarray) -> np.ndarray:
        """Distinct rows the decoded tree misclassifies."""
        return np.flatnonzero(leaf_class[self.leaf_of(feature)] != self.labels)

    def to_tree(self, feature: np.ndarray, leaf_class: np.ndarray, classes: np.ndarray) -> Tree:
        """The decoded tree over the binary columns (threshold 0.5, :func:`satdt.heaptree.decode`);
        pass-through nodes of the leaf marker are collapsed to their left child."""
        marker = self.marker

        def split_of(v: int) -> int | None:
            return None if marker is not None and feature[v] == marker else int(feature[v])

        return heaptree.decode(self.depth, split_of, lambda v: leaf_class[v - self.n_internal], classes,
                               unused="left")
