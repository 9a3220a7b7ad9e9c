"""Building the DPDT MDP, level by level from the root (Kohler, Akrour & Preux [9]).

The states of a level (:class:`_Frontier`) are expanded one by one: the state's weight, errors
and majority label, its candidate tests (:mod:`.generators`), and for each test its two
children, which become the states of the next level. Identical states (same rows, same depth)
are built once: a level's states are keyed by a 128-bit hash of their sorted row indices. Each
state's rows sorted by each feature are inherited from its parent (a stable filter, no sort)
for the numpy kernels of :mod:`.splits`.

Three kinds of level:

* *inner* levels: each test's children are looked up or added in the next level;
* the *last* level (depth ``max_depth - 1``): the children are leaves, stored as their errors
  and labels;
* with ``exact_last`` (or the exhaustive generator) and ``max_depth >= 2``, the level *above the
  last* is built in batches instead (:func:`.splits.last_level_children`): for each of its
  states, the best split of both children of all its tests is found in one int32 pass over
  the parent's sorted orders, without materializing the children's rows. Identical children of
  different parents are then computed twice, never merged: cheaper than hashing them.

States left unexpanded when the deadline passes become leaves (``truncated``): the build stops
early enough to leave the backward induction the time it needs for the states built so far
(:class:`InductionReserve`), so the whole call keeps its time limit; the build
raises ValueError past ``max_states`` states.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from typing import Callable, NamedTuple

import numpy as np

from ...data import Dataset
from ...deadline import Deadline
from ...progress import ProgressReporter
from .generators import RefTree, TestGenerator, Units
from .mdp import DPDTModel, Level
from .splits import Children, last_level_children

__all__ = ["build_model"]

_BATCH_LAST = True     # build the last non-terminal level in batches (False: state by state, for tests)


#: seconds of backward induction per (state, alpha) pair: 7e-8 measured on 12k states x 1001
#: alphas (2 loaded cores), doubled
SECONDS_PER_STATE_ALPHA = 1.5e-7


class InductionReserve(Deadline):
    """The call's deadline minus the backward induction's estimated time for the states counted
    so far (``states()``), so the build stops in time for the induction to finish."""

    def __init__(self, deadline: Deadline, n_alphas: int, states: Callable[[], int]):
        self.parent, self.per_state, self.states = deadline, n_alphas * SECONDS_PER_STATE_ALPHA, states
        self.start, self.time_limit = deadline.start, deadline.time_limit

    def remaining(self) -> float | None:
        left = self.parent.remaining()
        return None if left is None else max(0.0, left - self.states() * self.per_state)

    def expired(self) -> bool:
        left = self.remaining()
        return left is not None and left <= 0.0


def _state_key(idx: np.ndarray) -> bytes:
    return hashlib.blake2b(idx.tobytes(), digest_size=16).digest()


def _filtered_order(order_parent: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Sorted orders of a child state from its parent's (stable filter, no sort)."""
    newpos = np.cumsum(mask) - 1
    keep = mask[order_parent]
    p = order_parent.shape[0]
    return newpos[order_parent[keep]].reshape(p, -1).astype(np.int32)


def _concat(parts: list[np.ndarray], dtype) -> np.ndarray:
    return np.concatenate(parts).astype(dtype) if parts else np.empty(0, dtype=dtype)


class _Via(NamedTuple):
    """How a state is reached: its parent state in the level above (-1 for the root), the
    parent's test ``x[feature] <= lo`` and the side (0 left, 1 right)."""

    parent: int
    feature: int
    lo: float
    side: int


_ROOT = _Via(-1, -1, 0.0, 0)


@dataclass
class _Frontier:
    """The states of one level: the rows of each, how each is reached, the reference CART node
    each follows (-1 for none) and, filled while the level is expanded and only when the next
    level needs them, each state's rows sorted by each feature."""

    rows: list[np.ndarray] = field(default_factory=list)
    via: list[_Via] = field(default_factory=list)
    ref: list[int] = field(default_factory=list)
    orders: list[np.ndarray] = field(default_factory=list)
    index: dict[bytes, int] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.rows)

    def add(self, rows: np.ndarray, via: _Via, ref: int) -> tuple[int, bool]:
        """The state with these rows (position, whether it is new): identical states are merged,
        keeping a reference node when one of the ways in has one."""
        key = _state_key(rows)
        j = self.index.get(key)
        if j is None:
            j = len(self.rows)
            self.index[key] = j
            self.rows.append(rows)
            self.via.append(via)
            self.ref.append(ref)
            return j, True
        if self.ref[j] < 0:
            self.ref[j] = ref
        return j, False


@dataclass
class _StateTests:
    """A state's candidate tests that split its rows: ``x[feature] <= lo``, stored with the
    midpoint ``threshold``; ``goes_left[:, k]`` the rows test ``k`` sends left."""

    feature: np.ndarray
    lo: np.ndarray
    ref: np.ndarray
    threshold: np.ndarray
    goes_left: np.ndarray

    def __len__(self) -> int:
        return len(self.feature)


@dataclass
class _LeafChildren:
    """Last level: the two child leaves of each test of a state, errors and majority labels."""

    left_err: np.ndarray
    right_err: np.ndarray
    left_label: np.ndarray
    right_label: np.ndarray


class _LevelParts:
    """One level's arrays, filled state by state, then joined into a :class:`Level`."""

    def __init__(self, n_states: int):
        self.weight = np.empty(n_states)
        self.err = np.empty(n_states)
        self.label = np.empty(n_states, dtype=np.int64)
        self.ptr = np.zeros(n_states + 1, dtype=np.int64)
        self.n_tests = 0
        self.features: list[np.ndarray] = []
        self.thresholds: list[np.ndarray] = []
        self.left_child: list[np.ndarray] = []    # next-level state of each test's sides
        self.right_child: list[np.ndarray] = []
        self.leaves: list[_LeafChildren] = []     # last level: the child leaves
        self.batched: list[Children] = []         # level above the last: its children, batched
        self.n_batched = 0

    def end_state(self, s: int, tests: _StateTests | None) -> None:
        """State ``s`` is done, with these tests (None: a leaf, no test)."""
        if tests is not None:
            self.features.append(tests.feature)
            self.thresholds.append(tests.threshold)
            self.n_tests += len(tests)
        self.ptr[s + 1] = self.n_tests

    def add_links(self, left: np.ndarray, right: np.ndarray) -> None:
        self.left_child.append(left)
        self.right_child.append(right)

    def add_leaves(self, leaves: _LeafChildren) -> None:
        self.leaves.append(leaves)

    def add_batch(self, children: Children) -> None:
        """Children ``2k + side`` of a state's batch are states ``n_batched + 2k + side`` of the
        batched level."""
        k2 = np.arange(0, len(children.weight), 2)
        self.add_links(self.n_batched + k2, self.n_batched + k2 + 1)
        self.batched.append(children)
        self.n_batched += len(children.weight)

    def level(self, last: bool) -> Level:
        lv = Level(weight=self.weight, err=self.err, label=self.label, ptr=self.ptr,
                   feature=_concat(self.features, np.int64), threshold=_concat(self.thresholds, float),
                   left=_concat(self.left_child, np.int64), right=_concat(self.right_child, np.int64))
        if last:
            def leaves(name: str, dtype) -> np.ndarray:
                return _concat([getattr(c, name) for c in self.leaves], dtype)

            lv.left_err, lv.right_err = leaves("left_err", float), leaves("right_err", float)
            lv.left_label, lv.right_label = leaves("left_label", np.int64), leaves("right_label", np.int64)
        return lv


def _children_level(kids: list[Children]) -> Level:
    """The last non-terminal level from batched children: one state per child (children of
    different parents are not merged: each is computed once in its parent's batch), at most
    one test each (its best split), whose children are leaves."""
    def cat(name: str) -> np.ndarray:
        return np.concatenate([getattr(c, name) for c in kids])

    has = cat("has")
    ptr = np.zeros(len(has) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(has)
    zero = np.zeros(int(has.sum()), dtype=np.int64)
    return Level(weight=cat("weight"), err=cat("err"), label=cat("label").astype(np.int64), ptr=ptr,
                 feature=cat("feature")[has].astype(np.int64), threshold=cat("threshold")[has],
                 left=zero, right=zero, left_err=cat("left_err")[has],
                 right_err=cat("right_err")[has], left_label=cat("left_label")[has],
                 right_label=cat("right_label")[has])


@dataclass
class _Builder:
    """Expands the states level by level from the root (module doc) into a :class:`DPDTModel`,
    counting states against ``max_states``."""

    test_gen: TestGenerator
    max_states: int
    deadline: Deadline
    reporter: ProgressReporter | None = None
    n_states: int = 0
    truncated: bool = False

    @property
    def units(self) -> Units:
        return self.test_gen.units

    @property
    def max_depth(self) -> int:
        return self.test_gen.max_depth

    def count(self, k: int) -> None:
        self.n_states += k
        if self.n_states > self.max_states:
            raise ValueError(
                f"DPDT MDP exceeds max_states={self.max_states} states (max_depth={self.max_depth}, "
                f"cart_depth={self.test_gen.cart_depth}); lower max_depth or cart_depth (e.g. a per-depth "
                "list such as [3, 2]) or raise max_states")

    def batch_last(self) -> bool:
        """The last non-terminal level is expanded in batches from its parents
        (:func:`last_level_children`) when its test is the best split by errors."""
        return _BATCH_LAST and self.max_depth >= 2 and self.test_gen.best_last_split

    def build(self) -> DPDTModel:
        t0 = time.perf_counter()
        ref = self.test_gen.ref
        states = _Frontier()
        states.add(np.arange(len(self.units.y), dtype=np.int32), _ROOT,
                   ref.root() if ref is not None else -1)
        above: _Frontier | None = None
        levels: list[Level] = []
        self.count(1)
        uses_orders = self.test_gen.uses_orders
        batch = self.batch_last()
        for d in range(self.max_depth):
            last = d == self.max_depth - 1
            pre_last = batch and d == self.max_depth - 2    # its children are built in batches
            keep_orders = uses_orders and not last and not pre_last
            parts = _LevelParts(len(states))
            below = _Frontier()
            for s in range(len(states)):
                if self.reporter is not None:
                    self.reporter.tick(nodes=self.n_states, message=f"building depth {d}: state {s + 1} of {len(states)}")
                rows = states.rows[s]
                cw = self.units.Wc[rows].sum(axis=0)
                parts.weight[s] = cw.sum()
                parts.err[s] = cw.sum() - cw.max()
                parts.label[s] = int(np.argmax(cw))
                if parts.err[s] <= 0 or len(rows) < 2 or self.deadline.expired():
                    if parts.err[s] > 0:
                        self.truncated = True
                    if keep_orders:
                        states.orders.append(None)  # a leaf: no child reads its orders
                    parts.end_state(s, None)
                    continue
                order = self._order(states.via[s], above) if uses_orders else None
                if keep_orders:
                    states.orders.append(order)
                tests = self._tests(d, rows, order, states.ref[s])
                if last:
                    parts.add_leaves(self._leaf_children(rows, cw, tests))
                elif pre_last:
                    parts.add_batch(self._batched_children(rows, order, tests))
                else:
                    parts.add_links(*self._next_states(s, rows, tests, below))
                parts.end_state(s, tests)
            levels.append(parts.level(last))
            if pre_last:
                if parts.n_batched:
                    levels.append(_children_level(parts.batched))
                break
            if last:
                break
            above, states = states, below
            if not len(states):
                break
        lv = levels[-1]
        if lv.left_err is None:
            # the build stopped before max_depth: no state of this level has a test
            assert lv.n_tests == 0
            lv.left_err, lv.right_err = np.zeros(0), np.zeros(0)
            lv.left_label, lv.right_label = np.zeros(0, np.int64), np.zeros(0, np.int64)
        return DPDTModel(levels=levels, n=float(self.units.w.sum()), classes=np.empty(0),
                         feature_names=[], max_depth=self.max_depth,
                         n_states=self.n_states, truncated=self.truncated,
                         build_time=time.perf_counter() - t0)

    def _order(self, via: _Via, above: _Frontier | None) -> np.ndarray:
        """The state's rows sorted by each feature, filtered from its parent's."""
        if via.parent < 0:
            return self.units.order
        parent_rows = above.rows[via.parent]
        goes_left = self.units.X[parent_rows, via.feature] <= via.lo
        return _filtered_order(above.orders[via.parent], goes_left if via.side == 0 else ~goes_left)

    def _tests(self, d: int, rows: np.ndarray, order: np.ndarray | None, ref_node: int) -> _StateTests:
        """The state's candidate tests without those that send every row to one side, with
        thresholds midway between the two sides' closest values."""
        cand = self.test_gen.candidates(d, rows, order, ref_node)
        feat, lo, refs = cand.feature, cand.lo, cand.ref
        Xs = self.units.X[rows]
        goes_left = Xs[:, feat] <= lo[None, :]
        ok = goes_left.any(axis=0) & ~goes_left.all(axis=0)
        if not ok.all():
            feat, lo, refs, goes_left = feat[ok], lo[ok], refs[ok], goes_left[:, ok]
        vals = Xs[:, feat]
        hi = np.where(goes_left, np.inf, vals).min(axis=0)
        thr = (lo + hi) / 2.0
        thr = np.where(thr < hi, thr, lo)
        return _StateTests(feature=feat, lo=lo, ref=refs, threshold=thr, goes_left=goes_left)

    def _leaf_children(self, rows: np.ndarray, cw: np.ndarray, tests: _StateTests) -> _LeafChildren:
        """Last level: each test's children are leaves."""
        self.count(2 * len(tests))
        left_w = tests.goes_left.T.astype(float) @ self.units.Wc[rows]      # (K, C)
        right_w = cw[None, :] - left_w
        return _LeafChildren(left_err=left_w.sum(1) - left_w.max(1),
                             right_err=right_w.sum(1) - right_w.max(1),
                             left_label=np.argmax(left_w, axis=1),
                             right_label=np.argmax(right_w, axis=1))

    def _batched_children(self, rows: np.ndarray, order: np.ndarray, tests: _StateTests) -> Children:
        """Level above the last: the children of all tests with their best split, in one batch."""
        children = last_level_children(self.units.X[rows], self.units.Wc[rows], order, tests.goes_left,
                                       self.deadline)
        if not children.complete:
            self.truncated = True
        self.count(2 * len(tests) + 2 * int(children.has.sum()))
        return children

    def _next_states(self, s: int, rows: np.ndarray, tests: _StateTests, below: _Frontier
                     ) -> tuple[np.ndarray, np.ndarray]:
        """Inner level: each test's (left, right) children, looked up or added in ``below``,
        the next level."""
        ref = self.test_gen.ref
        K = len(tests)
        left = np.empty(K, dtype=np.int64)
        right = np.empty(K, dtype=np.int64)
        for k in range(K):
            f, lo, ref_node = int(tests.feature[k]), float(tests.lo[k]), int(tests.ref[k])
            for side, mask, dest in ((0, tests.goes_left[:, k], left), (1, ~tests.goes_left[:, k], right)):
                child_ref = ref.child(ref_node, side) if ref is not None else -1
                j, new = below.add(rows[mask], _Via(s, f, lo, side), child_ref)
                if new:
                    self.count(1)
                dest[k] = j
        return left, right


def build_model(data: Dataset, *, max_depth: int, cart_depth: list[int], max_states: int,
                random_state: int, generator: str, exact_last: bool, deadline: Deadline,
                reporter: ProgressReporter | None = None, n_alphas: int = 0) -> DPDTModel:
    """The DPDT MDP of ``data`` for checked parameters (:func:`satdt.heuristics.dpdt.build_mdp`);
    with ``n_alphas``, the build leaves the time of their backward induction."""
    ref = RefTree(data, max_depth, random_state) if generator != "exhaustive" else None
    test_gen = TestGenerator(units=Units(data), generator=generator, max_depth=max_depth,
                             cart_depth=cart_depth, exact_last=exact_last,
                             random_state=random_state, ref=ref)
    builder = _Builder(test_gen=test_gen, max_states=max_states, deadline=deadline, reporter=reporter)
    if n_alphas and deadline.time_limit is not None:
        builder.deadline = InductionReserve(deadline, n_alphas, lambda: builder.n_states)
    model = builder.build()
    model.classes = data.classes
    model.feature_names = list(data.feature_names)
    return model
