"""The method registry: one :class:`MethodSpec` per method name of ``satdt solve --method``, read
by the one fit path, :func:`satdt.fit.fit_problem`.

Each spec says what the method optimizes, which engine answers it (the solve function, imported
only when a method runs), which estimator class wraps it, which options apply to it and their
defaults, and the depth bounds it accepts. Every reader takes it from here: the command line
(refusing an option that does not apply, before any heavy import; ``satdt solve`` itself fits
through :func:`satdt.fit.fit_problem`), the estimators (``satdt.estimators.METHODS`` and
``make_estimator``, and each estimator's ``fit``, which ends in :func:`satdt.fit.fit_problem`),
``satdt.verify``, ``satdt.select``, ``satdt.bench`` and the engine choice
(``satdt.solvers.engine_choice``). A new method is a new spec here, its engine, its estimator class
(exported by :mod:`satdt.estimators`; an existing one may serve) and its tests.

Standard library only: ``import satdt.methods`` loads no engine, no numpy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["MethodSpec", "METHODS", "OPTIONS", "WEIGHT_OPTIONS", "spec", "methods_taking", "option_errors",
           "result_objective", "engine_function"]


#: the options of ``satdt solve`` that apply to some methods only: argparse ``dest`` -> flag
OPTIONS = {
    "max_depth": "--max-depth", "lam": "--lam", "alpha": "--alpha", "cart_depth": "--cart-depth",
    "binarization": "--binarization", "n_thresholds": "--n-thresholds", "solver": "--solver",
    "engine": "--engine", "min_leaf": "--min-leaf", "warm_start": "--warm-start", "n_jobs": "--n-jobs",
    "class_weight": "--class-weight", "objective": "--objective", "costs": "--costs",
}

#: the weighted-objective options (``--class-weight``, ``--objective``, ``--costs``): estimator
#: parameters of the methods whose spec lists them
WEIGHT_OPTIONS = ("class_weight", "objective", "costs")

_BINARIZED = ("max_depth", "binarization", "n_thresholds")


@dataclass(frozen=True)
class MethodSpec:
    """What one method is, for every caller.

    Attributes
    ----------
    name : str
        The ``--method`` name.
    objective : str
        What it optimizes: ``"depth"``, ``"nodes"``, ``"errors"``, ``"regularized"`` (errors / n +
        lam * leaves, or + alpha * splits for oct), ``"dpdt"`` or ``"heuristic"``.
    exact : bool
        True when the method proves optimality (OPTIMAL needs its engine's proof).
    options : frozenset of str
        The ``OPTIONS`` keys (and ``WEIGHT_OPTIONS``) that apply to it.
    default_depth : int or None
        Its depth bound when ``--max-depth`` is not given (None: none, or found by the method).
    min_depth : int
        The smallest ``--max-depth`` it accepts.
    defaults : dict
        Its defaults for the options it takes, as the estimator applies them.
    estimator : str
        The class name in :mod:`satdt.estimators` that fits it.
    engine : str
        Its solve function, ``"module:function"``, imported when the method runs
        (:func:`engine_function`); it takes ``time_limit`` (seconds or a ``Deadline``).
    engine_args : dict
        Arguments the method fixes for its engine (``objective="depth"`` for sat-depth).
    params : dict
        Option -> estimator parameter where the names differ (``solver`` -> ``backend``).
    fixed : dict
        Estimator parameters the method fixes (``objective="depth"`` for sat-depth).
    binarized : bool
        Its engine reads a ``BinaryProblem`` (False: the ``Dataset`` itself).
    result_objective : str
        ``SolveResult.objective_name`` of its exact results and of the answer made without its
        engine (the time limit struck first: the majority leaf, or no tree for ``depth`` /
        ``nodes``); ``"errors"`` for dp becomes ``"regularized"`` with ``lam``
        (:func:`result_objective`). A heuristic may name its own objective (ADAPTTREE0:
        ``"splits"``).
    engines : tuple of str
        The values of ``--engine`` it takes (empty: no engine choice).
    light : bool
        Its engine and the binarization load no scikit-learn, pandas or OR-tools: ``satdt solve``
        fits it on a plain CSV without the estimators (the command's fast start).
    """

    name: str
    objective: str
    exact: bool
    options: frozenset
    default_depth: int | None
    min_depth: int = 0
    defaults: dict = field(default_factory=dict)
    estimator: str = ""
    engine: str = ""
    engine_args: dict = field(default_factory=dict)
    params: dict = field(default_factory=dict)
    fixed: dict = field(default_factory=dict)
    binarized: bool = True
    result_objective: str = "errors"
    engines: tuple = ()
    light: bool = False

    @property
    def engine_module(self) -> str:
        """The module of its engine (imported only when the method runs)."""
        return self.engine.partition(":")[0]


def _spec(name: str, objective: str, exact: bool, options: tuple, default_depth: int | None,
          min_depth: int = 0, *, how: dict, **defaults: object) -> MethodSpec:
    return MethodSpec(name, objective, exact, frozenset(options), default_depth, min_depth, dict(defaults), **how)


_CONSISTENT = ("auto", "sat", "dp")
_WEIGHTED = (*_BINARIZED, *WEIGHT_OPTIONS)

METHODS: dict[str, MethodSpec] = {s.name: s for s in (
    _spec("sat-depth", "depth", True, (*_BINARIZED, "solver", "engine"), None, engine="auto",
          how=dict(estimator="ConsistentTreeClassifier", engine="satdt.solvers.engine_choice:solve_consistent",
                   engine_args={"objective": "depth"}, fixed={"objective": "depth"}, result_objective="depth",
                   engines=_CONSISTENT, light=True)),
    _spec("sat-size", "nodes", True, (*_BINARIZED, "solver", "engine"), None, engine="auto",
          how=dict(estimator="ConsistentTreeClassifier", engine="satdt.solvers.engine_choice:solve_consistent",
                   engine_args={"objective": "size"}, fixed={"objective": "size"}, result_objective="nodes",
                   engines=_CONSISTENT, light=True)),
    _spec("maxsat", "errors", True, _WEIGHTED, 3, min_depth=1,
          how=dict(estimator="MaxSATTreeClassifier", engine="satdt.solvers.maxsat:solve_max_accuracy")),
    _spec("dp", "errors", True, (*_WEIGHTED, "lam", "n_jobs"), 3, lam=None, n_jobs=None,
          how=dict(estimator="DPTreeClassifier", engine="satdt.solvers.dp:solve_dp", light=True)),
    _spec("binoct", "errors", True, (*_WEIGHTED, "solver", "warm_start"), 2, min_depth=1, warm_start="cart",
          how=dict(estimator="BinOCTClassifier", engine="satdt.solvers.mip:solve_binoct",
                   params={"solver": "backend"})),
    _spec("oct", "regularized", True, (*_WEIGHTED, "solver", "warm_start", "alpha", "min_leaf"), 2,
          min_depth=1, warm_start="cart", alpha=0.0,
          how=dict(estimator="OCTClassifier", engine="satdt.solvers.mip:solve_oct", params={"solver": "backend"})),
    _spec("cpsat", "regularized", True, (*_WEIGHTED, "lam", "warm_start"), 5, lam=0.01, warm_start="cart",
          how=dict(estimator="CPSATTreeClassifier", engine="satdt.solvers.cpsat:solve_regularized",
                   result_objective="regularized")),
    _spec("dpdt", "dpdt", False, ("max_depth", "alpha", "cart_depth"), 3, min_depth=1,
          how=dict(estimator="DPDTClassifier", engine="satdt.heuristics.dpdt:solve_dpdt", binarized=False,
                   result_objective="dpdt")),
    _spec("adapttree", "heuristic", False, _BINARIZED, None,
          how=dict(estimator="AdaptTreeClassifier", engine="satdt.heuristics.rl.adapttree:solve_adapttree")),
    _spec("rdt", "heuristic", False, _BINARIZED, 3, min_depth=1,
          how=dict(estimator="RDTClassifier", engine="satdt.heuristics.rl.rdt:solve_rdt",
                   params={"max_depth": "depth"})),
)}


def spec(method: str) -> MethodSpec:
    """The spec of ``method`` (ValueError naming the methods when unknown)."""
    try:
        return METHODS[method]
    except KeyError:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}") from None


def methods_taking(option: str) -> list[str]:
    """The methods ``option`` (an ``OPTIONS`` key) applies to, in registry order."""
    return [name for name, s in METHODS.items() if option in s.options]


def option_errors(method: str, given: dict[str, object]) -> list[str]:
    """Why the options ``given`` (``OPTIONS`` key -> value, only those the user set) do not fit
    ``method``: one message per problem, empty when they all apply.

    >>> option_errors("dp", {"alpha": 0.1})
    ['--alpha does not apply to dp (it applies to: oct, dpdt)']
    >>> option_errors("dp", {"max_depth": 3, "lam": 0.01})
    []
    """
    s = spec(method)
    errors = []
    for key, value in given.items():
        if value is None or key not in OPTIONS:
            continue
        if key not in s.options:
            errors.append(f"{OPTIONS[key]} does not apply to {method} (it applies to: "
                          f"{', '.join(methods_taking(key))})")
    depth = given.get("max_depth")
    if isinstance(depth, int) and "max_depth" in s.options and depth < s.min_depth:
        errors.append(f"--max-depth {depth}: {method} needs a depth of at least {s.min_depth}")
    if given.get("n_thresholds") is not None and "n_thresholds" in s.options \
            and given.get("binarization") in (None, "all"):
        errors.append("--n-thresholds applies to --binarization quantile or tree only (all: every midpoint)")
    return errors


def result_objective(method: "str | MethodSpec", lam: float | None = None) -> str:
    """``SolveResult.objective_name`` of ``method``'s results (dp with a ``lam``: ``"regularized"``)."""
    s = method if isinstance(method, MethodSpec) else spec(method)
    if s.name == "dp" and lam is not None:
        return "regularized"
    return s.result_objective


def engine_function(method: "str | MethodSpec") -> Callable[..., Any]:
    """The solve function of ``method``'s engine, imported now."""
    import importlib

    s = method if isinstance(method, MethodSpec) else spec(method)
    return getattr(importlib.import_module(s.engine_module), s.engine.partition(":")[2])
