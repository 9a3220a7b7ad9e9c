"""The heuristic comparators: trees built without a proof, whose distance to the optimum the exact
engines measure, and which give those engines their starting trees.

* :mod:`satdt.heuristics.greedy`: CART's Gini-greedy tree, the one statement of it in Python
  (over the binary columns, or over the original features' thresholds);
* :mod:`satdt.heuristics.dpdt`: DPDT (Kohler, Akrour & Preux), the trees of an MDP solved over a
  grid of alphas;
* :mod:`satdt.heuristics.rl`: the reinforcement-learning builders ADAPTTREE0 (Preda) and
  Reinforced Decision Trees (Léon & Denoyer).

This layer sits below :mod:`satdt.warmstart` and the exact engines (:mod:`satdt.solvers`), which
import it; it imports only the data, binarization, tree and result layers. The old paths
``satdt.solvers.dpdt`` and ``satdt.solvers.rl`` still import these packages (:mod:`satdt._moved`).
"""
