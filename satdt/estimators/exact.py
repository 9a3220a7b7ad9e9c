"""The estimators of the exact engines over a fixed depth: the most accurate tree (MaxSAT, the
DP, BinOCT), OCT's penalized objective and the regularized objective (the DP, CP-SAT)."""

from __future__ import annotations

from typing import Any

from ..data import Dataset
from ..result import SolveResult
from .base import TreeClassifier, check_int, check_real, check_warm_start

__all__ = ["MaxSATTreeClassifier", "DPTreeClassifier", "BinOCTClassifier", "OCTClassifier", "CPSATTreeClassifier"]

_CW = """    class_weight : None, "balanced" or dict
        Weight of each class's rows (scikit-learn semantics: ``"balanced"`` is ``n / (k * n_c)``);
        multiplies ``sample_weight``. The leaves' class counts (``predict_proba``) are weighted.
    objective : {"accuracy", "balanced_accuracy"}
        ``"balanced_accuracy"``: each class weighs ``1 / (its total sample weight)``, so the
        objective is ``k * (1 - balanced accuracy)`` (``result_.stats["balanced_accuracy"]``).
    costs : array of shape (k, k), DataFrame or None
        ``costs[i][j]``: the cost of predicting class ``j`` (order of ``classes_``) for a row of
        true class ``i`` (a DataFrame labelled by the classes, index true and columns predicted, is
        read by its labels, in any order); the tree of least total cost (weighted by ``sample_weight``) is found and
        each leaf predicts its least-cost class; ``result_.objective`` is the total cost.
"""
_MISS = """    missing : {"learn", "error"}
        ``"learn"`` (default): a numeric feature with missing values (NaN) is searched with both
        directions of its missing rows at every test (:mod:`satdt.missing`); each test of the tree
        stores its direction (``Node.missing_left``), and ``predict`` routes NaN the same way.
        Text columns get a ``"<missing>"`` category. ``"error"``: NaN is an error.
"""
_NOTES = """    Notes
    -----
    ``fit(X, y, sample_weight)``: integer weights (and ``class_weight``, ``objective``, ``costs``)
    go into the class counts the engine optimizes, exactly; real-valued ones are read as exact
    fractions and scaled to integers, or rounded with the bound stated in
    ``result_.stats["weight_rounding_bound"]`` (:mod:`satdt.weights`). ``result_.objective`` is
    then in the user's units (weighted errors, or the total cost).
"""

#: docstring sections shared by the estimators that weigh rows (``%(name)s`` lines, filled by
#: :func:`_shared_doc`)
_DOC = {
    "weighting": _CW.strip("\n"),
    "missing": _MISS.strip("\n"),
    "weights_notes": _NOTES.strip("\n"),
}


def _shared_doc(cls):
    """Fill the ``    %(name)s`` lines of ``cls``'s docstring from :data:`_DOC` (each section is
    written once; its text keeps its own indentation)."""
    for name, text in _DOC.items():
        cls.__doc__ = cls.__doc__.replace(f"    %({name})s", text)
    return cls


class DepthBoundedClassifier(TreeClassifier):
    """Most accurate tree of depth <= ``max_depth``; subclasses name the engine."""

    _accepts_costs = True

    def __init__(self, max_depth: int = 3, binarization: str = "all", n_thresholds: int = 10,
                 time_limit: float | None = None, progress: Any = None, class_weight: Any = None,
                 objective: str = "accuracy", costs: Any = None, missing: str = "learn"):
        self.max_depth = max_depth
        self.binarization = binarization
        self.n_thresholds = n_thresholds
        self.time_limit = time_limit
        self.progress = progress
        self.class_weight = class_weight
        self.objective = objective
        self.costs = costs
        self.missing = missing

    def _validate_params_(self) -> None:
        check_int("max_depth", self.max_depth, 1)


@_shared_doc
class MaxSATTreeClassifier(DepthBoundedClassifier):
    """Most accurate tree of depth <= ``max_depth`` (MaxSAT over Avellaneda's clauses, RC2).

    Parameters
    ----------
    max_depth : int
    binarization, n_thresholds, time_limit, progress : see :class:`ConsistentTreeClassifier`
    %(weighting)s
        Any matrix is reduced to weighted rows (:mod:`satdt.weights`).
    %(missing)s

    %(weights_notes)s
    """

    _method = "maxsat"

    def _engine_options(self) -> dict:
        return dict(max_depth=self.max_depth, **self._progress())


@_shared_doc
class DPTreeClassifier(DepthBoundedClassifier):
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
    %(weighting)s
        With ``lam``: only costs that depend on the true class alone (class weights); any matrix with ``lam=None``.
    %(missing)s

    proof : str or None
        An absent or empty directory: an OPTIMAL fit writes there a certificate that
        ``satdt check`` verifies (:mod:`satdt.proof`; ``binarization="all"``; numeric and
        categorical features, a categorical one as one test per category). Producing it gets
        ``time_limit`` again; past it the fit stands, with a RuntimeWarning and no certificate.
    n_jobs : int or None
        Threads of the search (scikit-learn's convention: None or -1 all the cores this process
        may use, ``-k`` all but ``k - 1``, 1 one thread). The optimum is the same for every value;
        where several trees reach it (ties, often with ``lam``), the threads may return another of
        them (:func:`satdt.solvers.dp.solve_max_accuracy_dp`).

    %(weights_notes)s
    """

    _method = "dp"

    def __init__(self, max_depth: int = 3, lam: float | None = None, binarization: str = "all",
                 n_thresholds: int = 10, time_limit: float | None = None, progress: Any = None,
                 class_weight: Any = None, objective: str = "accuracy", costs: Any = None,
                 missing: str = "learn", proof: str | None = None, n_jobs: int | None = None):
        super().__init__(max_depth=max_depth, binarization=binarization, n_thresholds=n_thresholds,
                         time_limit=time_limit, progress=progress, class_weight=class_weight,
                         objective=objective, costs=costs, missing=missing)
        self.lam = lam
        self.proof = proof
        self.n_jobs = n_jobs

    @property
    def _objective_name(self) -> str:
        return "errors" if self.lam is None else "regularized"

    @property
    def _weight_limit(self) -> int:
        """The largest total integer weight: with ``lam``, the largest whose exact objective fits at
        ``max_depth`` (:func:`satdt.limits.dp_lam_max_total`), so large or real weights are scaled down to it
        instead of refused. Past depth 12 (a total of ~2**18) the total of depth 12: a depth the engine's cap
        (``useful_depth``) brings to 12 or less is solved, a deeper one refused as before, naming the depth
        that fits."""
        if self.lam is None:
            return 2 ** 40
        from ..limits import dp_lam_max_total

        return dp_lam_max_total(self.lam, min(int(self.max_depth), 12))

    def _validate_params_(self) -> None:
        check_int("max_depth", self.max_depth, 0)
        check_real("lam", self.lam, 0.0, allow_none=True)
        from ..solvers.dp.search import resolve_n_jobs

        resolve_n_jobs(self.n_jobs)

    def _solve(self, data: Dataset) -> SolveResult:
        if self.binarization == "all" and self.max_depth >= 2:  # the resource model, before binarizing
            from ..fallback import degrade_dp_data, plan_dp_data
            from ..solvers import dp

            fit = plan_dp_data(data, self.max_depth, self._time_left())
            if fit is not None:
                return degrade_dp_data(data, self.max_depth, self.lam, self._deadline,
                                       self._progress().get("progress"), dp.solve_dp, fit)
        return super()._solve(data)

    def _engine_options(self) -> dict:
        return dict(max_depth=self.max_depth, lam=self.lam, n_jobs=self.n_jobs, **self._progress())


@_shared_doc
class BinOCTClassifier(TreeClassifier):
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
    %(weighting)s
        Any matrix is reduced to weighted rows (:mod:`satdt.weights`).
    %(missing)s

    %(weights_notes)s
    """

    # CP-SAT (the default backend) with several workers may return any of several optimal trees
    _deterministic = False
    _method = "binoct"
    _accepts_costs = True
    _weight_limit = 2 ** 20     # MIP objectives lose exactness with large coefficients

    def __init__(self, max_depth: int = 2, backend: str | None = None, warm_start: bool = True,
                 binarization: str = "all", n_thresholds: int = 10, time_limit: float | None = None,
                 progress: Any = None, class_weight: Any = None, objective: str = "accuracy",
                 costs: Any = None, missing: str = "learn"):
        self.class_weight = class_weight
        self.objective = objective
        self.costs = costs
        self.missing = missing
        self.max_depth = max_depth
        self.backend = backend
        self.warm_start = warm_start
        self.binarization = binarization
        self.n_thresholds = n_thresholds
        self.time_limit = time_limit
        self.progress = progress

    def _validate_params_(self) -> None:
        check_int("max_depth", self.max_depth, 1)
        check_warm_start(self.warm_start)

    def _backend_kwargs(self) -> dict:
        return {} if self.backend is None else {"backend": self.backend}

    def _engine_options(self) -> dict:
        return dict(max_depth=self.max_depth, warm_start=self.warm_start, **self._backend_kwargs(),
                    **self._progress())


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
        N_min, fewest training rows in a leaf (weighted rows with weights: the integer weights of
        :mod:`satdt.weights`).
    backend, warm_start, binarization, n_thresholds, time_limit, progress : see :class:`BinOCTClassifier`
    class_weight, objective, costs, missing : see :class:`BinOCTClassifier`; ``costs`` only when
        they depend on the true class alone (class weights).
    """

    _method = "oct"
    _general_costs = False      # misclassification / baseline: a cost matrix shifts both

    def __init__(self, max_depth: int = 2, alpha: float = 0.0, min_leaf: int = 1, backend: str | None = None,
                 warm_start: bool = True, binarization: str = "all", n_thresholds: int = 10,
                 time_limit: float | None = None, progress: Any = None, class_weight: Any = None,
                 objective: str = "accuracy", costs: Any = None, missing: str = "learn"):
        super().__init__(max_depth=max_depth, backend=backend, warm_start=warm_start,
                         binarization=binarization, n_thresholds=n_thresholds, time_limit=time_limit,
                         progress=progress, class_weight=class_weight, objective=objective, costs=costs,
                         missing=missing)
        self.alpha = alpha
        self.min_leaf = min_leaf

    def _validate_params_(self) -> None:
        super()._validate_params_()
        check_real("alpha", self.alpha, 0.0)
        check_int("min_leaf", self.min_leaf, 1)

    def _engine_options(self) -> dict:
        return dict(super()._engine_options(), alpha=self.alpha, min_leaf=self.min_leaf)


class CPSATTreeClassifier(TreeClassifier):
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
    class_weight, objective, costs, missing : see :class:`BinOCTClassifier`; the regularized
        objective is then weighted errors / total weight + ``lam`` * leaves; ``costs`` only when
        they depend on the true class alone (class weights).
    """

    _deterministic = False  # several CP-SAT workers: any of several optimal trees
    _method = "cpsat"
    _objective_name = "regularized"

    _accepts_costs = True
    _weight_limit = 2 ** 20     # CP-SAT's objective loses exactness with large coefficients

    def __init__(self, lam: float = 0.01, max_depth: int = 5, num_workers: int | None = None, seed: int = 0,
                 warm_start: bool = True, binarization: str = "all", n_thresholds: int = 10,
                 time_limit: float | None = None, progress: Any = None, class_weight: Any = None,
                 objective: str = "accuracy", costs: Any = None, missing: str = "learn"):
        self.class_weight = class_weight
        self.objective = objective
        self.costs = costs
        self.missing = missing
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
        check_real("lam", self.lam, 0.0)
        check_int("max_depth", self.max_depth, 0)
        check_int("num_workers", self.num_workers, 1, allow_none=True)
        check_warm_start(self.warm_start)

    def _engine_options(self) -> dict:
        return dict(lam=self.lam, max_depth=self.max_depth, num_workers=self.num_workers, seed=self.seed,
                    warm_start=self.warm_start if isinstance(self.warm_start, str)
                    else ("cart" if self.warm_start else None), **self._progress())
