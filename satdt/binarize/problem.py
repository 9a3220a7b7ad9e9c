"""The binarized problem every engine reads: :class:`BinaryProblem` (the distinct binarized rows
with class counts, the tests' chains of nested thresholds, the map between trees over the tests and
trees over the original features), the merging of identical rows (:func:`_first_of_equal_rows`
over the rows packed into words), and :class:`ConflictError`.
"""

from __future__ import annotations

import numpy as np

from ..data import Dataset, DataError
from ..deadline import Deadline, check_memory
from ..tree import Node, Tree
from .columns import _STEP_CELLS, BinaryTest, _check, _columns, feature_blocks, matrix_bytes


class ConflictError(DataError):
    """Rows identical after binarization carry different labels; no tree separates them."""

    def __init__(self, message: str, rows: list[list[int]]):
        super().__init__(message)
        self.rows = rows


def _words(bits: np.ndarray, deadline: Deadline | None = None) -> np.ndarray:
    """Rows of a bool matrix packed into 64-bit words: (rows, ceil(cols / 64)) uint64."""
    n, width = bits.shape
    n_words = (width + 63) // 64
    out = np.zeros((n, n_words * 8), dtype=np.uint8)
    step = max(1, _STEP_CELLS // max(1, width))
    for lo in range(0, n, step):
        _check(deadline, "binarization")
        packed = np.packbits(bits[lo:lo + step], axis=1)
        out[lo:lo + step, :packed.shape[1]] = packed
    return out.view(np.uint64)


def _code_words(codes: np.ndarray) -> np.ndarray:
    """Rows of non-negative int32 codes packed exactly into 64-bit words: codes 0 / 1 as bits,
    others in the narrowest unsigned type that holds the largest (8, 16 or 32 bits), each row's
    bytes padded with zeros to whole words. Two rows have equal words exactly when they have equal
    codes."""
    top = int(codes.max()) if codes.size else 0
    if top <= 1:
        packed = np.packbits(codes.astype(bool), axis=1)
    else:
        packed = codes.astype(np.uint8 if top < 1 << 8 else np.uint16 if top < 1 << 16 else np.uint32)
    width = packed.shape[1] * packed.itemsize
    out = np.zeros((codes.shape[0], -(-width // 8) * 8), dtype=np.uint8)
    out[:, :width] = packed.view(np.uint8)
    return out.view(np.uint64)


def _first_of_equal_rows(words: np.ndarray, deadline: Deadline | None = None) -> np.ndarray:
    """For each row, the index of the first row equal to it: rows of one word by one exact
    ``np.unique`` (stable: a group's first index is its first row); wider rows by a hash, then
    exact confirmation (the rows of hash groups that hold unequal rows are grouped exactly)."""
    if words.shape[1] == 1:
        _check(deadline, "binarization")
        _, first, group = np.unique(words[:, 0], return_index=True, return_inverse=True)
        return first[group.ravel()]
    digest = np.zeros(words.shape[0], dtype=np.uint64)
    every = max(1, _STEP_CELLS // 8 // max(1, words.shape[0]))
    with np.errstate(over="ignore"):
        for k in range(words.shape[1]):
            if k % every == 0:
                _check(deadline, "binarization")
            # rotate, multiply, add: the rotation breaks the linearity that let columns of one
            # feature (a few bits apart) collide under a plain multiply-add
            digest = ((digest << np.uint64(7)) | (digest >> np.uint64(57))) * np.uint64(0x9E3779B97F4A7C15) + words[:, k]
    _, first, group = np.unique(digest, return_index=True, return_inverse=True)
    rep = first[group.ravel()]
    _check(deadline, "binarization")
    step = max(1, _STEP_CELLS // 8 // max(1, words.shape[1]))
    bad = []
    for lo in range(0, len(rep), step):      # confirm the hash groups, in slices
        _check(deadline, "binarization")
        bad.append(lo + np.flatnonzero(~(words[lo:lo + step] == words[rep[lo:lo + step]]).all(axis=1)))
    bad = np.concatenate(bad)
    if len(bad):  # hash collisions: group the rows of those hash groups exactly
        group = group.ravel()
        rows = np.flatnonzero(np.isin(group, group[bad]))
        _check(deadline, "binarization")
        _, first_sub, group_sub = np.unique(words[rows], axis=0, return_index=True, return_inverse=True)
        rep = rep.copy()
        rep[rows] = rows[first_sub[group_sub.ravel()]]
    return rep


def _threshold_chains(tests: list[BinaryTest], n: int) -> tuple[np.ndarray, ...]:
    """:meth:`BinaryProblem.threshold_chains` of ``n`` columns with these tests (every column
    a chain of one when the tests do not describe the columns)."""
    if len(tests) != n or n == 0:
        out = [np.array([j], dtype=np.int64) for j in range(n)]
    else:
        feature = np.fromiter((t.feature for t in tests), dtype=np.int64, count=n)
        threshold = np.fromiter((t.threshold for t in tests), dtype=float, count=n)
        categorical = np.fromiter((t.category is not None for t in tests), dtype=bool, count=n)
        column = np.arange(n, dtype=np.int64)
        group = np.where(categorical, -1 - column, feature)       # a categorical test: a group of its own
        order = np.lexsort((column, threshold, group))            # by group, then threshold, then column
        cuts = np.flatnonzero(group[order][1:] != group[order][:-1]) + 1
        starts = np.concatenate(([0], cuts))
        first = np.minimum.reduceat(order, starts)
        ends = np.append(cuts, n)
        by_first = np.argsort(first, kind="stable")
        out = [order[a:b] for a, b in zip(starts[by_first].tolist(), ends[by_first].tolist())]
    for chain in out:
        chain.flags.writeable = False       # shared by every engine of the problem
    return tuple(out)


class BinaryProblem:
    """Distinct binarized rows with class counts: what every encoding consumes.

    Attributes
    ----------
    X : ndarray of bool, shape (m, B)
        Distinct binarized rows (True = goes right). Built on first use when the problem was
        made from the features' codes (:meth:`from_codes`): the DP reads only the codes
        (:attr:`codes`), so the rows x thresholds matrix of a large continuous set is never
        allocated for it.
    counts : ndarray of int64, shape (m, C)
        Number of original rows of each class equal to each distinct row (weighted by
        ``data.weight`` when the data carry integer weights).
    tests : list of BinaryTest
        Column ``j`` of ``X`` is ``tests[j]`` applied to the original features.
    row_of : ndarray of int, shape (n,)
        Distinct row of each original row.
    data : Dataset
        The original data.
    strategy : str
        The binarization that produced it.
    first : ndarray of int, shape (m,)
        The first original row of each distinct row.
    codes : ndarray of int32, shape (m, features) or None
        Each distinct row's code per tested feature (see :func:`~satdt.binarize.columns._codes`), when the tests allow.
    """

    def __init__(self, X: np.ndarray | None = None, counts: np.ndarray | None = None,
                 tests: list[BinaryTest] | None = None, row_of: np.ndarray | None = None,
                 data: Dataset | None = None, strategy: str = "all", first: np.ndarray | None = None,
                 codes: np.ndarray | None = None):
        if X is None and first is None:
            raise ValueError("a BinaryProblem needs its binary rows X or the first row of each distinct row")
        self._X = X
        self.counts = counts
        self.tests = list(tests or [])
        self.row_of = row_of
        self.data = data
        self.strategy = strategy
        if first is None:
            first = np.full(counts.shape[0], -1, dtype=np.int64)
            if row_of.size:
                first[row_of[::-1]] = np.arange(row_of.size)[::-1]
        self.first = first
        self.codes = codes
        self._chains: tuple[np.ndarray, ...] | None = None

    def __repr__(self) -> str:
        return (f"BinaryProblem({self.n_distinct} distinct rows of {self.n_rows}, {self.n_binary} tests, "
                f"{self.n_classes} classes, strategy={self.strategy!r})")

    @classmethod
    def build(cls, Xb: np.ndarray, data: Dataset, tests: list[BinaryTest], strategy: str,
              deadline: Deadline | None = None) -> "BinaryProblem":
        """From the binary rows of every original row (the distinct ones kept)."""
        if Xb.shape[1] == 0:
            rep = np.zeros(Xb.shape[0], dtype=np.int64)
        else:
            rep = _first_of_equal_rows(_words(Xb, deadline), deadline)
        first, row_of, counts = cls._merge(rep, data)
        _check(deadline, "binarization")
        distinct = Xb[:1] if Xb.shape[1] == 0 else (Xb if len(first) == Xb.shape[0] else Xb[first])
        return cls(X=distinct, counts=counts, tests=tests, row_of=row_of, data=data, strategy=strategy,
                   first=first)

    @classmethod
    def from_codes(cls, codes: np.ndarray, data: Dataset, tests: list[BinaryTest], strategy: str,
                   deadline: Deadline | None = None) -> "BinaryProblem":
        """From the features' codes of every original row (:func:`~satdt.binarize.columns._codes`): the same distinct
        rows, in the same order, as :meth:`build` on the binary rows, without the binary matrix
        (:attr:`X` is made on first use)."""
        if codes.shape[1] == 0:
            rep = np.zeros(codes.shape[0], dtype=np.int64)
        else:
            rep = _first_of_equal_rows(_code_words(codes), deadline)
        first, row_of, counts = cls._merge(rep, data)
        return cls(counts=counts, tests=tests, row_of=row_of, data=data, strategy=strategy, first=first,
                   codes=codes[first])

    @staticmethod
    def _merge(rep: np.ndarray, data: Dataset) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Distinct rows in order of first appearance from each row's first equal row ``rep``:
        (first row of each, distinct row of each row, class counts)."""
        first = np.flatnonzero(rep == np.arange(len(rep)))
        position = np.empty(len(rep), dtype=np.int64)
        position[first] = np.arange(len(first))
        row_of = position[rep]
        counts = np.zeros((len(first), len(data.classes)), dtype=np.int64)
        np.add.at(counts, (row_of, data.y), 1 if data.weight is None else data.weight)
        return first, row_of, counts

    @property
    def X(self) -> np.ndarray:
        return self.matrix()

    def matrix(self, deadline: Deadline | None = None) -> np.ndarray:
        """:attr:`X`, built on first use: its memory checked first, ``deadline`` between slices
        (:class:`~satdt.deadline.DeadlineExpired`; on magic's 15k x 120k it takes 2-5 s)."""
        if self._X is None:
            check_memory(matrix_bytes(self.n_distinct, self.n_binary) // 2,
                         f"the {self.n_distinct} x {self.n_binary} binary matrix of the '{self.strategy}' "
                         "binarization", "use binarization='quantile' or 'tree', or the dp method")
            self._X = _columns(self.tests, self._values(), deadline)
        return self._X

    @property
    def has_matrix(self) -> bool:
        """Whether :attr:`X` is in memory (reading it may otherwise build it)."""
        return self._X is not None

    def column(self, j: int) -> np.ndarray:
        """Column ``j`` of :attr:`X` on the distinct rows, without building :attr:`X`."""
        if self._X is not None:
            return self._X[:, j]
        return self.tests[j].column(np.asarray(self.data.X[self.first], dtype=float))

    # ------------------------------------------------------------ shapes
    @property
    def n_distinct(self) -> int:
        return self.counts.shape[0]

    @property
    def n_binary(self) -> int:
        return len(self.tests)

    @property
    def n_rows(self) -> int:
        """The weighted number of original rows (the row count without weights): the ``n`` of
        ``errors / n``."""
        return self.data.total_weight

    @property
    def n_classes(self) -> int:
        return self.counts.shape[1]

    @property
    def classes(self) -> np.ndarray:
        return self.data.classes

    @property
    def n_present_classes(self) -> int:
        """Classes with at least one training row (the leaves a consistent tree needs at least)."""
        return int((self.counts.sum(axis=0) > 0).sum())

    @property
    def column_features(self) -> np.ndarray:
        """Original feature of each binary column, int64 (n_binary,)."""
        return np.array([t.feature for t in self.tests], dtype=np.int64)

    @property
    def weights(self) -> np.ndarray:
        """Original rows per distinct row."""
        return self.counts.sum(axis=1)

    @property
    def majority(self) -> np.ndarray:
        """Most frequent class of each distinct row (smallest index on ties)."""
        return np.argmax(self.counts, axis=1)

    @property
    def min_errors(self) -> int:
        """Errors no tree can avoid: rows outvoted inside their distinct row."""
        return int((self.weights - self.counts.max(axis=1)).sum())

    # ---------------------------------------------------------- chains
    def threshold_chains(self) -> tuple[np.ndarray, ...]:
        """The binary columns partitioned into chains of nested tests: the one grouping that
        every engine reads (the DP's chain ranks, CP-SAT's chain prefixes, BinOCT's feature
        groups, the box DP's size and the engine choice).

        The numeric tests of one feature, sorted by threshold (ties by column), form one chain:
        a test is True when ``x > t``, so each column's right-going rows contain the next one's
        (nested by construction, read from the thresholds alone: no binary matrix). Every other
        column (a categorical test; every column of a problem without tests) is a chain of one.
        The chains come in the order of their first column, each an int64 array of columns.
        With ``missing="learn"`` a feature with missing values is two features of the engines'
        data (:func:`satdt.missing.augment`), hence two chains. Computed once.
        """
        if self._chains is None:
            n = self._X.shape[1] if self._X is not None else len(self.tests)
            self._chains = _threshold_chains(self.tests, n)
        return self._chains

    def conflicts(self) -> list[list[int]]:
        """Groups of original row indices identical after binarization but labelled differently."""
        bad = np.flatnonzero((self.counts > 0).sum(axis=1) > 1)
        return [np.flatnonzero(self.row_of == i).tolist() for i in bad]

    def check_consistent(self) -> None:
        """Raise :class:`ConflictError` if some rows cannot be separated by any tree."""
        groups = self.conflicts()
        if groups:
            shown = "; ".join(str(g[:6])[1:-1] + (" ..." if len(g) > 6 else "") for g in groups[:5])
            more = f" and {len(groups) - 5} more group(s)" if len(groups) > 5 else ""
            raise ConflictError(
                f"{sum(len(g) for g in groups)} rows in {len(groups)} group(s) are identical after "
                f"'{self.strategy}' binarization but have different labels (rows {shown}{more}); "
                "no tree classifies them all correctly: use a max-accuracy method instead",
                groups)

    # ---------------------------------------------------------- trees
    def errors(self, tree: Tree) -> int:
        """Weighted training errors of a tree over the binary columns (routed through the tested
        columns only when :attr:`X` is not built: no rows x thresholds matrix for one tree)."""
        right = sum(int(self.counts[rows, leaf.label].sum()) for leaf, rows in self.route(tree))
        return int(self.weights.sum()) - right

    def _values(self) -> np.ndarray:
        """The original features of each distinct row's first row: what :attr:`X` tests."""
        return np.asarray(self.data.X[self.first], dtype=float)

    def column_ones(self) -> np.ndarray:
        """Distinct rows on which each column is True, without :attr:`X` (from each feature's
        values sorted once)."""
        if self._X is not None:
            return np.count_nonzero(self._X, axis=0)
        values = self._values()
        out = np.empty(self.n_binary, dtype=np.int64)
        for feature, categorical, start, stop in feature_blocks(self.tests):
            v = np.sort(values[:, feature])
            t = np.array([test.threshold for test in self.tests[start:stop]])
            le = np.searchsorted(v, t, side="right")
            out[start:stop] = len(v) - (le - np.searchsorted(v, t, side="left") if categorical else le)
        return out

    def route(self, tree: Tree) -> list[tuple[Node, np.ndarray]]:
        """:meth:`Tree.apply` of a tree over the binary columns to the distinct rows, each split
        reading its one column from the original features when :attr:`X` is not built."""
        if self._X is not None:
            return tree.apply(self._X)
        values = self._values()
        out, stack = [], [(tree.root, np.arange(self.n_distinct))]
        while stack:
            node, rows = stack.pop()
            if node.is_leaf:
                out.append((node, rows))
                continue
            right = self.tests[node.feature].column(values[rows])
            stack.append((node.right, rows[right]))
            stack.append((node.left, rows[~right]))
        return out

    def to_original(self, tree: Tree, relabel: bool = False) -> Tree:
        """Map a tree over the binary columns (threshold 0.5) to the original features.

        The returned tree carries the class counts of the original rows at every node; with
        ``relabel`` every leaf predicts its majority class.
        """

        def rec(node: Node) -> Node:
            if node.is_leaf:
                return Node.leaf(node.label)
            test = self.tests[node.feature]
            return Node.split(test.feature, test.threshold, rec(node.left), rec(node.right),
                              category=test.category)

        out = Tree(root=rec(tree.root), classes=self.classes, feature_names=list(self.data.feature_names))
        return out.fit_counts(self.data.X, self.data.y, sample_weight=self.data.weight, relabel=relabel)

    def from_original(self, tree: Tree) -> tuple[Tree, int]:
        """Map a tree over the original features to one over the binary columns, by routing.

        Each split becomes the binary column that sends the training rows reaching it the same
        way, possibly with its two subtrees swapped (with the ``all`` binarization one always
        exists for a threshold or a one-value test; otherwise the column that agrees on the most
        rows); a split that sends every row one way is replaced by the child that gets
        them. Leaves keep their labels. Used to hand any tree (CART, DPDT, a previous result) to
        the exact engines as a warm start. Reads the original features, never :attr:`X` (on
        magic's 15k x 120k tests the matrix alone took 5 s).

        Returns
        -------
        tree : Tree
            Over the binary columns (``feature`` = column index, threshold 0.5).
        rerouted : int
            Disagreements of routing, summed over the splits (0 = every training row reaches the
            leaf it reaches in ``tree``).
        """
        data = self.data
        rerouted = 0
        n = len(self.tests)
        feature = np.fromiter((t.feature for t in self.tests), dtype=np.int64, count=n)
        threshold = np.fromiter((t.threshold for t in self.tests), dtype=float, count=n)
        categorical = np.fromiter((t.category is not None for t in self.tests), dtype=bool, count=n)
        columns = (feature, threshold, categorical)
        values = self._values()

        def rec(node: Node, rows: np.ndarray) -> Node:
            nonlocal rerouted
            if node.is_leaf:
                return Node.leaf(node.label)
            left = node.goes_left(data.X, rows)
            if left.all() or not left.any() or self.n_binary == 0:
                child = node.left if left.all() or not rows.size else node.right
                return rec(child, rows)
            # the columns of the split's own feature first (cheap, exact under `all`), then all
            column, mismatch, swapped = self._best_column(rows, left, np.flatnonzero(feature == node.feature),
                                                          values, columns)
            swap = bool(swapped < mismatch)
            rerouted += int(min(mismatch, swapped))
            goes_right = self.tests[column].column(values[self.row_of[rows]])
            # rows follow the binary column from here (that is where the mapped tree sends them)
            first, second = (node.right, node.left) if swap else (node.left, node.right)
            return Node.split(column, 0.5, rec(first, rows[~goes_right]), rec(second, rows[goes_right]))

        out = Tree(root=rec(tree.root, np.arange(data.n_rows)), classes=self.classes)
        return out, rerouted

    def _best_column(self, rows: np.ndarray, left: np.ndarray, own: np.ndarray, values: np.ndarray,
                     columns: tuple[np.ndarray, np.ndarray, np.ndarray]) -> tuple[int, int, int]:
        """The column that routes ``rows`` most like ``left`` (True = left), either way round:
        ``(column, rows it sends the other way, rows it sends the other way when swapped)``;
        the first such column of ``own`` (the split's feature) when one there is as good as any,
        else the first of all.

        Counts by feature from the distinct rows' ``values`` sorted once, with cumulative left /
        right weights: a numeric column (right when ``x > t``) misroutes the left rows above
        ``t`` and the right rows at or below it; a categorical one (right when ``x != c``) the
        left rows not equal to ``c`` and the right rows equal to it. No binary matrix.
        """
        feature, threshold, categorical = columns
        distinct = self.row_of[rows]
        w_left = np.bincount(distinct[left], minlength=self.n_distinct)
        w_right = np.bincount(distinct[~left], minlength=self.n_distinct)
        present = np.flatnonzero(w_left + w_right)
        w_left, w_right = w_left[present], w_right[present]
        n = len(rows)

        def mismatches(cols: np.ndarray) -> np.ndarray:
            out = np.empty(len(cols), dtype=np.int64)
            of = feature[cols]
            for f in np.unique(of):
                at = np.flatnonzero(of == f)
                v = values[present, f]
                order = np.argsort(v, kind="stable")
                v = v[order]
                cl = np.concatenate([[0], np.cumsum(w_left[order])])
                cr = np.concatenate([[0], np.cumsum(w_right[order])])
                t = threshold[cols[at]]
                le = np.searchsorted(v, t, side="right")          # rows with x <= t
                lt = np.searchsorted(v, t, side="left")           # rows with x < t
                numeric = (cl[-1] - cl[le]) + cr[le]
                equal = (cl[-1] - (cl[le] - cl[lt])) + (cr[le] - cr[lt])
                out[at] = np.where(categorical[cols[at]], equal, numeric)
            return out

        def first_best(cols: np.ndarray) -> tuple[int, int, int]:
            mismatch = mismatches(cols)
            k = int(np.argmin(np.minimum(mismatch, n - mismatch)))
            return int(cols[k]), int(mismatch[k]), int(n - mismatch[k])

        best = first_best(own) if len(own) else None
        if best is not None and min(best[1], best[2]) == 0:
            return best
        every = first_best(np.arange(self.n_binary))
        return best if best is not None and min(best[1], best[2]) <= min(every[1], every[2]) else every

    def leaf_labels(self, tree: Tree) -> Tree:
        """Give each leaf of a binary-column tree the class counts of the distinct rows it gets
        and its majority class (leaves that get no row keep their label). In place."""
        for leaf, rows in self.route(tree):
            leaf.counts = self.counts[rows].sum(axis=0)
            if leaf.counts.sum() > 0:
                leaf.label = int(np.argmax(leaf.counts))
        return tree
