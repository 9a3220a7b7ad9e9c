"""The witness search (satdt.proof.witness): the one search over the whole problem answers every
subset question as the DP on the subset binarized on its own does, and the chunked deletion ends
on minimal witnesses (checked against the reference encoding) no larger than the old search's."""

from __future__ import annotations

import numpy as np
import pytest
from pysat.solvers import Solver

from satdt.binarize import Binarizer
from satdt.data import prepare
from satdt.proof.reference_encoding import encode
from satdt.proof.witness import _fits, _Questions, _rotations, find_witness
from satdt.solvers.dp import solve_min_depth_dp, solve_min_size_dp


def _consistent_with_duplicates(seed: int, n: int, p: int, values: int, classes: int):
    """Consistent data with repeated rows: few values per feature, one class per distinct row."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, values, size=(n, p)).astype(float)
    _, inv = np.unique(X, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    label = rng.integers(0, classes, size=inv.max() + 1)
    label[inv[:classes]] = np.arange(classes)  # (the first rows' distinct rows: every class present)
    return X, label[inv]


def _old_find_witness(X, y, depth, max_splits, seed=0, per_round=5):
    """The search before the one-search rewrite: random growth, then single-row deletion in index
    order, every question binarizing its subset (:func:`_fits`)."""
    rng = np.random.default_rng(seed)
    W = sorted(int(np.flatnonzero(y == c)[0]) for c in np.unique(y))
    while True:
        tree = _fits(X[W], y[W], depth, max_splits)
        if tree is None:
            break
        wrong = np.flatnonzero(tree.predict(X) != y)
        W = sorted(set(W) | set(rng.choice(wrong, size=min(per_round, wrong.size), replace=False).tolist()))
    kept = 0
    while kept < len(W):
        trial = W[:kept] + W[kept + 1:]
        if _fits(X[trial], y[trial], depth, max_splits) is None:
            W = trial
        else:
            kept += 1
    return W


def _sat(X, y, C, depth, max_splits) -> bool:
    _, clauses, _, _ = encode(X, y, C, depth, max_splits)
    with Solver(name="g4", bootstrap_with=clauses) as s:
        return s.solve()


def test_one_search_answers_every_subset_question_as_the_subset_dp():
    rng = np.random.default_rng(0)
    asked, answers = 0, {True: 0, False: 0}
    for seed in range(12):
        n, p, C = 14 + seed % 3 * 4, 2 + seed % 2, 2 + seed % 3 // 2
        X, y = _consistent_with_duplicates(seed, n, p, 4 + seed % 3, C)
        for depth, m in ((1, None), (2, None), (3, None), (2, 2), (3, 3), (3, 5)):
            qs = _Questions(X, y, depth, m)
            for _ in range(5):
                rows = np.sort(rng.choice(n, size=int(rng.integers(2, n + 1)), replace=False))
                ans = qs.ask(rows)
                pred = None if ans is None else ans[0]
                old = _fits(X[rows], y[rows], depth, m)
                assert (pred is None) == (old is None), (seed, depth, m, rows.tolist())
                if pred is not None:  # the tree that says yes classifies the subset
                    assert (pred[rows] == y[rows]).all()
                answers[pred is not None] += 1
                asked += 1
    assert asked == 360 and min(answers.values()) >= 60, answers


def test_rotations_only_name_rows_whose_removal_is_satisfiable():
    rng = np.random.default_rng(1)
    named = 0
    for seed in range(10):
        n, C = 16 + seed % 3 * 3, 2 + seed % 3 // 2
        X, y = _consistent_with_duplicates(200 + seed, n, 2, 5, C)
        for depth, m in ((1, None), (2, None), (2, 2), (3, 3)):
            qs = _Questions(X, y, depth, m)
            for _ in range(4):
                W = np.sort(rng.choice(n, size=int(rng.integers(4, n + 1)), replace=False))
                sub = np.sort(rng.choice(W, size=int(rng.integers(2, W.size)), replace=False))
                ans = qs.ask(sub)
                if ans is None:
                    continue
                for r in _rotations(y, C, W, *ans).tolist():  # W minus r: a tree classifies it
                    keep = W[W != r]
                    assert _fits(X[keep], y[keep], depth, m) is not None, (seed, depth, m, W.tolist(), r)
                    named += 1
    assert named >= 20, named


def test_rotations_are_every_row_one_tree_or_one_relabeled_leaf_errs_on_alone():
    """_rotations against its definition, by brute force over every tree, leaf and class."""
    rng = np.random.default_rng(5)
    for seed in range(150):
        n, C, T, L = int(rng.integers(2, 14)), int(rng.integers(2, 5)), int(rng.integers(1, 5)), int(rng.integers(1, 5))
        code = rng.integers(0, C, size=n)
        leaves = rng.integers(0, L, size=(T, n))
        label = rng.integers(0, C, size=(T, L))
        preds = np.where(rng.random((T, n)) < 0.8, np.take_along_axis(label, leaves, 1), rng.integers(0, C, size=(T, n)))
        preds = np.take_along_axis(label, leaves, 1) if seed % 2 else preds  # (a leaf's rows share its class)
        W = np.sort(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
        want = set()
        for t in range(T):
            tries = [preds[t]] + [np.where(leaves[t] == lf, c, preds[t]) for lf in range(L) for c in range(C)]
            for p in tries:
                wrong = W[p[W] != code[W]]
                if wrong.size == 1:
                    want.add(int(wrong[0]))
        assert sorted(_rotations(code, C, W, preds, leaves).tolist()) == sorted(want), seed


def test_conflicting_rows_give_a_conflicting_pair():
    X = np.array([[0.0, 1], [1, 0], [0, 1], [2, 2]])
    y = np.array([0, 1, 1, 0])
    assert find_witness(X, y, 2, 3) == [0, 2]
    assert find_witness(X, y, 2, 3, max_splits=4) == [0, 2]
    assert not _sat(X[[0, 2]], y[[0, 2]], 2, 3, None) and _sat(X[[0]], y[[0]], 2, 0, None)


@pytest.mark.parametrize("question", ["depth", "size"])
def test_witnesses_are_minimal_and_no_larger_than_the_old_search(question):
    new_total = old_total = 0
    for seed in range(10):
        n, p, C = 18 + seed % 3 * 3, 2 + seed % 2, 2 + seed % 4 // 3
        X, y = _consistent_with_duplicates(100 + seed, n, p, 6, C)
        problem = Binarizer("all").problem(prepare(X, y))
        depth = solve_min_depth_dp(problem).objective
        if question == "depth":
            D, m = depth - 1, None
        else:
            tree = solve_min_size_dp(problem, max_depth=depth).tree
            D, m = tree.depth(), tree.n_splits - 1
        rows = find_witness(X, y, C, D, m, seed=seed)
        assert rows == sorted(set(rows))
        assert not _sat(X[rows], y[rows], C, D, m)  # a witness: the reference encoding is UNSAT on it
        for drop in range(len(rows)):  # minimal: without any one row it is satisfiable
            keep = rows[:drop] + rows[drop + 1:]
            assert _sat(X[keep], y[keep], C, D, m), (seed, rows, drop)
        new_total += len(rows)
        old_total += len(_old_find_witness(X, y, D, m, seed=seed))
    assert new_total <= old_total, (new_total, old_total)
