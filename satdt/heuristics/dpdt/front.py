"""DPDT's answer over a grid of alphas: its trees, its Pareto fronts, CART's [11] pruning path
(Kohler, Akrour & Preux [9]).

The backward induction (:mod:`.mdp`) gives the optimal tree of every alpha of a grid, grouped;
:func:`grid_trees` turns the groups into trees in the original features, indexes them per alpha
and keeps the Pareto fronts of (training accuracy up, average tests per row down) and
(accuracy up, nodes down). :func:`cart_pruning_path` is the comparator of the paper's
Proposition 2: DPDT is never worse than CART's cost-complexity pruning path, for every alpha.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...data import Dataset
from ...result import SolveResult
from ...tree import Node, Tree
from .mdp import DPDTModel

__all__ = ["DPDTResult", "dpdt_objective", "cart_pruning_path", "GridTrees", "grid_trees"]


def dpdt_objective(tree: Tree, data: Dataset, alpha: float) -> float:
    """The DPDT objective (docs/architecture.md, "Definitions") of ``tree`` on ``data``, evaluated with :meth:`Tree.predict`."""
    errors = int(tree.errors(data.X, data.y))
    return errors / data.n_rows + alpha * tree.average_tests(data.X)


def check_alpha(alpha: Any) -> float:
    """``alpha`` as a float, or ValueError unless it is a finite number >= 0."""
    try:
        a = float(alpha)
    except (TypeError, ValueError):
        raise ValueError(f"alpha must be a number >= 0, got {alpha!r}") from None
    if not np.isfinite(a) or a < 0:
        raise ValueError(f"alpha must be a finite number >= 0, got {alpha!r}")
    return a


def _make_tree(root: Node, data: Dataset) -> Tree:
    tree = Tree(root=copy.deepcopy(root), classes=data.classes, feature_names=list(data.feature_names))
    tree.fit_counts(data.X, data.y, relabel=True)
    return tree


def _pareto(rows: list[dict], cost: str) -> list[dict]:
    """Rows not dominated in (accuracy up, ``cost`` down), by increasing cost."""
    out: list[dict] = []
    best = -1.0
    for r in sorted(rows, key=lambda r: (r[cost], -r["accuracy"])):
        if r["accuracy"] > best + 1e-12:
            out.append(r)
            best = r["accuracy"]
    return out


@dataclass
class GridTrees:
    """The optimal trees of a grid of alphas (:func:`grid_trees`)."""

    trees: list[Tree]
    tree_index_per_alpha: np.ndarray
    chosen: Tree | None
    pareto_front: list[dict]
    pareto_front_nodes: list[dict]


def grid_trees(groups: list[tuple[np.ndarray, Node]], n_grid: int, grid: np.ndarray,
               data: Dataset) -> GridTrees:
    """The trees of :meth:`.mdp.Policy.trees` over alphas ``grid`` plus one extra alpha (index
    ``n_grid``, the ``chosen`` tree), in the original features with class counts. ``trees``
    holds the distinct trees of the grid by increasing average number of tests (then nodes,
    then decreasing accuracy); each front row is a dict ``accuracy``, ``errors``,
    ``avg_tests``, ``n_nodes``, ``depth``, ``alpha_min``, ``alpha_max``, ``tree_index``."""
    chosen: Tree | None = None
    made: list[tuple[np.ndarray, Tree]] = []
    for ai, root in groups:
        tree = _make_tree(root, data)
        on_grid = ai[ai < n_grid]
        if (ai == n_grid).any():
            chosen = tree
        if len(on_grid):
            made.append((on_grid, tree))
    n = data.n_rows
    found: list[tuple[dict, np.ndarray, Tree]] = []
    for on_grid, tree in made:
        errors = int(tree.errors(data.X, data.y))
        row = {"accuracy": 1.0 - errors / n, "errors": errors,
               "avg_tests": tree.average_tests(data.X), "n_nodes": tree.n_nodes,
               "depth": tree.depth(), "alpha_min": float(grid[on_grid].min()),
               "alpha_max": float(grid[on_grid].max())}
        found.append((row, on_grid, tree))
    found.sort(key=lambda f: (f[0]["avg_tests"], f[0]["n_nodes"], -f[0]["accuracy"]))
    index = np.full(n_grid, -1, dtype=np.int64)
    for i, (row, on_grid, _) in enumerate(found):
        row["tree_index"] = i
        index[on_grid] = i
    rows = [row for row, _, _ in found]
    return GridTrees(trees=[tree for _, _, tree in found], tree_index_per_alpha=index, chosen=chosen,
                     pareto_front=_pareto(rows, "avg_tests"), pareto_front_nodes=_pareto(rows, "n_nodes"))


@dataclass
class DPDTResult:
    """DPDT's answer for a whole grid of alphas.

    Attributes
    ----------
    result : SolveResult
        The tree for ``alpha`` (method ``"dpdt"``, objective ``"dpdt"`` = error rate + alpha *
        average tests per training row, status FEASIBLE: DPDT optimizes over its MDP only, so it
        proves nothing about all trees; bound None).
    alpha : float
    alphas : ndarray (A,)
        The grid.
    trees : list of Tree
        The distinct optimal trees over the grid, by increasing average number of tests (i.e.
        from large to small alpha), in the original features with class counts.
    tree_index_per_alpha : ndarray (A,)
        Index into ``trees`` of the optimal tree for each alpha.
    values : ndarray (A,)
        The MDP's optimal value (the DPDT objective) for each alpha.
    pareto_front : list of dict
        Trees not dominated in (training accuracy up, average tests down), by average tests:
        ``accuracy``, ``errors``, ``avg_tests``, ``n_nodes``, ``depth``, ``alpha_min``,
        ``alpha_max`` (the grid's alphas for which it is optimal), ``tree_index``.
    pareto_front_nodes : list of dict
        The same for (accuracy up, number of nodes down).
    model : DPDTModel
        The MDP, for :meth:`tree_for` at any alpha.
    stats : dict
    """

    result: SolveResult
    alpha: float
    alphas: np.ndarray
    trees: list[Tree]
    tree_index_per_alpha: np.ndarray
    values: np.ndarray
    pareto_front: list[dict]
    pareto_front_nodes: list[dict]
    model: DPDTModel
    data: Dataset = field(repr=False)
    stats: dict = field(default_factory=dict)

    @property
    def tree(self) -> Tree | None:
        return self.result.tree

    def tree_for(self, alpha: float) -> Tree:
        """The DPDT tree for any ``alpha >= 0`` (one backward induction on the stored MDP)."""
        alpha = check_alpha(alpha)
        policy = self.model.induction(np.array([alpha]))
        (_, root), = policy.trees()
        return _make_tree(root, self.data)

    def objective(self, tree: Tree, alpha: float) -> float:
        """Error rate + alpha * average tests per training row of ``tree``, re-evaluated."""
        return dpdt_objective(tree, self.data, alpha)


def cart_pruning_path(data: Dataset, max_depth: int, random_state: int = 0) -> list[dict]:
    """CART's cost-complexity pruning path at depth ``max_depth`` (scikit-learn, refitted with
    each ``ccp_alpha``), as rows like :attr:`DPDTResult.pareto_front`: ``ccp_alpha``,
    ``accuracy``, ``errors``, ``avg_tests``, ``n_nodes``, ``tree``. The comparator of
    Proposition 2 and of :func:`satdt.plot.plot_dpdt_front`."""
    from sklearn.tree import DecisionTreeClassifier

    base = DecisionTreeClassifier(max_depth=max_depth, random_state=random_state)
    path = base.cost_complexity_pruning_path(data.X, data.y)
    out = []
    for ca in np.unique(path.ccp_alphas):
        model = DecisionTreeClassifier(max_depth=max_depth, random_state=random_state, ccp_alpha=ca)
        tree = Tree.from_sklearn(model.fit(data.X, data.y), feature_names=list(data.feature_names))
        for node in tree.root.walk():
            node.label = int(np.searchsorted(data.classes, model.classes_[node.label]))
        tree.classes = data.classes
        tree.fit_counts(data.X, data.y)
        errors = int(tree.errors(data.X, data.y))
        out.append({"ccp_alpha": float(ca), "accuracy": 1.0 - errors / data.n_rows, "errors": errors,
                    "avg_tests": tree.average_tests(data.X), "n_nodes": tree.n_nodes, "tree": tree})
    return out
