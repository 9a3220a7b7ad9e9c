"""The witness search (satdt.proof.witness): the one search over the whole problem answers every
subset question as the DP on the subset binarized on its own does, and the chunked deletion ends
on minimal witnesses (checked against the reference encoding) no larger than the old search's.
Both routes of the questions: the compiled box DP (``BoxWitness``, data with few boxes; its
deletion loop in C++) and the DP search (``route`` forces it by allowing no boxes)."""

from __future__ import annotations

import numpy as np
import pytest
from pysat.solvers import Solver

from satdt import bruteforce
from satdt.binarize import Binarizer
from satdt.data import prepare
from satdt.proof import witness
from satdt.proof.reference_encoding import encode
from satdt.proof.witness import _fits, _NearestOther, _Questions, _regroup, _rotations, _shrink, find_witness
from satdt.solvers.dp import solve_min_depth_dp, solve_min_size_dp


@pytest.fixture(params=["boxes", pytest.param("search", marks=pytest.mark.slow)])
def route(request, monkeypatch):
    """The questions' route: the box DP (the default on these small instances) or the search."""
    if request.param == "search":
        monkeypatch.setattr(witness, "BOX_WITNESS_CELLS", 0)
    return request.param


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


def test_one_search_answers_every_subset_question_as_the_subset_dp(route):
    rng = np.random.default_rng(0)
    asked, answers = 0, {True: 0, False: 0}
    for seed in range(12):
        n, p, C = 14 + seed % 3 * 4, 2 + seed % 2, 2 + seed % 3 // 2
        X, y = _consistent_with_duplicates(seed, n, p, 4 + seed % 3, C)
        for depth, m in ((1, None), (2, None), (3, None), (2, 2), (3, 3), (3, 5)):
            qs = _Questions(X, y, depth, m)
            assert (qs.box is not None) == (route == "boxes")
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
def test_witnesses_are_minimal_and_no_larger_than_the_old_search(question, route):
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


def test_nearest_other_class_distance_is_its_definition():
    """_NearestOther (the box growth's order) against its definition: for every row, the least sum of
    feature-rank gaps to a row of another class among the rows added so far, rows added in steps."""
    rng = np.random.default_rng(3)
    for seed in range(40):
        n, p, C = int(rng.integers(2, 25)), int(rng.integers(1, 4)), int(rng.integers(2, 4))
        X = rng.integers(0, 5, size=(n, p)).astype(float) if seed % 2 else rng.normal(size=(n, p)).round(1)
        code = rng.integers(0, C, size=n)
        position = np.column_stack([np.searchsorted(np.unique(c), c) / max(1, np.unique(c).size - 1) for c in X.T])
        steps = np.array_split(rng.permutation(n), int(rng.integers(1, 5)))
        nearest, present = _NearestOther(X, code, steps[0].tolist()), list(steps[0])
        for step in steps[1:] + [np.array([], int)]:
            want = [min([abs(position[i] - position[j]).sum() for j in present if code[j] != code[i]], default=np.inf)
                    for i in range(n)]
            assert np.allclose(nearest.distance, want), seed
            nearest.add(step.tolist())
            present += step.tolist()


@pytest.mark.parametrize("question", ["depth", "size"])
def test_box_growth_by_nearest_rows_gives_minimal_witnesses(question):
    """The box route's growth (nearest rows of another class first) and DT_size's deletion order
    (newest rows first), on real-valued and repeated features: a witness, minimal (the reference
    encoding on it and without each row)."""
    rng, asked = np.random.default_rng(11), 0
    for seed in range(24):
        n, p, C = int(rng.integers(12, 30)), int(rng.integers(2, 4)), int(rng.integers(2, 4))
        X, y = _consistent_with_duplicates(300 + seed, n, p, 3 + seed % 4, C)
        if seed % 2:  # (real values, their order not the integers': each feature's values drawn at random)
            X = np.take_along_axis(rng.normal(size=(X.max().astype(int) + 1, p)), X.astype(int), 0)
        problem = Binarizer("all").problem(prepare(X, y))
        depth = solve_min_depth_dp(problem).objective
        if depth == 0 or (question == "depth" and depth == 1):
            continue
        if question == "depth":
            D, m = depth - 1, None
        else:
            tree = solve_min_size_dp(problem, max_depth=depth).tree
            D, m = tree.depth(), tree.n_splits - 1
        assert _Questions(X, y, D, m).box is not None
        rows = find_witness(X, y, C, D, m, seed=seed)
        assert rows == sorted(set(rows)) and not _sat(X[rows], y[rows], C, D, m), seed
        for drop in range(len(rows)):
            keep = rows[:drop] + rows[drop + 1:]
            assert _sat(X[keep], y[keep], C, D, m), (seed, rows, drop)
        asked += 1
    assert asked >= 15, asked


def _bf_yes(X, y, depth: int, max_splits: int | None) -> bool:
    """The subset question by brute force (satdt.bruteforce over the subset binarized alone)."""
    if len(y) == 0 or np.unique(y).size == 1:
        return True
    problem = Binarizer("all").problem(prepare(X, y))
    if max_splits is None:
        return bruteforce.min_errors(problem, depth)[0] == 0
    return bruteforce.min_nodes(problem, depth)[0] <= 2 * max_splits + 1


def _minimal(X, y, rows, depth, max_splits, yes) -> bool:
    """``rows`` is a witness (no) and without any one of its rows the answer is yes."""
    rows = list(rows)
    return not yes(X[rows], y[rows], depth, max_splits) and all(
        yes(X[keep], y[keep], depth, max_splits) for keep in (rows[:i] + rows[i + 1:] for i in range(len(rows))))


def _ask_as_brute_force(qs, X, y, rows, depth, m, seed) -> bool:
    """qs's answer on ``rows`` against brute force; a yes with a tree that classifies the rows (DT_size:
    with at most m + 1 leaves). Whether it said yes."""
    ans = qs.ask(rows)
    assert (ans is not None) == _bf_yes(X[rows], y[rows], depth, m), (seed, depth, m, rows.tolist())
    if ans is not None:
        assert (ans[0][rows] == qs.code[rows]).all()
        if m is not None:
            assert np.unique(ans[1][rows]).size <= m + 1
    return ans is not None


def test_box_questions_answer_as_brute_force():
    """The box DP's answers (yes with a tree that classifies the rows, with at most m + 1 leaves;
    or no) against brute force, on tiny instances (3-4 values a feature, 1-3 features, 2-3 classes),
    rows added and removed between the questions (the boxes' incremental updates)."""
    rng = np.random.default_rng(11)
    answers = {True: 0, False: 0}
    for seed in range(16):
        n, p, C = int(rng.integers(5, 10)), 1 + seed % 3, 2 + seed % 4 // 3
        X, y = _consistent_with_duplicates(500 + seed, n, p, 3 + seed % 2, C)
        for depth, m in ((0, None), (1, None), (2, None), (1, 1), (2, 1), (2, 2), (3, 2)):
            qs = _Questions(X, y, depth, m)
            assert qs.box is not None
            for _ in range(4):
                rows = np.sort(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
                ans = qs.ask(rows)
                assert (ans is not None) == _bf_yes(X[rows], y[rows], depth, m), (seed, depth, m, rows.tolist())
                if ans is not None:  # (class codes: a class may be absent from these rows)
                    assert (ans[0][rows] == qs.code[rows]).all()
                    if m is not None:
                        assert np.unique(ans[1][rows]).size <= m + 1
                answers[ans is not None] += 1
    assert min(answers.values()) >= 100, answers


def test_box_questions_one_way_updates_answer_as_brute_force():
    """The box DP when rows only come or only go between two questions (DT_depth's updates then
    propagate from the boxes that gained or lost a tree a level below, DT_size's removals from the
    boxes whose fewest leaves went down): rows added a few at a time from none, then removed a few
    at a time; each answer against brute force, each yes with a tree that classifies the rows (with
    at most m + 1 leaves). Then a shrink (its trial removals undone after a yes) leaves the tables as
    they were: the questions after it answer as brute force too."""
    rng = np.random.default_rng(21)
    answers = {True: 0, False: 0}
    for seed in range(14):
        n, p, C = int(rng.integers(8, 14)), 1 + seed % 3, 2 + seed % 4 // 3
        X, y = _consistent_with_duplicates(700 + seed, n, p, 3 + seed % 3, C)
        for depth, m in ((1, None), (2, None), (3, None), (2, 1), (2, 2), (3, 2), (3, 4)):
            qs = _Questions(X, y, depth, m)
            assert qs.box is not None
            order = rng.permutation(n)
            steps = np.cumsum(rng.integers(1, 4, size=n))
            sizes = [int(k) for k in steps[steps < n]] + [n]
            sizes += sizes[-2::-1]  # up, then down again
            for k in sizes:
                answers[_ask_as_brute_force(qs, X, y, np.sort(order[:k]), depth, m, seed)] += 1
            if _bf_yes(X, y, depth, m):
                continue
            qs.box.shrink(order.astype(np.int64), qs.row_of)
            for _ in range(3):
                rows = np.sort(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
                assert (qs.ask(rows) is not None) == _bf_yes(X[rows], y[rows], depth, m), (seed, depth, m)
    assert min(answers.values()) >= 150, answers


@pytest.mark.parametrize("question", ["depth", "size"])
def test_box_lazy_growth_answers_as_brute_force(question):
    """The growth is lazy (BoxWitness: the boxes holding rows that came go stale and are brought up
    to date on demand, all of them settled before rows go; DT_size: a question first answered by the
    newest tree grafted, its leaves' boxes' best subtrees): rows come over several questions in a
    row, then a few go, then more come, and so on; each answer against brute force, each yes with a
    tree that classifies the rows (DT_size: with at most m + 1 leaves); then a shrink from the last
    rows (settled first) is exactly the plain one-row deletion in the same order."""
    rng = np.random.default_rng(45)
    answers, shrunk, grafts = {True: 0, False: 0}, 0, 0
    for seed in range(24):
        n, p, C = int(rng.integers(9, 15)), 1 + seed % 3, 2 + seed % 5 // 4
        X, y = _consistent_with_duplicates(4500 + seed, n, p, 3 + seed % 2, C)
        for depth, m in ((1, None), (2, None), (3, None)) if question == "depth" else ((2, 1), (3, 2), (3, 4)):
            qs = _Questions(X, y, depth, m)
            assert qs.box is not None
            present: set[int] = set()
            for _ in range(4):  # up a few times (lazy), then down once (settled, then propagated)
                for _ in range(int(rng.integers(2, 5))):
                    present |= {int(r) for r in rng.choice(n, size=int(rng.integers(1, 4)), replace=False)}
                    answers[_ask_as_brute_force(qs, X, y, np.asarray(sorted(present)), depth, m, seed)] += 1
                present -= {int(r) for r in rng.choice(sorted(present), size=min(2, len(present) - 1), replace=False)}
            rows = sorted(present | {int(r) for r in rng.choice(n, size=3, replace=False)})
            if qs.ask(rows) is None:  # (lazy again: the shrink settles it first)
                order = rng.permutation(rows).tolist()
                assert qs.box.shrink(np.asarray(order, np.int64), qs.row_of).tolist() == _plain_deletion(
                    X, y, order, depth, m), (seed, depth, m)
                shrunk += 1
            grafts += qs.box.grafts
    assert min(answers.values()) >= 150 and shrunk >= 10 and (question == "depth") == (grafts == 0), (
        answers, shrunk, grafts)


def test_box_graft_counts_a_leaf_whose_box_emptied():
    """DT_size's graft of the newest predicted tree after rows went without a predict in between
    (review45a): a leaf whose box emptied counted 0 leaves in the sum against m + 1 but stayed a
    leaf, so the grafted tree had 4 leaves where at most 3 are allowed."""
    X = np.array([[1.0, 4.0], [2.0, 1.0], [1.0, 2.0], [4.0, 2.0], [2.0, 0.0], [1.0, 4.0], [0.0, 3.0],
                  [0.0, 1.0], [1.0, 0.0], [0.0, 2.0], [3.0, 4.0]])
    y = np.array([0, 1, 2, 1, 0, 0, 1, 0, 2, 1, 2])
    qs = _Questions(X, y, 3, 2)
    box, n_distinct = qs.box, qs.problem.n_distinct

    def present(rows):
        v = np.zeros(n_distinct, np.uint8)
        v[qs.row_of[rows]] = 1
        return v

    assert box.set_present(present([1, 3, 4, 8])) and box.predict(n_distinct)[2] == 3
    assert not box.set_present(present([1, 3, 4, 5, 6, 8, 9]))
    assert box.set_present(present([3, 5, 6, 9]))       # a yes not predicted: base_ is the first tree
    assert box.set_present(present([1, 3, 5, 6, 9]))
    assert box.predict(n_distinct)[2] <= 3


@pytest.mark.slow  # ~1.5 s (the fast suite runs the C++ loop in test_witnesses_are_minimal...[boxes-*])
def test_box_shrink_and_python_shrink_give_minimal_witnesses():
    """The deletion loop in C++ (BoxWitness.shrink) and the Python one (_shrink over the search),
    from the same unsatisfiable row set in the same order: both end on a subset that is a minimal
    witness (checked by the DP on the subset binarized alone, _fits; by brute force on the small
    ones)."""
    rng = np.random.default_rng(3)
    done = brute = 0
    for seed in range(45):
        n, p, C = int(rng.integers(6, 20)), 1 + seed % 3, 2 + seed % 5 // 4
        X, y = _consistent_with_duplicates(900 + seed, n, p, 3 + seed % 3, C)
        depth, m = int(rng.integers(1, 4)), (None if seed % 2 else int(rng.integers(1, 6)))
        order = rng.permutation(n).tolist()
        if _fits(X, y, depth, m) is not None:
            continue
        box_qs = _Questions(X, y, depth, m)
        sat = witness.BOX_WITNESS_CELLS
        witness.BOX_WITNESS_CELLS = 0
        try:
            search_qs = _Questions(X, y, depth, m)
        finally:
            witness.BOX_WITNESS_CELLS = sat
        assert box_qs.box is not None and search_qs.box is None
        for qs in (box_qs, search_qs):
            rows = _shrink(qs, order)
            assert rows == sorted(set(rows)) and set(rows) <= set(order)
            assert _minimal(X, y, rows, depth, m, lambda *a: _fits(*a) is not None), (seed, rows)
            if len(rows) <= 9:
                assert _minimal(X, y, rows, depth, m, _bf_yes), (seed, rows)
                brute += 1
        done += 1
    assert done >= 20 and brute >= 20, (done, brute)


def test_python_deletion_with_regrouped_chunks_gives_minimal_witnesses(monkeypatch):
    """The Python deletion (_shrink over the search), whose chunk after a "yes" is the chunk's rows
    the tree classified (_regroup), ends on minimal witnesses: random consistent sets with repeated
    rows, DT_depth and DT_size, rows in a random order, each witness checked by the DP on every
    subset binarized alone (_fits) and by brute force on the small ones. Each regrouping keeps
    every row still to try, the rows the tree classified first; it is taken (a chunk of those
    rows) on many of them."""
    monkeypatch.setattr(witness, "BOX_WITNESS_CELLS", 0)  # the search's route: the Python deletion
    regrouped = []

    def checked(todo, chunk, need, pred, code):
        out, nxt = _regroup(todo, chunk, need, pred, code)
        right = [r for r in todo[:chunk] if r not in need and pred[r] == code[r]]
        assert sorted(out) == sorted(r for r in todo if r not in need) and out[:len(right)] == right
        assert nxt == (len(right) or max(1, chunk // 2)) and len(right) < chunk
        regrouped.append(len(right))
        return out, nxt

    monkeypatch.setattr(witness, "_regroup", checked)
    rng = np.random.default_rng(11)
    done = brute = 0
    for seed, X, y, depth, m in _unsatisfiable_cases(rng, 60, 1300, (14, 34)):
        qs = _Questions(X, y, depth, m)
        assert qs.box is None
        rows = _shrink(qs, rng.permutation(len(y)).tolist())
        assert rows == sorted(set(rows))
        assert _minimal(X, y, rows, depth, m, lambda *a: _fits(*a) is not None), (seed, rows)
        if len(rows) <= 8:
            assert _minimal(X, y, rows, depth, m, _bf_yes), (seed, rows)
            brute += 1
        done += 1
    assert done >= 30 and brute >= 10 and sum(k > 1 for k in regrouped) >= 30, (done, brute, regrouped)


def _unsatisfiable_cases(rng, seeds: int, first: int, rows: tuple[int, int]):
    """Random consistent sets with repeated rows (``first + seed``), each with a question (depth,
    max_splits: DT_depth on odd seeds) that none of their trees answers: (seed, X, y, depth, m)."""
    for seed in range(seeds):
        n, p, C = int(rng.integers(*rows)), 1 + seed % 3, 2 + seed % 5 // 4
        X, y = _consistent_with_duplicates(first + seed, n, p, 3 + seed % 3, C)
        depth, m = int(rng.integers(1, 4)), (None if seed % 2 else int(rng.integers(1, 6)))
        if _fits(X, y, depth, m) is None:
            yield seed, X, y, depth, m


def _plain_deletion(X, y, order, depth, m):
    """The one-row deletion in ``order``, each question asked of the DP on the subset binarized alone."""
    kept = list(order)
    for r in order:
        rest = [i for i in kept if i != r]
        if _fits(X[rest], y[rest], depth, m) is None:
            kept = rest
    return sorted(kept)


def test_box_shrink_is_the_one_row_deletion_in_the_given_order():
    """BoxWitness.shrink deletes one row at a time in the order given: its witness is exactly the
    plain deletion's (each row dropped when the rows left without it still have no tree, asked of
    the DP on the subset binarized alone, _fits), DT_depth and DT_size, with repeated rows."""
    rng = np.random.default_rng(5)
    done = 0
    for seed, X, y, depth, m in _unsatisfiable_cases(rng, 24, 1300, (8, 16)):
        order = rng.permutation(len(y)).tolist()
        qs = _Questions(X, y, depth, m)
        assert qs.box is not None
        assert qs.box.shrink(np.asarray(order, np.int64), qs.row_of).tolist() == _plain_deletion(
            X, y, order, depth, m), (seed, depth, m)
        done += 1
    assert done >= 10, done


@pytest.mark.parametrize("outside", [False, True], ids=["repairs", "outside"])
def test_box_shrink_with_kept_trees_repaired_is_the_one_row_deletion(outside):
    """After a growth (its trees kept by predict), BoxWitness.shrink answers some trials "yes"
    without touching the tables: by the outside pass made before the trials (on by default: for
    every box, the fewest leaves of the rest of a tree from the full box through it, its values
    upper bounds once rows went), and by a kept tree repaired by the tables (its other leaves' boxes
    by their best subtrees, the row's leaf box without the row by a short search; alone when the
    pass is off): its witness is still exactly the plain deletion's in the same order (each trial
    asked of the DP on the subset alone), DT_depth and DT_size, with repeated rows, and each way
    answers some of the trials."""
    rng = np.random.default_rng(11)
    done = answered = 0
    for seed, X, y, depth, m in _unsatisfiable_cases(rng, 60, 2300, (10, 22)):
        qs = _Questions(X, y, depth, m)
        assert qs.box is not None
        qs.box.set_outside(outside)
        W = sorted(int(np.flatnonzero(qs.code == c)[0]) for c in np.unique(qs.code))
        while (ans := qs.ask(W)) is not None:  # the growth, one wrong row a round (predict keeps the trees)
            wrong = np.flatnonzero(ans[0] != qs.code)
            if wrong.size == 0:
                break
            W = sorted(set(W) | {int(rng.choice(wrong))})
        if ans is not None:
            continue
        order = rng.permutation(W).tolist()
        assert qs.box.shrink(np.asarray(order, np.int64), qs.row_of).tolist() == _plain_deletion(
            X, y, order, depth, m), (seed, depth, m)
        done += 1
        answered += qs.box.outside_yeses if outside else qs.box.repaired
        assert outside or qs.box.outside_yeses == 0
    assert done >= 20 and answered >= 30, (done, answered)


def test_box_route_is_taken_only_for_few_boxes():
    X = np.random.default_rng(0).random((40, 3))  # continuous: 40^6 / 8 boxes
    y = (X[:, 0] > X[:, 1]).astype(int)
    assert _Questions(X, y, 2, None).box is None
    Xs, ys = _consistent_with_duplicates(1, 30, 3, 4, 2)
    assert _Questions(Xs, ys, 2, None).box is not None


def test_box_shrink_refuses_a_satisfiable_set():
    X, y = _consistent_with_duplicates(2, 12, 2, 3, 2)
    qs = _Questions(X, y, 4, None)
    assert qs.box is not None
    with pytest.raises(ValueError, match="admit a tree"):
        qs.box.shrink(np.arange(12), qs.row_of)


# a chain of r ranks has r (r + 1) / 2 intervals: counted in 64 bits, so a long chain (r (r + 1)
# above 2**31 - 1 from r = 46,341 on) is refused as too many intervals rather than overflowing an int
@pytest.mark.parametrize("ranks", [363, 46341, 50000])
def test_box_witness_refuses_a_chain_of_too_many_intervals(ranks):
    from satdt.solvers.dp import _core

    with pytest.raises(ValueError, match="too many intervals"):
        _core.BoxWitness(np.zeros((1, 1), np.int32), np.array([ranks], np.int32), np.zeros(1, np.int32), 1, 1, -1)


def test_box_witness_with_more_splits_allowed_than_rows_is_minimal():
    """review46a: with max_splits at or past the distinct rows the box DP's cap on leaf counts (rows + 1) was read as
    a real count: a graft with no tree behind it ("no tree for this box"), and trials answered "yes" wrongly (a
    witness not minimal). Such splits allowances on random small sets: find_witness gives a minimal witness (checked
    by the subset DP) and the box's shrink equals the plain one-row deletion in the same order."""
    assert find_witness(np.array([[0.0], [1.0], [2.0]]), np.array([0, 1, 0]), 2, 1, 4) == [0, 1, 2]
    checked = 0
    for seed in range(600):
        rng = np.random.default_rng(seed)
        n, v = int(rng.integers(3, 10)), int(rng.integers(3, 6))
        X = rng.integers(0, v, (n, int(rng.integers(1, 3)))).astype(float)
        inv = np.unique(X, axis=0, return_inverse=True)[1].reshape(-1)
        y = rng.integers(0, 2, inv.max() + 1)[inv]
        depth, m = int(rng.integers(1, 4)), int(inv.max() + 1 + rng.integers(0, 3))
        if np.unique(y).size < 2 or _fits(X, y, depth, m) is not None:
            continue
        order = rng.permutation(n).tolist()
        kept = list(order)
        for r in order:  # the plain deletion: a row goes when the rest still needs more
            rest = [i for i in kept if i != r]
            if _fits(X[rest], y[rest], depth, m) is None:
                kept = rest
        qs = _Questions(X, y, depth, m)
        assert sorted(qs.box.shrink(np.asarray(order, np.int64), qs.row_of).tolist()) == sorted(kept), seed
        rows = find_witness(X, y, 2, depth, m)
        assert _minimal(X, y, rows, depth, m, lambda *a: _fits(*a) is not None), (seed, rows)
        checked += 1
    assert checked >= 90
