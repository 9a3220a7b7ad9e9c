"""Reinforcement-learning tree builders: heuristic comparators for the exact engines.

* :mod:`satdt.heuristics.rl.adapttree`: ADAPTTREE0 (M. Preda, "Adaptive Building of Decision Trees
  by Reinforcement Learning", 2007): linear gradient-descent SARSA with tile coding over
  splitting-criteria features; an episode builds one consistent tree; categorical (and, on
  request, integer-coded) features split multiway, as in ID3, one test per multiway node.
* :mod:`satdt.heuristics.rl.rdt`: Reinforced Decision Trees (A. Léon, L. Denoyer, 2015): a tree of
  stochastic softmax-linear node policies trained by policy gradient; the Random Trees
  baseline; an axis-aligned variant whose hardened trees are satdt :class:`~satdt.tree.Tree` s.

Both are numpy only and deterministic for a given ``random_state``; they prove nothing, so their
results have status ``FEASIBLE``.
"""

from .adapttree import (AdaptTreeResult, TileCoder, attributes, count_tests, id3_tree, min_multiway_tests,
                        paper_problem, solve_adapttree)
from .rdt import AxisAlignedRDT, ReinforcedDecisionTree, gaussian_toy, solve_rdt

__all__ = ["solve_adapttree", "AdaptTreeResult", "TileCoder", "id3_tree", "paper_problem", "attributes",
           "count_tests", "min_multiway_tests",
           "ReinforcedDecisionTree", "AxisAlignedRDT", "solve_rdt", "gaussian_toy"]
