"""ADAPTTREE0: decision trees built by linear gradient-descent SARSA (M. Preda, 2007).

The learning problem
--------------------
A *state* is a partition of the training rows (the leaves of the tree built so far). An
*action* ``(attribute, part)`` splits one open part by every value of the attribute (ID3's
multiway split). The reward is ``-cost(attribute)`` per split (``-1`` with unit costs) and ``0``
at a final state, where every part is *closed*: pure, or not separable by any attribute, or (with
``max_depth``) at the depth limit. An episode therefore builds one tree and, with unit costs and
a discount of 1, its return is minus its number of internal nodes. Optionally a part that closes
impure costs ``error_cost`` per misclassified training row (0 in the paper's setting, where every
final part is pure).

Attributes come from the binary columns of :class:`satdt.binarize.BinaryProblem` (the shared
binarization, so the method runs on every dataset satdt accepts), in two kinds
(:func:`attributes`):

* a *binary* attribute is one column: a numeric threshold ``x <= t`` (or, with
  ``multiway="none"``, one categorical test ``x == v``); over Boolean attributes a multiway split
  *is* a binary split.
* a *multiway* attribute is an original feature split by every value, as in ID3:
  ``multiway="categorical"`` (default) makes every categorical feature with ``k >= 3`` values
  one; ``multiway="discrete"`` also every numeric feature with at most ``max_arity`` distinct
  training values, all integers (integer-coded categories such as the MONK's attributes). Its
  children are the *cells* of the feature's columns: a row's cell is the first of the feature's
  columns (in binarization order) on which it goes left, or "rest" if none, i.e. the category
  ``v`` (columns ``x == v``) or the interval between consecutive thresholds (columns
  ``x <= t``; with the ``all`` binarization of an integer feature, one cell per value).

**Encoding of a multiway node as a satdt tree.** A split of a part whose rows fall into cells
``c_1 < ... < c_m`` (``m >= 2``, only the cells present) is the right-leaning chain of ``m - 1``
binary tests ``col(c_1)``, ..., ``col(c_{m-1})``: the left child of the ``i``-th test is cell
``c_i``, the right child of the last is ``c_m``. It is a binary tree with the same partition of
the rows; for a categorical feature the tests read ``x == v_1``, ``x == v_2``, ...; for an
integer feature ``x <= t_1``, ``x <= t_2``, ... . **Counting.** As in the paper, one multiway
node is one test: the reward is ``-cost(feature)`` per multiway split whatever its arity, and the
objective is the number of tests, :func:`count_tests` (a split counts unless it is the right
child of a split on the same multiway feature: a feature never splits a path twice, since every
child of its split has one cell). ``stats["binary_splits"]`` is the number of binary nodes of the
encoding (``Tree.n_splits``); ``max_depth`` counts tests on a path (the binary encoding may be
deeper). :func:`min_multiway_tests` is an exact reference (memoized search over the row sets)
for the fewest tests of a consistent tree on small discrete problems.

The learner (the paper's Algorithms 1 and 2)
--------------------------------------------
``Q(s, a) = theta . phi(s, a)``: a linear function of binary features ``phi`` given by *tile
coding* of a real vector ``g(s, a)`` (``n_layers`` offset grids of ``resolution`` tiles per
dimension, hashed into a memory of ``memory`` weights, :class:`TileCoder`). ``g`` puts side by side
the state's entropy summary and the action's splitting statistics, all in ``[0, 1]``
(:data:`FEATURES`): the learner weighs several splitting criteria instead of committing to one.

Linear gradient-descent SARSA(lambda) (Sutton & Barto, Fig. 8.8; ``lam=0`` by default, plain
SARSA): after taking ``a`` in ``s`` with reward ``r`` and choosing ``a'`` in ``s'``::

    delta = r + gamma * Q(s', a') - Q(s, a)        (delta = r - Q(s, a) at a final state)
    e     = gamma * lam * e + grad Q(s, a)          (accumulating traces; grad Q = phi(s, a))
    theta = theta + (alpha / n_layers) * delta * e

The step is divided by the number of active tiles (``n_layers``), the usual normalization of tile
coding (with ``alpha = 1`` one update moves ``Q(s, a)`` all the way to its target). ``alpha`` and
``epsilon`` follow the paper's schedule ``1 / (1 + log2(episode + 1))`` (episodes counted from
0), or are constants. Actions are chosen epsilon-greedily (ties broken at random).

The tree returned is the best one met in any episode (fewest errors, then lowest test cost, then
fewest tests, then fewest binary nodes); the tree of the final greedy policy is reported in
``stats``. Its objective is its number of tests (:func:`count_tests`; = ``Tree.n_splits`` when no
feature is multiway).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from ...binarize import BinaryProblem
from ...deadline import Deadline
from ...result import FEASIBLE, SolveResult
from ...tree import Node, Tree
from ..common import finalize_tree

__all__ = ["solve_adapttree", "AdaptTreeResult", "TileCoder", "id3_tree", "paper_problem",
           "paper_schedule", "FEATURES", "DEFAULT_FEATURES", "sarsa_update", "attributes", "Attributes",
           "count_tests", "min_multiway_tests", "MULTIWAY"]

#: every feature of ``g(s, a)`` (all in [0, 1])
FEATURES = (
    "info_gain",      # information gain of the split / entropy of the part
    "gain_ratio",     # information gain / split information (C4.5)
    "gini",           # Gini gain / Gini impurity of the part
    "pure",           # share of the part's rows that land in pure children
    "size",           # the part's rows / all rows
    "entropy",        # the part's class entropy / log2(C)
    "cost",           # the attribute's cost / the largest cost
    "state_entropy",  # state: weighted mean class entropy of the parts / log2(C)
    "state_open",     # state: share of the rows in open (still to split) parts
)
DEFAULT_FEATURES = ("info_gain", "gain_ratio", "gini", "pure", "state_entropy", "state_open")
_STATE = ("state_entropy", "state_open")
MULTIWAY = ("none", "categorical", "discrete")
_CACHE_PARTS = 200_000   # parts whose statistics are kept


def paper_schedule(episode: int) -> float:
    """The paper's ``alpha = epsilon = 1 / (1 + log2(episode + 1))``."""
    return 1.0 / (1.0 + np.log2(episode + 1.0))


# ------------------------------------------------------------------------ tile coding
_GOLD = np.uint64(0x9E3779B97F4A7C15)
_MIX = np.uint64(0xBF58476D1CE4E5B9)


class TileCoder:
    """Hashed tile coding of vectors in ``[0, 1]^d`` (Sutton's ``tiles`` with a hashed memory).

    Layer ``l`` is a grid of ``resolution`` tiles per dimension displaced by ``l * (2 j + 1) /
    n_layers`` of a tile along dimension ``j`` (asymmetric offsets). A point activates one tile
    per layer; the tile's integer coordinates and its layer are hashed (a fixed integer mix, so
    the code is the same in every process and for every ``random_state``) into ``[0, memory)``.
    Nearby points share most of their tiles: that is the generalization.

    The hash is a sum of per-dimension terms before the final mix, so the terms of some
    dimensions can be computed once and reused (:meth:`partial`, :meth:`combine`).
    """

    def __init__(self, n_dims: int, n_layers: int = 32, memory: int = 512, resolution: int = 4):
        if n_dims < 1 or n_layers < 1 or memory < 1 or resolution < 1:
            raise ValueError("n_dims, n_layers, memory and resolution must be >= 1")
        self.n_dims, self.n_layers, self.memory, self.resolution = n_dims, n_layers, memory, resolution
        layers, dims = np.arange(n_layers), np.arange(n_dims)
        self.offsets = ((layers[:, None] * (2 * dims[None, :] + 1)) % n_layers) / n_layers  # (k, d)
        # odd multipliers per dimension and per layer (fixed constants: deterministic everywhere)
        self.dim_keys = (np.uint64(0x632BE59BD9B4E019) * (2 * dims.astype(np.uint64) + np.uint64(1))) \
            .astype(np.int64)
        self.layer_keys = (np.uint64(0x8CB92BA72F3D8DD7) * (layers.astype(np.uint64) + np.uint64(1))) \
            .astype(np.int64)

    def partial(self, g: np.ndarray, dims: Sequence[int] | np.ndarray | None = None) -> np.ndarray:
        """Per-layer hash terms of the dimensions ``dims`` of ``g`` (m, len(dims)): (m, k) int64."""
        g = np.atleast_2d(np.asarray(g, dtype=float))
        dims = np.arange(self.n_dims) if dims is None else np.asarray(dims, dtype=np.int64)
        coords = np.floor(np.clip(g, 0.0, 1.0)[:, None, :] * self.resolution
                          + self.offsets[None][:, :, dims]).astype(np.int64)       # (m, k, d)
        with np.errstate(over="ignore"):
            return (coords * self.dim_keys[dims]).sum(axis=2)

    def combine(self, *terms: np.ndarray) -> np.ndarray:
        """Tile indices (m, k) from hash terms (broadcast and summed) of disjoint dimensions."""
        with np.errstate(over="ignore"):
            s = sum(terms) + self.layer_keys
            h = s.astype(np.uint64) * _GOLD
            h ^= h >> np.uint64(31)
            h *= _MIX
            h ^= h >> np.uint64(29)
        return (h % np.uint64(self.memory)).astype(np.int64)

    def indices(self, g: np.ndarray) -> np.ndarray:
        """Active tile of each layer for each row of ``g`` (m, d): (m, n_layers) in [0, memory)."""
        return self.combine(self.partial(g))

    def features(self, g: np.ndarray) -> np.ndarray:
        """The feature vectors ``phi`` (m, memory): active-tile counts (a collision counts twice)."""
        idx = self.indices(g)
        phi = np.zeros((idx.shape[0], self.memory))
        np.add.at(phi, (np.repeat(np.arange(idx.shape[0]), idx.shape[1]), idx.ravel()), 1.0)
        return phi


def sarsa_update(theta: np.ndarray, trace: np.ndarray, idx: np.ndarray, reward: float,
                 q_next: float | None, step: float, gamma: float, lam: float) -> float:
    """One linear gradient-descent SARSA(lambda) update, in place; returns ``delta``.

    ``idx``: active tiles of ``(s, a)``; ``q_next``: ``Q(s', a')``, None at a final state;
    ``step``: the step size per active tile (``alpha / n_layers``).
    """
    q = float(theta[idx].sum())
    delta = reward - q if q_next is None else reward + gamma * q_next - q
    trace *= gamma * lam
    np.add.at(trace, idx, 1.0)
    theta += step * delta * trace
    return delta


# ------------------------------------------------------------------------ split statistics
def _entropy(counts: np.ndarray) -> np.ndarray:
    """Class entropy in bits along the last axis (0 for an empty set)."""
    total = counts.sum(axis=-1, keepdims=True)
    p = np.divide(counts, total, out=np.zeros_like(counts, dtype=float), where=total > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return terms.sum(axis=-1)


def _gini(counts: np.ndarray) -> np.ndarray:
    total = counts.sum(axis=-1, keepdims=True)
    p = np.divide(counts, total, out=np.zeros_like(counts, dtype=float), where=total > 0)
    return 1.0 - (p * p).sum(axis=-1)


def split_statistics(problem: BinaryProblem, rows: np.ndarray, attributes: np.ndarray | None = None
                     ) -> dict[str, np.ndarray]:
    """Statistics of splitting the distinct rows ``rows`` by each attribute (binary column).

    Returns a dict of arrays over the attributes that split the rows (both sides non-empty):
    ``attr``, ``right`` / ``left`` class counts (a, C), ``info_gain`` (bits), ``gain_ratio``,
    ``gini_gain``, ``pure`` (share of rows in pure children), and the part's ``counts``,
    ``entropy`` and ``gini``.
    """
    counts = problem.counts[rows].astype(float)
    total = counts.sum(axis=0)
    cols = np.arange(problem.n_binary) if attributes is None else np.asarray(attributes)
    right = problem.X[np.ix_(rows, cols)].T.astype(float) @ counts        # (a, C)
    left = total[None, :] - right
    w_r, w_l, w = right.sum(axis=1), left.sum(axis=1), total.sum()
    ok = (w_r > 0) & (w_l > 0)
    cols, right, left, w_r, w_l = cols[ok], right[ok], left[ok], w_r[ok], w_l[ok]
    h, g = float(_entropy(total)), float(_gini(total))
    children_h = (w_l * _entropy(left) + w_r * _entropy(right)) / w
    info_gain = np.maximum(h - children_h, 0.0)
    split_info = _entropy(np.stack([w_l, w_r], axis=1))
    gain_ratio = np.divide(info_gain, split_info, out=np.zeros_like(info_gain), where=split_info > 0)
    gini_gain = np.maximum(g - (w_l * _gini(left) + w_r * _gini(right)) / w, 0.0)
    pure = ((left.max(axis=1) == w_l) * w_l + (right.max(axis=1) == w_r) * w_r) / w
    return {"attr": cols, "left": left, "right": right, "info_gain": info_gain,
            "gain_ratio": np.clip(gain_ratio, 0.0, 1.0), "gini_gain": gini_gain, "pure": pure,
            "counts": total, "entropy": h, "gini": g, "weight": w}


# ------------------------------------------------------------------------ attributes
@dataclass
class Attributes:
    """The attributes an action may test (module doc): binary columns and multiway features.

    Attributes
    ----------
    columns : list of ndarray
        The binary columns of each attribute (one for a binary attribute; a multiway
        attribute's columns in binarization order).
    feature : ndarray of int
        The original feature of each attribute.
    multi : ndarray of bool
        Multiway attributes.
    cells : ndarray of int, shape (n_distinct, n_attributes)
        The cell of each distinct row for each attribute (binary: the column's value, 0 = left).
    multiway_features : frozenset of int
        Original features split multiway.
    """

    columns: list
    feature: np.ndarray
    multi: np.ndarray
    cells: np.ndarray
    multiway_features: frozenset

    def __len__(self) -> int:
        return len(self.columns)

    def statistics(self, problem: BinaryProblem, rows: np.ndarray) -> dict:
        """:func:`split_statistics` over the attributes (``attr`` = attribute indices); the
        statistics of a multiway attribute are those of its split into every cell present."""
        if not self.multi.any():                         # attributes = columns, in order
            return split_statistics(problem, rows)
        single = np.flatnonzero(~self.multi)
        cols = np.array([self.columns[a][0] for a in single], dtype=np.int64)
        st = split_statistics(problem, rows, cols)
        keep = np.searchsorted(cols, st["attr"]) if len(cols) else np.empty(0, dtype=np.int64)
        out = {"attr": list(single[keep]), "info_gain": list(st["info_gain"]), "gain_ratio": list(st["gain_ratio"]),
               "gini_gain": list(st["gini_gain"]), "pure": list(st["pure"])}
        counts = problem.counts[rows].astype(float)
        total = counts.sum(axis=0)
        w, h, g = float(total.sum()), float(_entropy(total)), float(_gini(total))
        for a in np.flatnonzero(self.multi):
            child = np.zeros((len(self.columns[a]) + 1, counts.shape[1]))
            np.add.at(child, self.cells[rows, a], counts)
            wc = child.sum(axis=1)
            child, wc = child[wc > 0], wc[wc > 0]
            if len(wc) < 2:
                continue
            gain = max(h - float((wc * _entropy(child)).sum()) / w, 0.0)
            split_info = float(_entropy(wc))
            out["attr"].append(int(a))
            out["info_gain"].append(gain)
            out["gain_ratio"].append(min(gain / split_info, 1.0) if split_info > 0 else 0.0)
            out["gini_gain"].append(max(g - float((wc * _gini(child)).sum()) / w, 0.0))
            out["pure"].append(float(wc[child.max(axis=1) == wc].sum()) / w)
        order = np.argsort(np.asarray(out["attr"], dtype=np.int64), kind="stable")
        res = {k: np.asarray(v, dtype=np.int64 if k == "attr" else float)[order] for k, v in out.items()}
        res.update(counts=total, entropy=h, gini=g, weight=w)
        return res

    def split(self, problem: BinaryProblem, a: int, rows: np.ndarray) -> tuple[Node, list[tuple[Node, np.ndarray]]]:
        """Split ``rows`` by attribute ``a``: the (chain of) binary node(s) and the children as
        ``(leaf node to fill, its rows)`` in cell order (module doc: the encoding)."""
        cols = self.columns[a]
        if not self.multi[a]:
            go = problem.X[rows, cols[0]]
            left, right = Node.leaf(0), Node.leaf(0)
            return Node.split(int(cols[0]), 0.5, left, right), [(left, rows[~go]), (right, rows[go])]
        cell = self.cells[rows, a]
        present = np.unique(cell)
        leaves = [Node.leaf(0) for _ in present]
        node = leaves[-1]
        for c, leaf in zip(present[-2::-1], leaves[-2::-1]):
            node = Node.split(int(cols[c]), 0.5, leaf, node)
        return node, [(leaf, rows[cell == c]) for c, leaf in zip(present, leaves)]


def attributes(problem: BinaryProblem, multiway: str = "categorical", max_arity: int = 10) -> Attributes:
    """The attributes of ``problem`` (module doc). ``multiway``: ``"none"`` (every binary column is
    an attribute), ``"categorical"`` (categorical features with >= 2 columns split multiway) or
    ``"discrete"`` (also numeric features with at most ``max_arity`` distinct training values,
    all integers)."""
    if multiway not in MULTIWAY:
        raise ValueError(f"multiway must be one of {', '.join(MULTIWAY)}, got {multiway!r}")
    if isinstance(max_arity, bool) or not isinstance(max_arity, (int, np.integer)) or max_arity < 2:
        raise ValueError(f"max_arity must be an integer >= 2, got {max_arity!r}")
    data, tests = problem.data, problem.tests
    by_feature: dict[int, list[int]] = {}
    for j, t in enumerate(tests):
        by_feature.setdefault(t.feature, []).append(j)
    multi_f = set()
    if multiway != "none":
        for f, js in by_feature.items():
            if len(js) < 2:
                continue
            if data.schema.is_categorical(f):
                multi_f.add(f)
            elif multiway == "discrete":
                v = np.unique(data.X[:, f])
                if len(v) <= max_arity and np.all(v == np.round(v)):
                    multi_f.add(f)
    columns, feature, multi, cells = [], [], [], []
    done = set()
    for j, t in enumerate(tests):
        f = t.feature
        if f not in multi_f:
            columns.append(np.array([j]))
            feature.append(f)
            multi.append(False)
            cells.append(problem.X[:, j].astype(np.int64))
        elif f not in done:
            done.add(f)
            js = np.array(by_feature[f])
            if not data.schema.is_categorical(f):     # thresholds: ascending (cells = intervals)
                js = js[np.argsort([tests[k].threshold for k in js], kind="stable")]
            block = problem.X[:, js]                  # True = right (x > t, or x != v)
            first_left = np.where(block.all(axis=1), len(js), np.argmin(block, axis=1))
            columns.append(js)
            feature.append(f)
            multi.append(True)
            cells.append(first_left.astype(np.int64))
    cells_arr = np.stack(cells, axis=1) if cells else np.zeros((problem.n_distinct, 0), dtype=np.int64)
    return Attributes(columns, np.asarray(feature, dtype=np.int64), np.asarray(multi, dtype=bool), cells_arr,
                      frozenset(multi_f))


def count_tests(tree: Tree, multiway_features: Any = ()) -> int:
    """Tests of a tree counted as the paper does: one multiway node = one test (module doc).

    ``tree`` is over the original features; a split counts unless it is the right child of a
    split on the same feature of ``multiway_features`` (with none, this is ``tree.n_splits``)."""
    multi = set(int(f) for f in multiway_features)

    def rec(node: Node, parent: int) -> int:
        if node.is_leaf:
            return 0
        own = 0 if (node.feature == parent and node.feature in multi) else 1
        return own + rec(node.left, -1) + rec(node.right, node.feature)

    return rec(tree.root, -1)


def min_multiway_tests(problem: BinaryProblem, multiway: str = "discrete", max_arity: int = 10, costs: Any = None,
                       max_parts: int = 2_000_000) -> float | None:
    """The least total test cost (number of tests with unit costs) of a tree consistent with the
    training rows, each test an attribute of :func:`attributes` (one multiway node = one test).

    Exact, by memoized search over the sets of rows a path can reach: ``f(rows) = 0`` if the rows
    have one class, else ``min_a cost(a) + sum over a's cells of f(cell)``. A reference for small
    discrete problems (the paper's, the MONK's), not an engine: returns None when more than
    ``max_parts`` row sets would be needed, ``inf`` if rows conflict.
    """
    attrs = attributes(problem, multiway, max_arity)
    cost = _feature_costs(problem, costs)
    cost_a = np.array([cost[c[0]] for c in attrs.columns]) if len(attrs) else np.zeros(0)
    label = np.where((problem.counts > 0).sum(axis=1) == 1, np.argmax(problem.counts, axis=1), -1)
    memo: dict[bytes, float] = {}

    import sys
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))

    class _TooBig(Exception):
        pass

    def f(rows: np.ndarray) -> float:
        lab = label[rows]
        if lab[0] >= 0 and np.all(lab == lab[0]):
            return 0.0
        key = rows.tobytes()
        hit = memo.get(key)
        if hit is not None:
            return hit
        if len(memo) >= max_parts:
            raise _TooBig
        best = np.inf
        cells = attrs.cells[rows]
        for a in np.argsort(cost_a, kind="stable"):
            if cost_a[a] >= best:
                break
            cell = cells[:, a]
            present = np.unique(cell)
            if len(present) < 2:
                continue
            total = cost_a[a]
            for c in present:
                total += f(rows[cell == c])
                if total >= best:
                    break
            best = min(best, total)
        memo[key] = best
        return best

    try:
        return float(f(np.arange(problem.n_distinct)))
    except _TooBig:
        return None


# ------------------------------------------------------------------------ ID3
def id3_tree(problem: BinaryProblem, max_depth: int | None = None, criterion: str = "info_gain",
             multiway: str = "categorical", max_arity: int = 10) -> Tree:
    """ID3 over the attributes (:func:`attributes`: binary columns and multiway features): split
    every impure part by the attribute of largest ``criterion`` (``"info_gain"``,
    ``"gain_ratio"`` or ``"gini_gain"``; ties: the lowest attribute), until parts are pure,
    inseparable or at ``max_depth`` tests. A tree over the columns (threshold 0.5); a multiway
    split is its chain of binary tests (module doc)."""
    if criterion not in ("info_gain", "gain_ratio", "gini_gain"):
        raise ValueError(f"criterion must be info_gain, gain_ratio or gini_gain, got {criterion!r}")
    attrs = attributes(problem, multiway, max_arity)

    def rec(rows: np.ndarray, depth: int) -> Node:
        counts = problem.counts[rows].sum(axis=0)
        leaf = Node.leaf(int(np.argmax(counts)), counts)
        if (counts > 0).sum() <= 1 or (max_depth is not None and depth >= max_depth):
            return leaf
        st = attrs.statistics(problem, rows)
        if len(st["attr"]) == 0:
            return leaf
        a = int(st["attr"][int(np.argmax(st[criterion]))])
        node, children = attrs.split(problem, a, rows)
        for child, sub in children:
            built = rec(sub, depth + 1)
            child.__dict__.update(built.__dict__)
        return node

    return Tree(rec(np.arange(problem.n_distinct), 0), classes=problem.classes)


# ------------------------------------------------------------------------ the paper's data
def paper_problem() -> BinaryProblem:
    """The paper's experiment: E = {True, False}^7 (all 128 rows), target
    c = (A0 & A1 & A2) | (A0 & A1 & A3) | (A0 & A1 & A4) | (A5 & A6)."""
    from ...binarize import Binarizer
    from ...data import prepare

    X = np.array(list(itertools.product([0.0, 1.0], repeat=7)))
    A = X.astype(bool)
    y = (A[:, 0] & A[:, 1] & (A[:, 2] | A[:, 3] | A[:, 4])) | (A[:, 5] & A[:, 6])
    data = prepare(X, np.where(y, "True", "False"))
    data.name = "preda-7"
    return Binarizer("all").problem(data)


# ------------------------------------------------------------------------ the environment
@dataclass
class _Part:
    rows: np.ndarray
    node: Node
    depth: int
    entropy: float          # normalized
    weight: float
    attrs: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    terms: np.ndarray | None = None     # (a, k) hash terms of the action dimensions


@dataclass
class AdaptTreeResult:
    """What :func:`solve_adapttree` learned.

    Attributes
    ----------
    result : SolveResult
        The best tree met (original features), status FEASIBLE, objective = its tests (= its splits without multiway features).
    binary_tree : Tree
        The same tree over the binary columns (before pruning).
    curve : list of dict
        Per episode: ``splits``, ``errors``, ``cost``, ``return`` (discounted), ``alpha``, ``epsilon``.
    greedy_tree : Tree or None
        The tree of the final greedy policy (over the binary columns); None when the time limit
        left no time for it.
    theta : ndarray
        The learned weights.
    """

    result: SolveResult
    binary_tree: Tree
    curve: list[dict]
    greedy_tree: Tree | None
    theta: np.ndarray


class _Episode:
    """One episode's partition and the action features of its open parts."""

    def __init__(self, env: "_Env"):
        self.env = env
        p = env.problem
        rows = np.arange(p.n_distinct)
        self.root = Node.leaf(0)
        self.open: list[_Part] = []
        self.h_sum = 0.0            # sum over parts of weight * normalized entropy
        self.open_weight = 0.0
        self.splits, self.binary_splits, self.cost, self.errors = 0, 0, 0.0, 0.0
        self.reward0 = -self._add(rows, self.root, 0)

    def _add(self, rows: np.ndarray, node: Node, depth: int) -> float:
        """Register a new part; returns the error penalty if it closes impure."""
        env = self.env
        counts, weight, h, attrs, terms = env.part_info(rows)
        node.label, node.counts = int(np.argmax(counts)), counts
        self.h_sum += weight * h
        if len(attrs) and (env.max_depth is None or depth < env.max_depth):
            part = _Part(rows, node, depth, h, weight, attrs, terms)
            self.open.append(part)
            self.open_weight += weight
            return 0.0
        wrong = float(weight - counts.max())
        self.errors += wrong
        return env.error_cost * wrong

    def actions(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(part position, attribute, tile indices (A, k)) of every action of the state."""
        env = self.env
        state = {"state_entropy": self.h_sum / env.n, "state_open": self.open_weight / env.n}
        g_state = np.array([[state[f] for f in env.state_names]])
        s_terms = env.coder.partial(g_state, env.state_dims) if env.state_names else 0
        part_pos = np.concatenate([np.full(len(p.attrs), i) for i, p in enumerate(self.open)])
        attrs = np.concatenate([p.attrs for p in self.open])
        terms = np.concatenate([p.terms for p in self.open])
        return part_pos, attrs, env.coder.combine(terms, s_terms)

    def step(self, part_pos: int, attr: int) -> float:
        """Split an open part by an attribute; returns the reward."""
        env = self.env
        part = self.open.pop(part_pos)
        self.open_weight -= part.weight
        self.h_sum -= part.weight * part.entropy
        chain, children = env.attrs.split(env.problem, attr, part.rows)
        node = part.node
        node.feature, node.threshold, node.left, node.right = chain.feature, chain.threshold, chain.left, chain.right
        self.splits += 1
        self.binary_splits += len(children) - 1
        c = float(env.costs[attr])
        self.cost += c
        penalty = 0.0
        for leaf, rows in children:
            penalty += self._add(rows, leaf, part.depth + 1)
        return -c - penalty

    def interrupt(self) -> None:
        """Stop the episode: every open part becomes a leaf (its misclassified rows count)."""
        for part in self.open:
            self.errors += float(part.weight - part.node.counts.max())
        self.open, self.open_weight = [], 0.0
        self.interrupted = True

    @property
    def done(self) -> bool:
        return not self.open


class _Env:
    def __init__(self, problem: BinaryProblem, attrs: Attributes, features: Sequence[str], costs: np.ndarray,
                 max_depth: int | None, error_cost: float, coder_kwargs: dict):
        """``costs``: per binary column; an attribute costs its (first) column's feature cost."""
        self.problem, self.attrs, self.max_depth, self.error_cost = problem, attrs, max_depth, error_cost
        self.costs = np.array([costs[c[0]] for c in attrs.columns]) if len(attrs) else np.ones(0)
        self.n = float(problem.weights.sum())
        self.h_norm = max(1.0, float(np.log2(max(2, problem.n_classes))))
        self.max_cost = float(self.costs.max()) if len(self.costs) else 1.0
        self.action_names = [f for f in features if f not in _STATE]
        self.state_names = [f for f in features if f in _STATE]
        self.action_dims = np.arange(len(self.action_names))
        self.state_dims = len(self.action_names) + np.arange(len(self.state_names))
        self.coder = TileCoder(len(features), **coder_kwargs)
        self.cache: dict[bytes, tuple] = {}   # rows -> part_info (parts recur across episodes)

    def part_info(self, rows: np.ndarray) -> tuple:
        """(class counts, weight, normalized entropy, attributes that split it, their hash terms)
        of a part, computed once per distinct set of rows."""
        key = rows.tobytes()
        info = self.cache.get(key)
        if info is not None:
            return info
        counts = self.problem.counts[rows].sum(axis=0)
        weight = float(counts.sum())
        h = float(_entropy(counts.astype(float))) / self.h_norm
        attrs, terms = np.empty(0, dtype=np.int64), None
        if (counts > 0).sum() > 1:
            st = self.attrs.statistics(self.problem, rows)
            if len(st["attr"]):
                attrs = st["attr"]
                terms = self.coder.partial(self.action_features(weight, h, st), self.action_dims)
        info = (counts, weight, h, attrs, terms)
        if len(self.cache) < _CACHE_PARTS:
            self.cache[key] = info
        return info

    def action_features(self, weight: float, entropy: float, st: dict) -> np.ndarray:
        h = st["entropy"]
        cols = []
        for f in self.action_names:
            if f == "info_gain":
                cols.append(st["info_gain"] / h if h > 0 else np.zeros(len(st["attr"])))
            elif f == "gain_ratio":
                cols.append(st["gain_ratio"])
            elif f == "gini":
                cols.append(st["gini_gain"] / st["gini"] if st["gini"] > 0 else np.zeros(len(st["attr"])))
            elif f == "pure":
                cols.append(st["pure"])
            elif f == "size":
                cols.append(np.full(len(st["attr"]), weight / self.n))
            elif f == "entropy":
                cols.append(np.full(len(st["attr"]), entropy))
            elif f == "cost":
                cols.append(self.costs[st["attr"]] / self.max_cost)
        return np.stack(cols, axis=1) if cols else np.zeros((len(st["attr"]), 0))


def _schedule(value: float | str | Callable[[int], float], name: str) -> Callable[[int], float]:
    if callable(value):
        return value
    if isinstance(value, str):
        if value != "paper":
            raise ValueError(f"{name} must be a number in [0, 1], 'paper' or a callable, got {value!r}")
        return paper_schedule
    v = float(value)
    if not 0.0 <= v <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return lambda episode: v


def _choose(q: np.ndarray, epsilon: float, rng: np.random.Generator) -> int:
    """Epsilon-greedy (Algorithm 2): a random action with probability epsilon, else a greedy one
    (ties at random)."""
    if epsilon > 0 and rng.random() < epsilon:
        return int(rng.integers(len(q)))
    best = np.flatnonzero(q >= q.max() - 1e-12)
    return int(best[0] if len(best) == 1 else rng.choice(best))


def _feature_costs(problem: BinaryProblem, costs: Any) -> np.ndarray:
    """Cost of each binary column from per-original-feature costs (None: all 1)."""
    n_features = problem.data.X.shape[1]
    if costs is None:
        per_feature = np.ones(n_features)
    else:
        per_feature = np.asarray(costs, dtype=float).ravel()
        if per_feature.shape != (n_features,) or not np.all(np.isfinite(per_feature)) or np.any(per_feature <= 0):
            raise ValueError(f"costs must hold {n_features} positive finite numbers (one per feature), got {costs!r}")
    return per_feature[[t.feature for t in problem.tests]] if problem.tests else np.ones(0)


def solve_adapttree(problem: BinaryProblem, *, n_episodes: int = 200, gamma: float = 0.9,
                    alpha: float | str | Callable[[int], float] = "paper",
                    epsilon: float | str | Callable[[int], float] = "paper", lam: float = 0.0,
                    n_layers: int = 32, memory: int = 512, resolution: int = 2,
                    features: Sequence[str] = DEFAULT_FEATURES, costs: Any = None,
                    max_depth: int | None = None, error_cost: float = 1.0, q_init: float = 0.0,
                    multiway: str = "categorical", max_arity: int = 10,
                    random_state: int | None = 0, time_limit: float | None = None) -> AdaptTreeResult:
    """ADAPTTREE0 (module doc): SARSA over partitions, tile-coded splitting criteria.

    Parameters
    ----------
    problem : BinaryProblem
        Attributes are its binary columns.
    n_episodes : int
        Trees built while learning (one per episode).
    gamma : float
        Discount.
    alpha, epsilon : float, "paper" or callable(episode) -> float
        Step size (per update, divided by ``n_layers`` per tile) and exploration rate;
        ``"paper"``: ``1 / (1 + log2(episode + 1))``.
    lam : float
        Trace decay of SARSA(lambda) (0: one-step SARSA).
    n_layers, memory, resolution : int
        Tile coding: layers, hashed weights, tiles per dimension.
    features : sequence of str
        The components of ``g(s, a)`` (from :data:`FEATURES`).
    costs : array-like or None
        Cost of testing each original feature (the reward of a split is minus it); None: 1.
    max_depth : int or None
        Parts at this depth (in tests) close (None: only pure or inseparable parts close).
    error_cost : float
        Penalty per misclassified training row of a part that closes impure.
    q_init : float
        Initial value of every ``Q(s, a)`` (0, the paper's zero weights, is optimistic: the
        returns are negative).
    multiway : {"categorical", "discrete", "none"}
        Which features split by every value (module doc, :func:`attributes`).
    max_arity : int
        With ``"discrete"``: numeric features with at most this many distinct integer values
        split multiway.
    random_state : int or None
    time_limit : float or None
        Wall-clock seconds; the best tree so far is returned when it runs out (an episode cut
        short leaves its open parts as leaves, so that tree may have training errors).
    """
    deadline = Deadline(time_limit)
    if not isinstance(n_episodes, (int, np.integer)) or n_episodes < 1:
        raise ValueError(f"n_episodes must be an integer >= 1, got {n_episodes!r}")
    if not 0.0 <= gamma <= 1.0 or not 0.0 <= lam <= 1.0:
        raise ValueError(f"gamma and lam must be in [0, 1], got {gamma!r}, {lam!r}")
    unknown = [f for f in features if f not in FEATURES]
    if unknown or not features or len(set(features)) != len(features):
        raise ValueError(f"features must be distinct names from {', '.join(FEATURES)}, got {list(features)!r}")
    if max_depth is not None and max_depth < 0:
        raise ValueError(f"max_depth must be >= 0 or None, got {max_depth!r}")
    if not error_cost >= 0:
        raise ValueError(f"error_cost must be >= 0, got {error_cost!r}")
    alpha_at, epsilon_at = _schedule(alpha, "alpha"), _schedule(epsilon, "epsilon")
    attrs = attributes(problem, multiway, max_arity)
    env = _Env(problem, attrs, list(features), _feature_costs(problem, costs), max_depth, float(error_cost),
               dict(n_layers=n_layers, memory=memory, resolution=resolution))
    rng = np.random.default_rng(random_state)
    theta = np.full(memory, float(q_init) / n_layers)
    trace = np.zeros(memory)
    curve: list[dict] = []
    best_key, best_root, best_episode = None, None, -1

    def run(eps: float, learn_rate: float | None) -> _Episode:
        ep = _Episode(env)
        ret, discount = ep.reward0, 1.0
        trace[:] = 0.0
        if ep.done:
            return ep
        pos, attrs, idx = ep.actions()
        a = _choose(theta[idx].sum(axis=1), eps, rng)
        while True:
            r = ep.step(int(pos[a]), int(attrs[a]))
            ret += discount * r
            discount *= gamma
            if ep.done:
                if learn_rate is not None:
                    sarsa_update(theta, trace, idx[a], r, None, learn_rate / n_layers, gamma, lam)
                break
            if deadline.expired():          # out of time: the open parts stay leaves
                ep.interrupt()
                break
            pos2, attrs2, idx2 = ep.actions()
            q2 = theta[idx2].sum(axis=1)
            a2 = _choose(q2, eps, rng)
            if learn_rate is not None:
                sarsa_update(theta, trace, idx[a], r, float(q2[a2]), learn_rate / n_layers, gamma, lam)
            pos, attrs, idx, a = pos2, attrs2, idx2, a2
        ep.ret = ret
        return ep

    episodes_run = 0
    for episode in range(n_episodes):
        if episode and deadline.expired():
            break
        eps, rate = epsilon_at(episode), alpha_at(episode)
        ep = run(eps, rate)
        episodes_run += 1
        curve.append({"episode": episode, "splits": ep.splits, "errors": ep.errors, "cost": ep.cost,
                      "return": getattr(ep, "ret", ep.reward0), "alpha": rate, "epsilon": eps})
        key = (ep.errors, ep.cost, ep.splits, ep.binary_splits)
        if best_key is None or key < best_key:
            best_key, best_root, best_episode = key, ep.root, episode
    greedy = run(0.0, None) if not deadline.expired() else None

    binary = Tree(best_root, classes=problem.classes)
    tree, errors = finalize_tree(problem, binary)
    tree.meta.update(method="adapttree")
    tests = count_tests(tree, attrs.multiway_features)
    stats = {"solver": "adapttree0", "episodes": episodes_run, "best_episode": best_episode,
             "best_splits": int(best_key[2]), "test_cost": float(best_key[1]), "tests": tests,
             "binary_splits": tree.n_splits, "multiway": multiway,
             "multiway_features": sorted(int(f) for f in attrs.multiway_features),
             "errors": errors, "greedy_splits": None if greedy is None else greedy.splits,
             "greedy_errors": None if greedy is None else greedy.errors,
             "interrupted": bool(getattr(ep, "interrupted", False)),
             "first_episode_splits": curve[0]["splits"], "n_layers": n_layers, "memory": memory,
             "features": list(features), "binary_columns": problem.n_binary,
             "engine_s": round(deadline.elapsed(), 4)}
    result = SolveResult(tree, FEASIBLE, float(tests), None, deadline.elapsed(), method="adapttree",
                         objective_name="tests" if attrs.multiway_features else "splits", stats=stats)
    return AdaptTreeResult(result, binary, curve, None if greedy is None else Tree(greedy.root, classes=problem.classes),
                           theta)
