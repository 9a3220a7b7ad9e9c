"""The estimators of the exact engines over a fixed depth: the most accurate tree (MaxSAT, the
DP, BinOCT), OCT's penalized objective and the regularized objective (the DP, CP-SAT)."""

from __future__ import annotations

from typing import Any

from ..data import Dataset
from ..result import SolveResult
from .base import TreeClassifier, check_int, check_real, check_warm_start

__all__ = ["MaxSATTreeClassifier", "DPTreeClassifier", "BinOCTClassifier", "OCTClassifier", "CPSATTreeClassifier"]


class DepthBoundedClassifier(TreeClassifier):
    """Most accurate tree of depth <= ``max_depth``; subclasses name the engine."""

    def __init__(self, max_depth: int = 3, binarization: str = "all", n_thresholds: int = 10,
                 time_limit: float | None = None, progress: Any = None):
        self.max_depth = max_depth
        self.binarization = binarization
        self.n_thresholds = n_thresholds
        self.time_limit = time_limit
        self.progress = progress

    def _validate_params_(self) -> None:
        check_int("max_depth", self.max_depth, 1)


class MaxSATTreeClassifier(DepthBoundedClassifier):
    """Most accurate tree of depth <= ``max_depth`` (MaxSAT over Avellaneda's clauses, RC2).

    Parameters
    ----------
    max_depth : int
    binarization, n_thresholds, time_limit, progress : see :class:`ConsistentTreeClassifier`
    """

    _method = "maxsat"

    def _solve(self, data: Dataset) -> SolveResult:
        from ..solvers import maxsat

        return maxsat.solve_max_accuracy(self._problem(data), max_depth=self.max_depth,
                                         time_limit=self._time_left(), **self._progress())


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
        check_int("max_depth", self.max_depth, 0)
        check_real("lam", self.lam, 0.0, allow_none=True)

    def _solve(self, data: Dataset) -> SolveResult:
        from ..solvers import dp

        if self.binarization == "all" and self.max_depth >= 2:  # the resource model, before binarizing
            from ..fallback import degrade_dp_data, plan_dp_data

            fit = plan_dp_data(data, self.max_depth, self._time_left())
            if fit is not None:
                return degrade_dp_data(data, self.max_depth, self.lam, self._time_left(),
                                       self._progress().get("progress"), dp.solve_dp, fit)
        return dp.solve_dp(self._problem(data), max_depth=self.max_depth, lam=self.lam,
                           time_limit=self._time_left(), **self._progress())


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
        check_int("max_depth", self.max_depth, 1)
        check_warm_start(self.warm_start)

    def _backend_kwargs(self) -> dict:
        return {} if self.backend is None else {"backend": self.backend}

    def _solve(self, data: Dataset) -> SolveResult:
        from ..solvers import mip

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
        check_real("alpha", self.alpha, 0.0)
        check_int("min_leaf", self.min_leaf, 1)

    def _solve(self, data: Dataset) -> SolveResult:
        from ..solvers import mip

        return mip.solve_oct(self._problem(data), max_depth=self.max_depth, alpha=self.alpha,
                             min_leaf=self.min_leaf, time_limit=self._time_left(), warm_start=self.warm_start,
                             **self._backend_kwargs(), **self._progress())


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
        check_real("lam", self.lam, 0.0)
        check_int("max_depth", self.max_depth, 0)
        check_int("num_workers", self.num_workers, 1, allow_none=True)
        check_warm_start(self.warm_start)

    def _solve(self, data: Dataset) -> SolveResult:
        from ..solvers import cpsat

        return cpsat.solve_regularized(self._problem(data), lam=self.lam, max_depth=self.max_depth,
                                       time_limit=self._time_left(), num_workers=self.num_workers,
                                       seed=self.seed, warm_start=self.warm_start if isinstance(self.warm_start, str)
                                       else ("cart" if self.warm_start else None), **self._progress())
