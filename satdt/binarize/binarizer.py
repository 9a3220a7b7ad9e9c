"""The :class:`Binarizer`: the tests of a dataset by strategy (numeric thresholds,
:mod:`~satdt.binarize.thresholds`; one test per category, a two-valued categorical column one
test; the ``"tree"`` strategy's guessed thresholds), the redundant ones dropped
(:mod:`~satdt.binarize.redundant`), and the :class:`~satdt.binarize.problem.BinaryProblem` of the
data's distinct rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..data import Dataset
from ..deadline import Deadline, check_memory
from .columns import BinaryTest, _check, _codes, _columns, matrix_bytes
from .problem import BinaryProblem
from .redundant import _drop_redundant
from .thresholds import STRATEGIES, _midpoints, _numeric_thresholds, _repeated_quantile


@dataclass
class Binarizer:
    """Map original features to Boolean tests.

    Parameters
    ----------
    strategy : {"all", "quantile", "tree"}
    n_thresholds : int
        Thresholds per numeric feature for ``"quantile"``; number of boosted trees for ``"tree"``.
    max_depth : int
        Depth of the boosted trees of ``"tree"``.
    drop_duplicates : bool
        Drop constant columns and columns equal to (or the complement of) an earlier one.
    random_state : int
    """

    strategy: str = "all"
    n_thresholds: int = 10
    max_depth: int = 3
    drop_duplicates: bool = True
    random_state: int = 0
    tests_: list[BinaryTest] = field(default_factory=list, init=False, repr=False)

    def fit(self, data: Dataset, deadline: Deadline | None = None) -> "Binarizer":
        """Choose the tests of ``data``; ``deadline`` (optional) is checked between steps."""
        if self.strategy not in STRATEGIES:
            raise ValueError(f"unknown binarization '{self.strategy}'; choose one of {', '.join(STRATEGIES)}")
        if self.strategy in ("quantile", "tree") and int(self.n_thresholds) < 1:
            raise ValueError(f"n_thresholds must be at least 1, got {self.n_thresholds}")
        X, schema = data.X, data.schema
        guessed = self._guessed_thresholds(data) if self.strategy == "tree" else None
        # the numeric columns' thresholds in one pass over sorted blocks of columns, when nothing
        # per column is needed (no missing values; no weights for "quantile": "all" takes every
        # midpoint whatever the weights): the column loop (_tests_by_column) only reads them
        pre = (_numeric_thresholds(X, schema, self.n_thresholds if self.strategy == "quantile" else None, deadline)
               if (self.strategy == "all" or (self.strategy == "quantile" and data.weight is None)) and X.shape[1] > 1
               else None)
        if pre is not None and len(pre) == X.shape[1]:   # every column numeric: no per-column checks
            tests = _tests_of_thresholds(pre, deadline)
        else:
            tests = self._tests_by_column(data, pre, guessed, deadline)
        if self.drop_duplicates and tests:
            tests = _drop_redundant(tests, X, deadline)
        self.tests_ = tests
        return self

    def _tests_by_column(self, data: Dataset, pre: dict[int, list[float]] | None,
                         guessed: dict[int, np.ndarray] | None, deadline: Deadline | None) -> list[BinaryTest]:
        """The tests of ``data``'s columns one at a time: a categorical column's categories, a
        numeric column's thresholds (``pre``'s when given, else from its values)."""
        X, schema = data.X, data.schema
        tests: list[BinaryTest] = []
        for j in range(X.shape[1]):
            if schema.is_categorical(j):
                codes = np.unique(X[:, j])
                if len(codes) == 2:
                    codes = codes[:1]
                tests += [BinaryTest(j, float(c), schema.describe_category(j, c)) for c in codes]
                continue
            if pre is not None:
                tests += [BinaryTest(j, t) for t in pre[j]]
                _check(deadline, "binarization")
                continue
            mids = _midpoints(X[:, j])
            if self.strategy == "quantile" and len(mids) > self.n_thresholds:
                probs = np.arange(1, self.n_thresholds + 1) / (self.n_thresholds + 1)
                qs = (np.quantile(X[:, j], probs) if data.weight is None
                      else _repeated_quantile(X[:, j], data.weight, probs))
                idx = np.clip(np.searchsorted(mids, qs), 0, len(mids) - 1)
                mids = mids[np.unique(idx)]
            elif guessed is not None:
                v = np.unique(X[:, j])
                pos = np.searchsorted(v, guessed.get(j, np.empty(0)), side="right") - 1
                mids = mids[np.unique(pos[(pos >= 0) & (pos < len(mids))])]
            tests += [BinaryTest(j, float(t)) for t in mids]
            _check(deadline, "binarization")
        return tests

    def _guessed_thresholds(self, data: Dataset) -> dict[int, np.ndarray]:
        from sklearn.ensemble import GradientBoostingClassifier

        model = GradientBoostingClassifier(n_estimators=self.n_thresholds, max_depth=self.max_depth,
                                           random_state=self.random_state)
        model.fit(data.X, data.y, sample_weight=data.weight)
        found: dict[int, list[float]] = {}
        for est in model.estimators_.ravel():
            t = est.tree_
            for f, thr in zip(t.feature[t.feature >= 0], t.threshold[t.feature >= 0]):
                found.setdefault(int(f), []).append(float(thr))
        return {f: np.asarray(v) for f, v in found.items()}

    def transform(self, X: np.ndarray, deadline: Deadline | None = None) -> np.ndarray:
        """Boolean matrix (n, number of tests); True = the row goes right."""
        X = np.asarray(X, dtype=float)
        check_memory(X.shape[0] * len(self.tests_), f"the {X.shape[0]} x {len(self.tests_)} binary matrix",
                     "use binarization='quantile' or 'tree'")
        return _columns(self.tests_, X, deadline)

    def problem(self, data: Dataset, fit: bool = True, deadline: Deadline | None = None) -> "BinaryProblem":
        """Binarize ``data`` (fitting first unless ``fit=False``) and merge identical rows.

        ``deadline``: checked between steps (:class:`~satdt.deadline.DeadlineExpired` when the
        time is up); the memory of the binary matrix is checked before it is allocated
        (:class:`~satdt.deadline.MemoryLimitError`).
        """
        if fit:
            self.fit(data, deadline)
        codes = _codes(self.tests_, np.asarray(data.X, dtype=float))
        if codes is not None:  # the distinct rows from the features' codes; X made on first use
            return BinaryProblem.from_codes(codes, data, list(self.tests_), self.strategy, deadline)
        check_memory(matrix_bytes(data.n_rows, len(self.tests_)),
                     f"the '{self.strategy}' binarization ({data.n_rows} rows x {len(self.tests_)} tests)",
                     "use binarization='quantile' or 'tree'")
        return BinaryProblem.build(self.transform(data.X, deadline), data, list(self.tests_), self.strategy,
                                   deadline)


#: tests built between two deadline checks of :func:`_tests_of_thresholds`
_CHECK_TESTS = 1 << 16


def _tests_of_thresholds(pre: dict[int, list[float]], deadline: Deadline | None) -> list[BinaryTest]:
    """The tests of numeric columns from their thresholds ``pre`` (column -> thresholds), the
    deadline checked every :data:`_CHECK_TESTS` tests (a wide frame has millions)."""
    tests: list[BinaryTest] = []
    checked = 0
    for j in range(len(pre)):
        tests += [BinaryTest(j, t) for t in pre[j]]
        if len(tests) - checked >= _CHECK_TESTS:
            _check(deadline, "binarization")
            checked = len(tests)
    return tests
