"""scikit-learn classifiers: validate -> binarize -> solver -> store ``tree_``.

Each estimator only wires: parameters are stored unchanged in ``__init__``, checked in ``fit``;
fitted attributes end in ``_``. After ``fit``: ``tree_`` (a :class:`satdt.tree.Tree` in the
original features), ``result_`` (the :class:`satdt.result.SolveResult`), ``classes_``,
``n_features_in_``, ``feature_names_in_`` (when ``X`` had string column names), ``binarizer_``.
"""

from __future__ import annotations

import time
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .binarize import STRATEGIES, Binarizer, BinaryProblem
from .data import Dataset, encode_features, prepare
from .deadline import Deadline, DeadlineExpired
from .result import SolveResult, timeout_result
from .tree import Tree

__all__ = ["make_estimator", "METHODS", "ConsistentTreeClassifier", "SATTreeClassifier", "MaxSATTreeClassifier", "DPTreeClassifier", "BinOCTClassifier", "OCTClassifier",
           "CPSATTreeClassifier", "DPDTClassifier", "NoTreeFoundError", "InfeasibleError"]


from .result import NoTreeFoundError  # noqa: E402 (defined there: the CLI catches it without scikit-learn)
from .result import INFEASIBLE, OPTIMAL, InfeasibleError, explain_infeasible  # noqa: E402


def _check_int(name: str, value: Any, low: int, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Integral) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}{' or None' if allow_none else ''}, got {value!r}")


def _check_real(name: str, value: Any, low: float, high: float | None = None,
                allow_none: bool = False, strict: bool = False) -> None:
    if value is None and allow_none:
        return
    ok = isinstance(value, Real) and not isinstance(value, bool) and np.isfinite(value)
    ok = ok and (value > low if strict else value >= low) and (high is None or value <= high)
    if not ok:
        rng = f"{'>' if strict else '>='} {low}" + (f" and <= {high}" if high is not None else "")
        raise ValueError(f"{name} must be a number {rng}{' or None' if allow_none else ''}, got {value!r}")


def _check_warm_start(value: Any) -> None:
    if not (isinstance(value, (bool, np.bool_)) or value in ("cart", "dpdt")):
        raise ValueError(f"warm_start must be True, False, 'cart' or 'dpdt', got {value!r}")


class _TreeClassifier(ClassifierMixin, BaseEstimator):
    """Shared fit/predict plumbing; subclasses implement ``_solve``."""

    _uses_binarizer = True
    _deterministic = True
    _method = ""                    # SolveResult.method of a result made here (a timeout)
    _objective_name = "errors"      # its objective, for a majority leaf when time runs out

    def _validate_common(self) -> None:
        if self._uses_binarizer:
            if self.binarization not in STRATEGIES:
                raise ValueError(f"binarization must be one of {', '.join(STRATEGIES)}, got {self.binarization!r}")
            _check_int("n_thresholds", self.n_thresholds, 1)
        _check_real("time_limit", self.time_limit, 0.0, allow_none=True, strict=True)
        progress = getattr(self, "progress", None)
        if progress is not None and not callable(progress):
            raise ValueError(f"progress must be a callable receiving ProgressEvent objects or None, got {progress!r}")

    def _validate_params_(self) -> None:  # overridden
        pass

    def fit(self, X: Any, y: Any) -> "_TreeClassifier":
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
        from .tree import Node

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


class ConsistentTreeClassifier(_TreeClassifier):
    """Smallest decision tree that classifies every training row correctly (DT_depth / DT_size).

    The question of Avellaneda's SAT encodings (AAAI-20), answered by the engine of ``engine``:
    SAT or the dynamic program (``"auto"``: the one measured fastest for the data).

    Parameters
    ----------
    objective : {"depth", "size"}
        ``"depth"``: minimum depth (DT_depth). ``"size"``: minimum number of nodes among trees of
        depth <= ``max_depth`` (DT_size; ``max_depth=None`` means the minimum depth).
    max_depth : int or None
        Largest depth searched (depth) / allowed (size).
    binarization : {"all", "quantile", "tree"}
    n_thresholds : int
        Thresholds per feature for ``"quantile"`` and ``"tree"``.
    solver : str
        PySAT backend name (see :data:`satdt.solvers.sat.SOLVERS`).
    time_limit : float or None
        Wall-clock seconds for the whole fit; the best tree so far is kept (status FEASIBLE).
    incremental : bool
        Incremental example addition (Avellaneda); False encodes every row at once.
    rows_per_round : int or None
        Misclassified rows added per round (None: the solver's measured default).
    progress : callable or None
        Receives :class:`satdt.progress.ProgressEvent` objects while the engine runs (start,
        each new incumbent or bound, a tick every ~2 s, done); e.g.
        :func:`satdt.progress.stderr_printer`.
    engine : {"auto", "sat", "dp"}
        ``"auto"`` (default): the engine :func:`satdt.solvers.consistent.choose_engine` picks by
        the rule measured in ``benchmarks/results/sat.md`` (today the DP on every measured
        dataset, its box DP or its branch and bound by the data's boxes and chains);
        ``result_.stats["engine"]`` and ``["engine_reason"]`` say which ran and why.
        ``"sat"``: Avellaneda's encodings (:mod:`satdt.solvers.sat`). ``"dp"``: the same two
        questions answered by the dynamic program (:func:`satdt.solvers.dp.solve_min_depth_dp`,
        :func:`~satdt.solvers.dp.solve_min_size_dp`; on data with few distinct values per
        feature, such as car, balance-scale, the monks or BMI, the DP over every box of
        :mod:`satdt.solvers.boxdp`), measured faster on most datasets and the only one to solve
        DT_size on car, balance-scale and BMI within 300 s (``benchmarks/RESULTS.md``);
        ``solver``, ``incremental`` and ``rows_per_round`` do not apply to it.
    """

    def __init__(self, objective: str = "depth", max_depth: int | None = None, binarization: str = "all",
                 n_thresholds: int = 10, solver: str = "glucose4", time_limit: float | None = None,
                 incremental: bool = True, rows_per_round: int | None = None, engine: str = "auto",
                 progress: Any = None):
        self.engine = engine
        self.progress = progress
        self.objective = objective
        self.max_depth = max_depth
        self.binarization = binarization
        self.n_thresholds = n_thresholds
        self.solver = solver
        self.time_limit = time_limit
        self.incremental = incremental
        self.rows_per_round = rows_per_round

    def _validate_params_(self) -> None:
        if self.objective not in ("depth", "size"):
            raise ValueError(f"objective must be 'depth' or 'size', got {self.objective!r}")
        _check_int("max_depth", self.max_depth, 0, allow_none=True)
        _check_int("rows_per_round", self.rows_per_round, 1, allow_none=True)
        if self.engine not in ("auto", "sat", "dp"):
            raise ValueError(f"engine must be 'auto', 'sat' or 'dp', got {self.engine!r}")

    def _solve(self, data: Dataset) -> SolveResult:
        from .solvers.consistent import solve_consistent

        problem = self._problem(data)
        return solve_consistent(problem, self.objective, engine=self.engine, max_depth=self.max_depth,
                                time_limit=self._time_left(), sat_options=self._sat_options(),
                                **self._progress())

    @property
    def _objective_name(self) -> str:
        return "depth" if self.objective == "depth" else "nodes"

    @property
    def _method(self) -> str:
        return f"sat-{self.objective}"

    def _sat_options(self) -> dict:
        options = dict(solver=self.solver, incremental=self.incremental)
        if self.rows_per_round is not None:
            options["rows_per_round"] = self.rows_per_round
        return options


class SATTreeClassifier(ConsistentTreeClassifier):
    """Deprecated name of :class:`ConsistentTreeClassifier` (it may run no SAT at all: with
    ``engine="dp"`` or ``"auto"`` the dynamic program answers). Same parameters and results;
    ``fit`` warns (``FutureWarning``). To be removed in the release after 0.1.
    """

    def fit(self, X: Any, y: Any) -> "SATTreeClassifier":
        import warnings

        warnings.warn("SATTreeClassifier is deprecated and will be removed in the next release; use "
                      "ConsistentTreeClassifier (same parameters)", FutureWarning, stacklevel=2)
        return super().fit(X, y)


class _DepthBoundedClassifier(_TreeClassifier):
    """Most accurate tree of depth <= ``max_depth``; subclasses name the engine."""

    def __init__(self, max_depth: int = 3, binarization: str = "all", n_thresholds: int = 10,
                 time_limit: float | None = None, progress: Any = None):
        self.max_depth = max_depth
        self.binarization = binarization
        self.n_thresholds = n_thresholds
        self.time_limit = time_limit
        self.progress = progress

    def _validate_params_(self) -> None:
        _check_int("max_depth", self.max_depth, 1)


class MaxSATTreeClassifier(_DepthBoundedClassifier):
    """Most accurate tree of depth <= ``max_depth`` (MaxSAT over Avellaneda's clauses, RC2).

    Parameters
    ----------
    max_depth : int
    binarization, n_thresholds, time_limit, progress : see :class:`ConsistentTreeClassifier`
    """

    _method = "maxsat"

    def _solve(self, data: Dataset) -> SolveResult:
        from .solvers import maxsat

        return maxsat.solve_max_accuracy(self._problem(data), max_depth=self.max_depth,
                                         time_limit=self._time_left(), **self._progress())


class DPTreeClassifier(_DepthBoundedClassifier):
    """Exact trees by dynamic programming with bounds (MurTree-style), the fastest engine here.

    With ``lam=None``: the most accurate tree of depth <= ``max_depth``. With a number: the tree
    minimizing errors / n + ``lam`` * leaves over all shapes of depth <= ``max_depth`` (the
    OSDT/GOSDT objective, as :class:`CPSATTreeClassifier`). OPTIMAL when the search completes.

    Parameters
    ----------
    max_depth : int
    lam : float or None
        Penalty per leaf; None for plain accuracy.
    binarization, n_thresholds, time_limit, progress : see :class:`ConsistentTreeClassifier`
    """

    _method = "dp"

    def __init__(self, max_depth: int = 3, lam: float | None = None, binarization: str = "all",
                 n_thresholds: int = 10, time_limit: float | None = None, progress: Any = None):
        super().__init__(max_depth=max_depth, binarization=binarization, n_thresholds=n_thresholds,
                         time_limit=time_limit, progress=progress)
        self.lam = lam

    @property
    def _objective_name(self) -> str:
        return "errors" if self.lam is None else "regularized"

    def _validate_params_(self) -> None:
        _check_int("max_depth", self.max_depth, 0)
        _check_real("lam", self.lam, 0.0, allow_none=True)

    def _solve(self, data: Dataset) -> SolveResult:
        from .solvers import dp

        return dp.solve_dp(self._problem(data), max_depth=self.max_depth, lam=self.lam,
                           time_limit=self._time_left(), **self._progress())


class BinOCTClassifier(_TreeClassifier):
    """Most accurate tree of depth ``max_depth`` (BinOCT MIP, Verwer & Zhang, OR-tools).

    Parameters
    ----------
    max_depth : int
    backend : str or None
        OR-tools MIP backend (see :data:`satdt.solvers.mip.BACKENDS`); None: the default.
    warm_start : bool, "cart" or "dpdt"
        Start from a tree of the same depth: CART (True, ``"cart"``) or the most accurate tree of
        DPDT's front (``"dpdt"``).
    binarization, n_thresholds, time_limit, progress : see :class:`ConsistentTreeClassifier`
    """

    # CP-SAT (the default backend) with several workers may return any of several optimal trees
    _deterministic = False
    _method = "binoct"

    def __init__(self, max_depth: int = 2, backend: str | None = None, warm_start: bool = True,
                 binarization: str = "all", n_thresholds: int = 10, time_limit: float | None = None,
                 progress: Any = None):
        self.max_depth = max_depth
        self.backend = backend
        self.warm_start = warm_start
        self.binarization = binarization
        self.n_thresholds = n_thresholds
        self.time_limit = time_limit
        self.progress = progress

    def _validate_params_(self) -> None:
        _check_int("max_depth", self.max_depth, 1)
        _check_warm_start(self.warm_start)

    def _backend_kwargs(self) -> dict:
        return {} if self.backend is None else {"backend": self.backend}

    def _solve(self, data: Dataset) -> SolveResult:
        from .solvers import mip

        return mip.solve_binoct(self._problem(data), max_depth=self.max_depth, time_limit=self._time_left(),
                                warm_start=self.warm_start, **self._backend_kwargs(), **self._progress())


class OCTClassifier(BinOCTClassifier):
    """Optimal classification tree (OCT MIP, Bertsimas & Dunn, axis-aligned, OR-tools).

    Minimizes misclassification / baseline + ``alpha`` * splits, leaves holding at least
    ``min_leaf`` rows.

    Parameters
    ----------
    max_depth : int
    alpha : float
        Complexity penalty per split (0: most accurate tree).
    min_leaf : int
        N_min, fewest training rows in a leaf.
    backend, warm_start, binarization, n_thresholds, time_limit, progress : see :class:`BinOCTClassifier`
    """

    _method = "oct"

    def __init__(self, max_depth: int = 2, alpha: float = 0.0, min_leaf: int = 1, backend: str | None = None,
                 warm_start: bool = True, binarization: str = "all", n_thresholds: int = 10,
                 time_limit: float | None = None, progress: Any = None):
        super().__init__(max_depth=max_depth, backend=backend, warm_start=warm_start,
                         binarization=binarization, n_thresholds=n_thresholds, time_limit=time_limit,
                         progress=progress)
        self.alpha = alpha
        self.min_leaf = min_leaf

    def _validate_params_(self) -> None:
        super()._validate_params_()
        _check_real("alpha", self.alpha, 0.0)
        _check_int("min_leaf", self.min_leaf, 1)

    def _solve(self, data: Dataset) -> SolveResult:
        from .solvers import mip

        return mip.solve_oct(self._problem(data), max_depth=self.max_depth, alpha=self.alpha,
                             min_leaf=self.min_leaf, time_limit=self._time_left(), warm_start=self.warm_start,
                             **self._backend_kwargs(), **self._progress())


class CPSATTreeClassifier(_TreeClassifier):
    """Tree minimizing errors / n + ``lam`` * leaves over all shapes of depth <= ``max_depth`` (CP-SAT).

    Parameters
    ----------
    lam : float
        Penalty per leaf (OSDT/GOSDT's lambda).
    max_depth : int
    num_workers : int or None
        CP-SAT workers (None: the machine's cores; never more).
    seed : int
    warm_start : bool, "cart" or "dpdt"
        Hint CP-SAT with the CART tree of that depth (True, ``"cart"``) or the best tree of
        DPDT's front for this lambda (``"dpdt"``).
    binarization, n_thresholds, time_limit, progress : see :class:`ConsistentTreeClassifier`
    """

    _deterministic = False  # several CP-SAT workers: any of several optimal trees
    _method = "cpsat"
    _objective_name = "regularized"

    def __init__(self, lam: float = 0.01, max_depth: int = 5, num_workers: int | None = None, seed: int = 0,
                 warm_start: bool = True, binarization: str = "all", n_thresholds: int = 10,
                 time_limit: float | None = None, progress: Any = None):
        self.progress = progress
        self.lam = lam
        self.max_depth = max_depth
        self.num_workers = num_workers
        self.seed = seed
        self.warm_start = warm_start
        self.binarization = binarization
        self.n_thresholds = n_thresholds
        self.time_limit = time_limit

    def _validate_params_(self) -> None:
        _check_real("lam", self.lam, 0.0)
        _check_int("max_depth", self.max_depth, 0)
        _check_int("num_workers", self.num_workers, 1, allow_none=True)
        _check_warm_start(self.warm_start)

    def _solve(self, data: Dataset) -> SolveResult:
        from .solvers import cpsat

        return cpsat.solve_regularized(self._problem(data), lam=self.lam, max_depth=self.max_depth,
                                       time_limit=self._time_left(), num_workers=self.num_workers,
                                       seed=self.seed, warm_start=self.warm_start if isinstance(self.warm_start, str)
                                       else ("cart" if self.warm_start else None), **self._progress())


class DPDTClassifier(_TreeClassifier):
    """Dynamic Programming Decision Trees (Kohler, Akrour & Preux): a heuristic, a Pareto front.

    Parameters
    ----------
    max_depth : int
    cart_depth : int or list of int
        Depth of the CART tree that proposes tests at each state (a list: per depth).
    alphas : array-like or None
        Penalties solved at once (None: 1000 values in [0, 1]).
    alpha : float
        The penalty whose tree ``predict`` uses.
    generator : {"hybrid", "sklearn", "cart", "exhaustive"}
        Test generator: ``"hybrid"`` (default: scikit-learn's depth-K CART plus each feature's
        best split at the root, best-first CART with 2^K leaves deeper), ``"sklearn"`` (the
        paper's depth-K CART at every state), ``"cart"`` (satdt's vectorized numpy CART, ties
        broken by lowest feature index), ``"exhaustive"`` (every split: exact, exponential).
    exact_last : bool
        Every split is a candidate at states one test from ``max_depth`` (never worse, faster).
    max_states : int
        State budget.
    random_state : int
    time_limit : float or None
    progress : callable or None
        See :class:`ConsistentTreeClassifier`.
    """

    _uses_binarizer = False
    _method = "dpdt"
    _objective_name = "dpdt"

    def __init__(self, max_depth: int = 3, cart_depth: int | list = 5, alphas: Any = None, alpha: float = 0.0,
                 generator: str = "hybrid", exact_last: bool = True, max_states: int = 1_000_000,
                 random_state: int = 0, time_limit: float | None = None, progress: Any = None):
        self.progress = progress
        self.max_depth = max_depth
        self.cart_depth = cart_depth
        self.alphas = alphas
        self.alpha = alpha
        self.generator = generator
        self.exact_last = exact_last
        self.max_states = max_states
        self.random_state = random_state
        self.time_limit = time_limit

    def _validate_params_(self) -> None:
        _check_int("max_depth", self.max_depth, 0)
        _check_real("alpha", self.alpha, 0.0)
        _check_int("max_states", self.max_states, 1)

    def _solve(self, data: Dataset) -> SolveResult:
        from .solvers import dpdt

        out = dpdt.solve_dpdt(data, max_depth=self.max_depth, cart_depth=self.cart_depth, alphas=self.alphas,
                              alpha=self.alpha, generator=self.generator, exact_last=self.exact_last,
                              max_states=self.max_states, random_state=self.random_state,
                              time_limit=self._time_left(), **self._progress())
        self.dpdt_result_ = out
        self.pareto_front_ = out.pareto_front
        self.pareto_front_nodes_ = out.pareto_front_nodes
        self.trees_ = out.trees
        return out.result


#: method name (CLI ``--method``) -> (estimator class, default max_depth)
METHODS: dict[str, tuple[type, int | None]] = {
    "sat-depth": (ConsistentTreeClassifier, None),
    "sat-size": (ConsistentTreeClassifier, None),
    "maxsat": (MaxSATTreeClassifier, 3),
    "dp": (DPTreeClassifier, 3),
    "binoct": (BinOCTClassifier, 2),
    "oct": (OCTClassifier, 2),
    "cpsat": (CPSATTreeClassifier, 5),
    "dpdt": (DPDTClassifier, 3),
}


def make_estimator(method: str, *, max_depth: int | None = None, lam: float | None = None,
                   alpha: float | None = None, cart_depth: int | list | None = None,
                   binarization: str = "all", n_thresholds: int = 10, solver: str | None = None,
                   time_limit: float | None = None, engine: str | None = None,
                   warm_start: str | None = None, min_leaf: int | None = None,
                   progress: Any = None) -> _TreeClassifier:
    """The estimator of a method name, with the options that apply to it (None: its default).

    ``solver`` is the SAT backend of ``sat-*`` and the MIP backend of ``binoct``/``oct``;
    ``alpha`` is OCT's penalty per split and DPDT's penalty per test; ``engine`` ("auto", "sat" or
    "dp") answers ``sat-*`` by the measured choice, by SAT or by the dynamic program; ``warm_start`` ("cart", "dpdt" or
    "none") is the starting tree of ``binoct``, ``oct`` and ``cpsat``; ``min_leaf`` is OCT's N_min;
    ``progress`` is the progress callback of the methods whose engines report it.
    """
    if method not in METHODS:
        raise ValueError(f"unknown method '{method}'; choose one of {', '.join(METHODS)}")
    cls, default_depth = METHODS[method]
    if engine is not None and cls is not ConsistentTreeClassifier:
        raise ValueError(f"engine applies to sat-depth and sat-size only, not to '{method}'")
    kwargs: dict[str, Any] = {"time_limit": time_limit,
                              "max_depth": default_depth if max_depth is None else max_depth}
    if cls is not DPDTClassifier:
        kwargs.update(binarization=binarization, n_thresholds=n_thresholds)
    if cls is ConsistentTreeClassifier:
        kwargs["objective"] = "depth" if method == "sat-depth" else "size"
        if engine is not None:
            kwargs["engine"] = engine
        if solver:
            kwargs["solver"] = solver
    elif cls in (BinOCTClassifier, OCTClassifier) and solver:
        kwargs["backend"] = solver
    if min_leaf is not None:
        if cls is not OCTClassifier:
            raise ValueError(f"min leaf applies to oct only, not to '{method}'")
        kwargs["min_leaf"] = min_leaf
    if warm_start is not None:
        if cls not in (BinOCTClassifier, OCTClassifier, CPSATTreeClassifier):
            raise ValueError(f"warm start applies to binoct, oct and cpsat only, not to '{method}'")
        if warm_start not in ("cart", "dpdt", "none"):
            raise ValueError(f"warm start must be cart, dpdt or none, got {warm_start!r}")
        kwargs["warm_start"] = False if warm_start == "none" else warm_start
    if cls in (CPSATTreeClassifier, DPTreeClassifier) and lam is not None:
        kwargs["lam"] = lam
    if cls in (OCTClassifier, DPDTClassifier) and alpha is not None:
        kwargs["alpha"] = alpha
    if cls is DPDTClassifier and cart_depth is not None:
        kwargs["cart_depth"] = cart_depth
    if progress is not None and "progress" in cls().get_params():
        kwargs["progress"] = progress
    if cls is RDTClassifier:  # its depth parameter is `depth` (width x depth, as in the paper)
        kwargs["depth"] = kwargs.pop("max_depth")
    return cls(**kwargs)


def _check_random_state(value: Any) -> None:
    if value is not None and (isinstance(value, (bool, np.bool_)) or not isinstance(value, Integral)):
        raise ValueError(f"random_state must be an integer or None, got {value!r}")


class AdaptTreeClassifier(_TreeClassifier):
    """ADAPTTREE0 (Preda): a tree built by linear SARSA over splitting criteria; a heuristic.

    States are partitions of the training rows, an action splits one part by one attribute (a
    numeric threshold ``x <= t`` of the binarization, or a multiway feature split by every value,
    as in ID3, encoded in ``tree_`` as a chain of binary tests), the reward is minus the
    attribute's cost per test (:mod:`satdt.solvers.rl.adapttree`). The tree kept is the best one
    met over the episodes (fewest errors, then lowest test cost); it is consistent with the
    training rows unless ``max_depth`` stops it or rows conflict. ``result_.objective`` is its
    number of tests (one multiway node = one test). Status is always FEASIBLE.

    Parameters
    ----------
    n_episodes : int
        Trees built while learning.
    max_depth : int or None
        Parts at this depth become leaves (None: split until pure).
    costs : array-like or None
        Cost of testing each feature (None: 1 each); the objective is the tests' total cost.
    gamma : float
        Discount.
    n_layers, memory, resolution : int
        Tile coding: layers, hashed weights, tiles per dimension.
    error_cost : float
        Penalty per misclassified training row of a leaf (with ``max_depth``).
    multiway : {"categorical", "discrete", "none"}
        Features split by every value: categorical ones, also integer-coded numeric ones with
        at most ``max_arity`` values (``"discrete"``), or none (binary tests only).
    max_arity : int
    binarization, n_thresholds, time_limit : see :class:`ConsistentTreeClassifier`
    random_state : int or None

    Attributes
    ----------
    learning_curve_ : list of int
        Tests of the tree of each episode.
    adapttree_result_ : satdt.solvers.rl.adapttree.AdaptTreeResult
    """

    def __init__(self, n_episodes: int = 100, max_depth: int | None = None, costs: Any = None,
                 gamma: float = 0.9, n_layers: int = 32, memory: int = 512, resolution: int = 2,
                 error_cost: float = 1.0, multiway: str = "categorical", max_arity: int = 10,
                 binarization: str = "all", n_thresholds: int = 10,
                 random_state: int | None = 0, time_limit: float | None = None):
        self.n_episodes = n_episodes
        self.max_depth = max_depth
        self.costs = costs
        self.gamma = gamma
        self.n_layers = n_layers
        self.memory = memory
        self.resolution = resolution
        self.error_cost = error_cost
        self.multiway = multiway
        self.max_arity = max_arity
        self.binarization = binarization
        self.n_thresholds = n_thresholds
        self.random_state = random_state
        self.time_limit = time_limit

    def _validate_params_(self) -> None:
        _check_int("n_episodes", self.n_episodes, 1)
        _check_int("max_depth", self.max_depth, 0, allow_none=True)
        _check_real("gamma", self.gamma, 0.0, 1.0)
        _check_int("n_layers", self.n_layers, 1)
        _check_int("memory", self.memory, 1)
        _check_int("resolution", self.resolution, 1)
        _check_real("error_cost", self.error_cost, 0.0)
        _check_int("max_arity", self.max_arity, 2)
        if self.multiway not in ("categorical", "discrete", "none"):
            raise ValueError(f"multiway must be 'categorical', 'discrete' or 'none', got {self.multiway!r}")
        _check_random_state(self.random_state)

    def _solve(self, data: Dataset) -> SolveResult:
        from .solvers.rl.adapttree import solve_adapttree

        out = solve_adapttree(self._problem(data), n_episodes=self.n_episodes, gamma=self.gamma,
                              n_layers=self.n_layers, memory=self.memory, resolution=self.resolution,
                              costs=self.costs, max_depth=self.max_depth, error_cost=self.error_cost,
                              multiway=self.multiway, max_arity=self.max_arity,
                              random_state=self.random_state, time_limit=self._time_left())
        self.adapttree_result_ = out
        self.learning_curve_ = [row["splits"] for row in out.curve]
        return out.result


class RDTClassifier(_TreeClassifier):
    """Reinforced Decision Trees (Léon & Denoyer): stochastic node policies, policy gradient.

    With ``axis_aligned=True`` (default) each node's policy chooses among the binarization's
    tests and is hardened to its likeliest test after training: ``tree_`` is a satdt tree of
    depth ``<= depth`` (leaves relabelled with their majority class). With
    ``axis_aligned=False`` it is the paper's model (softmax-linear policies over ``width``
    children, leaf score vectors): ``tree_`` is None, ``model_`` predicts by the most likely path
    (or the expected scores, ``prediction="expected"``) and ``predict_proba`` is one-hot on that
    prediction. See :mod:`satdt.solvers.rl.rdt`. Status is always FEASIBLE.

    Parameters
    ----------
    width, depth : int
        Children per node (2 for the axis-aligned variant) and levels.
    axis_aligned : bool
    n_samples : int
        Monte-Carlo trajectories per example (M).
    epochs, lr_policy, lr_leaf, batch_size, baseline : None or value
        None: the variant's default (:func:`satdt.solvers.rl.rdt.solve_rdt`); ``baseline`` may
        also be ``"loo"`` (softmax-linear variant: leave-one-out over the M trajectories).
    loss : {"squared", "hinge"}
    prediction : {"path", "expected"}
    random_leaves : bool or "balanced"
        The Random Trees baseline (softmax-linear variant).
    binarization, n_thresholds, time_limit : see :class:`ConsistentTreeClassifier`
    random_state : int or None
    """

    def __init__(self, width: int = 2, depth: int = 3, axis_aligned: bool = True, n_samples: int = 10,
                 epochs: int | None = None, lr_policy: float | None = None, lr_leaf: float | None = None,
                 batch_size: int | None = None, loss: str = "squared", prediction: str = "path",
                 baseline: bool | None = None, random_leaves: bool = False, binarization: str = "all",
                 n_thresholds: int = 10, random_state: int | None = 0, time_limit: float | None = None):
        self.width = width
        self.depth = depth
        self.axis_aligned = axis_aligned
        self.n_samples = n_samples
        self.epochs = epochs
        self.lr_policy = lr_policy
        self.lr_leaf = lr_leaf
        self.batch_size = batch_size
        self.loss = loss
        self.prediction = prediction
        self.baseline = baseline
        self.random_leaves = random_leaves
        self.binarization = binarization
        self.n_thresholds = n_thresholds
        self.random_state = random_state
        self.time_limit = time_limit

    def _validate_params_(self) -> None:
        _check_int("width", self.width, 2)
        _check_int("depth", self.depth, 1)
        _check_int("n_samples", self.n_samples, 1)
        _check_int("epochs", self.epochs, 1, allow_none=True)
        _check_int("batch_size", self.batch_size, 1, allow_none=True)
        _check_real("lr_policy", self.lr_policy, 0.0, allow_none=True, strict=True)
        _check_real("lr_leaf", self.lr_leaf, 0.0, allow_none=True, strict=True)
        if self.loss not in ("squared", "hinge"):
            raise ValueError(f"loss must be 'squared' or 'hinge', got {self.loss!r}")
        if self.prediction not in ("path", "expected"):
            raise ValueError(f"prediction must be 'path' or 'expected', got {self.prediction!r}")
        if self.axis_aligned and self.width != 2:
            raise ValueError(f"the axis-aligned RDT is binary: width must be 2, got {self.width!r}")
        if self.baseline not in (None, False, True, "loo") or (self.axis_aligned and self.baseline == "loo"):
            raise ValueError(f"baseline must be None, False, True or (axis_aligned=False) 'loo', got {self.baseline!r}")
        if self.random_leaves not in (False, True, "balanced"):
            raise ValueError(f"random_leaves must be False, True or 'balanced', got {self.random_leaves!r}")
        _check_random_state(self.random_state)

    def fit(self, X: Any, y: Any) -> "RDTClassifier":
        self.model_ = None
        try:
            return super().fit(X, y)
        except NoTreeFoundError:
            if self.model_ is None:        # the softmax-linear model has no satdt tree: expected
                raise
            self.tree_ = None
            return self

    def _solve(self, data: Dataset) -> SolveResult:
        from .solvers.rl.rdt import solve_rdt

        source = self._problem(data) if self.axis_aligned else data
        result, model = solve_rdt(source, width=self.width, depth=self.depth, axis_aligned=bool(self.axis_aligned),
                                  n_samples=self.n_samples, epochs=self.epochs, lr_policy=self.lr_policy,
                                  lr_leaf=self.lr_leaf, batch_size=self.batch_size, loss=self.loss,
                                  predict=self.prediction, baseline=self.baseline, random_leaves=self.random_leaves,
                                  random_state=self.random_state, time_limit=self._time_left())
        if not self.axis_aligned:
            self.model_ = model
        return result

    def predict(self, X: Any) -> np.ndarray:
        Xe = self._encode(X)
        if self.tree_ is None:
            return self.classes_[self.model_.predict_index(Xe)]
        return self.tree_.predict(Xe)

    def predict_proba(self, X: Any) -> np.ndarray:
        Xe = self._encode(X)
        if self.tree_ is None:
            proba = np.zeros((Xe.shape[0], len(self.classes_)))
            proba[np.arange(Xe.shape[0]), self.model_.predict_index(Xe)] = 1.0
            return proba
        return self.tree_.predict_proba(Xe)

    def to_sklearn(self, X: Any = None, y: Any = None) -> Any:
        check_is_fitted(self, "tree_")
        if self.tree_ is None:
            raise ValueError("the softmax-linear RDT (axis_aligned=False) has no axis-aligned tree")
        return super().to_sklearn(X, y)


METHODS.update({"adapttree": (AdaptTreeClassifier, None), "rdt": (RDTClassifier, 3)})
__all__ += ["AdaptTreeClassifier", "RDTClassifier"]
