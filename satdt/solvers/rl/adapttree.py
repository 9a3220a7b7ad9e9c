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

Attributes are the binary columns of :class:`satdt.binarize.BinaryProblem` (the shared
binarization, so the method runs on every dataset satdt accepts): over Boolean attributes a
multiway split *is* a binary split and the tree maps node for node onto a satdt
:class:`~satdt.tree.Tree`. A numeric feature contributes one attribute ``x <= t`` per threshold of
the binarization; a categorical feature with ``k > 2`` values contributes ``k`` one-vs-rest
attributes ``x == v`` (the Binarizer's tests). ID3's ``k``-way split of such a feature is thus
learned as a chain of binary ``==`` tests, each of which costs one split: the objective counts
binary internal nodes, the quantity the exact engines minimize.

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
fewest splits); the tree of the final greedy policy is reported in ``stats``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from ...binarize import BinaryProblem
from ...result import FEASIBLE, SolveResult
from ...tree import Node, Tree
from ..common import Deadline, finalize_tree

__all__ = ["solve_adapttree", "AdaptTreeResult", "TileCoder", "id3_tree", "paper_problem",
           "paper_schedule", "FEATURES", "DEFAULT_FEATURES", "sarsa_update"]

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


# ------------------------------------------------------------------------ ID3
def id3_tree(problem: BinaryProblem, max_depth: int | None = None, criterion: str = "info_gain") -> Tree:
    """ID3 over the binary columns: split every impure part by the attribute of largest
    ``criterion`` (``"info_gain"``, ``"gain_ratio"`` or ``"gini_gain"``; ties: the lowest column),
    until parts are pure, inseparable or at ``max_depth``. A tree over the columns (threshold 0.5)."""
    if criterion not in ("info_gain", "gain_ratio", "gini_gain"):
        raise ValueError(f"criterion must be info_gain, gain_ratio or gini_gain, got {criterion!r}")

    def rec(rows: np.ndarray, depth: int) -> Node:
        counts = problem.counts[rows].sum(axis=0)
        leaf = Node.leaf(int(np.argmax(counts)), counts)
        if (counts > 0).sum() <= 1 or (max_depth is not None and depth >= max_depth):
            return leaf
        st = split_statistics(problem, rows)
        if len(st["attr"]) == 0:
            return leaf
        j = int(st["attr"][int(np.argmax(st[criterion]))])
        go = problem.X[rows, j]
        return Node.split(j, 0.5, rec(rows[~go], depth + 1), rec(rows[go], depth + 1))

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
        The best tree met (original features), status FEASIBLE, objective = its splits.
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
        self.splits, self.cost, self.errors = 0, 0.0, 0.0
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
        go = env.problem.X[part.rows, attr]
        left, right = Node.leaf(0), Node.leaf(0)
        node = part.node
        node.feature, node.threshold, node.left, node.right = int(attr), 0.5, left, right
        self.splits += 1
        c = float(env.costs[attr])
        self.cost += c
        penalty = self._add(part.rows[~go], left, part.depth + 1)
        penalty += self._add(part.rows[go], right, part.depth + 1)
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
    def __init__(self, problem: BinaryProblem, features: Sequence[str], costs: np.ndarray,
                 max_depth: int | None, error_cost: float, coder_kwargs: dict):
        self.problem, self.costs, self.max_depth, self.error_cost = problem, costs, max_depth, error_cost
        self.n = float(problem.weights.sum())
        self.h_norm = max(1.0, float(np.log2(max(2, problem.n_classes))))
        self.max_cost = float(costs.max()) if len(costs) else 1.0
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
            st = split_statistics(self.problem, rows)
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
        Parts at this depth close (None: only pure or inseparable parts close).
    error_cost : float
        Penalty per misclassified training row of a part that closes impure.
    q_init : float
        Initial value of every ``Q(s, a)`` (0, the paper's zero weights, is optimistic: the
        returns are negative).
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
    env = _Env(problem, list(features), _feature_costs(problem, costs), max_depth, float(error_cost),
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
        key = (ep.errors, ep.cost, ep.splits)
        if best_key is None or key < best_key:
            best_key, best_root, best_episode = key, ep.root, episode
    greedy = run(0.0, None) if not deadline.expired() else None

    binary = Tree(best_root, classes=problem.classes)
    tree, errors = finalize_tree(problem, binary)
    tree.meta.update(method="adapttree")
    stats = {"solver": "adapttree0", "episodes": episodes_run, "best_episode": best_episode,
             "best_splits": int(best_key[2]), "test_cost": float(best_key[1]),
             "errors": errors, "greedy_splits": None if greedy is None else greedy.splits,
             "greedy_errors": None if greedy is None else greedy.errors,
             "interrupted": bool(getattr(ep, "interrupted", False)),
             "first_episode_splits": curve[0]["splits"], "n_layers": n_layers, "memory": memory,
             "features": list(features), "binary_columns": problem.n_binary,
             "engine_s": round(deadline.elapsed(), 4)}
    result = SolveResult(tree, FEASIBLE, float(tree.n_splits), None, deadline.elapsed(), method="adapttree",
                         objective_name="splits", stats=stats)
    return AdaptTreeResult(result, binary, curve, None if greedy is None else Tree(greedy.root, classes=problem.classes),
                           theta)
