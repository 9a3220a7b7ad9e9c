"""The complete binary tree of depth ``D`` in heap order, shared by the fixed-shape encodings.

Position ``t`` has children ``2t + 1`` (left, the binary column False) and ``2t + 2`` (right,
True) and parent ``(t - 1) // 2``; its level is ``floor(log2(t + 1))``. Positions
``0 .. 2**D - 2`` are *internal*, the ``2**D`` positions of level ``D`` are the *leaves*,
numbered ``l = t - (2**D - 1)`` left to right. BinOCT [7], OCT [8], the CP-SAT model and
Avellaneda's clauses [6] all place a tree in these positions; this module holds the three
operations they share:

* *embedding* a tree over the binary columns into the positions (:func:`embed`,
  :func:`positions`), or a subtree or a shallower tree into a deeper one (:func:`graft`,
  :func:`deepen`);
* *routing* rows down an embedded tree (:func:`route`, :func:`paths`);
* *decoding* an assignment of the positions back into a :class:`~satdt.tree.Tree`
  (:func:`decode`).

The arithmetic of positions (levels, ancestors, the directions to a level's positions) is here
too, scalar or over numpy arrays of positions.

References are numbered as in ``satdt/REFERENCES.md``.
"""

from __future__ import annotations

from typing import Callable, Iterator

import numpy as np

from .tree import Node, Tree

__all__ = ["n_internal", "level", "level_positions", "prefix_bits", "ancestor", "is_under", "leaf_ranges",
           "ancestors", "embed", "positions", "graft", "deepen", "route", "paths", "decode"]


def n_internal(depth: int) -> int:
    """Internal positions of the complete tree of ``depth`` (the first leaf's position)."""
    return 2 ** depth - 1


def level(t: int) -> int:
    """Level of position ``t`` (the root is level 0)."""
    return (t + 1).bit_length() - 1


def level_positions(lv: int) -> np.ndarray:
    """The positions of level ``lv``, left to right: ``2**lv - 1 .. 2**(lv + 1) - 2``."""
    return np.arange(2 ** lv - 1, 2 ** (lv + 1) - 1)


def prefix_bits(lv: int) -> np.ndarray:
    """(2**lv, lv) bool: the directions (True = right) from the root to each position of level
    ``lv``, most significant first: position number ``i`` of the level is reached by the bits of
    ``i``."""
    n = np.arange(2 ** lv)[:, None]
    shifts = np.arange(lv - 1, -1, -1)[None, :]
    return ((n >> shifts) & 1).astype(bool)


def ancestor(t: int | np.ndarray, up: int) -> int | np.ndarray:
    """The position ``up`` levels above ``t`` (``t`` itself for ``up = 0``; ``t`` may be an array)."""
    return ((t + 1) >> up) - 1


def is_under(u: int, v: int) -> bool:
    """Position ``u`` lies in the subtree of position ``v`` (``v`` itself included)."""
    up = level(u) - level(v)
    return up >= 0 and ancestor(u, up) == v


def leaf_ranges(depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each internal position: its left child's leaves ``[lo, mid)`` and its right child's
    ``[mid, hi)``, as arrays ``lo, mid, hi`` (leaf numbers)."""
    t = np.arange(n_internal(depth))
    lv = np.array([level(int(i)) for i in t], dtype=np.int64)
    width = 2 ** (depth - lv)
    lo = (t + 1 - 2 ** lv) * width
    hi = lo + width
    return lo, (lo + hi) // 2, hi


def ancestors(leaf: int, depth: int) -> list[tuple[int, bool]]:
    """The internal positions above leaf number ``leaf``, deepest first, each with True when the
    path to the leaf takes its right branch."""
    out = []
    t = leaf + n_internal(depth)
    while t > 0:
        parent = (t - 1) // 2
        out.append((parent, t == 2 * parent + 2))
        t = parent
    return out


def embed(tree: Tree, depth: int, pass_right: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Place a binary-column tree of depth <= ``depth`` in the complete tree.

    Returns ``split_col`` (per internal position: column, or -1 for a pass-through position
    under a leaf of ``tree``), ``leaf_label`` (per leaf) and ``leaf_real`` (the leaf reached
    through pass-through positions by their *right* branches: the one that gets the rows when
    pass-through positions send every row right, as in OCT; by their *left* branches when not
    ``pass_right``, as with Avellaneda's leaf marker).
    """
    if tree.depth() > depth:
        raise ValueError(f"warm-start tree has depth {tree.depth()} > {depth}")
    first_leaf = n_internal(depth)
    split_col = np.full(first_leaf, -1, dtype=np.int64)
    leaf_label = np.zeros(2 ** depth, dtype=np.int64)
    leaf_real = np.zeros(2 ** depth, dtype=bool)

    def rec(node: Node | None, t: int, label: int, real: bool) -> None:
        if t >= first_leaf:
            leaf_label[t - first_leaf] = node.label if node is not None and node.is_leaf else label
            leaf_real[t - first_leaf] = real
        elif node is not None and not node.is_leaf:
            split_col[t] = node.feature
            rec(node.left, 2 * t + 1, label, real)
            rec(node.right, 2 * t + 2, label, real)
        else:
            lab = node.label if node is not None else label
            rec(None, 2 * t + 1, lab, real and not pass_right)
            rec(None, 2 * t + 2, lab, real and pass_right)

    rec(tree.root, 0, tree.root.label if tree.root.is_leaf else 0, True)
    return split_col, leaf_label, leaf_real


def positions(tree: Tree, X: np.ndarray) -> Iterator[tuple[Node, int, np.ndarray]]:
    """Each node of a binary-column tree with its heap position and the mask of the rows of the
    bool matrix ``X`` that reach it (parents before children)."""
    stack = [(tree.root, 0, np.ones(X.shape[0], dtype=bool))]
    while stack:
        node, t, rows = stack.pop()
        yield node, t, rows
        if not node.is_leaf:
            right = X[:, node.feature]
            stack.append((node.left, 2 * t + 1, rows & ~right))
            stack.append((node.right, 2 * t + 2, rows & right))


def graft(split_col: np.ndarray, leaf_label: np.ndarray, t: int, sub_split: np.ndarray,
          sub_label: np.ndarray) -> None:
    """Put a complete subtree (its heap-ordered ``sub_split`` and its leaves' ``sub_label``) at
    position ``t`` of the complete tree ``(split_col, leaf_label)``, in place; the subtree's depth
    must be that of the tree below ``t``."""
    depth = int(leaf_label.size).bit_length() - 1
    d = int(sub_label.size).bit_length() - 1
    lv = depth - d
    offset = t - n_internal(lv)
    for i in range(d):
        start = n_internal(lv + i) + offset * 2 ** i
        split_col[start:start + 2 ** i] = sub_split[n_internal(i):n_internal(i + 1)]
    leaf_label[offset * 2 ** d:(offset + 1) * 2 ** d] = sub_label


def deepen(split_col: np.ndarray, leaf_label: np.ndarray, fill: int) -> tuple[np.ndarray, np.ndarray]:
    """The complete tree one level deeper that classifies every row as ``(split_col,
    leaf_label)`` does: the same columns above, a last level of positions testing ``fill`` (a
    pass-through column, or any column: the two leaves below it get the same label), each leaf
    doubled."""
    new_split = np.full(2 * split_col.size + 1, fill, dtype=np.int64)
    new_split[:split_col.size] = split_col
    return new_split, np.repeat(leaf_label, 2)


def _descend(X: np.ndarray, split_col: np.ndarray, depth: int, pass_right: bool) -> Iterator[np.ndarray]:
    """The position of each row of ``X`` at levels 1 .. ``depth``, one array a level."""
    t = np.zeros(X.shape[0], dtype=np.int64)
    rows = np.arange(X.shape[0])
    pass_through = bool((split_col < 0).any())
    for _ in range(depth):
        col = split_col[t]
        if pass_through:
            right = np.where(col >= 0, X[rows, np.maximum(col, 0)], pass_right).astype(np.int64)
        else:
            right = X[rows, col]
        t = 2 * t + 1 + right
        yield t


def route(X: np.ndarray, split_col: np.ndarray, depth: int, pass_right: bool = True) -> np.ndarray:
    """Leaf number reached by each row of the bool matrix ``X`` (vectorized over the rows).

    ``split_col``: the column of each internal position; a position with -1 sends every row
    right (``pass_right``, OCT's convention) or left.
    """
    t = np.zeros(X.shape[0], dtype=np.int64)
    for t in _descend(X, split_col, depth, pass_right):
        pass
    return t - n_internal(depth)


def paths(X: np.ndarray, split_col: np.ndarray, depth: int, pass_right: bool = True) -> np.ndarray:
    """(rows, depth + 1): the position each row of ``X`` reaches at each level (column 0 the
    root, column ``depth`` the leaf's position ``n_internal(depth) + leaf``), routed as by
    :func:`route`."""
    out = np.zeros((X.shape[0], depth + 1), dtype=np.int64)
    for lv, t in enumerate(_descend(X, split_col, depth, pass_right), start=1):
        out[:, lv] = t
    return out


def decode(depth: int, split_of: Callable[[int], int | None], label_of: Callable[[int], int],
           classes: np.ndarray, unused: str = "leaf") -> Tree:
    """The tree an assignment of the positions describes.

    ``split_of(t)``: the column tested at internal position ``t``, or None when ``t`` does not
    split; ``label_of(t)``: the class of the leaf at position ``t``. A position that does not
    split is a leaf (``unused="leaf"``) or passes its rows to its ``"left"`` or ``"right"``
    child (the encoding's convention).
    """
    if unused not in ("leaf", "left", "right"):
        raise ValueError(f"unused must be 'leaf', 'left' or 'right', got {unused!r}")
    first_leaf = n_internal(depth)

    def rec(t: int) -> Node:
        if t < first_leaf:
            column = split_of(t)
            if column is not None:
                return Node.split(int(column), 0.5, rec(2 * t + 1), rec(2 * t + 2))
            if unused != "leaf":
                return rec(2 * t + (1 if unused == "left" else 2))
        return Node.leaf(int(label_of(t)))

    return Tree(root=rec(0), classes=classes)
