"""The estimators of the heuristic comparators: DPDT (a Pareto front by dynamic programming over
CART's tests), ADAPTTREE0 and Reinforced Decision Trees (reinforcement learning)."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ..result import NoTreeFoundError
from .base import TreeClassifier, check_int, check_random_state, check_real

__all__ = ["DPDTClassifier", "AdaptTreeClassifier", "RDTClassifier"]


class DPDTClassifier(TreeClassifier):
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
    class_weight : None, "balanced" or dict
        As in scikit-learn; with ``sample_weight``, the product must be a whole number per row.
    missing : {"learn", "error"}
        As :class:`~satdt.estimators.DPTreeClassifier`: NaN in numeric features is searched with
        both directions at every test (``"error"``: NaN is an error).

    Notes
    -----
    ``fit(X, y, sample_weight)``: a heuristic over unweighted rows, so whole-number weights
    (``sample_weight`` x ``class_weight``) are read as repeated rows (a weight of 2 is the row
    twice; zero drops the row), and other weights are refused with a one-line ValueError. With
    missing values, ``tree_`` tests the original features (with ``missing_left``); the trees of
    the front (``trees_``) stay over the two internal copies of each such feature.
    """

    _uses_binarizer = False
    _weight_mode = "repeat"
    _method = "dpdt"
    _objective_name = "dpdt"

    def __init__(self, max_depth: int = 3, cart_depth: int | list = 5, alphas: Any = None, alpha: float = 0.0,
                 generator: str = "hybrid", exact_last: bool = True, max_states: int = 1_000_000,
                 random_state: int = 0, time_limit: float | None = None, progress: Any = None,
                 class_weight: Any = None, missing: str = "learn"):
        self.class_weight = class_weight
        self.missing = missing
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
        check_int("max_depth", self.max_depth, 0)
        check_real("alpha", self.alpha, 0.0)
        check_int("max_states", self.max_states, 1)

    def _engine_options(self) -> dict:
        return dict(max_depth=self.max_depth, cart_depth=self.cart_depth, alphas=self.alphas, alpha=self.alpha,
                    generator=self.generator, exact_last=self.exact_last, max_states=self.max_states,
                    random_state=self.random_state, **self._progress())

    def _keep_outcome(self, out: Any) -> None:
        self.dpdt_result_ = out
        self.pareto_front_ = out.pareto_front
        self.pareto_front_nodes_ = out.pareto_front_nodes
        self.trees_ = out.trees


class AdaptTreeClassifier(TreeClassifier):
    """ADAPTTREE0 (Preda): a tree built by linear SARSA over splitting criteria; a heuristic.

    States are partitions of the training rows, an action splits one part by one attribute (a
    numeric threshold ``x <= t`` of the binarization, or a multiway feature split by every value,
    as in ID3, encoded in ``tree_`` as a chain of binary tests), the reward is minus the
    attribute's cost per test (:mod:`satdt.heuristics.rl.adapttree`). The tree kept is the best one
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
    class_weight : None, "balanced" or dict
        As in scikit-learn; with ``sample_weight``, the product must be a whole number per row.
    missing : {"learn", "error"}
        As :class:`~satdt.estimators.DPTreeClassifier`: NaN in numeric features is searched with
        both directions at every test (``"error"``: NaN is an error).

    Attributes
    ----------
    learning_curve_ : list of int
        Tests of the tree of each episode.
    adapttree_result_ : satdt.heuristics.rl.adapttree.AdaptTreeResult

    Notes
    -----
    ``fit(X, y, sample_weight)``: a heuristic over unweighted rows, so whole-number weights
    (``sample_weight`` x ``class_weight``) are read as repeated rows (a weight of 2 is the row
    twice; zero drops the row), and other weights are refused with a one-line ValueError.
    """

    _weight_mode = "repeat"
    _method = "adapttree"

    def __init__(self, n_episodes: int = 100, max_depth: int | None = None, costs: Any = None,
                 gamma: float = 0.9, n_layers: int = 32, memory: int = 512, resolution: int = 2,
                 error_cost: float = 1.0, multiway: str = "categorical", max_arity: int = 10,
                 binarization: str = "all", n_thresholds: int = 10,
                 random_state: int | None = 0, time_limit: float | None = None,
                 class_weight: Any = None, missing: str = "learn"):
        self.class_weight = class_weight
        self.missing = missing
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
        check_int("n_episodes", self.n_episodes, 1)
        check_int("max_depth", self.max_depth, 0, allow_none=True)
        check_real("gamma", self.gamma, 0.0, 1.0)
        check_int("n_layers", self.n_layers, 1)
        check_int("memory", self.memory, 1)
        check_int("resolution", self.resolution, 1)
        check_real("error_cost", self.error_cost, 0.0)
        check_int("max_arity", self.max_arity, 2)
        if self.multiway not in ("categorical", "discrete", "none"):
            raise ValueError(f"multiway must be 'categorical', 'discrete' or 'none', got {self.multiway!r}")
        check_random_state(self.random_state)

    def _engine_options(self) -> dict:
        return dict(n_episodes=self.n_episodes, gamma=self.gamma, n_layers=self.n_layers, memory=self.memory,
                    resolution=self.resolution, costs=self._engine_costs(), max_depth=self.max_depth,
                    error_cost=self.error_cost, multiway=self.multiway, max_arity=self.max_arity,
                    random_state=self.random_state)

    def _engine_costs(self) -> np.ndarray | None:
        """``costs`` per feature the engine sees: checked against the user's features, then
        repeated for the two copies of a feature with missing values (:mod:`satdt.missing`)."""
        if self.costs is None:
            return None
        from ..heuristics.rl.adapttree.attributes import check_feature_costs

        per_feature = check_feature_costs(self.costs, self.n_features_in_)
        if self.missing_map_ is None:
            return per_feature
        return per_feature[[j for j, _ in self.missing_map_.source]]

    def _keep_outcome(self, out: Any) -> None:
        self.adapttree_result_ = out
        self.learning_curve_ = [row["splits"] for row in out.curve]


class RDTClassifier(TreeClassifier):
    """Reinforced Decision Trees (Léon & Denoyer): stochastic node policies, policy gradient.

    With ``axis_aligned=True`` (default) each node's policy chooses among the binarization's
    tests and is hardened to its likeliest test after training: ``tree_`` is a satdt tree of
    depth ``<= depth`` (leaves relabelled with their majority class). With
    ``axis_aligned=False`` it is the paper's model (softmax-linear policies over ``width``
    children, leaf score vectors): ``tree_`` is None, ``model_`` predicts by the most likely path
    (or the expected scores, ``prediction="expected"``) and ``predict_proba`` is one-hot on that
    prediction. See :mod:`satdt.heuristics.rl.rdt`. Status is always FEASIBLE.

    Parameters
    ----------
    width, depth : int
        Children per node (2 for the axis-aligned variant) and levels.
    axis_aligned : bool
    n_samples : int
        Monte-Carlo trajectories per example (M).
    epochs, lr_policy, lr_leaf, batch_size, baseline : None or value
        None: the variant's default (:func:`satdt.heuristics.rl.rdt.solve_rdt`); ``baseline`` may
        also be ``"loo"`` (softmax-linear variant: leave-one-out over the M trajectories).
    loss : {"squared", "hinge"}
    prediction : {"path", "expected"}
    random_leaves : bool or "balanced"
        The Random Trees baseline (softmax-linear variant).
    binarization, n_thresholds, time_limit : see :class:`ConsistentTreeClassifier`
    random_state : int or None
    class_weight : None, "balanced" or dict
        As in scikit-learn; with ``sample_weight``, the product must be a whole number per row.
    missing : {"learn", "error"}
        As :class:`~satdt.estimators.DPTreeClassifier`: NaN in numeric features is searched with
        both directions at every test (``"error"``: NaN is an error). With
        ``axis_aligned=False`` missing values are always an error (linear nodes read every feature).

    Notes
    -----
    ``fit(X, y, sample_weight)``: a heuristic over unweighted rows, so whole-number weights
    (``sample_weight`` x ``class_weight``) are read as repeated rows (a weight of 2 is the row
    twice; zero drops the row), and other weights are refused with a one-line ValueError.
    """

    _weight_mode = "repeat"
    _method = "rdt"

    def __init__(self, width: int = 2, depth: int = 3, axis_aligned: bool = True, n_samples: int = 10,
                 epochs: int | None = None, lr_policy: float | None = None, lr_leaf: float | None = None,
                 batch_size: int | None = None, loss: str = "squared", prediction: str = "path",
                 baseline: bool | None = None, random_leaves: bool = False, binarization: str = "all",
                 n_thresholds: int = 10, random_state: int | None = 0, time_limit: float | None = None,
                 class_weight: Any = None, missing: str = "learn"):
        self.class_weight = class_weight
        self.missing = missing
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
        check_int("width", self.width, 2)
        check_int("depth", self.depth, 1)
        check_int("n_samples", self.n_samples, 1)
        check_int("epochs", self.epochs, 1, allow_none=True)
        check_int("batch_size", self.batch_size, 1, allow_none=True)
        check_real("lr_policy", self.lr_policy, 0.0, allow_none=True, strict=True)
        check_real("lr_leaf", self.lr_leaf, 0.0, allow_none=True, strict=True)
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
        check_random_state(self.random_state)

    @property
    def _missing_mode(self) -> str:   # the linear nodes read every feature: no missing values
        return self.missing if self.axis_aligned else "error"

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "RDTClassifier":
        self.model_ = None
        try:
            return super().fit(X, y, sample_weight)
        except NoTreeFoundError:
            if self.model_ is None:        # the softmax-linear model has no satdt tree: expected
                raise
            self.tree_ = None
            return self

    def _fit_binarizer(self) -> Any:
        return self._binarizer() if self.axis_aligned else False  # linear nodes read the data itself

    def _engine_options(self) -> dict:
        return dict(width=self.width, depth=self.depth, axis_aligned=bool(self.axis_aligned),
                    n_samples=self.n_samples, epochs=self.epochs, lr_policy=self.lr_policy, lr_leaf=self.lr_leaf,
                    batch_size=self.batch_size, loss=self.loss, predict=self.prediction, baseline=self.baseline,
                    random_leaves=self.random_leaves, random_state=self.random_state)

    def _keep_outcome(self, out: Any) -> None:
        if not self.axis_aligned:
            self.model_ = out[1]

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

    def to_sklearn(self, X: Any = None, y: Any = None, sample_weight: Any = None) -> Any:
        check_is_fitted(self, "tree_")
        if self.tree_ is None:
            raise ValueError("the softmax-linear RDT (axis_aligned=False) has no axis-aligned tree")
        return super().to_sklearn(X, y, sample_weight)
