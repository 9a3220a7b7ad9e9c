"""scikit-learn classifiers: validate -> binarize -> solver -> store ``tree_``.

Each estimator only wires: parameters are stored unchanged in ``__init__``, checked in ``fit``;
fitted attributes end in ``_``. After ``fit``: ``tree_`` (a :class:`satdt.tree.Tree` in the
original features), ``result_`` (the :class:`satdt.result.SolveResult`), ``classes_``,
``n_features_in_``, ``feature_names_in_`` (when ``X`` had string column names), ``binarizer_``.

One module a family, every public name importable from here: :mod:`.base` (the shared
plumbing), :mod:`.consistent` (DT_depth / DT_size), :mod:`.exact` (MaxSAT, DP, BinOCT, OCT,
CP-SAT), :mod:`.heuristic` (DPDT, ADAPTTREE0, RDT); :data:`METHODS` and :func:`make_estimator`
map the CLI's method names to them.
"""

from __future__ import annotations

from typing import Any

from ..result import InfeasibleError, NoTreeFoundError  # (defined there: the CLI catches them without scikit-learn)
from .base import TreeClassifier
from .consistent import ConsistentTreeClassifier, SATTreeClassifier
from .exact import (BinOCTClassifier, CPSATTreeClassifier, DepthBoundedClassifier, DPTreeClassifier,
                    MaxSATTreeClassifier, OCTClassifier)
from .heuristic import AdaptTreeClassifier, DPDTClassifier, RDTClassifier

__all__ = ["make_estimator", "METHODS", "ConsistentTreeClassifier", "SATTreeClassifier", "MaxSATTreeClassifier",
           "DPTreeClassifier", "BinOCTClassifier", "OCTClassifier", "CPSATTreeClassifier", "DPDTClassifier",
           "AdaptTreeClassifier", "RDTClassifier", "NoTreeFoundError", "InfeasibleError"]

# the base classes' names before this module became a package (for subclasses outside satdt)
_TreeClassifier, _DepthBoundedClassifier = TreeClassifier, DepthBoundedClassifier

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
    "adapttree": (AdaptTreeClassifier, None),
    "rdt": (RDTClassifier, 3),
}


def make_estimator(method: str, *, max_depth: int | None = None, lam: float | None = None,
                   alpha: float | None = None, cart_depth: int | list | None = None,
                   binarization: str = "all", n_thresholds: int = 10, solver: str | None = None,
                   time_limit: float | None = None, engine: str | None = None,
                   warm_start: str | None = None, min_leaf: int | None = None,
                   progress: Any = None, class_weight: Any = None, objective: str | None = None,
                   costs: Any = None, missing: str | None = None, n_jobs: int | None = None) -> TreeClassifier:
    """The estimator of a method name, with the options that apply to it (None: its default).

    ``solver`` is the SAT backend of ``sat-*`` and the MIP backend of ``binoct``/``oct``;
    ``alpha`` is OCT's penalty per split and DPDT's penalty per test; ``engine`` ("auto", "sat" or
    "dp") answers ``sat-*`` by the measured choice, by SAT or by the dynamic program; ``warm_start`` ("cart", "dpdt" or
    "none") is the starting tree of ``binoct``, ``oct`` and ``cpsat``; ``min_leaf`` is OCT's N_min;
    ``progress`` is the progress callback of the methods whose engines report it;
    ``class_weight``, ``objective`` ("accuracy" or "balanced_accuracy") and ``costs`` (a k x k
    matrix) apply to the exact accuracy methods (maxsat, dp, binoct, oct, cpsat); ``missing``
    ("learn" or "error") to every method; ``n_jobs`` (threads) to dp.
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
    if n_jobs is not None:
        if cls is not DPTreeClassifier:
            raise ValueError(f"n jobs applies to dp only, not to '{method}'")
        kwargs["n_jobs"] = n_jobs
    if cls in (CPSATTreeClassifier, DPTreeClassifier) and lam is not None:
        kwargs["lam"] = lam
    if cls in (OCTClassifier, DPDTClassifier) and alpha is not None:
        kwargs["alpha"] = alpha
    if cls is DPDTClassifier and cart_depth is not None:
        kwargs["cart_depth"] = cart_depth
    weighted = {"class_weight": class_weight, "objective": objective, "costs": costs}
    for name, value in weighted.items():
        if value is None:
            continue
        if cls not in (MaxSATTreeClassifier, DPTreeClassifier, BinOCTClassifier, OCTClassifier, CPSATTreeClassifier):
            raise ValueError(f"{name.replace('_', ' ')} applies to maxsat, dp, binoct, oct and cpsat only, "
                             f"not to '{method}'")
        kwargs[name] = value
    if missing is not None:
        kwargs["missing"] = missing
    if progress is not None and "progress" in cls().get_params():
        kwargs["progress"] = progress
    if cls is RDTClassifier:  # its depth parameter is `depth` (width x depth, as in the paper)
        kwargs["depth"] = kwargs.pop("max_depth")
    return cls(**kwargs)
