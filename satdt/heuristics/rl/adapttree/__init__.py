"""ADAPTTREE0: decision trees built by linear gradient-descent SARSA (M. Preda, 2007).

The learning problem
--------------------
A *state* is a partition of the training rows (the leaves of the tree built so far). An
*action* ``(attribute, part)`` splits one open part by every value of the attribute (ID3's
multiway split). The reward is ``-cost(attribute)`` per split (``-1`` with unit costs) and ``0``
at a final state, where every part is *closed*: pure, or not separable by any attribute, or (with
``max_depth``) at the depth limit. An episode therefore builds one tree and, with unit costs and
a discount of 1, its return is minus its number of internal nodes. Optionally a part that closes
impure costs ``error_cost`` per misclassified training row (0 in the paper's setting, where every
final part is pure).

Attributes come from the binary columns of :class:`satdt.binarize.BinaryProblem` (the shared
binarization, so the method runs on every dataset satdt accepts), in two kinds
(:func:`attributes`):

* a *binary* attribute is one column: a numeric threshold ``x <= t`` (or, with
  ``multiway="none"``, one categorical test ``x == v``); over Boolean attributes a multiway split
  *is* a binary split.
* a *multiway* attribute is an original feature split by every value, as in ID3:
  ``multiway="categorical"`` (default) makes every categorical feature with ``k >= 3`` values
  one; ``multiway="discrete"`` also every numeric feature with at most ``max_arity`` distinct
  training values, all integers (integer-coded categories such as the MONK's attributes). Its
  children are the *cells* of the feature's columns: a row's cell is the first of the feature's
  columns (in binarization order) on which it goes left, or "rest" if none, i.e. the category
  ``v`` (columns ``x == v``) or the interval between consecutive thresholds (columns
  ``x <= t``; with the ``all`` binarization of an integer feature, one cell per value).

**Encoding of a multiway node as a satdt tree.** A split of a part whose rows fall into cells
``c_1 < ... < c_m`` (``m >= 2``, only the cells present) is the right-leaning chain of ``m - 1``
binary tests ``col(c_1)``, ..., ``col(c_{m-1})``: the left child of the ``i``-th test is cell
``c_i``, the right child of the last is ``c_m``. It is a binary tree with the same partition of
the rows; for a categorical feature the tests read ``x == v_1``, ``x == v_2``, ...; for an
integer feature ``x <= t_1``, ``x <= t_2``, ... . **Counting.** As in the paper, one multiway
node is one test: the reward is ``-cost(feature)`` per multiway split whatever its arity, and the
objective is the number of tests, :func:`count_tests` (a split counts unless it is the right
child of a split on the same multiway feature: a feature never splits a path twice, since every
child of its split has one cell). ``stats["binary_splits"]`` is the number of binary nodes of the
encoding (``Tree.n_splits``); ``max_depth`` counts tests on a path (the binary encoding may be
deeper). :func:`min_multiway_tests` is an exact reference (memoized search over the row sets)
for the fewest tests of a consistent tree on small discrete problems.

The learner (the paper's Algorithms 1 and 2)
--------------------------------------------
``Q(s, a) = theta . phi(s, a)``: a linear function of binary features ``phi`` given by *tile
coding* of a real vector ``g(s, a)`` (``n_layers`` offset grids of ``resolution`` tiles per
dimension, hashed into a memory of ``memory`` weights, :class:`TileCoder`). ``g`` puts side by side
the state's entropy summary and the action's splitting statistics, all in ``[0, 1]``
(:data:`FEATURES`): the learner weighs several splitting criteria instead of committing to one.

Linear gradient-descent SARSA(lambda) (Sutton & Barto, Fig. 8.8; ``lam=0`` by default, plain
SARSA): after taking ``a`` in ``s`` with reward ``r`` and choosing ``a'`` in ``s'``::

    delta = r + gamma * Q(s', a') - Q(s, a)        (delta = r - Q(s, a) at a final state)
    e     = gamma * lam * e + grad Q(s, a)          (accumulating traces; grad Q = phi(s, a))
    theta = theta + (alpha / n_layers) * delta * e

The step is divided by the number of active tiles (``n_layers``), the usual normalization of tile
coding (with ``alpha = 1`` one update moves ``Q(s, a)`` all the way to its target). ``alpha`` and
``epsilon`` follow the paper's schedule ``1 / (1 + log2(episode + 1))`` (episodes counted from
0), or are constants. Actions are chosen epsilon-greedily (ties broken at random).

The tree returned is the best one met in any episode (fewest errors, then lowest test cost, then
fewest tests, then fewest binary nodes); the tree of the final greedy policy is reported in
``stats``. Its objective is its number of tests (:func:`count_tests`; = ``Tree.n_splits`` when no
feature is multiway).
"""


from .attributes import (MULTIWAY, Attributes, attributes, count_tests, id3_tree, min_multiway_tests,
                         paper_problem)
from .learner import (DEFAULT_FEATURES, FEATURES, AdaptTreeResult, TileCoder, paper_schedule, sarsa_update,
                      solve_adapttree)

__all__ = ["solve_adapttree", "AdaptTreeResult", "TileCoder", "id3_tree", "paper_problem",
           "paper_schedule", "FEATURES", "DEFAULT_FEATURES", "sarsa_update", "attributes", "Attributes",
           "count_tests", "min_multiway_tests", "MULTIWAY"]
