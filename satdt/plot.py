"""Plots (matplotlib is optional: ``pip install satdt[plot]``): a tree, DPDT's Pareto front.

matplotlib is imported inside the functions, so importing this module costs nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .export import node_test

__all__ = ["plot_dpdt_front", "plot_tree"]


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("plotting needs matplotlib, which is not installed: "
                          "pip install 'satdt[plot]' (or pip install matplotlib)") from None
    return plt


def plot_dpdt_front(result: Any, path: str | Path, *, cart: bool = True, random_state: int = 0,
                    title: str | None = None) -> Path:
    """Save a PNG of DPDT's Pareto front (training accuracy vs average tests per row) against
    CART's cost-complexity pruning path of the same depth.

    Parameters
    ----------
    result : satdt.heuristics.dpdt.DPDTResult
    path : str or Path
        Output PNG file.
    cart : bool
        Also draw CART's pruning path.
    """
    from .heuristics.dpdt import cart_pruning_path

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    front = result.pareto_front
    # DPDT's trees are the optimal ones over the alpha grid: the points of the lower convex hull
    # of (tests, errors) within its MDP; the segments between them are that hull
    ax.plot([f["avg_tests"] for f in front], [100 * f["accuracy"] for f in front], "o-",
            label="DPDT (one tree per alpha range)")
    if cart:
        depth = len(result.model.levels)
        pts = sorted(cart_pruning_path(result.data, depth, random_state), key=lambda r: r["avg_tests"])
        ax.plot([r["avg_tests"] for r in pts], [100 * r["accuracy"] for r in pts], "s--",
                label=f"CART pruning path (depth {depth})")
    ax.set_xlabel("average number of tests per training row")
    ax.set_ylabel("training accuracy (%)")
    ax.set_title(title or f"DPDT front: {result.data.name or 'data'}")
    ax.grid(alpha=0.3)
    ax.legend()
    path = Path(path)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path


def plot_tree(tree: Any, path: str | Path | None = None, *, X: Any = None, y: Any = None,
              feature_names: Sequence[str] | None = None, class_names: Sequence[str] | None = None,
              title: str | None = None, fontsize: float = 9.0, ax: Any = None, dpi: int = 150,
              fmt: str | None = None) -> Any:
    """Draw a tree: each split's test in the original units, each leaf's class and class counts.

    Parameters
    ----------
    tree : satdt.Tree, a fitted satdt estimator (its ``tree_``) or a fitted scikit-learn
        ``DecisionTreeClassifier`` (its class counts from ``X``, ``y`` when given)
    path : str or Path, optional
        Save the picture there; the suffix picks the format (``.png``, ``.svg``, ``.pdf``).
    X, y : optional
        Rows and labels (values of the tree's classes) whose class counts the picture shows
        (default: the counts stored in the tree, those of its training rows).
    feature_names, class_names : sequence of str, optional
        Names shown instead of the tree's own.
    title : str, optional
    fontsize : float
    ax : matplotlib Axes, optional
        Draw into it (its figure is returned); otherwise a new figure is sized to the tree.
    dpi : int
        Resolution of a saved PNG.
    fmt : str, optional
        File format when ``path`` has no telling suffix (``"png"``, ``"svg"``...).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from .tree import Tree, class_index

    if not isinstance(tree, Tree):
        fitted = getattr(tree, "tree_", None)
        if isinstance(fitted, Tree):
            tree = fitted
        elif fitted is not None and hasattr(tree, "classes_"):   # a scikit-learn tree
            tree = Tree.from_sklearn(tree)
        else:
            raise ValueError(f"expected a satdt Tree, a fitted satdt estimator or a fitted scikit-learn "
                             f"DecisionTreeClassifier, got {type(tree).__name__}")
    if feature_names is not None or X is not None:
        tree = tree.copy()
        if feature_names is not None:
            tree.feature_names = [str(f) for f in feature_names]
        if X is not None:
            if y is None:
                raise ValueError("X needs y: the picture shows the class counts of (X, y)")
            Xa = np.asarray(X, dtype=float)
            tree.fit_counts(Xa, np.asarray(class_index(np.asarray(y), tree.classes), dtype=np.int64))
    names = [str(c) for c in (tree.classes if class_names is None else class_names)]
    if len(names) != tree.n_classes:
        raise ValueError(f"{len(names)} class names for {tree.n_classes} classes")
    _require_matplotlib()
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    pos = _layout(tree.root)
    width = max(x for x, _ in pos.values()) + 1
    depth = tree.depth()
    labels = {id(n): _node_label(tree, n, names) for n in tree.root.walk()}
    widest = max(len(line) for text in labels.values() for line in text.split("\n"))
    step = max(1.1, widest * fontsize * 0.62 / 72 + 0.35)        # inches between leaves
    if ax is None:
        fig = Figure(figsize=(min(max(4.0, step * width), 120.0),
                              max(2.2, 1.05 * (depth + 1) * (1 + fontsize / 30) + 0.6)))
        ax = fig.add_subplot()
    else:
        fig = ax.figure
    ax.set_axis_off()
    ax.set_xlim(-0.5, width - 0.5)
    ax.set_ylim(depth + 0.45, -0.45)
    colors = _class_colors(tree.n_classes)
    for node in tree.root.walk():
        x, d = pos[id(node)]
        if not node.is_leaf:
            for child, word in ((node.left, "yes"), (node.right, "no")):
                cx, cd = pos[id(child)]
                ax.plot([x, cx], [d, cd], color="0.45", lw=1.0, zorder=1)
                ax.text(x + 0.45 * (cx - x), d + 0.45 * (cd - d), word, ha="center", va="center",
                        fontsize=fontsize * 0.8, color="0.3", zorder=2,
                        bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none"))
        if node.is_leaf:
            face = _tint(colors[node.label], _purity(node))
        else:
            face = "#f2f2f2"
        ax.text(x, d, labels[id(node)], ha="center", va="center", fontsize=fontsize, zorder=3,
                bbox=dict(boxstyle="round,pad=0.45", fc=face, ec="0.35", lw=0.8))
    counted = any(n.counts is not None for n in tree.root.walk())
    caption = ("leaf: predicted class, [training rows of each class]" if counted
               else "leaf: predicted class")
    handles = [Patch(facecolor=_tint(colors[k], 1.0), edgecolor="0.35", label=names[k])
               for k in range(tree.n_classes)]
    legend = ax.legend(handles=handles, loc="upper left", fontsize=fontsize * 0.85, frameon=False,
                       ncol=min(len(handles), 8), title=caption, title_fontsize=fontsize * 0.85,
                       bbox_to_anchor=(0.0, -0.01))
    legend._legend_box.align = "left"
    ax.set_title(title if title is not None else f"depth {depth}, {tree.n_leaves} leaves",
                 fontsize=fontsize * 1.1)
    if path is not None:
        fig.savefig(Path(path), dpi=dpi, bbox_inches="tight", format=fmt)
    return fig


def _layout(root: Any) -> dict[int, tuple[float, int]]:
    """``id(node) -> (x, depth)``: each split centred above its children, nodes of one depth at
    least 1 apart, a subtree pushed right only as far as its own rows need (leaves at different
    depths may share an x)."""
    pos: dict[int, tuple[float, int]] = {}
    free: dict[int, float] = {}          # next free x at each depth

    def place(node: Any, depth: int) -> list[tuple[Any, int]]:
        """Place the subtree; return its nodes with their depths."""
        before = dict(free)              # what lies left of this subtree, depth by depth
        if node.is_leaf:
            members = [(node, depth)]
            x = free.get(depth, 0.0)
        else:
            members = place(node.left, depth + 1) + place(node.right, depth + 1) + [(node, depth)]
            x = (pos[id(node.left)][0] + pos[id(node.right)][0]) / 2
        pos[id(node)] = (x, depth)
        # the subtree's leftmost node at each depth must clear what is already there
        lefts: dict[int, float] = {}
        for n, d in members:
            lefts[d] = min(lefts.get(d, np.inf), pos[id(n)][0])
        shift = max(0.0, max(before.get(d, 0.0) - x0 for d, x0 in lefts.items()))
        for n, d in members:
            px, pd = pos[id(n)]
            pos[id(n)] = (px + shift, pd)
        for n, d in members:
            free[d] = max(free.get(d, 0.0), pos[id(n)][0] + 1)
        return members

    place(root, 0)
    return pos


def _require_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ImportError("plotting needs matplotlib, which is not installed: "
                          "pip install 'satdt[plot]' (or pip install matplotlib)") from None


def _node_label(tree: Any, node: Any, names: list[str]) -> str:
    counts = node.counts
    if node.is_leaf:
        text = names[node.label]
        if counts is not None:
            text += "\n[" + ", ".join(f"{c:g}" for c in counts) + "]"
        return text
    text = node_test(tree, node)
    if counts is not None:
        text += f"\nrows: {float(np.sum(counts)):g}"
    return text


def _purity(node: Any) -> float:
    counts = node.counts
    if counts is None or float(np.sum(counts)) <= 0:
        return 0.5
    return float(counts[node.label]) / float(np.sum(counts))


def _class_colors(k: int) -> list[tuple[float, float, float]]:
    from matplotlib import colormaps

    cmap = colormaps["tab10" if k <= 10 else "tab20"]
    return [cmap(i % cmap.N)[:3] for i in range(k)]


def _tint(rgb: tuple[float, float, float], strength: float) -> tuple[float, float, float]:
    """The class colour, lighter for an impure leaf (white at strength 0)."""
    s = 0.25 + 0.45 * max(0.0, min(1.0, strength))
    return tuple(1 - s * (1 - c) for c in rgb)
