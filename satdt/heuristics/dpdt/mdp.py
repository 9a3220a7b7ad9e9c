"""The DPDT MDP and its backward induction over many alphas at once (Kohler, Akrour & Preux [9]).

Algorithm 1 of "Interpretable Decision Tree Search as a Markov Decision Process", vectorized
numpy, no numba.

The MDP
-------
A *state* is ``(rows, depth)``: the training rows that reach a node and its depth (built by
:mod:`.build`). At a state of depth ``< max_depth`` the *actions* are

* a *label action*: the episode ends with reward ``-(misclassified weight) / n`` (the majority
  class is the best label);
* a *test action* ``x[f] <= t`` for each candidate test of the *test generator*
  (:mod:`.generators`): reward ``-alpha * |rows| / n`` (the test is paid by every row that
  passes it), then the left state with probability ``|X_l| / |X|`` and the right state with
  ``|X_r| / |X|``.

Working in "weight units" (multiplying every reward by ``n``) the expectation over the
transition probabilities becomes a sum: ``Q(s, test) = alpha * w(s) + V(left) + V(right)`` and
``V(s) = min(errors(s), min_test Q(s, test))``. The value of the root divided by ``n`` is the
DPDT objective (docs/architecture.md, "Definitions"): error rate + alpha * average number of tests per training row.

The model is stored level by level (:class:`Level`): one array per quantity over the states of
a depth, the tests of state ``s`` at ``ptr[s]:ptr[s+1]``, each test pointing at its two
children in the next level. At the deepest level the children are leaves, stored as their
errors and labels.

Backward induction
------------------
Over an array of alphas at once, level by level from the deepest: at the last non-terminal
level the children are leaves, so ``Q = alpha * w + c`` with ``c`` the children's errors and the
best test does not depend on alpha; above it, ``Q`` is an ``(n_tests, n_alphas)`` array built
from the children's ``V`` rows and reduced per state with ``np.minimum.reduceat``. Ties prefer
the label action (the smaller tree), then the first test. Memory is bounded by processing
states in chunks. :class:`Policy` then reads the optimal trees of every alpha off the actions,
grouping the alphas that share a tree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...tree import Node

__all__ = ["Level", "DPDTModel", "Policy"]

_TOL = 1e-9            # in weight units: a label action within _TOL of the best test wins
_CHUNK = 1 << 22       # entries of a (tests x alphas) block in the backward induction


@dataclass
class Level:
    """The non-terminal-depth states of one depth and their test actions.

    ``ptr[s]:ptr[s+1]`` are the tests of state ``s``; ``left``/``right`` index the next level
    (for the last level: ``left_err``/``right_err`` and labels of the child leaves).
    """

    weight: np.ndarray
    err: np.ndarray
    label: np.ndarray
    ptr: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    left_err: np.ndarray | None = None
    right_err: np.ndarray | None = None
    left_label: np.ndarray | None = None
    right_label: np.ndarray | None = None

    @property
    def n_states(self) -> int:
        return len(self.weight)

    @property
    def n_tests(self) -> int:
        return len(self.feature)

    def nbytes(self) -> int:
        return sum(a.nbytes for a in vars(self).values() if isinstance(a, np.ndarray))


@dataclass
class DPDTModel:
    """The built MDP: one :class:`Level` per depth ``0..max_depth-1``."""

    levels: list[Level]
    n: float
    classes: np.ndarray
    feature_names: list[str]
    max_depth: int
    n_states: int
    truncated: bool
    build_time: float

    # ---------------------------------------------------------- induction
    def induction(self, alphas: np.ndarray) -> "Policy":
        """Backward induction for every alpha at once (weight units, see module doc)."""
        alphas = np.asarray(alphas, dtype=float)
        D = len(self.levels)
        acts: list[Any] = [None] * D
        V_next: np.ndarray | None = None
        for d in range(D - 1, -1, -1):
            lv = self.levels[d]
            if d == D - 1:
                V, acts[d] = _last_level_values(lv, alphas)
            else:
                V, acts[d] = _level_values(lv, alphas, V_next)
            V_next = V
        return Policy(self, alphas, V_next[0] / self.n, acts)

    def nbytes(self) -> int:
        return sum(lv.nbytes() for lv in self.levels)


def _last_level_values(lv: Level, alphas: np.ndarray) -> tuple[np.ndarray, tuple]:
    """Deepest non-terminal level: the children are leaves, so ``Q = alpha * w + c`` and the
    best test (the smallest ``c``) is the same for every alpha."""
    c = lv.left_err + lv.right_err
    best_c = np.full(lv.n_states, np.inf)
    best_k = np.full(lv.n_states, -1, dtype=np.int64)
    has = np.flatnonzero(np.diff(lv.ptr) > 0)
    if len(has):
        starts = lv.ptr[has]
        mins = np.minimum.reduceat(c, starts)
        seg = np.repeat(np.arange(lv.n_states), np.diff(lv.ptr))
        hit = c == mins[np.searchsorted(has, seg)]
        pos = np.where(hit, np.arange(len(c)), len(c))
        best_k[has] = np.minimum.reduceat(pos, starts)
        best_c[has] = mins
    V = np.multiply.outer(lv.weight, alphas)           # alpha * w + c, then min with the label
    V += best_c[:, None]
    np.minimum(V, lv.err[:, None], out=V)
    return V, (best_k, best_c)


def _level_values(lv: Level, alphas: np.ndarray, V_next: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``V(s) = min(err(s), min_k alpha * w(s) + V(left_k) + V(right_k))`` for every alpha;
    the action array holds -1 (label) or the global index of the best test."""
    A = len(alphas)
    n_s = lv.n_states
    V = np.repeat(lv.err[:, None], A, axis=1)
    act = np.full((n_s, A), -1, dtype=np.int32)
    counts = np.diff(lv.ptr)
    s = 0
    while s < n_s:
        # a chunk of states whose tests fit in _CHUNK entries
        budget = max(1, _CHUNK // max(1, A))
        e = int(np.searchsorted(lv.ptr, lv.ptr[s] + budget, side="right")) - 1
        e = min(max(e, s + 1), n_s)
        a, b = lv.ptr[s], lv.ptr[e]
        if b > a:
            st = np.repeat(np.arange(s, e), counts[s:e])
            Q = V_next[lv.left[a:b]] + V_next[lv.right[a:b]]
            Q += lv.weight[st][:, None] * alphas[None, :]
            has = np.flatnonzero(counts[s:e] > 0) + s
            starts = lv.ptr[has] - a
            mins = np.minimum.reduceat(Q, starts, axis=0)
            row_of = np.searchsorted(has, st)
            pos = np.where(Q <= mins[row_of] + _TOL, np.arange(a, b)[:, None], np.iinfo(np.int32).max)
            first = np.minimum.reduceat(pos, starts, axis=0)
            better = mins < V[has] - _TOL
            V[has] = np.where(better, mins, V[has])
            act[has] = np.where(better, first, -1)
        s = e
    return V, act


@dataclass
class Policy:
    """Optimal actions of every state for every alpha of a grid."""

    model: DPDTModel
    alphas: np.ndarray
    values: np.ndarray            # root value per alpha (objective units)
    acts: list[Any]

    def _action(self, d: int, s: int, ai: np.ndarray) -> np.ndarray:
        act = self.acts[d]
        if d == len(self.acts) - 1:
            best_k, best_c = act
            lv = self.model.levels[d]
            if best_k[s] < 0:
                return np.full(len(ai), -1, dtype=np.int64)
            split = self.alphas[ai] * lv.weight[s] + best_c[s]
            return np.where(lv.err[s] <= split + _TOL, -1, best_k[s])
        return act[s, ai]

    def trees(self) -> list[tuple[np.ndarray, Node]]:
        """The distinct optimal trees: ``(alpha indices, root)``, grouped without a per-alpha
        loop (alphas are split into groups only where their actions differ)."""
        return self._build(0, 0, np.arange(len(self.alphas)))

    def _build(self, d: int, s: int, ai: np.ndarray) -> list[tuple[np.ndarray, Node]]:
        lv = self.model.levels[d]
        acts = self._action(d, s, ai)
        out: list[tuple[np.ndarray, Node]] = []
        for a in np.unique(acts):
            sub = ai[acts == a]
            if a < 0:
                out.append((sub, Node.leaf(int(lv.label[s]))))
                continue
            f, t = int(lv.feature[a]), float(lv.threshold[a])
            if d == len(self.model.levels) - 1:
                node = Node.split(f, t, Node.leaf(int(lv.left_label[a])), Node.leaf(int(lv.right_label[a])))
                out.append((sub, node))
                continue
            lefts = self._build(d + 1, int(lv.left[a]), sub)
            rights = self._build(d + 1, int(lv.right[a]), sub)
            for la, ln in lefts:
                for ra, rn in rights:
                    both = np.intersect1d(la, ra, assume_unique=True)
                    if len(both):
                        out.append((both, Node.split(f, t, ln, rn)))
        return out

