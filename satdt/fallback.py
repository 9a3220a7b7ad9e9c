"""The old path of the fallback answers, kept for its callers: the greedy tree as a result
(:mod:`satdt.solvers.dp.fallback`), the DP's degraded run (:mod:`satdt.solvers.dp.degrade`) and
CART's tree on the original features (:mod:`satdt.heuristics.greedy`). A module of the top layer:
it imports the engines."""

from .heuristics.greedy import cart_tree
from .solvers.dp.degrade import degrade_dp, degrade_dp_data, plan_dp_data
from .solvers.dp.fallback import greedy_result

__all__ = ["greedy_result", "cart_tree", "degrade_dp", "plan_dp_data", "degrade_dp_data"]
