"""The peer solvers satdt is measured against, behind one adapter each (references numbered as
in ``satdt/REFERENCES.md``).

Used by :mod:`satdt.bench` (``satdt bench``), ``benchmarks/peer_run.py`` (one peer on one cell,
timed as a whole process) and ``tests/known_optima.py`` (re-verifying the table of optima). The
peers are optional packages (``pip install -e '.[peers]'``); :func:`available` lists the ones
importable here.

``pystreed``
    STreeD [10] on satdt's binarization of the rows (``all`` by default: the columns satdt
    searches). The most accurate tree at depth ``d``; with ``lam`` STreeD's cost complexity,
    charged per split and normalised by ``n`` like ``lam``: ``errors / n + lam * splits`` =
    ``errors / n + lam * leaves - lam``, the same optima as satdt's regularized objective; with
    ``max_splits`` the fewest errors with at most that many splits (then without STreeD's
    depth-two terminal solver: pystreed 1.4.0's misses trees deeper than two with at most three
    splits; on lung-cancer it reports 1 error for 3 splits at depth 3, where a 0-error tree
    exists). Proven when STreeD says so.
``pycontree``
    ConTree [3] on the raw numeric features, the most accurate tree at depth ``d``. Proven when it
    stopped before its time limit.
``gosdt``
    GOSDT [5] on satdt's binarization, ``regularization = lam`` (0.01 without), ``depth_budget = d``
    (with ``depth_budget=5`` it returns the depth-5 optima of satdt's exact engines).
``pytrees-lds``
    The anytime ConTree of pytrees-rs: limited-discrepancy search in Gini order, raw features.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .data import Dataset

__all__ = ["PEERS", "PeerFit", "available", "fit_peer"]

#: peer name -> the package it needs
PEERS = {"pystreed": "pystreed", "pycontree": "pycontree", "gosdt": "gosdt", "pytrees-lds": "pytrees"}


def _identity(X: np.ndarray) -> np.ndarray:
    return X


@dataclass
class PeerFit:
    """A fitted peer.

    ``model`` is the peer's estimator, ``inputs`` the matrix its ``fit`` saw (the original
    features, or satdt's binary columns of them), ``fit_s`` the ``fit`` call alone, ``proven``
    whether the peer proved its tree optimal (None when it does not say), ``status`` the peer's
    own word when it has one; ``predict_inputs`` predicts rows of the peer's input,
    ``to_input`` makes them from rows of the original features.
    """

    model: Any
    inputs: np.ndarray
    fit_s: float
    proven: bool | None = None
    status: Any = None
    predict_inputs: Callable[[np.ndarray], np.ndarray] | None = field(default=None, repr=False)
    to_input: Callable[[np.ndarray], np.ndarray] = field(default=_identity, repr=False)

    def __post_init__(self) -> None:
        if self.predict_inputs is None:
            self.predict_inputs = self.model.predict

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Predictions on rows of the original features (binarized first for a binary peer, with
        the columns fitted on the training rows)."""
        return np.asarray(self.predict_inputs(self.to_input(X)))

    def training_predictions(self) -> np.ndarray:
        """Predictions on the training rows (from the input the peer saw: no second binarization)."""
        return np.asarray(self.predict_inputs(self.inputs))


def available() -> list[str]:
    """The peers whose package imports here, in :data:`PEERS` order."""
    import importlib

    found = []
    for name, package in PEERS.items():
        try:
            importlib.import_module(package)
        except ImportError:
            continue
        found.append(name)
    return found


def fit_peer(name: str, data: Dataset, *, max_depth: int, lam: float | None = None, time_limit: float = 600,
             max_splits: int | None = None, binarization: str = "all") -> PeerFit:
    """Fit the peer ``name`` (one of :data:`PEERS`) on ``data`` (see the module doc for what each
    optimizes). ImportError when its package is missing, ValueError for an unknown name."""
    if name not in PEERS:
        raise ValueError(f"unknown peer {name!r}; choose one of {', '.join(PEERS)}")
    to_input = _identity
    if name in ("pystreed", "gosdt"):  # binary input: satdt's columns
        from .binarize import Binarizer

        columns = Binarizer(binarization).fit(data)

        def to_input(X: np.ndarray) -> np.ndarray:
            return columns.transform(X).astype(np.int32)

    X = to_input(data.X)
    if name == "pystreed":
        from pystreed import STreeDClassifier

        # cost_complexity is read only by the "cost-complex-accuracy" task (ignored by "accuracy")
        model = STreeDClassifier(optimization_task="cost-complex-accuracy" if lam else "accuracy",
                                 max_depth=max_depth, max_num_nodes=max_splits, cost_complexity=lam or 0.0,
                                 time_limit=time_limit, use_terminal_solver=max_splits is None)
        fit_s = _timed_fit(model, X, data.y)
        return PeerFit(model, X, fit_s, bool(model.fit_result.is_optimal()), to_input=to_input)
    if name == "gosdt":
        from gosdt import GOSDTClassifier

        model = GOSDTClassifier(regularization=0.01 if lam is None else lam, depth_budget=max_depth,
                                allow_small_reg=True, time_limit=int(time_limit))
        fit_s = _timed_fit(model, X, data.y)
        # GOSDTClassifier.predict calls check_array(force_all_finite=...), gone from scikit-learn
        # 1.8; its extracted tree predicts directly
        return PeerFit(model, X, fit_s, predict_inputs=model.trees_[0].predict, to_input=to_input)
    if name == "pycontree":
        from pycontree import ConTree

        model = ConTree(max_depth=max_depth, time_limit=time_limit)
        fit_s = _timed_fit(model, X, data.y)
        return PeerFit(model, X, fit_s, fit_s < 0.99 * time_limit)  # stopped by its limit: no proof
    from pytrees import ConTreeClassifier

    model = ConTreeClassifier(max_depth=max_depth, max_time=time_limit, use_lds=True, sort_by_heuristic=True)
    fit_s = _timed_fit(model, X, data.y)
    return PeerFit(model, X, fit_s, status=getattr(model, "status_", None))


def _timed_fit(model: Any, X: np.ndarray, y: np.ndarray) -> float:
    start = time.perf_counter()
    model.fit(X, y)
    return time.perf_counter() - start
