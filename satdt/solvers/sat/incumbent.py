"""The SAT search's starting tree: a consistent greedy tree over the binary columns, built lazily.

It is an upper bound on the depth and the size, returned (FEASIBLE) when the time runs out, and it
closes a depth search without a SAT call when its depth meets the proven lower bound. It is built
once the call has run :data:`~satdt.solvers.sat.tuning.CART_AFTER_S` seconds (or when it times
out): on the small datasets it costs as much as the whole search and never closes it.
"""

from __future__ import annotations

from ...heuristics.greedy import greedy_tree
from ...tree import Tree
from ...warmstart import cart_binary_tree
from ..common import finalize_tree
from . import tuning
from .state import SearchState

__all__ = ["Incumbent", "greedy_tree"]


class Incumbent:
    """The CART warm start, built lazily: a consistent CART tree over the binary columns (an
    upper bound on depth and size), or None (disabled, or CART is not consistent)."""

    def __init__(self, state: SearchState, enabled: bool, limit: int | None = None):
        self.state = state
        self.enabled = enabled
        self.limit = limit  # the max_depth of the call (a deeper tree is no answer)
        self.built = False
        self.tree: Tree | None = None
        self.depth: int | None = None
        self.splits: int | None = None

    def get(self, force: bool = False) -> Tree | None:
        """The tree if built; build it when ``force`` or once the call ran
        :data:`~satdt.solvers.sat.tuning.CART_AFTER_S` seconds."""
        if self.enabled and not self.built and (force or self.state.deadline.elapsed() >= tuning.CART_AFTER_S):
            self.built = True
            problem = self.state.problem
            if problem.n_distinct * problem.n_binary <= tuning.GREEDY_MAX_CELLS:
                tree = greedy_tree(problem)
            else:  # pragma: no cover - far beyond what the SAT encoding holds
                tree = cart_binary_tree(problem, None)
            if self.state.problem.errors(tree) == 0:
                final = finalize_tree(self.state.problem, tree)[0]
                self.tree, self.depth, self.splits = tree, final.depth(), final.n_splits
                if self.state.objective == "depth" and (self.limit is None or self.depth <= self.limit):
                    self.state.improve(self.depth, message="CART")  # (DT_size reports it once adopted, within K)
        return self.tree
