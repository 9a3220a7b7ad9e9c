"""satdt.binarize: strategies, redundancy removal, merged rows, the map back."""

import numpy as np
import pandas as pd
import pytest

from satdt.binarize import Binarizer, BinaryTest, ConflictError
from satdt.data import load_dataset, prepare
from satdt.tree import Node, Tree


def test_all_strategy_gives_every_midpoint():
    data = prepare(np.array([[1.0], [2.0], [2.0], [4.0]]), [0, 1, 1, 0])
    p = Binarizer("all").problem(data)
    assert [t.threshold for t in p.tests] == [1.5, 3.0]
    # True = goes right (x > threshold)
    assert p.X.tolist() == [[False, False], [True, False], [True, True]]
    assert p.counts.tolist() == [[1, 0], [0, 2], [1, 0]]
    assert p.row_of.tolist() == [0, 1, 1, 2]


def test_every_axis_split_is_available():
    """With `all`, every partition of the rows by one threshold is some binary column."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3)).round(1)
    data = prepare(X, rng.integers(0, 2, 40))
    p = Binarizer("all", drop_duplicates=False).problem(data)
    Xb = Binarizer("all", drop_duplicates=False).fit(data).transform(X)
    for j in range(3):
        for v in np.unique(X[:, j])[:-1]:
            split = X[:, j] > v
            assert any(np.array_equal(split, Xb[:, k]) for k in range(Xb.shape[1]))
    assert p.n_binary == sum(len(np.unique(X[:, j])) - 1 for j in range(3))


def test_adjacent_floats_keep_midpoint_separating():
    a = 1.0
    b = np.nextafter(a, 2.0)
    data = prepare(np.array([[a], [b]]), [0, 1])
    p = Binarizer("all").problem(data)
    assert p.n_binary == 1 and p.conflicts() == []
    assert p.tests[0].column(data.X).tolist() == [False, True]


def test_constant_duplicate_and_complement_columns_dropped():
    X = np.array([[0, 5, 0, 1, 7], [1, 5, 1, 0, 7], [1, 5, 1, 0, 7], [0, 5, 0, 1, 7]], dtype=float)
    p = Binarizer("all").problem(prepare(X, [0, 1, 1, 0]))
    assert p.n_binary == 1
    assert p.tests[0].feature == 0


def test_quantile_strategy_caps_thresholds():
    data = load_dataset("wine")
    full = Binarizer("all").problem(data)
    q = Binarizer("quantile", n_thresholds=4).problem(data)
    per_feature = np.bincount([t.feature for t in q.tests], minlength=13)
    assert per_feature.max() <= 4
    assert q.n_binary < full.n_binary
    assert q.strategy == "quantile"


def test_tree_strategy_uses_a_subset_of_midpoints():
    data = load_dataset("iris")
    full = {(t.feature, t.threshold) for t in Binarizer("all").fit(data).tests_}
    guessed = Binarizer("tree", n_thresholds=5, max_depth=2).fit(data).tests_
    assert 0 < len(guessed) < len(full)
    assert {(t.feature, t.threshold) for t in guessed} <= full


def test_categorical_one_test_per_value():
    frame = pd.DataFrame({"colour": ["red", "green", "blue", "red"], "flag": ["y", "n", "y", "n"]})
    data = prepare(frame, [0, 1, 1, 0])
    p = Binarizer("all").problem(data)
    described = sorted(t.describe(data.feature_names) for t in p.tests)
    # three colours -> three tests; a two-valued column -> one test
    assert sum(d.startswith("colour") for d in described) == 3
    assert sum(d.startswith("flag") for d in described) == 1


def test_identical_rows_merged_with_counts_and_conflicts_reported():
    X = np.array([[0.0], [0.0], [1.0], [1.0], [1.0]])
    p = Binarizer("all").problem(prepare(X, [0, 1, 1, 1, 0]))
    assert p.n_distinct == 2
    assert p.counts.tolist() == [[1, 1], [1, 2]]
    assert p.min_errors == 2
    assert p.conflicts() == [[0, 1], [2, 3, 4]]
    with pytest.raises(ConflictError, match="5 rows in 2 group"):
        p.check_consistent()


def test_unknown_strategy():
    with pytest.raises(ValueError, match="unknown binarization 'nope'"):
        Binarizer("nope").fit(load_dataset("iris"))


def test_to_original_routes_rows_like_the_binary_tree():
    data = load_dataset("iris")
    p = Binarizer("all").problem(data)
    rng = np.random.default_rng(3)
    for _ in range(20):
        j, k = rng.integers(0, p.n_binary, 2)
        btree = Tree(Node.split(j, 0.5, Node.leaf(0), Node.split(k, 0.5, Node.leaf(1), Node.leaf(2))),
                     classes=p.classes)
        original = p.to_original(btree)
        full_binary = Binarizer("all").fit(data).transform(data.X).astype(float)
        assert np.array_equal(original.predict_index(data.X), btree.predict_index(full_binary))
        assert original.feature_names == data.feature_names
        assert p.errors(btree) == int((original.predict_index(data.X) != data.y).sum())


def test_row_grouping_matches_naive_reference():
    from satdt.binarize import _first_of_equal_rows, _words

    rng = np.random.default_rng(7)
    for width in (1, 5, 63, 64, 65, 200):
        base = rng.random((12, width)) < 0.5
        bits = base[rng.integers(0, 12, size=80)]
        rep = _first_of_equal_rows(_words(bits))
        naive = [next(j for j in range(80) if np.array_equal(bits[i], bits[j])) for i in range(80)]
        assert rep.tolist() == naive


@pytest.mark.parametrize("seed", range(24))
def test_rows_grouped_by_their_packed_codes_as_by_a_naive_reference(seed):
    """Each row's first equal row from its codes packed into words (bits for 0 / 1 codes, 8, 16
    or 32 bits otherwise; one word: the exact np.unique, several: the hash) is the naive one."""
    from satdt.binarize.problem import _code_words, _first_of_equal_rows

    rng = np.random.default_rng(3000 + seed)
    top = [1, 1, 5, 255, 256, 70000][seed % 6]
    width = int(rng.choice([1, 3, 8, 9, 40, 64, 65, 130]))
    base = rng.integers(0, top + 1, size=(int(rng.integers(2, 15)), width), dtype=np.int32)
    base[0, 0] = top                                       # the largest code present
    shift = 256 if top < 1 << 16 else 1 << 16              # what the next narrower type would lose
    if top >= shift:                                       # twins of row 0 but for one code, +shift
        for k in range(1, len(base), 2):
            j = int(rng.integers(1, width)) if width > 1 else 0
            base[k] = base[0]
            base[0, j] = int(rng.integers(0, top - shift + 1)) if j else top - shift
            base[k, j] = base[0, j] + shift
    codes = base[rng.integers(0, len(base), size=int(rng.integers(1, 90)))]
    rep = _first_of_equal_rows(_code_words(codes))
    naive = [next(j for j in range(len(codes)) if np.array_equal(codes[i], codes[j])) for i in range(len(codes))]
    assert rep.tolist() == naive


def test_distinct_rows_keep_first_appearance_order():
    X = np.array([[3.0], [1.0], [3.0], [2.0], [1.0]])
    p = Binarizer("all").problem(prepare(X, [0, 1, 0, 1, 1]))
    assert p.row_of.tolist() == [0, 1, 0, 2, 1]
    assert p.counts.tolist() == [[2, 0], [0, 2], [0, 1]]


@pytest.mark.parametrize("seed", range(30))
def test_from_original_routes_every_row_like_the_original_tree(seed):
    """Any tree over the original features (here scikit-learn's CART, mapped by routing) becomes
    a tree over the binary columns; with the `all` binarization the routing is exact."""
    from sklearn.tree import DecisionTreeClassifier
    from satdt.verify import as_tree

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 3)).round(1)
    if seed % 3 == 0:  # a text column too
        X = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": rng.choice(["u", "v", "w"], size=40)})
    y = rng.integers(0, 3, size=40)
    data = prepare(X, y)
    original = as_tree(DecisionTreeClassifier(max_depth=1 + seed % 4, random_state=0).fit(data.X, data.y), data)
    problem = Binarizer("all").problem(data)
    binary, rerouted = problem.from_original(original)
    assert rerouted == 0 and binary.depth() <= original.depth()
    assert all(0 <= nd.feature < problem.n_binary for nd in binary.root.walk() if not nd.is_leaf)
    np.testing.assert_array_equal(binary.predict_index(problem.X[problem.row_of]), original.predict_index(data.X))
    # a coarse binarization cannot route every row the same: it says by how much, and the
    # tree stays a valid tree over its columns
    coarse = Binarizer("quantile", n_thresholds=2).problem(data)
    mapped, rerouted = coarse.from_original(original)
    assert all(0 <= nd.feature < coarse.n_binary for nd in mapped.root.walk() if not nd.is_leaf)
    # every row predicted differently was sent the other way at one split at least
    changed = int((mapped.predict_index(coarse.X[coarse.row_of]) != original.predict_index(data.X)).sum())
    assert rerouted >= changed


def test_from_original_collapses_splits_with_an_empty_side():
    data = prepare(np.array([[0.0], [1.0], [2.0], [3.0]]), np.array([0, 0, 1, 1]))
    problem = Binarizer("all").problem(data)
    # the outer split sends every row left; only its left subtree survives
    tree = Tree(Node.split(0, 10.0, Node.split(0, 1.5, Node.leaf(0), Node.leaf(1)), Node.leaf(0)),
                classes=data.classes)
    binary, rerouted = problem.from_original(tree)
    assert rerouted == 0 and binary.depth() == 1
    np.testing.assert_array_equal(binary.predict_index(problem.X[problem.row_of]), [0, 0, 1, 1])


def _kept_by_matrix(tests, X):
    """Reference for the dropped tests: every column built, flipped so row 0 is False; the
    earliest column of each group of equal ones kept, constant ones dropped."""
    cols = np.stack([t.column(X) for t in tests])
    cols ^= cols[:, :1]
    kept, seen = [], set()
    for j, col in enumerate(cols):
        key = col.tobytes()
        if col.any() and key not in seen:
            kept.append(tests[j])
        seen.add(key)
    return kept


#: ``_drop_redundant``'s two paths: every column built and compared at once (small data), and
#: the column hashes (forced by a direct-path cap of 0 cells)
DROP_PATHS = ("direct", "hashed")


def _drop_path(monkeypatch, path):
    import satdt.binarize.redundant as redundant

    if path == "hashed":
        monkeypatch.setattr(redundant, "_DIRECT_CELLS", 0)


@pytest.mark.parametrize("path", DROP_PATHS)
@pytest.mark.parametrize("seed", range(12))
def test_redundant_tests_dropped_as_by_the_binary_matrix(seed, path, monkeypatch):
    """The column hashes (and the direct path) find exactly the duplicates, complements and
    constants the full binary matrix shows (features that copy, reverse or coarsen another,
    categorical ones, ties)."""
    from satdt.binarize import _drop_redundant

    _drop_path(monkeypatch, path)

    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    a = rng.integers(0, 6, n).astype(float)
    X = np.column_stack([a, -a, a * 2 + 1, (a > 2).astype(float), np.zeros(n),
                         rng.normal(size=n).round(1), rng.integers(0, 3, n).astype(float)])
    cat = (seed % 2) * 6
    d = prepare(pd.DataFrame({**{f"x{k}": X[:, k] for k in range(6)},
                              "c": pd.Categorical(X[:, 6].astype(int)) if cat else X[:, 6]}),
                rng.integers(0, 2, n))
    full = Binarizer("all", drop_duplicates=False).fit(d).tests_
    assert _drop_redundant(full, d.X) == _kept_by_matrix(full, d.X)
    assert Binarizer("all").fit(d).tests_ == _kept_by_matrix(full, d.X)


@pytest.mark.parametrize("path", DROP_PATHS)
@pytest.mark.parametrize("seed", range(8))
def test_redundant_few_thresholds_dropped_as_by_the_binary_matrix(seed, path, monkeypatch):
    """Features with few thresholds against their rows take the codes' path (no sort): the same
    tests dropped as by the full binary matrix (quantile thresholds of copied, coarsened and
    reversed features, and features with many thresholds, which take the sorting path)."""
    from satdt.binarize import _drop_redundant

    _drop_path(monkeypatch, path)

    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(200, 600))
    a = rng.integers(0, 12, n).astype(float)
    X = np.column_stack([a, -a, a * 3 - 1, np.floor(a / 2), rng.normal(size=n), rng.integers(0, 2, n)])
    d = prepare(X, rng.integers(0, 3, n))
    for strategy, k in (("quantile", 3), ("quantile", 7), ("all", None)):
        tests = Binarizer(strategy, n_thresholds=k or 10, drop_duplicates=False).fit(d).tests_
        assert _drop_redundant(tests, d.X) == _kept_by_matrix(tests, d.X)


@pytest.mark.parametrize("name", ["iris", "car", "compas", "zoo", "monk1", "bmi"])
@pytest.mark.parametrize("strategy", ["all", "quantile"])
def test_problem_from_codes_equals_problem_from_matrix(name, strategy):
    """The distinct rows found from the features' codes (no binary matrix) are the rows, order
    and counts found from the binary matrix; X built on first use is that matrix's rows."""
    from satdt.binarize import BinaryProblem

    data = load_dataset(name)
    b = Binarizer(strategy).fit(data)
    lazy = b.problem(data, fit=False)
    dense = BinaryProblem.build(b.transform(data.X), data, list(b.tests_), strategy)
    assert lazy.codes is not None and not lazy.has_matrix
    for attr in ("row_of", "counts", "first"):
        assert np.array_equal(getattr(lazy, attr), getattr(dense, attr))
    assert lazy.n_binary == dense.n_binary and lazy.n_distinct == dense.n_distinct
    assert np.array_equal(lazy.column(0), dense.X[:, 0]) and not lazy.has_matrix
    assert np.array_equal(lazy.X, dense.X) and lazy.has_matrix


def _reference_from_original(problem, tree):
    """The matrix version of :meth:`BinaryProblem.from_original` (before it read the original
    features): each split's column by its mismatches over ``problem.X``, the split's own
    feature's columns first, then all, the first best kept."""
    data, rerouted = problem.data, 0
    X = problem.X

    def best(rows, left, own):
        distinct = problem.row_of[rows]
        w_left = np.bincount(distinct[left], minlength=problem.n_distinct)
        w_right = np.bincount(distinct[~left], minlength=problem.n_distinct)
        found = (0, np.inf, np.inf)
        for cols in ([own] if len(own) else []) + [np.arange(problem.n_binary)]:
            bits = X[:, cols].astype(np.int64)
            mismatch = w_left @ bits + w_right @ (1 - bits)
            score = np.minimum(mismatch, len(rows) - mismatch)
            k = int(np.argmin(score))
            if score[k] < min(found[1], found[2]):
                found = (int(cols[k]), int(mismatch[k]), int(len(rows) - mismatch[k]))
            if min(found[1], found[2]) == 0:
                break
        return found

    def rec(node, rows):
        nonlocal rerouted
        if node.is_leaf:
            return Node.leaf(node.label)
        left = node.goes_left(data.X, rows)
        if left.all() or not left.any():
            return rec(node.left if left.all() or not rows.size else node.right, rows)
        own = np.array([j for j, t in enumerate(problem.tests) if t.feature == node.feature], dtype=np.int64)
        column, mismatch, swapped = best(rows, left, own)
        rerouted += min(mismatch, swapped)
        right = X[problem.row_of[rows], column]
        first, second = (node.right, node.left) if swapped < mismatch else (node.left, node.right)
        return Node.split(column, 0.5, rec(first, rows[~right]), rec(second, rows[right]))

    return Tree(root=rec(tree.root, np.arange(data.n_rows)), classes=problem.classes), rerouted


@pytest.mark.parametrize("seed", range(12))
def test_tree_questions_never_build_the_binary_matrix(seed):
    """from_original, errors, leaf_labels, route and column_ones read the original features:
    the same answers as over the binary matrix (the reference above), and no matrix built (on
    magic's 15k x 120k tests it took 2-5 s, more than a short time limit)."""
    from sklearn.tree import DecisionTreeClassifier
    from satdt.verify import as_tree

    rng = np.random.default_rng(100 + seed)
    X = rng.normal(size=(60, 3)).round(1)
    if seed % 3 == 0:
        X = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": rng.choice(["u", "v", "w"], size=60)})
    y = rng.integers(0, 2 + seed % 2, size=60)
    data = prepare(X, y)
    original = as_tree(DecisionTreeClassifier(max_depth=1 + seed % 4, random_state=0).fit(data.X, data.y), data)
    for strategy in ("all", "quantile"):
        lazy = Binarizer(strategy, n_thresholds=3).problem(data)
        dense = Binarizer(strategy, n_thresholds=3).problem(data)
        mapped, rerouted = lazy.from_original(original)
        labelled = lazy.leaf_labels(mapped.copy())
        errors, ones = lazy.errors(labelled), lazy.column_ones()
        assert not lazy.has_matrix
        ref, ref_rerouted = _reference_from_original(dense, original)
        assert mapped.to_dict() == ref.to_dict() and rerouted == ref_rerouted
        assert labelled.to_dict() == dense.leaf_labels(ref.copy()).to_dict()
        assert errors == int(dense.weights.sum() - dense.counts[np.arange(dense.n_distinct),
                                                               labelled.predict_index(dense.X)].sum())
        np.testing.assert_array_equal(ones, np.count_nonzero(dense.X, axis=0))
        assert sorted(map(tuple, (r.tolist() for _, r in lazy.route(labelled)))) == \
            sorted(map(tuple, (r.tolist() for _, r in labelled.apply(dense.X))))


@pytest.mark.parametrize("strategy,k", [("all", 10), ("quantile", 1), ("quantile", 3), ("quantile", 10)])
def test_numeric_thresholds_in_blocks_equal_the_column_loop(strategy, k, monkeypatch):
    """The block-wise thresholds (one sort and one np.quantile per block of columns, issue 22's
    wide data; the columns of at most two values from their minimum and maximum) are the
    column-by-column loop's, ties, constants and adjacent floats included, and two-valued columns
    (0/1, two adjacent floats, two values near the float limit, whose midpoint overflows)."""
    import satdt.binarize.binarizer as B  # where Binarizer.fit looks _numeric_thresholds up
    from satdt.data import prepare

    rng = np.random.default_rng(7)
    for trial in range(40):
        n = int(rng.integers(2, 40)) if trial % 4 else int(rng.integers(300, 1500))
        cols = []
        for kind in rng.integers(0, 8, int(rng.integers(2, 7))):
            cols.append([rng.normal(size=n), rng.integers(0, 4, n).astype(float), np.full(n, 3.0),
                         np.nextafter(1.0, 2.0) ** rng.integers(0, 3, n),
                         rng.choice([0.1, 0.2, 0.30000000000000004, 0.3], n),
                         rng.integers(0, 2, n).astype(float), rng.choice([1.0, np.nextafter(1.0, 2.0)], n),
                         rng.choice([1.6e308, 1.7e308], n) * (-1) ** trial][kind])
        y = rng.integers(0, 2, n)
        y[:2] = [0, 1]
        data = prepare(np.column_stack(cols), y)
        blocks = Binarizer(strategy, n_thresholds=k, drop_duplicates=False).fit(data).tests_
        with monkeypatch.context() as m:
            m.setattr(B, "_numeric_thresholds", lambda *a, **kw: None)
            loop = Binarizer(strategy, n_thresholds=k, drop_duplicates=False).fit(data).tests_
        assert [(t.feature, t.threshold) for t in blocks] == [(t.feature, t.threshold) for t in loop]
        assert len(blocks) > 0 or all(len(np.unique(c)) < 2 for c in cols)


# ------------------------------------------------------------------ chains: one grouping for every engine

def _chain_problems():
    """Random problems of every kind the engines meet: numeric, categorical (text), missing
    values (``missing="learn"``, through :func:`satdt.missing.augment`), the ``quantile`` and
    ``tree`` strategies, from the features' codes and from the binary matrix."""
    from satdt.binarize import BinaryProblem
    from satdt.missing import augment

    out = []
    for seed in range(12):
        rng = np.random.default_rng(700 + seed)
        n = int(rng.integers(12, 40))
        frame = pd.DataFrame({"a": rng.integers(0, 6, n).astype(float), "b": rng.normal(size=n).round(1),
                              "c": rng.choice(["red", "green", "blue"], n), "d": rng.integers(0, 2, n).astype(float),
                              "e": rng.choice(["x", "y"], n)})
        frame = frame[list(rng.permutation(frame.columns))]        # categorical columns anywhere
        if seed % 3 == 0:                                           # missing values in numeric columns
            for col in ("a", "b"):
                frame.loc[rng.random(n) < 0.25, col] = np.nan
        y = rng.integers(0, int(rng.integers(2, 4)), n)
        y[:2] = [0, 1]
        data = prepare(frame, y, missing=seed % 3 == 0)
        engine_data, mapping = augment(data)
        assert (mapping is not None) == (seed % 3 == 0 and np.isnan(data.X).any())
        strategy = ("all", "quantile", "tree")[seed % 3]
        b = Binarizer(strategy, n_thresholds=3, max_depth=2).fit(engine_data)
        out.append((f"seed {seed} {strategy}", b.problem(engine_data, fit=False), mapping))
        out.append((f"seed {seed} {strategy} matrix",
                    BinaryProblem.build(b.transform(engine_data.X), engine_data, list(b.tests_), strategy), mapping))
        if seed % 4 == 1:   # the features' runs of tests in reverse feature order (codes still one run each)
            b.tests_ = sorted(b.tests_, key=lambda t: -t.feature)
            out.append((f"seed {seed} {strategy} reversed", b.problem(engine_data, fit=False), mapping))
    return out


@pytest.mark.parametrize("name,problem,mapping", _chain_problems(), ids=lambda v: v if isinstance(v, str) else "")
def test_threshold_chains_feed_every_engine(name, problem, mapping):
    """:meth:`BinaryProblem.threshold_chains` is the grouping of CP-SAT, BinOCT, the DP's ranks,
    the box DP's size and the engine choice; a feature with missing values gives two chains."""
    from satdt.encodings.cpsat_regularized import build_model, threshold_chains
    from satdt.encodings.mip_binoct import build_binoct, feature_groups
    from satdt.limits import box_size
    from satdt.solvers.dp.boxes import box_count, box_work
    from satdt.solvers.dp.chains import build_chains
    from satdt.solvers.engine_choice import _chain_ranks, box_figures

    chains = [c.tolist() for c in problem.threshold_chains()]
    # the definition, written out: a numeric feature's tests by threshold, a categorical test alone
    groups: dict = {}
    for j, t in enumerate(problem.tests):
        groups.setdefault(("num", t.feature) if t.category is None else ("cat", j), []).append((t.threshold, j))
    assert chains == [[j for _, j in sorted(g)] for g in groups.values()]
    for cols in chains:                                  # nested: a row is True on a prefix
        assert np.all(np.diff(problem.X[:, cols].astype(int), axis=1) <= 0)
    if mapping is not None:                              # missing="learn": two chains per such feature
        for j in mapping.low:
            copies = [k for k, (f, side) in enumerate(mapping.source) if f == j and side is not None]
            assert len(copies) == 2
            assert sum(problem.tests[c[0]].feature in copies and problem.tests[c[0]].category is None
                       for c in chains) == sum(any(t.feature == k for t in problem.tests) for k in copies)

    # CP-SAT and BinOCT read the chains as they are
    assert [c.tolist() for c in threshold_chains(problem)] == chains
    assert [c.tolist() for c in feature_groups(problem)] == chains
    if problem.n_binary:
        assert [c.tolist() for c in build_model(problem, 2).chains] == chains
        assert [c.tolist() for c in build_binoct(problem, 1).groups] == chains

    # the DP: the same chains, the numeric ones first (by feature), with exact ranks
    ch = build_chains(problem)
    dp_chains = [ch.orig[ch.chain == k].tolist() for k in range(ch.rank.shape[1])]
    numeric = [c for c in chains if problem.tests[c[0]].category is None]
    numeric.sort(key=lambda c: problem.tests[c[0]].feature)
    assert dp_chains == numeric + [c for c in chains if problem.tests[c[0]].category is not None]
    for g in range(len(ch.orig)):
        assert np.array_equal(problem.X[:, ch.orig[g]], ch.rank[:, ch.chain[g]] >= ch.level[g])

    # the box DP's size and the engine choice: the chains' ranks, one formula
    ranks = [len(c) + 1 for c in chains]
    assert sorted(ch.ranks) == sorted(ranks) and sorted(_chain_ranks(problem)) == sorted(ranks)
    figures = box_figures(problem)
    assert (figures["boxes"], figures["box_work_per_level"]) == box_size(ranks) == (box_count(ch), box_work(ch))
    assert figures["chains"] == len(chains)


def _random_tests(rng, X, categorical):
    """Random tests on ``X``: per feature, thresholds between, at and beyond its values (ties,
    constant columns), repeated ones, and a few tests whose order is shuffled within the feature;
    ``categorical`` features get category tests (present and absent categories)."""
    tests = []
    for j in range(X.shape[1]):
        v = np.unique(X[:, j])
        if j in categorical:
            cats = rng.permutation(np.concatenate([v, [v.max() + 1]]))[:int(rng.integers(1, len(v) + 2))]
            tests += [BinaryTest(j, float(c), f"c{int(c)}") for c in cats]
            continue
        k = int(rng.choice([1, 2, 5, 17, 40]))     # narrow (<= 16 tests) and wide features
        pool = np.concatenate([v, (v[:-1] + v[1:]) / 2, [v.min() - 1, v.max() + 1]])
        t = np.sort(rng.choice(pool, size=k))
        if rng.random() < 0.3:
            t = rng.permutation(t)
        tests += [BinaryTest(j, float(x)) for x in t]
    return tests


@pytest.mark.parametrize("path", DROP_PATHS)
@pytest.mark.parametrize("seed", range(40))
def test_drop_redundant_equals_reference_on_random_matrices(seed, path, monkeypatch):
    """The batched ``_drop_redundant`` (both paths) keeps exactly the columns of the
    straightforward reference (every column built; the earliest of each class of
    equal-or-complement columns, constant ones dropped) on random matrices: 0/1 columns,
    categorical codes, numeric columns with ties, constant columns, copies, complements and
    scaled copies; with the comparison slices made tiny (many slices of whole groups) on half the
    seeds."""
    from satdt.binarize import _drop_redundant
    import satdt.binarize.redundant as redundant

    _drop_path(monkeypatch, path)

    rng = np.random.default_rng(1000 + seed)
    n = int(rng.integers(1, 80))
    base = [rng.integers(0, 2, n), rng.integers(0, 4, n), rng.normal(size=n).round(1),
            rng.integers(0, 30, n), np.full(n, 3.0)]
    cols = []
    for _ in range(int(rng.integers(2, 12))):
        b = base[int(rng.integers(len(base)))].astype(float)
        kind = int(rng.integers(5))
        cols.append(b if kind == 0 else 1 - b if kind == 1 else -b if kind == 2 else 2 * b + 1 if kind == 3
                    else rng.integers(0, 2, n).astype(float))
    X = np.column_stack(cols)
    categorical = set(rng.choice(X.shape[1], size=int(rng.integers(0, 3)), replace=False).tolist())
    tests = _random_tests(rng, X, categorical)
    if seed % 2:
        monkeypatch.setattr(redundant, "_STEP_CELLS", 8 * n * 3)   # three columns per slice
    assert _drop_redundant(tests, X) == _kept_by_matrix(tests, X)


def _codes_reference(tests, X):
    """Each feature's code by its definition, a feature at a time: a numeric feature's thresholds
    below the value, a categorical feature's place of the tested category equal to the value
    (else the number of its tests); None when a feature's tests are not one run of distinct
    (numeric: increasing) thresholds."""
    from satdt.binarize import feature_blocks

    blocks = feature_blocks(tests)
    if len({b[0] for b in blocks}) != len(blocks):
        return None
    out = np.empty((X.shape[0], len(blocks)), dtype=np.int32)
    for k, (feature, categorical, start, stop) in enumerate(blocks):
        t = [x.threshold for x in tests[start:stop]]
        if (categorical and len(set(t)) < len(t)) or (not categorical and any(b <= a for a, b in zip(t, t[1:]))):
            return None
        for r, v in enumerate(X[:, feature]):
            out[r, k] = (t.index(v) if v in t else len(t)) if categorical else sum(x < v for x in t)
    return out


@pytest.mark.parametrize("seed", range(30))
def test_codes_equal_reference_on_random_tests(seed, monkeypatch):
    """The batched codes (narrow features' columns summed together, wide ones searched) equal
    the codes by definition; two rows have equal codes exactly when their binary rows are equal;
    with tiny slices on a third of the seeds."""
    import satdt.binarize.columns as columns

    rng = np.random.default_rng(2000 + seed)
    n = int(rng.integers(1, 60))
    X = np.column_stack([rng.integers(0, 3, n), rng.normal(size=n).round(1), rng.integers(0, 2, n),
                         rng.integers(0, 25, n)]).astype(float)
    tests = _random_tests(rng, X, {0} if seed % 2 else set())
    if seed % 4:   # one run of distinct thresholds per feature, categorical tests in any order
        tests = sorted(set(tests), key=lambda t: (t.feature, t.threshold if t.category is None else rng.random()))
    if seed % 3 == 0:
        monkeypatch.setattr(columns, "_STEP_CELLS", 4 * n * 3)
    got, ref = columns._codes(tests, X), _codes_reference(tests, X)
    assert (got is None) == (ref is None)
    if ref is not None:
        assert np.array_equal(got, ref)
        rows = columns._columns(tests, X)
        same_codes = (got[:, None, :] == got[None, :, :]).all(axis=2)
        same_rows = (rows[:, None, :] == rows[None, :, :]).all(axis=2)
        assert np.array_equal(same_codes, same_rows)


def test_drop_redundant_group_wider_than_a_slice(monkeypatch):
    """Twelve copies and complements of one column (one hash group) compared three columns per
    slice: the group is confirmed a slice at a time, the earliest column kept."""
    import satdt.binarize.redundant as redundant

    rng = np.random.default_rng(3)
    n = 50
    base = rng.integers(0, 2, n).astype(float)
    X = np.column_stack([base if k % 3 else 1 - base for k in range(12)] + [rng.integers(0, 2, n).astype(float)])
    tests = [BinaryTest(j, 0.5) for j in range(X.shape[1])]
    monkeypatch.setattr(redundant, "_STEP_CELLS", 8 * n * 3)
    _drop_path(monkeypatch, "hashed")
    kept = redundant._drop_redundant(tests, X)
    assert kept == _kept_by_matrix(tests, X) and [t.feature for t in kept] == [0, 12]


def test_thresholds_between_values_near_the_float_limit_separate_them():
    """Two neighbours near +-1.8e308: their sum overflows; the threshold is the lower value (it separates them:
    near -1.8e308 it was -inf, which sends no row left, so dp answered 2 errors where 0 exist and its
    certificate was rejected; sat-depth called the rows identical) and no RuntimeWarning reaches the user."""
    import warnings

    from satdt.binarize.thresholds import _midpoints

    X = np.array([[1.5e308], [1.7e308], [-1.7e308], [-1.6e308], [5e-324]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _midpoints(X[:, 0]).tolist() == [-1.7e308, -8e307, 7.5e307, 1.5e308]
        problem = Binarizer("all").problem(prepare(X, np.array([0, 1, 1, 0, 1])))
    assert problem.n_binary == 4  # (the test between -1.7e308 and -1.6e308 was x <= -inf: no row left)
    from satdt.estimators import DPTreeClassifier

    y = np.array([0, 0, 1, 1, 1])
    Xn = np.array([[-1.7e308], [-1.7e308], [-1.6e308], [-1.6e308], [0.0]])
    assert DPTreeClassifier(max_depth=1).fit(Xn, y).result_.objective == 0
