"""What every satdt estimator shares: the parameter checks and :class:`TreeClassifier`, the
scikit-learn plumbing of ``fit`` (validate -> binarize -> engine -> ``tree_``, a time limit over
the whole call), ``predict``, ``predict_proba`` and ``to_sklearn``."""

from __future__ import annotations

import time
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ..binarize import STRATEGIES, Binarizer, BinaryProblem
from ..data import Dataset, encode_features, prepare
from ..deadline import Deadline, DeadlineExpired
from ..result import (INFEASIBLE, OPTIMAL, InfeasibleError, NoTreeFoundError, SolveResult, explain_infeasible,
                      timeout_result)
from ..tree import Tree

__all__ = ["TreeClassifier", "check_int", "check_real", "check_warm_start", "check_random_state"]


def check_int(name: str, value: Any, low: int, allow_none: bool = False) -> None:
    """ValueError naming ``name`` unless ``value`` is an integer >= ``low`` (or None if allowed)."""
    if value is None and allow_none:
        return
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Integral) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}{' or None' if allow_none else ''}, got {value!r}")


def check_real(name: str, value: Any, low: float, high: float | None = None,
               allow_none: bool = False, strict: bool = False) -> None:
    """ValueError naming ``name`` unless ``value`` is a finite number in range (or None if allowed)."""
    if value is None and allow_none:
        return
    ok = isinstance(value, Real) and not isinstance(value, bool) and np.isfinite(value)
    ok = ok and (value > low if strict else value >= low) and (high is None or value <= high)
    if not ok:
        rng = f"{'>' if strict else '>='} {low}" + (f" and <= {high}" if high is not None else "")
        raise ValueError(f"{name} must be a number {rng}{' or None' if allow_none else ''}, got {value!r}")


def check_warm_start(value: Any) -> None:
    """ValueError unless ``value`` names a starting tree: a bool, ``"cart"`` or ``"dpdt"``."""
    if not (isinstance(value, (bool, np.bool_)) or value in ("cart", "dpdt")):
        raise ValueError(f"warm_start must be True, False, 'cart' or 'dpdt', got {value!r}")


def check_random_state(value: Any) -> None:
    """ValueError unless ``value`` is an integer seed or None."""
    if value is not None and (isinstance(value, (bool, np.bool_)) or not isinstance(value, Integral)):
        raise ValueError(f"random_state must be an integer or None, got {value!r}")


class TreeClassifier(ClassifierMixin, BaseEstimator):
    """Shared fit/predict plumbing; subclasses implement ``_solve``."""

    _uses_binarizer = True
    _deterministic = True
    _method = ""                    # SolveResult.method of a result made here (a timeout)
    _objective_name = "errors"      # its objective, for a majority leaf when time runs out

    def _validate_common(self) -> None:
        if self._uses_binarizer:
            if self.binarization not in STRATEGIES:
                raise ValueError(f"binarization must be one of {', '.join(STRATEGIES)}, got {self.binarization!r}")
            check_int("n_thresholds", self.n_thresholds, 1)
        check_real("time_limit", self.time_limit, 0.0, allow_none=True, strict=True)
        progress = getattr(self, "progress", None)
        if progress is not None and not callable(progress):
            raise ValueError(f"progress must be a callable receiving ProgressEvent objects or None, got {progress!r}")

    def _validate_params_(self) -> None:  # overridden
        pass

    def fit(self, X: Any, y: Any) -> "TreeClassifier":
        """Find the tree for ``(X, y)``; ``X`` may be a DataFrame with text (categorical) columns.

        ``time_limit`` covers the whole call: validation and binarization use part of it, the
        engine gets the rest, and ``result_.runtime`` is the wall time of the whole call
        (``result_.stats["engine_s"]`` the engine's part).
        """
        start = time.perf_counter()
        self._validate_common()
        self._validate_params_()
        self._deadline = Deadline(self.time_limit)
        data = prepare(X, y, require_two_classes=False)
        proof = getattr(self, "proof", None)
        if proof is not None:  # refused before the solve: a used directory, a space it cannot cover
            from ..proof import check_proof_data

            check_proof_data(proof, getattr(self, "binarization", "all"), data)
        self.schema_ = data.schema
        self.n_features_in_ = data.X.shape[1]
        columns = getattr(X, "columns", None)
        if columns is not None and all(isinstance(c, str) for c in columns):
            self.feature_names_in_ = np.asarray(columns, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self.classes_ = data.classes
        if len(data.classes) == 1:
            self.result_ = self._single_class_result(data)
        else:
            try:
                self.result_ = self._solve(data)
            except DeadlineExpired:  # binarization or a model build ran out of time: a result
                self.result_ = self._timeout_result(data, time.perf_counter() - start)
        self.result_.stats.setdefault("engine_s", round(self.result_.runtime, 4))
        self.result_.runtime = max(self.result_.runtime, time.perf_counter() - start)
        if self.result_.tree is None:
            if hasattr(self, "tree_"):
                del self.tree_          # no stale tree from an earlier fit
            if self.result_.status == INFEASIBLE:
                explain_infeasible(self.result_, max_depth=getattr(self, "max_depth", None),
                                   min_leaf=getattr(self, "min_leaf", None))
                raise InfeasibleError(f"{type(self).__name__}: INFEASIBLE (proven): "
                                      f"{self.result_.stats['proof']}", self.result_)
            raise NoTreeFoundError(f"{type(self).__name__}: no tree found ({self.result_.status}); "
                                   "give a longer time_limit")
        self.tree_ = self.result_.tree
        if proof is not None:
            from ..proof import certify_result

            if str(self.result_.status) == "OPTIMAL":
                certify_result(self.result_, data, proof, max_depth=getattr(self, "max_depth", None))
            else:
                import warnings

                warnings.warn(f"{type(self).__name__}: no certificate written to {proof}: the result is "
                              f"{self.result_.status}, not OPTIMAL", RuntimeWarning, stacklevel=2)
        return self

    def _time_left(self) -> float | None:
        """``time_limit`` minus the time this ``fit`` has used so far (never below 1 ms)."""
        return self._deadline.budget()

    def _problem(self, data: Dataset) -> BinaryProblem:
        self.binarizer_ = Binarizer(self.binarization, n_thresholds=self.n_thresholds)
        return self.binarizer_.problem(data, deadline=self._deadline)

    def _progress(self) -> dict:
        """``progress=`` for the solve function, only when a callback is set (so engines that
        do not report progress yet still run without one)."""
        progress = getattr(self, "progress", None)
        return {} if progress is None else {"progress": progress}

    def _timeout_result(self, data: Dataset, runtime: float) -> SolveResult:
        """The majority leaf (FEASIBLE) when time ran out before the engine could start."""
        return timeout_result(data, self._method or type(self).__name__, self._objective_name, runtime,
                              lam=getattr(self, "lam", None))

    def _single_class_result(self, data: Dataset) -> SolveResult:
        from ..tree import Node

        tree = Tree(Node.leaf(0), classes=data.classes, feature_names=data.feature_names)
        tree.fit_counts(data.X, data.y)
        return SolveResult(tree, OPTIMAL, 0.0, 0.0, 0.0, method="single-class",
                           objective_name="errors", stats={"note": "one class: a single leaf"})

    def _solve(self, data: Dataset) -> SolveResult:  # pragma: no cover - abstract
        raise NotImplementedError

    def _encode(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "tree_")
        columns = getattr(X, "columns", None)
        names = getattr(self, "feature_names_in_", None)
        if names is not None and columns is not None and list(map(str, columns)) != list(names):
            raise ValueError("the feature names of X differ from those seen in fit")
        n_features = getattr(X, "shape", (0, self.n_features_in_))
        if len(n_features) == 2 and n_features[1] != self.n_features_in_:
            raise ValueError(f"X has {n_features[1]} features, but {type(self).__name__} is expecting "
                             f"{self.n_features_in_} features as input")
        Xe, _ = encode_features(X, schema=self.schema_)
        return Xe

    def predict(self, X: Any) -> np.ndarray:
        """Predicted class labels."""
        Xe = self._encode(X)
        return self.tree_.predict(Xe)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class frequencies of the training rows in each row's leaf."""
        Xe = self._encode(X)
        return self.tree_.predict_proba(Xe)

    def to_sklearn(self, X: Any = None, y: Any = None) -> Any:
        """The fitted tree as a scikit-learn ``DecisionTreeClassifier`` (see
        :meth:`satdt.tree.Tree.to_sklearn`): same predictions, ``feature_names_in_`` kept.

        Pass the training ``X`` (and ``y``) to check every threshold on it after float32
        rounding (and recompute the node counts). ValueError if the data had categorical (text)
        columns: scikit-learn reads numbers only; one-hot encode them before fitting.
        """
        check_is_fitted(self, "tree_")
        names = getattr(self, "feature_names_in_", None)
        cats = sorted(self.schema_.categories)
        if cats:
            shown = ", ".join(repr(self.schema_.names[j]) for j in cats[:5])
            raise ValueError(f"categorical column(s) {shown}: a scikit-learn tree reads numbers only; "
                             "one-hot encode them (e.g. pandas.get_dummies) before fitting satdt")
        Xe = None if X is None else self._encode(X)
        return self.tree_.to_sklearn(Xe, y, n_features=self.n_features_in_,
                                     feature_names=None if names is None else list(names))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = False
        tags.non_deterministic = not self._deterministic
        return tags
