"""Cross-validated choice of complexity for any satdt method: a lambda path or a depth range.

The exact optimum on the training rows overfits as the tree grows; :class:`TreeSelectorCV`
fits the method on each fold for every setting (in parallel through joblib, so a Dask or Ray
backend spreads the folds over a cluster), scores each fit on its held-out fold, picks the
setting with the best mean held-out accuracy (or, with ``one_se=True``, the simplest setting
within one standard error of it) and refits that setting on all rows.

``satdt select DATA --method M --lams ... | --depths ... --folds K`` is the same on the command
line (which imports this module, and scikit-learn with it, only for that command).
"""

from __future__ import annotations

import math
import time
from typing import Any, Sequence

import numpy as np

__all__ = ["TreeSelectorCV", "select_complexity"]


def _param_for(method: str, grid: str) -> str:
    """The estimator parameter a ``lams`` or ``depths`` grid sets for ``method``."""
    from .methods import spec

    if grid == "depths":
        return "max_depth"
    options = spec(method).options
    for name in ("lam", "alpha"):
        if name in options:
            return name
    raise ValueError(f"'{method}' has no complexity penalty (lam or alpha): select its depth instead "
                     "(depths=, --depths)")


def _take(X: Any, rows: np.ndarray) -> Any:
    return X.iloc[rows] if hasattr(X, "iloc") else np.asarray(X)[rows]


def _fit_cart(options: dict, X: Any, y: np.ndarray, train: np.ndarray, test: np.ndarray) -> dict[str, Any]:
    """A heuristic row: scikit-learn's CART (``max_depth``, ``ccp_alpha``) on one fold."""
    from sklearn.tree import DecisionTreeClassifier

    from .data import encode_features

    start = time.perf_counter()
    Xe, _ = encode_features(X)          # text columns as category codes, as satdt reads them
    model = DecisionTreeClassifier(random_state=0, **options).fit(Xe[train], y[train])
    tests = np.asarray(model.decision_path(Xe[test]).sum(axis=1)).ravel() - 1
    return {"status": "HEURISTIC", "accuracy": float(model.score(Xe[test], y[test])),
            "train_accuracy": float(model.score(Xe[train], y[train])), "objective": None,
            "leaves": int(model.get_n_leaves()), "depth": int(model.get_depth()),
            "avg_tests": float(tests.mean()) if len(test) else 0.0, "runtime_s": time.perf_counter() - start}


def _share(end: float | None, index: int, n_fits: int, n_lanes: int) -> float | None:
    """Seconds fit ``index`` (of ``n_fits``, run in order on ``n_lanes`` workers) may take when it
    starts: the time left before ``end`` (``time.time()``, comparable across a machine's processes)
    split evenly among the rounds of fits not started yet plus one for the refit. None: no limit;
    0: the time is up, the fit is not run."""
    if end is None:
        return None
    rounds = -(-(n_fits - index) // max(1, n_lanes)) + 1
    return max(0.0, end - time.time()) / rounds


def _fit_fold(method: str, options: dict, X: Any, y: np.ndarray, train: np.ndarray,
              test: np.ndarray, slot: tuple | None = None) -> dict[str, Any]:
    """Fit one setting on one fold's training rows; score it on the held-out rows. ``slot`` =
    ``(end, index, n_fits, n_lanes)`` of a whole-call time limit (see :func:`_share`): the fit gets
    its share of the time left (at most ``options["time_limit"]``), and is not run when none is left
    (status ``NOT_RUN``)."""
    from .estimators import make_estimator
    from .result import InfeasibleError, NoTreeFoundError

    share = None if slot is None else _share(*slot)
    if share is not None:
        if share < 1e-3:
            return {"status": "NOT_RUN", "runtime_s": 0.0}
        if method != "cart":
            cap = options.get("time_limit")
            options = {**options, "time_limit": share if cap is None else min(cap, share)}
    if method == "cart":
        return _fit_cart(options, X, y, train, test)
    start = time.perf_counter()
    model = make_estimator(method, **options)
    X_train, X_test = _take(X, train), _take(X, test)
    try:
        model.fit(X_train, y[train])
    except InfeasibleError:
        return {"status": "INFEASIBLE", "runtime_s": time.perf_counter() - start}
    except NoTreeFoundError:
        return {"status": "UNKNOWN", "runtime_s": time.perf_counter() - start}
    tree = model.tree_
    encoded = model._encode(X_test)
    return {"status": model.result_.status, "accuracy": float(model.score(X_test, y[test])),
            "train_accuracy": float(model.score(X_train, y[train])),
            "objective": model.result_.objective, "leaves": tree.n_leaves, "depth": tree.depth(),
            "avg_tests": float(tree.average_tests(encoded)) if len(test) else 0.0,
            "runtime_s": time.perf_counter() - start}


def _summarize(param: str, value: Any, fits: list[dict]) -> dict[str, Any]:
    scored = all("accuracy" in f for f in fits)
    acc = np.array([f.get("accuracy", np.nan) for f in fits], dtype=float)
    k = len(fits)
    std = float(np.std(acc, ddof=1)) if scored and k > 1 else (0.0 if scored else math.nan)

    def mean(key: str) -> float:
        return float(np.mean([f[key] for f in fits])) if scored else math.nan

    return {param: value, "mean_accuracy": float(acc.mean()) if scored else math.nan, "std_accuracy": std,
            "se_accuracy": std / math.sqrt(k) if scored else math.nan,
            "fold_accuracies": [None if np.isnan(a) else float(a) for a in acc],
            "fold_objectives": [f.get("objective") for f in fits],
            "mean_train_accuracy": mean("train_accuracy"), "mean_leaves": mean("leaves"),
            "mean_depth": mean("depth"), "mean_avg_tests": mean("avg_tests"),
            "statuses": [f["status"] for f in fits],
            "runtime_s": round(float(sum(f["runtime_s"] for f in fits)), 4)}


def choose(table: list[dict], param: str, one_se: bool = False) -> int:
    """Index of the chosen row: best mean held-out accuracy, or with ``one_se`` the simplest row
    whose mean is within one standard error of the best. Simplest: the largest penalty or the
    smallest depth; ties go to the simpler row too. ValueError if no row has every fold scored."""
    valid = [i for i, row in enumerate(table) if not math.isnan(row["mean_accuracy"])]
    if not valid:
        raise ValueError("no setting produced a tree on every fold (all INFEASIBLE or out of time)")
    best = max(valid, key=lambda i: table[i]["mean_accuracy"])
    floor = table[best]["mean_accuracy"] - (table[best]["se_accuracy"] if one_se else 0.0) - 1e-12
    candidates = [i for i in valid if table[i]["mean_accuracy"] >= floor]
    simpler = (lambda i: table[i][param]) if param != "max_depth" else (lambda i: -table[i][param])
    return max(candidates, key=simpler)


def _choose_or_none(table: list[dict], param: str, one_se: bool = False) -> int | None:
    try:
        return choose(table, param, one_se)
    except ValueError:
        return None


def select_complexity(X: Any, y: Any, method: str, *, lams: Sequence[float] | None = None,
                      depths: Sequence[int] | None = None, folds: int = 5, one_se: bool = False,
                      options: dict | None = None, n_jobs: int | None = None,
                      random_state: int | None = 0, heuristics: Sequence[str] = (),
                      heuristic_options: dict[str, dict] | None = None, time_limit: Any = None,
                      progress: Any = None) -> dict[str, Any]:
    """Cross-validate ``method`` over ``lams`` or ``depths``; the table and the chosen row.

    Returns ``{"param", "values", "table", "chosen_index", "folds", "splits", "heuristics"}`` (no
    refit; see :class:`TreeSelectorCV`); ``chosen_index`` is None when no setting has a tree on
    every fold (INFEASIBLE, or out of time). ``options`` are further
    :func:`satdt.estimators.make_estimator` arguments (``max_depth`` for a lambda path,
    ``time_limit`` as a cap on each fit, ``binarization``...). ``time_limit`` (seconds or a
    :class:`satdt.deadline.Deadline`) bounds the whole call: each fit, when it starts, gets an even
    share of the time left (the rounds of fits not started yet, on ``n_jobs`` workers, plus one
    share kept for a refit); fits that would start after it are not run (status ``NOT_RUN``, the
    setting unscored). ``progress`` receives a :class:`satdt.progress.ProgressEvent` (engine
    ``"select"``) at the start, when each setting's folds are all done, and at the end.
    ``heuristics`` (``"cart"``, ``"dpdt"``) adds, on the same folds, the rows of each heuristic along the same grid: with ``depths`` CART and
    DPDT of each depth; with ``lams`` CART's cost-complexity pruning (``ccp_alpha`` = each
    value) and DPDT's penalty per test (``alpha`` = each value), at the same ``max_depth``.
    ``heuristics[h]`` is ``{"param", "table", "chosen_index"}`` (best mean held-out accuracy);
    ``heuristic_options[h]`` are further options of heuristic ``h`` (DPDT's ``cart_depth``...).
    """
    from joblib import Parallel, delayed
    from sklearn.model_selection import StratifiedKFold

    if (lams is None) == (depths is None):
        raise ValueError("give exactly one of lams (a lambda path) or depths (a depth range)")
    grid = "lams" if lams is not None else "depths"
    values = list(lams if lams is not None else depths)
    if not values:
        raise ValueError(f"{grid} is empty")
    if grid == "lams" and any(not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0) for v in values):
        raise ValueError(f"lams must be numbers >= 0, got {values}")
    if grid == "depths" and any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0
                                for v in values):
        raise ValueError(f"depths must be integers >= 0, got {values}")
    if isinstance(folds, bool) or not isinstance(folds, (int, np.integer)) or folds < 2:
        raise ValueError(f"folds must be an integer >= 2, got {folds!r}")
    param = _param_for(method, grid)
    options = dict(options or {})
    if param in options:
        raise ValueError(f"{param} is the selected parameter: do not also fix it in options")
    y = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
    n = len(y)
    _, counts = np.unique(y, return_counts=True)
    if n < folds:
        raise ValueError(f"{folds} folds need at least {folds} rows, the data has {n}")
    if counts.min() >= folds:
        splitter: Any = StratifiedKFold(n_splits=folds, shuffle=True, random_state=random_state)
    else:  # a class rarer than the folds: plain shuffled folds (stratification impossible)
        from sklearn.model_selection import KFold
        splitter = KFold(n_splits=folds, shuffle=True, random_state=random_state)
    splits = list(splitter.split(np.zeros((n, 1)), y))
    unknown = [h for h in heuristics if h not in ("cart", "dpdt")]
    if unknown:
        raise ValueError(f"unknown heuristic(s) {', '.join(map(str, unknown))}; choose cart, dpdt")
    # (name, parameter, fixed options) of every table: the method's, then each heuristic's
    depth = options.get("max_depth")
    if depth is None and grid == "lams":
        from .methods import METHODS
        depth = METHODS[method].default_depth if method in METHODS else None
    runs = [(method, param, options)]
    for h in heuristics:
        knob = "max_depth" if grid == "depths" else ("ccp_alpha" if h == "cart" else "alpha")
        fixed = {} if grid == "depths" or depth is None else {"max_depth": depth}
        if h == "dpdt" and "time_limit" in options:
            fixed["time_limit"] = options["time_limit"]
        fixed.update((heuristic_options or {}).get(h, {}))
        runs.append((h, knob, fixed))
    from .deadline import Deadline
    from .progress import ProgressReporter

    deadline = Deadline.of(time_limit)
    left = deadline.remaining()
    end = None if left is None else time.time() + left
    jobs = [(r, i, f) for r in range(len(runs)) for i in range(len(values)) for f in range(len(splits))]
    lanes = _lanes(n_jobs, len(jobs))
    reporter = ProgressReporter("select", progress)
    reporter.emit("start", message=f"{len(jobs)} fits ({len(values)} settings x {len(splits)} folds"
                                   + (f" x {len(runs)} methods" if len(runs) > 1 else "") + ")")
    k, n_values = len(splits), len(values)
    fits = []
    for fit in Parallel(n_jobs=n_jobs, return_as="generator")(
            delayed(_fit_fold)(runs[r][0], {**runs[r][2], runs[r][1]: values[i]}, X, y, *splits[f],
                               slot=None if end is None else (end, index, len(jobs), lanes))
            for index, (r, i, f) in enumerate(jobs)):
        fits.append(fit)
        if len(fits) % k == 0:  # a setting's folds are all done: one line
            r, i = divmod(len(fits) // k - 1, n_values)
            row = _summarize(runs[r][1], values[i], fits[-k:])
            statuses = "/".join(sorted(set(row["statuses"])))
            reporter.emit("tick", message=f"{runs[r][0]} {runs[r][1]}={values[i]:g}: mean held-out accuracy "
                                          f"{row['mean_accuracy']:.4f} ({statuses})")
    tables = [[_summarize(runs[r][1], values[i], fits[(r * n_values + i) * k:(r * n_values + i + 1) * k])
               for i in range(n_values)] for r in range(len(runs))]
    table = tables[0]
    extra = {runs[r][0]: {"param": runs[r][1], "table": tables[r], "chosen_index": _choose_or_none(tables[r], runs[r][1])}
             for r in range(1, len(runs))}
    chosen = _choose_or_none(table, param, one_se)
    reporter.emit("done", message="no setting scored on every fold" if chosen is None else
                  f"chosen {param}={table[chosen][param]:g}, mean held-out accuracy "
                  f"{table[chosen]['mean_accuracy']:.4f}")
    return {"param": param, "values": values, "table": table, "folds": folds,
            "chosen_index": chosen, "rule": "one-se" if one_se else "best",
            "splits": splits, "heuristics": extra}


def _lanes(n_jobs: int | None, n_fits: int) -> int:
    """How many fits joblib runs at once for ``n_jobs`` (negative: CPUs + 1 + n_jobs)."""
    import os

    if n_jobs is None or n_jobs == 0:
        return 1
    if n_jobs < 0:
        n_jobs = max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    return max(1, min(n_jobs, n_fits))


try:  # the estimator needs scikit-learn's base classes; the module itself imports without them
    from sklearn.base import BaseEstimator, ClassifierMixin
except ImportError:  # pragma: no cover
    BaseEstimator, ClassifierMixin = object, object


class TreeSelectorCV(ClassifierMixin, BaseEstimator):
    """Choose a method's complexity (lambda or depth) by K-fold cross-validation, then refit.

    Parameters
    ----------
    method : str
        A method of the registry (:data:`satdt.methods.METHODS`): ``"dp"`` (the fastest exact engine),
        ``"cpsat"``, ``"maxsat"``, ``"binoct"``, ``"oct"``, ``"dpdt"``, ``"sat-size"``...
    lams : sequence of float, optional
        The penalties tried: ``lam`` of ``dp`` / ``cpsat`` (errors / n + lam * leaves), ``alpha``
        of ``oct`` (per split) and ``dpdt`` (per test).
    depths : sequence of int, optional
        The depth bounds tried (``max_depth``). Give exactly one of ``lams`` and ``depths``.
    folds : int
        K of the (stratified, shuffled) K-fold split.
    one_se : bool
        The one-standard-error rule: the simplest setting (largest penalty, smallest depth)
        whose mean held-out accuracy is within one standard error (sample std / sqrt(K)) of the
        best mean; otherwise the best mean (ties: the simpler setting).
    max_depth : int, optional
        The depth bound along a lambda path (default: the method's).
    time_limit : float, optional
        Seconds for the whole ``fit``: the cross-validation and the refit. Each fold's fit gets an
        even share of the time left when it starts (see :func:`select_complexity`); fits that would
        start after the limit are not run (their setting stays unscored, never chosen); the refit
        gets what is left, and returns its best tree so far (FEASIBLE) when that runs out. A cap on
        each single fit is ``options={"time_limit": seconds}``.
    options : dict, optional
        Further :func:`satdt.estimators.make_estimator` arguments (``binarization``, ``engine``...).
    n_jobs : int, optional
        joblib workers for the (setting, fold) fits; a ``joblib.parallel_config(backend="dask")``
        around ``fit`` runs them on a Dask cluster.
    random_state : int or None
        Seed of the fold split.
    heuristics : sequence of str
        ``"cart"``, ``"dpdt"``: also cross-validate these heuristics on the same folds along
        the same grid (see :func:`select_complexity`), for comparison; never chosen.
    progress : callable, optional
        Receives :class:`satdt.progress.ProgressEvent` objects: the cross-validation's (engine
        ``"select"``, a line per setting) and the refit engine's.

    Attributes
    ----------
    cv_results_ : list of dict
        One row per setting: the value, ``mean_accuracy``, ``std_accuracy``, ``se_accuracy``,
        ``fold_accuracies``, ``fold_objectives`` (the engine's training objective on each
        fold), ``mean_train_accuracy``, ``mean_leaves``, ``mean_depth``,
        ``mean_avg_tests`` (tests per held-out row), ``statuses``, ``runtime_s``. A setting with
        an INFEASIBLE or unfinished fold has NaN means and is never chosen.
    param_ : str
        ``"lam"``, ``"alpha"`` or ``"max_depth"``.
    best_index_, best_params_, best_score_ :
        The chosen row, ``{param_: value}``, its mean held-out accuracy.
    splits_ : list of (train rows, test rows)
        The folds.
    heuristics_ : dict
        Per heuristic: ``{"param", "table", "chosen_index"}`` (rows as ``cv_results_``).
    best_estimator_ :
        The method refitted on all rows with the chosen setting; ``tree_``, ``result_``,
        ``classes_``, ``n_features_in_`` are its.
    """

    def __init__(self, method: str = "dp", lams: Sequence[float] | None = None,
                 depths: Sequence[int] | None = None, folds: int = 5, one_se: bool = False,
                 max_depth: int | None = None, time_limit: float | None = None,
                 options: dict | None = None, n_jobs: int | None = None, random_state: int | None = 0,
                 heuristics: Sequence[str] = (), progress: Any = None):
        self.method = method
        self.lams = lams
        self.depths = depths
        self.folds = folds
        self.one_se = one_se
        self.max_depth = max_depth
        self.time_limit = time_limit
        self.options = options
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.heuristics = heuristics
        self.progress = progress

    def _options(self) -> dict:
        options = dict(self.options or {})
        if self.max_depth is not None:
            if self.depths is not None:
                raise ValueError("max_depth is selected from depths: give one or the other")
            options["max_depth"] = self.max_depth
        return options

    def fit(self, X: Any, y: Any) -> "TreeSelectorCV":
        """Cross-validate, choose, refit. Raises :class:`satdt.result.NoTreeFoundError` when no
        setting has a tree on every fold (all INFEASIBLE, or the time limit came first); the
        table (``cv_results_``, ``heuristics_``) is set before, with ``best_index_`` None."""
        from .deadline import Deadline
        from .estimators import make_estimator
        from .result import NoTreeFoundError

        start = time.perf_counter()
        deadline = Deadline.of(self.time_limit)
        out = select_complexity(X, y, self.method, lams=self.lams, depths=self.depths, folds=self.folds,
                                one_se=self.one_se, options=self._options(), n_jobs=self.n_jobs,
                                random_state=self.random_state, heuristics=tuple(self.heuristics),
                                time_limit=deadline, progress=self.progress)
        self.param_ = out["param"]
        self.cv_results_ = out["table"]
        self.best_index_ = out["chosen_index"]
        self.splits_ = out["splits"]
        self.heuristics_ = out["heuristics"]
        if self.best_index_ is None:
            self.runtime_ = time.perf_counter() - start
            statuses = sorted({s for row in self.cv_results_ for s in row["statuses"]})
            raise NoTreeFoundError(f"no setting produced a tree on every fold ({'/'.join(statuses)})")
        row = self.cv_results_[self.best_index_]
        self.best_params_ = {self.param_: row[self.param_]}
        self.best_score_ = row["mean_accuracy"]
        options = self._options()
        if deadline.time_limit is not None:  # the refit gets what is left (at most a fit's cap)
            cap = options.get("time_limit")
            options["time_limit"] = deadline.budget() if cap is None else min(cap, deadline.budget())
        refit = make_estimator(self.method, **options, **self.best_params_,
                               **({} if self.progress is None else {"progress": self.progress}))
        self.best_estimator_ = refit.fit(X, y)
        for name in ("tree_", "result_", "classes_", "n_features_in_", "feature_names_in_"):
            if hasattr(self.best_estimator_, name):
                setattr(self, name, getattr(self.best_estimator_, name))
        self.runtime_ = time.perf_counter() - start
        return self

    def predict(self, X: Any) -> np.ndarray:
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict(X)

    def predict_proba(self, X: Any) -> np.ndarray:
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict_proba(X)

    def to_sklearn(self, X: Any = None, y: Any = None, sample_weight: Any = None) -> Any:
        """The refitted tree as a scikit-learn ``DecisionTreeClassifier``."""
        return self.best_estimator_.to_sklearn(X, y, sample_weight)
