"""Witness rows for DT_depth / DT_size and the DRUP proof of their UNSAT over the reference encoding.

:func:`find_witness` grows a row set by incremental example addition (Avellaneda [6]) until
"depth <= D (and <= m splits)" has no error-free tree on it, then shrinks it by deletion (as MUS
extraction does) to a *minimal* witness: removing any one of its rows makes the question
satisfiable. The questions on row subsets are answered by the DP, all of them by ONE search built
once over the whole problem (:class:`_Questions`); the certificate's proof does not rely on them.
The deletion removes chunks of rows first (half of them, then the rows each "yes" tree classifies, down to
single rows) and reads off the
trees of the satisfiable answers which rows are necessary (:func:`_shrink`). On data with few boxes
(an interval per chain of thresholds: the monks' 19,440) the questions go instead to the compiled
box DP (:func:`_box_questions`, ``core/witness.h``), which recomputes only the boxes holding a row
that came or went, and the deletion loop runs in the core, one row a trial (monk3 DT_size: 71
questions of 0.1-8 ms by the search and Python around each, 125 ms; by the boxes 19 ms, CPU, best
of 7).
:func:`drup_proof` solves the witness once more, non-incrementally, with proof logging.
References are numbered as in ``satdt/REFERENCES.md``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from ..deadline import DeadlineExpired
from .reference_encoding import encode

__all__ = ["find_witness", "drup_proof", "core_clauses", "PROOF_SOLVER"]

PROOF_SOLVER = "g4"  # Glucose 4: plain DRUP (no RAT steps), the format the verified checker reads


def _distinct(a: np.ndarray) -> np.ndarray:
    """``np.unique(a)`` of an integer array (numpy 2.4's plain ``np.unique`` imports ``numpy.ma``
    on its first call: 10-60 ms of a certificate's production in a fresh process)."""
    a = np.sort(a)
    return a[np.concatenate(([True], a[1:] != a[:-1]))] if a.size else a


def _dataset(X: np.ndarray, y: np.ndarray):
    from ..data import Dataset, FeatureSchema

    classes, code = np.unique(y, return_inverse=True)  # (no pandas: a Dataset of numeric columns)
    return Dataset(X=np.asarray(X, float), y=code.reshape(-1).astype(np.int64), classes=classes,
                   schema=FeatureSchema(names=[f"x{j}" for j in range(X.shape[1])]))


def _fits(X: np.ndarray, y: np.ndarray, depth: int, max_splits: int | None):
    """A tree of depth <= ``depth`` (<= ``max_splits`` splits) with no error on (X, y), or None
    (answered by the DP on (X, y) binarized on its own: the reference of :class:`_Questions`, kept
    for the tests; the producer may use any engine, the checker re-proves the question)."""
    from ..binarize import Binarizer
    from ..result import OPTIMAL
    from ..solvers.dp import solve_max_accuracy_dp, solve_regularized_dp
    from ..tree import Node, Tree

    if np.unique(y).size == 1:
        return Tree(Node.leaf(0), classes=np.unique(y))
    if depth == 0:
        return None
    problem = Binarizer("all").problem(_dataset(X, y))
    if max_splits is None:
        # a yes / no question: is there a tree with 0 errors? (a FEASIBLE answer with bound 1 says no)
        res = solve_max_accuracy_dp(problem, max_depth=depth, upper_bound=0, optimize_above_bound=False)
        ok = res.objective == 0
        if not ok and res.bound is not None and res.bound >= 1:
            return None
    else:  # errors * (m + 2) + leaves (lam = 1 / (n (m + 2)), exact): <= m + 1 iff an error-free tree
        # with <= m splits exists (measured 100x faster than the box DP of DT_size on these subsets)
        res = solve_regularized_dp(problem, lam=Fraction(1, y.size * (max_splits + 2)), max_depth=depth)
        ok = res.status == OPTIMAL and not (res.tree.predict(X) != y).any() and res.tree.n_splits <= max_splits
    if res.status != OPTIMAL and res.status != "INFEASIBLE":
        raise RuntimeError(f"witness search: the DP answered {res.status}")
    return res.tree if ok else None


class _Questions:
    """The subset questions "does a tree of depth <= ``depth`` (<= ``max_splits`` splits) classify
    the rows ``rows`` without error?", all answered by one search over the whole problem.

    The problem is (X, y) binarized once with ``Binarizer("all")``; a subset is asked as the
    ascending distinct rows it maps to (``problem.row_of``) by ``search.run(depth, ub, rows=S)``,
    whose memo is shared by all the questions. A finished run proves the optimum over ``S``, or a
    lower bound ``>= ub`` (MurTree's upper-bound semantics); DT_size's runs satisfice (``satisfice=True``:
    any tree below ``ub``, or the same proof that none is); a tree is accepted only below ``ub``
    and is re-evaluated on the rows.

    Why the answer is the subset's own (what :func:`_fits`, binarizing the subset, answers):

    * Thresholds. Every test of the subset's binarization (a midpoint between two consecutive
      values of a feature on the subset) splits the subset's rows as some test of the whole
      data's does (a midpoint between two consecutive values of the whole data lying between
      those two values), and every test of the whole data splits the subset as a subset test or
      not at all (all rows on one side: a node that a leaf replaces without more splits). So the
      two searches range over the same partitions of the subset, hence the same error-free trees
      up to the thresholds, with the same depth and no more splits.
    * Duplicates. A distinct row carries the class counts of *all* the original rows mapped to it,
      not only of those in the subset. On consistent data (every distinct row of one class) this
      does not change the answer: a tree is error-free on a distinct row iff it gives that row's
      one class, whatever its weight, so "0 errors on ``S`` with the full counts" iff "0 errors on
      the subset". DT_size's cost ``(m + 2) errors + leaves`` is below ``m + 2`` iff there is no
      error (any error weighs at least 1) and at most ``m + 1`` leaves (``m`` splits), again
      whatever the weights. Data with conflicting rows (identical features, different classes)
      is not asked here: :func:`find_witness` answers it with a conflicting pair.

    On data with few boxes (:func:`_box_questions`) the questions go to the compiled box DP
    instead (``box``; no search is built): the boxes of the whole data's chains, whose answer on a
    subset is the subset's own for the same reasons (its rows present, each of one class).

    Costs: ``errors`` (``q = 1``, no leaf cost, a tree below 1: no error) for DT_depth;
    ``q = m + 2`` per error and 1 per leaf (below ``m + 2``) for DT_size, the integer form of the
    regularized DP with ``lam = 1 / (n (m + 2))`` that :func:`_fits` runs.
    """

    deadline: Any = None  # a satdt.deadline.Deadline looked at before and during each question (find_witness)

    def __init__(self, X: np.ndarray, y: np.ndarray, depth: int, max_splits: int | None):
        from ..binarize import Binarizer
        from ..deadline import Deadline
        from ..solvers.dp.accuracy import new_search
        from ..solvers.dp.chains import build_chains

        data = _dataset(X, y)
        self.code = np.asarray(data.y)
        self.problem = problem = Binarizer("all").problem(data)
        self.row_of = np.asarray(problem.row_of, dtype=np.int64)
        self.conflicting = bool(((problem.counts > 0).sum(1) > 1).any())
        self.depth, self.max_splits = int(depth), max_splits
        self.asked = 0
        self.trees: list[tuple[np.ndarray, np.ndarray]] = []  # the growth's answers (for _shrink)
        chains = build_chains(problem)  # (once: the box DP's and the search's; wine: 10-20 ms a build)
        self.box = None if self.conflicting else _box_questions(problem, chains, self.depth, max_splits)
        if self.box is not None:
            return
        q, leaf_cost = (1, 0) if max_splits is None else (int(max_splits) + 2, 1)
        self.ub = float(q)  # a tree of cost below q: no error (and, for DT_size, <= m + 1 leaves)
        # DT_size: the core's satisficing search (satisfice: any tree below ub, not the fewest
        # leaves; "yes" answers measured 2.5-6x faster on monk3, iris, zoo); DT_depth's exact
        # search already stops at its first error-free tree (cost 0: the node's lower bound)
        self.satisfice = max_splits is not None
        self.search = new_search(problem, Deadline.of(None), None, "core", q=q, leaf_cost=leaf_cost,
                                 chains=chains, n_jobs=1)

    def predict(self, tree) -> tuple[np.ndarray, np.ndarray]:
        """The class codes the tree ``tree`` (the core's preorder arrays: column, left, right,
        label; column -1 at a leaf) gives every original row, and the node each reaches (one
        step of every row per level: no tree objects, measured 10x faster than walking them)."""
        feat, left, right, label = (np.asarray(a, np.int64) for a in tree)
        ch, node = self.search.ch, np.zeros(self.problem.n_distinct, np.int64)
        for _ in range(self.depth):
            inner = np.flatnonzero(feat[node] >= 0)
            if not inner.size:
                break
            g, at = feat[node[inner]], node[inner]
            node[inner] = np.where(ch.rank[inner, ch.chain[g]] >= ch.level[g], right[at], left[at])
        if (feat[node] >= 0).any():
            raise RuntimeError("witness search: the DP's tree is deeper than asked")
        return label[node][self.row_of], node[self.row_of]

    def ask(self, rows) -> tuple[np.ndarray, np.ndarray] | None:
        """For a tree answering the question on ``rows`` (it classifies them without error;
        checked): the class code it gives every original row and the leaf each reaches
        (:meth:`predict`); None when no tree does (the DP's proof)."""
        if self.deadline is not None:
            self.deadline.check("the certificate's witness search")
        rows = np.asarray(rows, dtype=np.int64)
        self.asked += 1
        labels = self.code[rows]
        if rows.size == 0 or labels.min() == labels.max():  # one leaf
            return (np.full(self.code.size, labels[0] if rows.size else 0, np.int64),
                    np.zeros(self.code.size, np.int64))
        if self.depth == 0:
            return None
        if self.box is not None:
            return self._ask_boxes(rows)
        # the core's call of CoreSearch.run, its tree kept as arrays (see predict), stopped at the deadline
        # (its clock and, every 50 ms, expired(): bmi DT_size's refutations take 1-8 s each)
        left = None if self.deadline is None else self.deadline.remaining()
        out = self.search._core.solve(self.depth, int(self.ub), 1e300 if left is None else left, None, 2.0, 0,
                                      _distinct(self.row_of[rows]), None if self.deadline is None else
                                      self.deadline.expired, None, satisfice=self.satisfice)
        if not out["finished"]:  # (cut short: never read as an answer)
            if self.deadline is not None:
                raise DeadlineExpired("the certificate's witness search: out of time")
            raise RuntimeError("witness search: the DP did not finish")
        if out["tree"] is None or out["value"] >= self.ub:  # (a memo hit may hand back an optimum >= ub)
            if out["value"] < self.ub:
                raise RuntimeError(f"witness search: the DP proved no bound (got {out['value']})")
            return None
        pred, leaf = self.predict(out["tree"])
        if (pred[rows] != self.code[rows]).any() or (
                self.max_splits is not None and int((out["tree"][0] >= 0).sum()) > self.max_splits):
            raise RuntimeError("witness search: the DP's tree does not answer the question")
        return pred, leaf

    def _ask_boxes(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """:meth:`ask` by the box DP (:func:`_box_questions`): the rows present are the distinct
        rows of ``rows`` (on consistent data a distinct row's copies share its class)."""
        n = self.problem.n_distinct
        if not self.box.set_present((np.bincount(self.row_of[rows], minlength=n) > 0).astype(np.uint8)):
            return None
        label, leaf, leaves = self.box.predict(n)
        pred = label.astype(np.int64)[self.row_of]
        if (pred[rows] != self.code[rows]).any() or (self.max_splits is not None and leaves > self.max_splits + 1):
            raise RuntimeError("witness search: the box DP's tree does not answer the question")
        return pred, leaf.astype(np.int64)[self.row_of]


#: the witness questions go to the box DP (:func:`_box_questions`) when the data have at most this
#: many boxes and a level of the box DP at most this many cell operations (:func:`box_work`); the
#: monks: 19,440 boxes, 71,280 operations a level, a question 10-300 us against the search's 0.1-8 ms
BOX_WITNESS_CELLS = 1_000_000
BOX_WITNESS_WORK = 2e6


def _box_questions(problem, chains, depth: int, max_splits: int | None):
    """The compiled box DP of the witness questions (``core/witness.h``), or None when the boxes are
    too many (:data:`BOX_WITNESS_CELLS`, :data:`BOX_WITNESS_WORK`).

    It holds every box of the data's chains; a question on the rows present updates only what the
    rows that came or went can change:

    - rows only going (the deletion's trials): DT_depth recomputes the boxes that gained a tree,
      level by level from the boxes where a class disappeared; DT_size the boxes whose fewest
      leaves went down;
    - rows only coming (the growth): the boxes holding them go stale (their old values lower
      bounds), brought up to date only as the answer and its tree, found top down, look at them;
      the deletion settles the rest first. DT_size first tries the newest tree grafted (each leaf
      replaced by its box's best subtree; yes when their leaves sum within the bound).

    Its deletion loop (:meth:`BoxWitness.shrink`) deletes one row a trial, without model rotation:
    the same witness as :func:`_shrink` in that order (chunks and rotation measured slower). A trial
    is first answered "yes", when it can, without touching the tables: by one pass over them before
    the trials (for every box, the fewest leaves of the rest of a tree from the full box that has a
    node there: a box holding the row, of one class without it, with room left for it as a leaf is a
    tree without the row), then by one of the last trees :meth:`_Questions._ask_boxes` predicted,
    repaired by the tables (each other leaf's box replaced by its best subtree, the row's leaf box
    without the row searched briefly top down). Figures in benchmarks/results/proof.md (h43w, h44w,
    h45w, h46w). Exact: the recurrence of :mod:`satdt.solvers.dp.boxes`, so the same answers
    as the search (tested on random instances, and against brute force)."""
    from ..solvers.dp import _core
    from ..solvers.dp.boxes import box_count, box_work

    cells, C = box_count(chains), int(problem.counts.shape[1])
    if cells > BOX_WITNESS_CELLS or box_work(chains) > BOX_WITNESS_WORK or depth > 60 or \
            cells * (depth + 1 + C + len(chains.ranks) / 2) > 3e7:  # (its tables: 4 bytes an entry, <= 120 MB)
        return None
    cls = np.argmax(problem.counts, axis=1).astype(np.int32)
    return _core.BoxWitness(np.asarray(chains.rank, np.int32), np.asarray(chains.ranks, np.int32), cls,
                            C, int(depth), -1 if max_splits is None else int(max_splits) + 1)


def _rotations(code: np.ndarray, n_classes: int, W: np.ndarray, preds: np.ndarray, leaves: np.ndarray) -> np.ndarray:
    """Rows ``r`` of ``W`` shown necessary by one of the trees (``preds[t]``: the class each row
    gets from tree ``t``, ``leaves[t]``: the leaf it reaches): the tree, or the tree with one leaf's
    class changed (same splits: the same depth and size), misclassifies ``r`` and no other row of
    ``W``, so ``W`` minus ``r`` is satisfiable."""
    preds, leaves = np.atleast_2d(preds), np.atleast_2d(leaves)
    T, C = preds.shape[0], n_classes
    cw = code[W]
    wrong = preds[:, W] != cw  # (T, |W|)
    L = int(leaves[:, W].max()) + 1
    key = leaves[:, W] + L * np.arange(T)[:, None]  # (tree, leaf) of each row of W
    total = wrong.sum(1)
    outside = total[:, None] - np.bincount(key.ravel(), weights=wrong.ravel(), minlength=T * L).reshape(T, L)
    n_lc = np.bincount((key * C + cw).ravel(), minlength=T * L * C).reshape(T, L, C)
    n_l = n_lc.sum(2)
    at = np.arange(T)[:, None]
    lw = key - L * at  # leaf of each row of W in each tree
    # the tree itself errs on row j only
    found = (wrong & (total == 1)[:, None]).any(0)
    # leaf l (not j's) relabeled to its rows' one class: the tree errs on j only (j: the one error off l)
    good = (outside == 1) & (n_l == n_lc.max(2))
    others = good.sum(1)[:, None] - good[at, lw]
    found |= (wrong & (others > 0)).any(0)
    # j's leaf relabeled to the one class of its other rows: no error off the leaf, j the one row of its
    # class there, and at most one other class there (no (tree, row, class) array: measured 2x faster)
    found |= ((outside[at, lw] == 0) & (n_lc[at, lw, cw] == 1) & ((n_lc > 0).sum(2)[at, lw] <= 2)).any(0)
    return W[found]


def _shrink(qs: _Questions, W: list[int]) -> list[int]:
    """A minimal subset of ``W`` (on which ``qs.ask`` says no) on which it still says no.

    Chunked deletion: try to remove ``chunk`` unresolved rows at once, starting with half of them;
    a "no" removes them for good and doubles the chunk, a "yes" keeps for the next trial the rows
    of the chunk its tree classifies (:func:`_regroup`; else it halves the chunk, down to single
    rows, where a "yes" makes the row necessary). The doubling asks fewer "no"s, the dear answers near
    the boundary (wine DT_size: 16 -> 13 "no"s of 10-14 ms with the doubling, 10 with the regrouping, the
    "yes"s 0.2-10 ms; an earlier count over other cells: 5-10% more questions). Every "yes" comes with a tree; whenever
    one of the trees seen so far, or it with one leaf's class changed, misclassifies exactly one
    row ``r`` of the current set (:func:`_rotations`, MUS extraction's *model rotation*), ``r`` is
    necessary, and stays so in every subset containing it (the set minus ``r`` is classified by
    that tree, so is every subset of it). Necessary rows are never tried again. The result is
    minimal: every row left was shown necessary in a superset of it.
    """
    if qs.box is not None:  # the deletion in the core, one row a trial, no model rotation (its questions are cheap)
        return qs.box.shrink(np.asarray(W, np.int64), qs.row_of).tolist()
    code, C = qs.code, int(qs.code.max()) + 1
    W = list(W)
    need: set[int] = set()
    trees = list(qs.trees)
    todo = list(W)
    chunk = max(1, len(todo) // 2)
    fresh = True  # W changed or a tree came: look for rotations again
    while todo:
        if fresh and trees:
            need.update(_rotations(code, C, np.asarray(W, np.int64), np.array([p for p, _ in trees]),
                                   np.array([lf for _, lf in trees])).tolist())
            todo = [r for r in todo if r not in need]
            fresh = False
            if not todo:
                break
        chunk = min(chunk, len(todo))
        T = set(todo[:chunk])
        trial = [r for r in W if r not in T]
        ans = qs.ask(trial)
        if ans is None:
            W, todo = trial, todo[chunk:]
            fresh = True
            chunk *= 2  # (the chunk is cut to the rows left above)
            continue
        trees.append(ans)
        if chunk == 1:
            need.add(todo[0])
        need.update(_rotations(code, C, np.asarray(W, np.int64), *ans).tolist())
        todo, chunk = _regroup(todo, chunk, need, ans[0], code)
    return sorted(W)


def _regroup(todo: list[int], chunk: int, need: set[int], pred: np.ndarray, code: np.ndarray) -> tuple[list[int], int]:
    """The rows still to try and the next chunk after a "yes" on the set without ``todo[:chunk]``
    (``pred``: the class the answer's tree gives every row; ``need``: the rows shown necessary).

    The tree classifies every row outside the chunk, so it errs on some row of the chunk (the set
    with the chunk has no tree); the chunk's rows it classifies are tried next, together, and the
    rows it got wrong after them (still to try: only a "yes" on one row alone or a rotation makes a
    row necessary). When it got every row of the chunk wrong, half the chunk. Measured (the
    witness search, CPU, best of 3; benchmarks/results/proof.md (h46w)): wine DT_size 13 -> 10
    "no" answers, 188 -> 166 ms; mouse DT_size 17 -> 14 ms; the same witnesses on wine, zoo, iris,
    mouse and lung-cancer DT_size, zoo DT_depth; wine DT_depth another of 8 rows, 6.7 -> 7.0 ms."""
    head = [r for r in todo[:chunk] if r not in need]
    right = [r for r in head if pred[r] == code[r]]
    wrong = [r for r in head if pred[r] != code[r]]
    return right + wrong + [r for r in todo[chunk:] if r not in need], len(right) or max(1, chunk // 2)


class _NearestOther:
    """For every row, the distance to the nearest row of another class in the growing set: the sum
    over the features of the gap of their rank positions (each feature's distinct values spaced
    evenly on [0, 1]).

    The box DP's growth adds the wrong rows nearest a row of another class (:func:`_pick`): they
    force the splits between close rows of different classes, so an infeasible set comes sooner
    (rows grown, the mean of seeds 0-4: car DT_depth 210 -> 77, its witness search 98 -> 65 ms CPU; car
    DT_size 243 -> 154, 207 -> 139 ms; balance-scale DT_depth 241 -> 205, 67 -> 64 ms; benchmarks/results/
    proof.md (h44g)). Only an order of the growth: the deletion keeps the witness minimal."""

    def __init__(self, X: np.ndarray, code: np.ndarray, rows):
        # a feature's positions a row of this array (the sum over a short last axis: 2x slower a row added)
        self.position = np.array([np.unique(col, return_inverse=True)[1] / max(1, np.unique(col).size - 1)
                                  for col in X.T]) if X.shape[1] else np.zeros((1, X.shape[0]))
        self.code = code
        self.distance = np.full(code.size, np.inf)
        self.add(rows)

    def add(self, rows) -> None:
        """Rows joined the set: each row's distance to the nearest of them of another class."""
        for r in rows:
            d = np.abs(self.position - self.position[:, r:r + 1]).sum(0)
            d[self.code == self.code[r]] = np.inf
            np.minimum(self.distance, d, out=self.distance)


def _pick(wrong: np.ndarray, missed: np.ndarray, nearest: _NearestOther | None, rng: np.random.Generator,
          per_round: int) -> list[int]:
    """The ``per_round`` rows the growth adds among the wrong rows ``wrong``: the wrong rows most of
    the trees so far got wrong (ties at random; measured 5-15% smaller witnesses than rows drawn at
    random, the DAG over them shrinking about as much), on the box DP first those nearest a row of
    another class in the set (:class:`_NearestOther`; not on the search: wine DT_size measured
    190 -> 318 ms CPU)."""
    keys = (rng.random(wrong.size), -missed[wrong]) + ((nearest.distance[wrong],) if nearest is not None else ())
    return wrong[np.lexsort(keys)][:per_round].tolist()


def find_witness(X: np.ndarray, y: np.ndarray, n_classes: int, depth: int, max_splits: int | None = None,
                 seed: int = 0, per_round: int = 3, deadline: Any = None) -> list[int]:
    """A minimal set of row indices on which no tree of depth <= ``depth`` (with <= ``max_splits``
    splits) classifies every row. Raises ValueError when all the rows admit such a tree, and
    :class:`~satdt.deadline.DeadlineExpired` (a TimeoutError) when ``deadline`` (a
    :class:`~satdt.deadline.Deadline`) expires: it is looked at before each question and by the
    compiled search during it (a question cut short raises; it is never read as "no tree").

    On data with conflicting rows (identical features, different classes) the witness is the
    first such pair: no tree separates them, and one row alone is a leaf's."""
    X, y = np.asarray(X, float), np.asarray(y, np.int64)
    qs = _Questions(X, y, depth, max_splits)
    qs.deadline = deadline
    code = qs.code
    if qs.conflicting:
        first = {}
        for i, (r, c) in enumerate(zip(qs.row_of.tolist(), code.tolist())):
            if r in first and code[first[r]] != c:
                return [first[r], i]
            first.setdefault(r, i)
    rng = np.random.default_rng(seed)
    W = sorted(int(np.flatnonzero(code == c)[0]) for c in _distinct(code))
    added = list(W)  # the rows in the order they came
    missed = np.zeros(code.size)
    nearest = _NearestOther(X, code, W) if qs.box is not None else None
    while True:
        ans = qs.ask(W)
        if ans is None:
            break
        qs.trees.append(ans)
        pred = ans[0]
        wrong = np.flatnonzero(pred != code)
        missed[wrong] += 1
        if wrong.size == 0:
            raise ValueError(f"the rows admit a tree of depth <= {depth}"
                             + ("" if max_splits is None else f" with <= {max_splits} splits"))
        new_rows = _pick(wrong, missed, nearest, rng, per_round)
        present = set(W)
        added += [r for r in new_rows if r not in present]
        W = sorted(set(W) | set(new_rows))
        if nearest is not None:
            nearest.add(new_rows)
    if nearest is not None and max_splits is not None:
        # DT_size on the box DP: the newest rows are tried first, the trials the kept trees (the growth's last,
        # made without the last rows) repair most often (balance-scale DT_size with the nearest growth: 210 ->
        # 139 ms CPU; DT_depth: the same time, larger witnesses on the tests' small random sets)
        W = added[::-1]
    else:
        W = sorted(W, key=lambda r: (missed[r], r))  # rows that few trees got wrong are tried first
    return _shrink(qs, W)


#: the conflicts of one CaDiCaL call of :func:`core_clauses` (it cannot be interrupted in PySAT: the deadline is
#: looked at between calls; a formula refuted within the first call gets the same core as by one unlimited call).
#: Measured: 2,000 conflicts 0.03-0.2 s on iris DT_size's witness (20,000: 2.2 s); the DRUP route's CPU time
#: 0.78x (iris DT_size) / 1.0x (monk2 DT_depth) / 1.24x (mouse DT_size) of one unlimited call, other cores
CORE_CONFLICTS = 2_000


def _out_of_time(deadline: Any, what: str) -> None:
    """:meth:`Deadline.check <satdt.deadline.Deadline.check>` of ``deadline``, when there is one."""
    if deadline is not None:
        deadline.check(what)


def core_clauses(n_vars: int, clauses: list[list[int]], rounds: int = 3, deadline: Any = None) -> list[list[int]]:
    """An unsatisfiable subset of ``clauses`` (the solver's core, shrunk a few times): a proof of
    its UNSAT is one of the whole formula, and the verified checker runs faster on fewer clauses.
    :class:`~satdt.deadline.DeadlineExpired` past ``deadline`` (looked at every
    :data:`CORE_CONFLICTS` conflicts)."""
    from pysat.solvers import Solver

    for _ in range(rounds):
        sel = [n_vars + 1 + i for i in range(len(clauses))]
        with Solver(name="cadical195", bootstrap_with=[c + [-v] for c, v in zip(clauses, sel)]) as s:
            status = None
            while status is None:
                _out_of_time(deadline, "the certificate's DRUP proof")
                s.conf_budget(CORE_CONFLICTS)
                status = s.solve_limited(assumptions=sel)
            if status:
                raise ValueError("the witness rows are satisfiable: no proof")
            core = set(s.get_core() or [])
        if len(core) == len(clauses):
            break
        clauses = [c for c, v in zip(clauses, sel) if v in core]
    return clauses


def drup_proof(X: np.ndarray, y: np.ndarray, n_classes: int, depth: int, max_splits: int | None = None,
               deadline: Any = None) -> tuple[str, str]:
    """The DIMACS text of an unsatisfiable subset of the reference encoding of ``(X, y)`` and a
    DRUP proof of its UNSAT; :class:`~satdt.deadline.DeadlineExpired` past ``deadline`` (a
    :class:`~satdt.deadline.Deadline`: the proof's solver is interrupted by its watchdog)."""
    from pysat.solvers import Solver

    n_vars, clauses, _, _ = encode(X, y, n_classes, depth, max_splits)
    clauses = core_clauses(n_vars, clauses, deadline=deadline)
    _out_of_time(deadline, "the certificate's DRUP proof")
    with Solver(name=PROOF_SOLVER, bootstrap_with=clauses, with_proof=True) as s:
        if deadline is None:
            status = s.solve()
        else:
            with deadline.watch(s.interrupt):
                status = s.solve_limited(expect_interrupt=True)
        if status is None:
            raise DeadlineExpired("the certificate's DRUP proof: out of time")
        if status:
            raise ValueError("the witness rows are satisfiable: no proof")
        proof = s.get_proof() or []
    if not proof or proof[-1].split() != ["0"]:  # (UNSAT by unit propagation: Glucose logs no empty clause)
        proof.append("0")
    cnf = "\n".join([f"p cnf {n_vars} {len(clauses)}"] + [" ".join(map(str, c + [0])) for c in clauses]) + "\n"
    return cnf, "\n".join(proof) + "\n"
