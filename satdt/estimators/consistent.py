"""The consistent-tree estimator (DT_depth / DT_size [6]), answered by SAT or the dynamic program,
and its deprecated name. References are numbered as in ``satdt/REFERENCES.md``."""

from __future__ import annotations

from typing import Any

from .base import TreeClassifier, check_int

__all__ = ["ConsistentTreeClassifier", "SATTreeClassifier"]


class ConsistentTreeClassifier(TreeClassifier):
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
        ``"auto"`` (default): the engine :func:`satdt.solvers.engine_choice.choose_engine` picks by
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
    class_weight : None, "balanced" or dict
        Accepted for scikit-learn compatibility and ignored: a consistent tree makes no error,
        whatever the weights (a dict is still checked: classes of ``y``, weights >= 0).
    missing : {"learn", "error"}
        As :class:`~satdt.estimators.DPTreeClassifier`: NaN in numeric features is searched with
        both directions at every test (``"error"``: NaN is an error).

    proof : str or None
        An absent or empty directory: an OPTIMAL fit writes there a certificate (minimal witness
        rows, in ``result_.stats["witness_rows"]``, and a DRUP proof) that ``satdt check``
        verifies (:mod:`satdt.proof`; ``binarization="all"``; numeric and categorical features, a
        categorical one as one test per category). Producing it gets ``time_limit`` again; past
        it the fit stands, with a RuntimeWarning and no certificate.

    Notes
    -----
    ``fit(X, y, sample_weight)``: the question (smallest tree with no training error) does not
    depend on positive weights, so they do not change the optimum, by definition (they reach the
    engine as row counts, as repeated rows would, and only break ties among optimal trees); rows
    of weight zero are dropped (scikit-learn semantics), so they need not be classified correctly.
    """

    _weight_mode = "consistent"

    def __init__(self, objective: str = "depth", max_depth: int | None = None, binarization: str = "all",
                 n_thresholds: int = 10, solver: str = "glucose4", time_limit: float | None = None,
                 incremental: bool = True, rows_per_round: int | None = None, engine: str = "auto",
                 progress: Any = None, class_weight: Any = None, missing: str = "learn",
                 proof: str | None = None):
        self.class_weight = class_weight
        self.missing = missing
        self.proof = proof
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
        check_int("max_depth", self.max_depth, 0, allow_none=True)
        check_int("rows_per_round", self.rows_per_round, 1, allow_none=True)
        if self.engine not in ("auto", "sat", "dp"):
            raise ValueError(f"engine must be 'auto', 'sat' or 'dp', got {self.engine!r}")

    def _engine_options(self) -> dict:
        return dict(engine=self.engine, max_depth=self.max_depth, sat_options=self._sat_options(),
                    **self._progress())

    @property
    def _objective_name(self) -> str:
        return "depth" if self.objective == "depth" else "nodes"

    @property
    def accuracy_objective(self) -> str:
        return "accuracy"      # ``objective`` here is "depth" or "size"

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

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "SATTreeClassifier":
        import warnings

        warnings.warn("SATTreeClassifier is deprecated and will be removed in the next release; use "
                      "ConsistentTreeClassifier (same parameters)", FutureWarning, stacklevel=2)
        return super().fit(X, y, sample_weight)
