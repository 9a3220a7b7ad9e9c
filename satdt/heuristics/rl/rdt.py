"""Reinforced Decision Trees (A. Léon, L. Denoyer, 2015): trees of stochastic policies trained by
policy gradient; the Random Trees baseline; an axis-aligned variant whose trees are satdt trees.

The model
---------
A complete tree of width ``W`` (children per internal node) and depth ``D`` (``W**D`` leaves).
Internal node ``i`` has a stochastic policy over its children, a softmax of a linear function of
the input, ``pi_i(c | x) = softmax(Theta_i x~)_c`` with ``x~ = (standardized x, 1)``; leaf ``l``
holds a score vector ``alpha_l`` in ``R^C``. A *trajectory* goes from the root to a leaf, each
node sampling a child from its policy; the prediction of that trajectory is its leaf's scores.

Learning (the paper's Algorithm 1)
----------------------------------
Minimize ``J = E_x E_{path ~ pi(.|x)} Delta(alpha_leaf(path), y)`` by stochastic gradient: for an
example, sample ``M`` trajectories (Monte Carlo); for each, a gradient step on the leaf's
``alpha`` for the loss ``Delta`` and a policy-gradient (REINFORCE) step on every node of the path,
``Theta_i -= lr * Delta * grad log pi_i(c_i | x)``, averaged over the ``M`` trajectories.
``Delta`` is the squared loss ``||alpha - onehot(y)||^2`` or (``loss="hinge"``) the multiclass
hinge ``max(0, 1 + max_{c != y} alpha_c - alpha_y)``. ``batch_size=1`` is the paper's per-example
SGD; larger batches average the same per-example gradients (vectorized, faster).
``baseline=True`` subtracts a running mean of ``Delta`` from the policy-gradient weight (a
variance reduction that keeps the gradient unbiased; not in the paper, off by default here);
``baseline="loo"`` subtracts, for each trajectory, the mean loss of the *other* ``M - 1``
trajectories of the same example (leave-one-out: a per-example baseline, also unbiased, built
from Algorithm 1's own Monte-Carlo samples; needs ``M >= 2``).

The exact objective and its gradient (enumerating the ``W**D`` paths) are
:meth:`ReinforcedDecisionTree.expected_loss` and :meth:`~ReinforcedDecisionTree.path_gradients`:
the tests check the Monte-Carlo gradient's expectation against finite differences.

Prediction: the leaf of the most likely path (``predict="path"``, default) or the expected scores
``sum_l P(l | x) alpha_l`` (``predict="expected"``); the class is the argmax.

Random Trees (the paper's baseline): each leaf's ``alpha`` is fixed to the one-hot vector of a
random class (independent draws, or ``"balanced"``: a random permutation of the classes repeated
over the leaves); only the policies learn.

Axis-aligned variant (:class:`AxisAlignedRDT`, not in the paper)
-----------------------------------------------------------------
``W = 2``; node ``i``'s policy is a softmax over the Boolean tests of the shared binarization
(``x[f] <= t`` of every feature ``f`` and threshold ``t``): a trajectory samples a test at each
node and the row follows it. Trained by the same Algorithm 1 (REINFORCE on the sampled tests,
gradient steps on the leaves' scores). After training each node is *hardened* to its most likely
test: a deterministic depth-``D`` tree over the original features, a satdt
:class:`~satdt.tree.Tree` (leaves relabelled with their majority training class, empty splits
pruned), which the exact engines can then judge (``certify``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...binarize import BinaryProblem
from ...deadline import Deadline
from ...result import FEASIBLE, SolveResult
from ...tree import Node, Tree
from ...result import finalize_tree

__all__ = ["ReinforcedDecisionTree", "AxisAlignedRDT", "solve_rdt", "gaussian_toy", "LOSSES"]

LOSSES = ("squared", "hinge")


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def _loss(scores: np.ndarray, y: np.ndarray, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Delta(alpha, y) per row and its gradient with respect to alpha: (n,), (n, C)."""
    n, C = scores.shape
    target = np.zeros_like(scores)
    target[np.arange(n), y] = 1.0
    if kind == "squared":
        diff = scores - target
        return (diff * diff).sum(axis=1), 2.0 * diff
    other = np.where(target > 0, -np.inf, scores)
    rival = np.argmax(other, axis=1)
    margin = 1.0 + other[np.arange(n), rival] - scores[np.arange(n), y]
    loss = np.maximum(margin, 0.0)
    grad = np.zeros_like(scores)
    active = margin > 0
    grad[np.flatnonzero(active), rival[active]] = 1.0
    grad[np.flatnonzero(active), y[active]] = -1.0
    return loss, grad


def _onehot(index: np.ndarray, size: int) -> np.ndarray:
    """(n, size) float matrix with a 1 at ``index[r]`` in row ``r``."""
    out = np.zeros((len(index), size))
    out[np.arange(len(index)), index] = 1.0
    return out


def _sample(probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One index per row of ``probs`` (n, K), by inverse CDF."""
    cdf = np.cumsum(probs, axis=1)
    u = rng.random((probs.shape[0], 1)) * cdf[:, -1:]
    return np.minimum((cdf < u).sum(axis=1), probs.shape[1] - 1)


def _check_common(width: int, depth: int, n_samples: int, epochs: int, batch_size: int,
                  lr: float, loss: str, predict: str) -> None:
    for name, value, low in (("width", width, 2), ("depth", depth, 1), ("n_samples", n_samples, 1),
                             ("epochs", epochs, 1), ("batch_size", batch_size, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    if not (np.isfinite(lr) and lr > 0):
        raise ValueError(f"learning rates must be positive, got {lr!r}")
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {', '.join(LOSSES)}, got {loss!r}")
    if predict not in ("path", "expected"):
        raise ValueError(f"predict must be 'path' or 'expected', got {predict!r}")


def _train(model, n: int, rng: np.random.Generator, deadline: Deadline | None, step) -> None:
    """Algorithm 1's loop, shared by both learners: epochs of shuffled mini-batches, each row
    drawn ``model.n_samples`` times (the Monte-Carlo trajectories). ``step(batch, baseline)``
    samples the trajectories, takes the gradient steps and returns the losses Delta; with
    ``model.baseline`` the running mean of Delta is the baseline. ``model.history_`` gets each
    epoch's mean loss; the deadline is checked between epochs and batches."""
    running, model.history_ = None, []
    for epoch in range(model.epochs):
        if deadline is not None and epoch and deadline.expired():
            break
        order = rng.permutation(n)
        total = 0.0
        for start in range(0, n, model.batch_size):
            if deadline is not None and start and deadline.expired():
                break
            batch = np.repeat(order[start:start + model.batch_size], model.n_samples)
            b = running if (model.baseline is True and running is not None) else 0.0
            delta = step(batch, b)
            mean_delta = float(delta.mean())
            running = mean_delta if running is None else 0.9 * running + 0.1 * mean_delta
            total += float(delta.sum())
        model.history_.append(total / (n * model.n_samples))


class ReinforcedDecisionTree:
    """The paper's model: softmax-linear node policies, leaf score vectors (module doc).

    Parameters
    ----------
    width, depth : int
        ``W`` children per node, ``D`` levels of internal nodes.
    n_samples : int
        ``M``, trajectories per example.
    epochs : int
        Passes over the training rows.
    lr_policy, lr_leaf : float
        Step sizes of the policy gradient and of the leaf gradient.
    batch_size : int
        Examples per step (1: the paper's per-example SGD).
    loss : {"squared", "hinge"}
    predict : {"path", "expected"}
    random_leaves : bool or "balanced"
        The Random Trees baseline: leaves fixed to one-hot random classes, drawn independently
        (True) or a random permutation of the classes repeated over the leaves ("balanced":
        every class reachable when ``W**D >= C``).
    baseline : bool or "loo"
        Subtract a running mean of Delta in the policy gradient (True), or the leave-one-out
        mean of the example's other trajectories ("loo").
    init_scale : float
        Standard deviation of the initial policy weights.
    random_state : int or None
    """

    def __init__(self, width: int = 2, depth: int = 5, n_samples: int = 10, epochs: int = 100,
                 lr_policy: float = 2.0, lr_leaf: float = 1.0, batch_size: int = 10, loss: str = "squared",
                 predict: str = "path", random_leaves: bool = False, baseline: bool = False,
                 init_scale: float = 0.01, random_state: int | None = 0):
        _check_common(width, depth, n_samples, epochs, batch_size, min(lr_policy, lr_leaf), loss, predict)
        if not (np.isfinite(init_scale) and init_scale >= 0):
            raise ValueError(f"init_scale must be >= 0, got {init_scale!r}")
        self.init_scale = float(init_scale)
        if baseline not in (False, True, "loo"):
            raise ValueError(f"baseline must be False, True or 'loo', got {baseline!r}")
        if baseline == "loo" and n_samples < 2:
            raise ValueError("baseline='loo' needs n_samples >= 2")
        self.width, self.depth, self.n_samples, self.epochs = width, depth, n_samples, epochs
        self.lr_policy, self.lr_leaf, self.batch_size = lr_policy, lr_leaf, batch_size
        self.loss, self.predict_mode, self.random_leaves = loss, predict, random_leaves
        self.baseline, self.random_state = baseline, random_state

    # ---------------------------------------------------------------- parameters
    def init(self, n_features: int, n_classes: int, rng: np.random.Generator) -> "ReinforcedDecisionTree":
        W, D = self.width, self.depth
        self.n_classes = n_classes
        self.theta = [self.init_scale * rng.standard_normal((W ** level, W, n_features + 1)) for level in range(D)]
        if self.random_leaves == "balanced":        # every class on W**D // C or one more leaves
            self.alpha = np.eye(n_classes)[rng.permutation(np.arange(W ** D) % n_classes)]
        elif self.random_leaves:
            self.alpha = np.eye(n_classes)[rng.integers(n_classes, size=W ** D)]
        else:
            self.alpha = np.zeros((W ** D, n_classes))
        return self

    def _augment(self, X: np.ndarray) -> np.ndarray:
        Z = (np.asarray(X, dtype=float) - self.mean_) / self.scale_
        return np.hstack([Z, np.ones((Z.shape[0], 1))])

    def node_probs(self, Xt: np.ndarray, level: int, nodes: np.ndarray) -> np.ndarray:
        """Children probabilities of node ``nodes[r]`` of ``level`` for row ``r``: (n, W)."""
        return _softmax(np.einsum("nwp,np->nw", self.theta[level][nodes], Xt))

    def leaf_log_probs(self, Xt: np.ndarray) -> np.ndarray:
        """log P(leaf | x) for every leaf: (n, W**D), leaves in path order."""
        logp = np.zeros((Xt.shape[0], 1))
        for level in range(self.depth):
            z = np.einsum("kwp,np->nkw", self.theta[level], Xt)
            z = z - z.max(axis=2, keepdims=True)
            logsm = z - np.log(np.exp(z).sum(axis=2, keepdims=True))
            logp = (logp[:, :, None] + logsm).reshape(Xt.shape[0], -1)
        return logp

    def paths(self) -> np.ndarray:
        """Every path as its children choices: (W**D, D); row ``l`` leads to leaf ``l``."""
        W, D = self.width, self.depth
        leaves = np.arange(W ** D)
        return np.stack([(leaves // W ** (D - 1 - level)) % W for level in range(D)], axis=1)

    # ---------------------------------------------------------------- gradients
    def path_gradients(self, Xt: np.ndarray, y: np.ndarray, choices: np.ndarray, weights: np.ndarray,
                       baseline: float | np.ndarray = 0.0, probs: list[np.ndarray] | None = None
                       ) -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
        """Delta and the weighted sum of per-trajectory gradients of trajectories ``choices``.

        Row ``r`` follows children ``choices[r]`` (n, D). Its gradient is ``grad_alpha Delta`` at
        its leaf and ``(Delta - baseline) * grad_Theta log P(path | x)`` on its nodes; the sums
        are weighted by ``weights`` (``1 / (n M)`` in training; ``P(path | x)`` gives the exact
        gradient of the expected loss).

        ``probs[level]``, when given, are the children probabilities of the rows' nodes at each
        level (as :meth:`node_probs`; the sampler has them already).

        Returns
        -------
        delta : (n,)
        grad_theta : list over levels of arrays shaped like ``theta[level]``
        grad_alpha : (W**D, C)
        """
        n, W = Xt.shape[0], self.width
        nodes = np.zeros(n, dtype=np.int64)
        pieces = []
        for level in range(self.depth):
            p = self.node_probs(Xt, level, nodes) if probs is None else probs[level]
            c = choices[:, level]
            score = -p
            score[np.arange(n), c] += 1.0                    # grad of log softmax wrt the logits
            pieces.append((level, nodes, score))
            nodes = nodes * W + c
        delta, g_alpha = _loss(self.alpha[nodes], y, self.loss)
        weight_pg = weights * (delta - baseline)
        grad_theta = []
        for level, at, score in pieces:
            # sum over the rows at each node: a one-hot (nodes x rows) product instead of np.add.at
            K = self.theta[level].shape[0]
            per_row = ((weight_pg[:, None] * score)[:, :, None] * Xt[:, None, :]).reshape(n, -1)
            grad_theta.append((_onehot(at, K).T @ per_row).reshape(self.theta[level].shape))
        grad_alpha = _onehot(nodes, self.alpha.shape[0]).T @ (weights[:, None] * g_alpha)
        return delta, grad_theta, grad_alpha

    def expected_loss(self, Xt: np.ndarray, y: np.ndarray) -> float:
        """Exact mean over rows of E_path Delta (all ``W**D`` paths enumerated)."""
        p = np.exp(self.leaf_log_probs(Xt))                               # (n, L)
        L = self.alpha.shape[0]
        losses = np.stack([_loss(np.repeat(self.alpha[l:l + 1], len(y), axis=0), y, self.loss)[0]
                           for l in range(L)], axis=1)
        return float((p * losses).sum(axis=1).mean())

    def exact_gradient(self, Xt: np.ndarray, y: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
        """The expectation of the Monte-Carlo gradient: every path, weighted by its probability."""
        paths = self.paths()
        p = np.exp(self.leaf_log_probs(Xt))
        n, L = p.shape
        rows = np.repeat(np.arange(n), L)
        _, g_theta, g_alpha = self.path_gradients(Xt[rows], y[rows], np.tile(paths, (n, 1)),
                                                  p.ravel() / n)
        return g_theta, g_alpha

    # ---------------------------------------------------------------- training
    def fit(self, X: np.ndarray, y: np.ndarray, n_classes: int | None = None,
            deadline: Deadline | None = None) -> "ReinforcedDecisionTree":
        """Algorithm 1 on rows ``X`` (n, p) with class indices ``y``."""
        X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=np.int64)
        rng = np.random.default_rng(self.random_state)
        self.mean_ = X.mean(axis=0)
        scale = X.std(axis=0)
        self.scale_ = np.where(scale > 0, scale, 1.0)
        self.init(X.shape[1], int(n_classes or y.max() + 1), rng)
        Xt = self._augment(X)
        def step(batch: np.ndarray, b: float) -> np.ndarray:
            Xb, yb = Xt[batch], y[batch]
            choices = np.zeros((len(batch), self.depth), dtype=np.int64)
            nodes = np.zeros(len(batch), dtype=np.int64)
            probs = []
            for level in range(self.depth):
                probs.append(self.node_probs(Xb, level, nodes))
                c = _sample(probs[-1], rng)
                choices[:, level] = c
                nodes = nodes * self.width + c
            weights = np.full(len(batch), 1.0 / len(batch))
            if self.baseline == "loo":          # rows come in runs of M copies (``_train``)
                M = self.n_samples
                d = _loss(self.alpha[nodes], yb, self.loss)[0].reshape(-1, M)
                b = ((d.sum(axis=1, keepdims=True) - d) / (M - 1)).ravel()
            delta, g_theta, g_alpha = self.path_gradients(Xb, yb, choices, weights, baseline=b, probs=probs)
            for t, g in zip(self.theta, g_theta):
                t -= self.lr_policy * g
            if not self.random_leaves:
                self.alpha -= self.lr_leaf * g_alpha
            return delta

        _train(self, len(y), rng, deadline, step)
        return self

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """Scores (n, C): the most likely path's leaf, or the expected scores."""
        logp = self.leaf_log_probs(self._augment(X))
        if self.predict_mode == "path":
            return self.alpha[np.argmax(logp, axis=1)]
        return np.exp(logp) @ self.alpha

    def predict_index(self, X: np.ndarray) -> np.ndarray:
        return np.argmax(self.decision_function(X), axis=1)


class AxisAlignedRDT:
    """RDT whose node policies choose among axis-aligned tests (module doc); hardened to a Tree.

    Parameters
    ----------
    depth : int
    n_samples, epochs, lr_policy, lr_leaf, batch_size, loss, baseline, random_state :
        As :class:`ReinforcedDecisionTree`.
    """

    width = 2

    def __init__(self, depth: int = 3, n_samples: int = 10, epochs: int = 50, lr_policy: float = 20.0,
                 lr_leaf: float = 1.0, batch_size: int = 32, loss: str = "squared", baseline: bool = True,
                 random_state: int | None = 0):
        _check_common(2, depth, n_samples, epochs, batch_size, min(lr_policy, lr_leaf), loss, "path")
        if baseline not in (False, True):
            raise ValueError(f"the axis-aligned RDT's baseline is True or False, got {baseline!r}")
        self.depth, self.n_samples, self.epochs = depth, n_samples, epochs
        self.lr_policy, self.lr_leaf, self.batch_size = lr_policy, lr_leaf, batch_size
        self.loss, self.baseline, self.random_state = loss, baseline, random_state

    def fit(self, Xb: np.ndarray, y: np.ndarray, n_classes: int,
            deadline: Deadline | None = None) -> "AxisAlignedRDT":
        """Train on a Boolean test matrix ``Xb`` (n, B) (True = the row goes right)."""
        Xb, y = np.asarray(Xb, dtype=bool), np.asarray(y, dtype=np.int64)
        rng = np.random.default_rng(self.random_state)
        n, B = Xb.shape
        D = self.depth
        self.n_columns_ = B
        self.logits = 0.01 * rng.standard_normal((2 ** D - 1, max(B, 1)))   # internal nodes, heap order
        self.alpha = np.zeros((2 ** D, n_classes))

        def step(batch: np.ndarray, b: float) -> np.ndarray:
            m = len(batch)
            node = np.zeros(m, dtype=np.int64)                 # heap index: children 2i+1, 2i+2
            visited, chosen = [], []
            for _ in range(D):
                q = _softmax(self.logits[node])
                j = _sample(q, rng) if B else np.zeros(m, dtype=np.int64)
                visited.append(node)
                chosen.append(j)
                right = Xb[batch, j] if B else np.zeros(m, dtype=bool)
                node = 2 * node + 1 + right
            leaf = node - (2 ** D - 1)
            delta, g = _loss(self.alpha[leaf], y[batch], self.loss)
            w = (delta - b) / m
            grad = np.zeros_like(self.logits)
            for at, j in zip(visited, chosen):
                score = -_softmax(self.logits[at])
                score[np.arange(m), j] += 1.0
                np.add.at(grad, at, w[:, None] * score)
            self.logits -= self.lr_policy * grad
            g_alpha = np.zeros_like(self.alpha)
            np.add.at(g_alpha, leaf, g / m)
            self.alpha -= self.lr_leaf * g_alpha
            return delta

        _train(self, n, rng, deadline, step)
        return self

    def binary_tree(self, classes: np.ndarray) -> Tree:
        """The hardened tree over the binary columns (threshold 0.5): each node's likeliest test
        (no column, e.g. constant or all-missing features: a single leaf)."""
        D = self.depth if self.n_columns_ else 0

        def rec(i: int, level: int) -> Node:
            if level == D:
                return Node.leaf(int(np.argmax(self.alpha[i - (2 ** D - 1)])))
            return Node.split(int(np.argmax(self.logits[i])), 0.5, rec(2 * i + 1, level + 1),
                              rec(2 * i + 2, level + 1))

        return Tree(rec(0, 0), classes=classes)


def solve_rdt(problem_or_data: Any, *, width: int = 2, depth: int = 3, axis_aligned: bool = True,
              n_samples: int = 10, epochs: int | None = None, lr_policy: float | None = None,
              lr_leaf: float | None = None, batch_size: int | None = None, loss: str = "squared",
              predict: str = "path", baseline: bool | str | None = None, random_leaves: bool | str = False,
              random_state: int | None = 0, time_limit: float | Deadline | None = None) -> tuple[SolveResult, Any]:
    """Train an RDT; the axis-aligned variant returns its hardened tree as a :class:`SolveResult`.

    ``problem_or_data``: a :class:`BinaryProblem` (required for ``axis_aligned``; the model is
    trained on its tests applied to every original row) or, for the softmax-linear model, a
    ``BinaryProblem`` or a :class:`~satdt.data.Dataset` (trained on the original features).

    Returns ``(result, model)``; for the softmax-linear model ``result.tree`` is None (its
    decision regions are not axis-aligned) and ``result.stats`` holds its training accuracy.
    Defaults that depend on the variant (None; measured on iris, the monks, tic-tac-toe and the
    2-D Gaussians, ``benchmarks/RESULTS.md``): axis-aligned ``epochs=50, lr_policy=20,
    lr_leaf=1, batch_size=32, baseline=True``; softmax-linear ``epochs=100, lr_policy=2,
    lr_leaf=1, batch_size=10, baseline=False`` (the paper's plain REINFORCE).
    """
    deadline = Deadline.of(time_limit)
    data = problem_or_data.data if isinstance(problem_or_data, BinaryProblem) else problem_or_data
    stats: dict[str, Any] = {"solver": "rdt", "width": width, "depth": depth, "axis_aligned": axis_aligned,
                             "n_samples": n_samples, "loss": loss}
    if axis_aligned:
        if not isinstance(problem_or_data, BinaryProblem):
            raise ValueError("the axis-aligned RDT needs a BinaryProblem (its tests)")
        if width != 2:
            raise ValueError(f"the axis-aligned RDT is binary: width must be 2, got {width!r}")
        problem = problem_or_data
        model = AxisAlignedRDT(depth=depth, n_samples=n_samples, epochs=50 if epochs is None else epochs,
                               lr_policy=20.0 if lr_policy is None else lr_policy,
                               lr_leaf=1.0 if lr_leaf is None else lr_leaf,
                               batch_size=32 if batch_size is None else batch_size, loss=loss,
                               baseline=True if baseline is None else baseline, random_state=random_state)
        model.fit(problem.X[problem.row_of], data.y, problem.n_classes, deadline=deadline)
        binary = model.binary_tree(problem.classes)
        hard_errors = problem.errors(binary)
        tree, errors = finalize_tree(problem, binary)
        tree.meta.update(method="rdt")
        stats.update(epochs_run=len(model.history_), final_loss=model.history_[-1] if model.history_ else None,
                     hardened_errors_before_relabel=hard_errors, errors=errors,
                     binary_columns=problem.n_binary, engine_s=round(deadline.elapsed(), 4))
        return (SolveResult(tree, FEASIBLE, float(errors), None, deadline.elapsed(), method="rdt",
                            objective_name="errors", stats=stats), model)
    model = ReinforcedDecisionTree(width=width, depth=depth, n_samples=n_samples,
                                   epochs=100 if epochs is None else epochs,
                                   lr_policy=2.0 if lr_policy is None else lr_policy,
                                   lr_leaf=1.0 if lr_leaf is None else lr_leaf,
                                   batch_size=10 if batch_size is None else batch_size, loss=loss,
                                   predict=predict, random_leaves=random_leaves,
                                   baseline=False if baseline is None else baseline, random_state=random_state)
    model.fit(data.X, data.y, len(data.classes), deadline=deadline)
    errors = int((model.predict_index(data.X) != data.y).sum())
    stats.update(epochs_run=len(model.history_), errors=errors, train_accuracy=1 - errors / data.n_rows,
                 engine_s=round(deadline.elapsed(), 4))
    return (SolveResult(None, FEASIBLE, float(errors), None, deadline.elapsed(), method="rdt",
                        objective_name="errors", stats=stats), model)


def gaussian_toy(n_classes: int, n_per_class: int = 50, sigma: tuple[float, float] = (0.01, 0.1),
                 random_state: int | None = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The paper's toy data: ``n_classes`` 2-D Gaussians, means uniform in [-1, 1]^2, each with a
    random isotropic sigma uniform in ``sigma`` (the paper says "random sigma" without a range:
    [0.01, 0.1] is our choice; the Bayes classifier then scores about 0.93 with 16 classes and
    0.88 with 32, ``benchmarks/bench_rl.py``); ``n_per_class`` train and as many test points per
    class.

    Returns ``X_train, y_train, X_test, y_test``.
    """
    rng = np.random.default_rng(random_state)
    means = rng.uniform(-1, 1, size=(n_classes, 2))
    sigmas = rng.uniform(*sigma, size=n_classes)
    y = np.repeat(np.arange(n_classes), n_per_class)
    X_train = means[y] + sigmas[y, None] * rng.standard_normal((len(y), 2))
    X_test = means[y] + sigmas[y, None] * rng.standard_normal((len(y), 2))
    return X_train, y, X_test, y.copy()
