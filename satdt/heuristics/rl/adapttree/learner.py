"""ADAPTTREE0's learner: tile coding of the splitting statistics, linear gradient-descent SARSA,
the tree-building environment and :func:`solve_adapttree` (Preda's Algorithms 1 and 2). See
:mod:`satdt.heuristics.rl.adapttree` for the learning problem and the update.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from ....binarize import BinaryProblem
from ....deadline import Deadline
from ....result import FEASIBLE, SolveResult
from ....tree import Node, Tree
from ....result import finalize_tree
from .attributes import Attributes, attributes, class_entropy, count_tests, feature_costs

__all__ = ["solve_adapttree", "AdaptTreeResult", "TileCoder", "sarsa_update", "paper_schedule", "FEATURES",
           "DEFAULT_FEATURES"]

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
        h = float(class_entropy(counts.astype(float))) / self.h_norm
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




def solve_adapttree(problem: BinaryProblem, *, n_episodes: int = 200, gamma: float = 0.9,
                    alpha: float | str | Callable[[int], float] = "paper",
                    epsilon: float | str | Callable[[int], float] = "paper", lam: float = 0.0,
                    n_layers: int = 32, memory: int = 512, resolution: int = 2,
                    features: Sequence[str] = DEFAULT_FEATURES, costs: Any = None,
                    max_depth: int | None = None, error_cost: float = 1.0, q_init: float = 0.0,
                    multiway: str = "categorical", max_arity: int = 10,
                    random_state: int | None = 0, time_limit: float | Deadline | None = None) -> AdaptTreeResult:
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
    time_limit : float, Deadline or None
        Wall-clock seconds; the best tree so far is returned when it runs out (an episode cut
        short leaves its open parts as leaves, so that tree may have training errors).
    """
    deadline = Deadline.of(time_limit)
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
    env = _Env(problem, attrs, list(features), feature_costs(problem, costs), max_depth, float(error_cost),
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
