"""Plots (matplotlib is optional: ``pip install satdt[plot]``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["plot_dpdt_front"]


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
    result : satdt.solvers.dpdt.DPDTResult
    path : str or Path
        Output PNG file.
    cart : bool
        Also draw CART's pruning path.
    """
    from .solvers.dpdt import cart_pruning_path

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
