"""scikit-learn classifiers: validate -> binarize -> solver -> store ``tree_``.

Each estimator only wires: parameters are stored unchanged in ``__init__``, checked in ``fit``;
fitted attributes end in ``_``. After ``fit``: ``tree_`` (a :class:`satdt.tree.Tree` in the
original features), ``result_`` (the :class:`satdt.result.SolveResult`), ``classes_``,
``n_features_in_``, ``feature_names_in_`` (when ``X`` had string column names), ``binarizer_``.

One module a family, every public name importable from here: :mod:`.base` (the shared
plumbing), :mod:`.consistent` (DT_depth / DT_size), :mod:`.exact` (MaxSAT, DP, BinOCT, OCT,
CP-SAT), :mod:`.heuristic` (DPDT, ADAPTTREE0, RDT); :data:`METHODS` and :func:`make_estimator`
map the CLI's method names to them, read from the method registry (:mod:`satdt.methods`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..result import InfeasibleError, NoTreeFoundError  # (defined there: the CLI catches them without scikit-learn)
from .base import TreeClassifier
from .consistent import ConsistentTreeClassifier, SATTreeClassifier
from .exact import (BinOCTClassifier, CPSATTreeClassifier, DepthBoundedClassifier, DPTreeClassifier,
                    MaxSATTreeClassifier, OCTClassifier)
from .heuristic import AdaptTreeClassifier, DPDTClassifier, RDTClassifier
from .. import methods as _registry

__all__ = ["make_estimator", "METHODS", "ConsistentTreeClassifier", "SATTreeClassifier", "MaxSATTreeClassifier",
           "DPTreeClassifier", "BinOCTClassifier", "OCTClassifier", "CPSATTreeClassifier", "DPDTClassifier",
           "AdaptTreeClassifier", "RDTClassifier", "NoTreeFoundError", "InfeasibleError"]

# the base classes' names before this module became a package (for subclasses outside satdt)
_TreeClassifier, _DepthBoundedClassifier = TreeClassifier, DepthBoundedClassifier

def _human(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


class _EstimatorTable(Mapping):
    """Method name (CLI ``--method``) -> (estimator class, default max_depth), read from the
    registry (:data:`satdt.methods.METHODS`) at each look-up: a spec added there is here too."""

    def __getitem__(self, method: str) -> tuple[type, int | None]:
        spec = _registry.METHODS[method]
        return globals()[spec.estimator], spec.default_depth

    def __iter__(self) -> Iterator[str]:
        return iter(_registry.METHODS)

    def __len__(self) -> int:
        return len(_registry.METHODS)

    def __repr__(self) -> str:
        return repr(dict(self))


#: method name (CLI ``--method``) -> (estimator class, default max_depth), from the registry
METHODS: Mapping[str, tuple[type, int | None]] = _EstimatorTable()

# options make_estimator refuses for a method that does not take them (the others are ignored
# there, as the CLI's parser refuses them first): option -> its name in the message
_REFUSED = {"engine": "engine", "min_leaf": "min leaf", "warm_start": "warm start", "class_weight": "class weight",
            "objective": "objective", "costs": "costs", "n_jobs": "n jobs"}


def make_estimator(method: str, *, max_depth: int | None = None, lam: float | None = None,
                   alpha: float | None = None, cart_depth: int | list | None = None,
                   binarization: str = "all", n_thresholds: int = 10, solver: str | None = None,
                   time_limit: float | None = None, engine: str | None = None,
                   warm_start: str | None = None, min_leaf: int | None = None,
                   progress: Any = None, class_weight: Any = None, objective: str | None = None,
                   costs: Any = None, missing: str | None = None, n_jobs: int | None = None) -> TreeClassifier:
    """The estimator of a method name, with the options that apply to it (None: its default).

    Read from the method's spec in :mod:`satdt.methods` (its estimator class, the options it
    takes, their parameter names). ``solver`` is the SAT backend of ``sat-*`` and the MIP backend
    of ``binoct``/``oct``; ``alpha`` is OCT's penalty per split and DPDT's penalty per test;
    ``engine`` ("auto", "sat" or "dp") answers ``sat-*`` by the measured choice, by SAT or by the
    dynamic program; ``warm_start`` ("cart", "dpdt" or "none") is the starting tree of ``binoct``,
    ``oct`` and ``cpsat``; ``min_leaf`` is OCT's N_min; ``progress`` is the progress callback of
    the methods whose engines report it; ``class_weight``, ``objective`` ("accuracy" or
    "balanced_accuracy") and ``costs`` (a k x k matrix) apply to the exact accuracy methods
    (maxsat, dp, binoct, oct, cpsat); ``missing`` ("learn" or "error") to every method;
    ``n_jobs`` (threads of the compiled core) to dp.
    ``time_limit`` may be a :class:`satdt.deadline.Deadline` (the caller's clock).
    """
    spec = _registry.spec(method)
    cls = METHODS[method][0]
    given = {"max_depth": max_depth, "lam": lam, "alpha": alpha, "cart_depth": cart_depth,
             "binarization": binarization, "n_thresholds": n_thresholds, "solver": solver or None,
             "engine": engine, "min_leaf": min_leaf, "warm_start": warm_start, "class_weight": class_weight,
             "objective": objective, "costs": costs, "n_jobs": n_jobs}
    for option, value in given.items():
        if value is not None and option in _REFUSED and option not in spec.options:
            if option == "engine":
                raise ValueError(f"engine applies to sat-depth and sat-size only, not to '{method}'")
            raise ValueError(f"{_REFUSED[option]} applies to {_human(_registry.methods_taking(option))} only, "
                             f"not to '{method}'")
    if warm_start is not None and warm_start not in ("cart", "dpdt", "none"):
        raise ValueError(f"warm start must be cart, dpdt or none, got {warm_start!r}")
    given["max_depth"] = spec.default_depth if max_depth is None else max_depth
    if warm_start == "none":
        given["warm_start"] = False
    kwargs: dict[str, Any] = {"time_limit": time_limit, **spec.fixed}
    for option, value in given.items():
        if option in spec.options and (value is not None or option == "max_depth"):
            kwargs[spec.params.get(option, option)] = value
    if missing is not None:
        kwargs["missing"] = missing
    if progress is not None and "progress" in cls().get_params():
        kwargs["progress"] = progress
    return cls(**kwargs)
