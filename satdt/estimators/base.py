"""What every satdt estimator shares: the parameter checks and :class:`TreeClassifier`, the
scikit-learn plumbing of ``fit`` (validate -> the one fit path :func:`satdt.fit.fit_problem`,
i.e. binarize -> engine, -> ``tree_``, one clock over the whole call), ``predict``,
``predict_proba`` and ``to_sklearn``."""

from __future__ import annotations

from contextlib import nullcontext
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ..binarize import STRATEGIES, Binarizer, BinaryProblem
from ..data import Dataset, encode_features, prepare
from ..deadline import Deadline, DeadlineExpired
from ..fit import fit_problem
from ..result import (INFEASIBLE, OPTIMAL, InfeasibleError, NoTreeFoundError, SolveResult, engine_result,
                      explain_infeasible, keeping_work)
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
        if not isinstance(self.time_limit, Deadline):  # a Deadline: the caller's clock (satdt solve)
            check_real("time_limit", self.time_limit, 0.0, allow_none=True, strict=True)
        progress = getattr(self, "progress", None)
        if progress is not None and not callable(progress):
            raise ValueError(f"progress must be a callable receiving ProgressEvent objects or None, got {progress!r}")

    def _validate_params_(self) -> None:  # overridden
        pass

    #: how ``sample_weight`` / ``class_weight`` reach the engine: "counts" (integer weights in the
    #: class counts, :mod:`satdt.weights`), "consistent" (sample weights as counts, which cannot
    #: change a consistent optimum, only its ties; class weights ignored), "repeat" (whole weights
    #: only, as repeated rows: the heuristics)
    _weight_mode = "counts"

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "TreeClassifier":
        """Find the tree for ``(X, y)``; ``X`` may be a DataFrame with text (categorical) columns.

        ``time_limit`` covers the whole call: one clock (:class:`satdt.deadline.Deadline`) starts
        here, or is the caller's when ``time_limit`` is a ``Deadline``, and is handed down, so
        validation and binarization use part of it and the engine gets the rest;
        ``result_.runtime`` is that clock's elapsed time at the end (``result_.stats["engine_s"]``
        the engine's part).

        ``sample_weight`` (non-negative numbers, one per row; scikit-learn semantics: a weight of
        2 is the row twice, zero-weight rows are dropped): see the class docstring for what each
        estimator does with it (:mod:`satdt.weights` for the integer scheme).
        """
        self._validate_common()
        self._validate_params_()
        self._validate_weight_params()
        self._deadline = Deadline.of(self.time_limit)
        data = prepare(X, y, require_two_classes=False, missing=self._missing_mode == "learn")
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
        from ..weights import check_sample_weight

        sw = check_sample_weight(sample_weight, data.n_rows)
        original = data
        data, plan = self._weighted(data, sw)
        data, self.missing_map_ = self._augment(data)
        if proof is not None and (plan is not None or self.missing_map_ is not None):
            # (missing values: refused before, as data the checker cannot read)
            raise ValueError("proof= covers the unweighted objective on complete data: no certificate with "
                             + " / ".join(self._weight_options(sw)))
        present = np.unique(data.y)
        if len(present) == 1:
            self.result_ = self._single_class_result(data, int(present[0]))
        else:
            try:
                with keeping_work() if proof is not None else nullcontext():  # (the DP's memo, for the certificate)
                    self.result_ = self._solve(data)
            except DeadlineExpired:  # a step outside the fit path (the DP's resource plan) ran out
                self.result_ = self._timeout_result(data, 0.0)
        self.result_.stats.setdefault("engine_s", round(self.result_.runtime, 4))
        self.result_.runtime = self._deadline.elapsed()  # the one clock of the call
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
        if self.missing_map_ is not None:
            from ..missing import to_original

            engine_data = data
            data = self._unaugmented(data)
            self.result_.tree = to_original(self.result_.tree, self.missing_map_, data, engine_data)
            self.result_.stats["missing_features"] = self.missing_map_.n_missing_features
        if plan is not None:
            self._report_weights(plan, original, sw)
        self.tree_ = self.result_.tree
        if proof is not None:
            self._certify(proof, data, None if sw is None else np.flatnonzero(sw > 0))
        self.result_.drop_work()  # (the DP's search, kept for a certificate: a fitted model holds none)
        return self

    def _certify(self, proof: str, data: Dataset, rows: np.ndarray | None = None) -> None:
        """``proof=``: the certificate of an OPTIMAL result, within ``time_limit`` again (its own budget, as
        ``satdt solve --proof`` gives it); a RuntimeWarning, and nothing written, otherwise. ``rows``: the
        user's index of each row of ``data`` (rows of weight zero dropped), for ``stats["witness_rows"]``."""
        import warnings

        from ..proof import certify_result, out_of_time, own_budget

        why = f"the result is {self.result_.status}, not OPTIMAL"
        if str(self.result_.status) == "OPTIMAL":
            budget = own_budget(getattr(self, "time_limit", None))
            try:
                certify_result(self.result_, data, proof, max_depth=getattr(self, "max_depth", None), time_limit=budget)
                if rows is not None and "witness_rows" in self.result_.stats:  # (the certificate's: its data's rows)
                    self.result_.stats["witness_rows"] = rows[self.result_.stats["witness_rows"]].tolist()
                return
            except TimeoutError:  # (the fit's answer stands)
                why = out_of_time(budget)
            except ValueError as exc:  # (a result the certificate cannot carry: lam past the checker's integers)
                why = str(exc)
        warnings.warn(f"{type(self).__name__}: no certificate written to {proof}: {why}", RuntimeWarning, stacklevel=3)

    # ------------------------------------------------------------ weights and missing values
    def _validate_weight_params(self) -> None:
        from ..missing import MISSING_MODES
        from ..weights import OBJECTIVES

        missing = getattr(self, "missing", "error")
        if missing not in MISSING_MODES:
            raise ValueError(f"missing must be one of {', '.join(map(repr, MISSING_MODES))}, got {missing!r}")
        if getattr(self, "accuracy_objective", "accuracy") not in OBJECTIVES:
            raise ValueError(f"objective must be one of {', '.join(map(repr, OBJECTIVES))}, "
                             f"got {self.accuracy_objective!r}")
        cw = getattr(self, "class_weight", None)
        if not (cw is None or cw == "balanced" or isinstance(cw, dict)):
            raise ValueError(f"class_weight must be None, 'balanced' or a dict {{label: weight}}, got {cw!r}")

    @property
    def accuracy_objective(self) -> str:
        """The accuracy objective: ``"accuracy"`` or ``"balanced_accuracy"``."""
        return getattr(self, "objective", "accuracy")

    def _weight_options(self, sw: np.ndarray | None) -> list[str]:
        """The weight options in use, named as the user gives them (none: every one at its default)."""
        costs = getattr(self, "costs", None) if self._accepts_costs else None
        return [name for name, on in (("sample_weight", sw is not None),
                                      ("class_weight", getattr(self, "class_weight", None) is not None),
                                      (f"objective={self.accuracy_objective!r}", self.accuracy_objective != "accuracy"),
                                      ("costs", costs is not None)) if on]

    def _weighted(self, data: Dataset, sw: np.ndarray | None) -> tuple[Dataset, Any]:
        """The data with its integer weights (or rows dropped / repeated) and the weight plan
        (None when every option is at its default)."""
        from ..weights import plan_weights

        if not self._weight_options(sw):
            return data, None
        class_weight = getattr(self, "class_weight", None)
        objective = self.accuracy_objective
        costs = getattr(self, "costs", None) if self._accepts_costs else None
        if self._weight_mode == "consistent":   # weights only break ties among consistent trees
            if class_weight is not None:         # ignored, but checked (classes of y, weights >= 0)
                from ..weights import class_factors

                class_factors(data.y, data.classes, class_weight, "accuracy", None)
            if sw is None:
                return data, None
            return self._consistent_rows(data, sw, plan_weights(data, sw, limit=self._weight_limit)), None
        plan = plan_weights(data, sw, class_weight, objective, costs, limit=self._weight_limit)
        if plan.pseudo and not self._general_costs:
            from ..weights import GENERAL_COSTS_ONLY

            raise ValueError(f"{type(self).__name__}: {GENERAL_COSTS_ONLY}")
        if self._weight_mode == "repeat":
            return self._repeated(data, plan, sw), None
        return plan.data, plan

    @staticmethod
    def _consistent_rows(data: Dataset, sw: np.ndarray, plan: Any) -> Dataset:
        """Every row of positive weight, with its integer weight from ``plan`` (1 where that rounded to 0:
        the plan drops such a row, which a consistent tree must still classify)."""
        kept = np.flatnonzero(sw > 0)
        weight = np.ones(len(kept), dtype=np.int64)
        weight[np.searchsorted(kept, plan.rows)] = plan.data.weight
        return Dataset(X=data.X[kept], y=data.y[kept], classes=data.classes, schema=data.schema, name=data.name,
                       weight=weight)

    _accepts_costs = False
    #: largest total integer weight handed to the engine (:func:`satdt.weights.plan_weights`)
    _weight_limit = 2 ** 40

    @property
    def _general_costs(self) -> bool:
        """Whether any cost matrix applies (the objective is plain weighted errors)."""
        return self._accepts_costs and self._objective_name == "errors"

    def _repeated(self, data: Dataset, plan: Any, sw: np.ndarray | None) -> Dataset:
        """The rows repeated by their weight (sample_weight x class_weight), which must be whole."""
        from ..weights import error_factors

        factors = error_factors(data.y, data.classes, getattr(self, "class_weight", None), "accuracy", sw)
        w = (np.ones(data.n_rows) if sw is None else sw) * factors[data.y]
        if not np.all(w == np.round(w)):
            raise ValueError(f"{type(self).__name__} takes whole-number weights only (sample_weight x class_weight, "
                             "read as repeated rows); for real-valued weights use an exact estimator "
                             "(DPTreeClassifier, MaxSATTreeClassifier, BinOCTClassifier, OCTClassifier, "
                             "CPSATTreeClassifier)")
        w = w.astype(np.int64)
        if w.sum() > max(10 * data.n_rows, 1_000_000):
            raise ValueError(f"{type(self).__name__}: the weights repeat the rows {int(w.sum())} times in all; "
                             "use smaller whole-number weights or an exact estimator")
        idx = np.repeat(np.arange(data.n_rows), w)
        return Dataset(X=data.X[idx], y=data.y[idx], classes=data.classes, schema=data.schema, name=data.name)

    @property
    def _missing_mode(self) -> str:
        return getattr(self, "missing", "error")

    def _augment(self, data: Dataset) -> tuple[Dataset, Any]:
        if self._missing_mode != "learn":
            return data, None
        from ..missing import augment

        self._engine_unaugmented = data
        return augment(data)

    def _unaugmented(self, data: Dataset) -> Dataset:
        return self._engine_unaugmented

    def _report_weights(self, plan: Any, original: Dataset, sw: np.ndarray | None) -> None:
        """Objective and bound in the user's units, the stats of the weights, the leaves' counts
        from the user's weights, and the check of the objective on the original rows."""
        from ..solvers.common import TreeCheckError
        from ..weights import error_factors

        res = self.result_
        res.stats.update(plan.stats())
        if res.objective_name == "regularized" and getattr(self, "lam", None) is not None and not plan.exact \
                and res.tree is not None:  # errors_w / W + lam x leaves on the user's weights, not the rounded ones
            w = (np.ones(original.n_rows) if sw is None else sw) * error_factors(
                original.y, original.classes, getattr(self, "class_weight", None), self.accuracy_objective, sw,
                getattr(self, "costs", None) if self._accepts_costs else None)[original.y]
            wrong = res.tree.predict_index(original.X) != original.y
            res.objective = float(w[wrong].sum() / w.sum()) + float(self.lam) * res.tree.n_leaves
        if res.objective_name != "errors":
            return
        engine_value, engine_bound = res.objective, res.bound
        res.stats["engine_objective_weighted"] = engine_value
        res.objective = plan.user_value(engine_value)
        if engine_bound is not None:
            res.bound = plan.user_value(engine_bound)
        # the user's objective of the tree, from the original rows (no integers involved)
        tree = res.tree
        costs = getattr(self, "costs", None) if self._accepts_costs else None
        keep = np.ones(original.n_rows, dtype=bool) if sw is None else sw > 0
        X, y = original.X[keep], original.y[keep]
        w = np.ones(len(y)) if sw is None else sw[keep]
        pred = tree.predict_index(X)
        if costs is not None:
            from ..weights import load_costs

            matrix = np.array([[float(v) for v in row] for row in load_costs(costs, original.classes)])
            value = float((w * matrix[y, pred]).sum())
            res.stats["objective_is"] = "total cost"
        else:
            f = error_factors(original.y, original.classes, getattr(self, "class_weight", None),
                              self.accuracy_objective, sw)
            value = float((w * f[y] * (pred != y)).sum())
            res.stats["objective_is"] = ("classes x (1 - balanced accuracy)" if self.accuracy_objective ==
                                         "balanced_accuracy" else "weighted errors")
            if self.accuracy_objective == "balanced_accuracy":
                res.stats["balanced_accuracy"] = 1.0 - value / len(f)
        tol = plan.rounding_bound + 1e-9 * max(1.0, abs(value))
        if abs(value - res.objective) > tol:
            raise TreeCheckError(f"weighted objective {value!r} on the original rows, engine said {res.objective!r}")
        res.objective = value
        if res.status == OPTIMAL and plan.exact:
            res.bound = value
        res.objective_name = ("cost" if costs is not None else "balanced_errors"
                              if self.accuracy_objective == "balanced_accuracy" else "weighted_errors")
        # leaves: class counts of the user's weights (sample_weight x class_weight)
        cw = error_factors(original.y, original.classes, getattr(self, "class_weight", None), "accuracy", sw)
        tree.fit_counts(X, y, sample_weight=w * cw[y])

    def _time_left(self) -> float | None:
        """``time_limit`` minus the time this ``fit`` has used so far (never below 1 ms)."""
        return self._deadline.budget()

    def _problem(self, data: Dataset) -> BinaryProblem:
        return self._binarizer().problem(data, deadline=self._deadline)

    def _binarizer(self) -> Binarizer:
        """A new binarizer of this fit's parameters, kept in ``binarizer_``."""
        self.binarizer_ = Binarizer(self.binarization, n_thresholds=self.n_thresholds)
        return self.binarizer_

    def _progress(self) -> dict:
        """``progress=`` for the solve function, only when a callback is set (so engines that
        do not report progress yet still run without one)."""
        progress = getattr(self, "progress", None)
        return {} if progress is None else {"progress": progress}

    def _timeout_result(self, data: Dataset, runtime: float) -> SolveResult:
        """CART's tree or the majority leaf (FEASIBLE) when time ran out before the engine could
        start (:func:`satdt.heuristics.greedy.timeout_answer`)."""
        from ..heuristics.greedy import timeout_answer

        return timeout_answer(data, self._method or type(self).__name__, self._objective_name, runtime,
                              lam=getattr(self, "lam", None), max_depth=getattr(self, "max_depth", None))

    def _single_class_result(self, data: Dataset, label: int = 0) -> SolveResult:
        from ..tree import Node

        tree = Tree(Node.leaf(label), classes=data.classes, feature_names=data.feature_names)
        tree.fit_counts(data.X, data.y, data.weight)
        return engine_result(tree, 0.0, proven=True, runtime=0.0, method="single-class", objective_name="errors",
                             stats={"note": "one class: a single leaf"})

    def _solve(self, data: Dataset) -> SolveResult:
        """The one fit path (:func:`satdt.fit.fit_problem`): the registry's engine for
        ``_method`` with :meth:`_engine_options`, under this fit's clock."""
        return fit_problem(self._method, data, self._deadline,
                           binarizer=self._fit_binarizer(),
                           keep=self._keep_outcome, **self._engine_options())

    def _fit_binarizer(self) -> Any:
        """``binarizer=`` of :func:`~satdt.fit.fit_problem`: a new one, None (the engine
        reads the data itself) or False (this fit's data is not binarized)."""
        return self._binarizer() if self._uses_binarizer else None

    def _engine_options(self) -> dict:  # pragma: no cover - abstract
        """The engine's keyword arguments (all but the data and ``time_limit``)."""
        raise NotImplementedError

    def _keep_outcome(self, outcome: Any) -> None:
        """Keep what the engine returned besides its ``SolveResult`` (a front, a model)."""

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
        Xe, _ = encode_features(X, schema=self.schema_, missing=self._missing_mode == "learn")
        return Xe

    def predict(self, X: Any) -> np.ndarray:
        """Predicted class labels."""
        Xe = self._encode(X)
        return self.tree_.predict(Xe)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class frequencies of the training rows in each row's leaf."""
        Xe = self._encode(X)
        return self.tree_.predict_proba(Xe)

    def to_sklearn(self, X: Any = None, y: Any = None, sample_weight: Any = None) -> Any:
        """The fitted tree as a scikit-learn ``DecisionTreeClassifier`` (see
        :meth:`satdt.tree.Tree.to_sklearn`): same predictions, ``feature_names_in_`` kept.

        Pass the training ``X`` (and ``y``, with the fit's ``sample_weight``) to check every
        threshold on it after float32 rounding (and recompute the node counts as ``fit`` counts
        them: sample_weight x class_weight, so ``predict_proba`` is the model's). ValueError if
        the data had categorical (text) columns: scikit-learn reads numbers only; one-hot encode
        them before fitting.
        """
        check_is_fitted(self, "tree_")
        names = getattr(self, "feature_names_in_", None)
        cats = sorted(self.schema_.categories)
        if cats:
            shown = ", ".join(repr(self.schema_.names[j]) for j in cats[:5])
            raise ValueError(f"categorical column(s) {shown}: a scikit-learn tree reads numbers only; "
                             "one-hot encode them (e.g. pandas.get_dummies) before fitting satdt")
        Xe = None if X is None else self._encode(X)
        return self.tree_.to_sklearn(Xe, y, sample_weight=self._count_weights(y, sample_weight),
                                     n_features=self.n_features_in_,
                                     feature_names=None if names is None else list(names))

    def _count_weights(self, y: Any, sample_weight: Any) -> np.ndarray | None:
        """The weight of each row ``y`` in the leaves' class counts, as ``fit`` counts them: sample_weight x
        class_weight (None without y: the stored counts are kept)."""
        from ..export import class_index
        from ..weights import check_sample_weight, error_factors

        if y is None:
            if sample_weight is not None:
                raise ValueError("sample_weight needs X and y: the weights count the rows (X, y)")
            return None
        yi = np.asarray(class_index(np.asarray(y), self.classes_), dtype=np.int64)
        sw = check_sample_weight(sample_weight, len(yi))
        cw = error_factors(yi, self.classes_, getattr(self, "class_weight", None), "accuracy", sw)
        return (np.ones(len(yi)) if sw is None else sw) * cw[yi]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = False
        tags.input_tags.allow_nan = self._missing_mode == "learn"
        tags.non_deterministic = not self._deterministic
        return tags
