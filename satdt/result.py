"""The result every method returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .tree import Tree

__all__ = ["OPTIMAL", "FEASIBLE", "INFEASIBLE", "UNKNOWN", "STATUSES", "SolveResult"]

OPTIMAL = "OPTIMAL"        # proven by the engine (UNSAT of the next bound, gap 0, CP-SAT OPTIMAL)
FEASIBLE = "FEASIBLE"      # a tree, no proof (time limit); ``bound`` holds the best bound known
INFEASIBLE = "INFEASIBLE"  # proven: no tree within the given limits (e.g. depth) exists
UNKNOWN = "UNKNOWN"        # no tree and no proof (time limit before any tree)
STATUSES = (OPTIMAL, FEASIBLE, INFEASIBLE, UNKNOWN)


@dataclass
class SolveResult:
    """What a solver found.

    Attributes
    ----------
    tree : Tree or None
        In the original features; re-evaluated on the training rows.
    status : str
        One of :data:`STATUSES`.
    objective : float or None
        The tree's value for ``objective_name`` (evaluated on the data, not read from the engine).
    bound : float or None
        Best proven bound on the optimum (equal to ``objective`` when OPTIMAL).
    runtime : float
        Wall-clock seconds of the whole call.
    method : str
    objective_name : str
        E.g. ``"depth"``, ``"nodes"``, ``"errors"``, ``"regularized"``.
    stats : dict
        Engine figures: variables, clauses/constraints, rows used, iterations, solver name...
    """

    tree: Tree | None
    status: str
    objective: float | None
    bound: float | None
    runtime: float
    method: str = ""
    objective_name: str = ""
    stats: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"unknown status {self.status!r}")

    @property
    def proven(self) -> bool:
        return self.status in (OPTIMAL, INFEASIBLE)

    def summary(self) -> dict[str, Any]:
        """Plain-JSON summary (no tree)."""
        out = {"method": self.method, "status": self.status, "objective_name": self.objective_name,
               "objective": self.objective, "bound": self.bound, "runtime_s": round(self.runtime, 4)}
        if self.tree is not None:
            out.update(depth=self.tree.depth(), n_nodes=self.tree.n_nodes, n_leaves=self.tree.n_leaves)
        return out
