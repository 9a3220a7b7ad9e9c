"""Exact decision trees by dynamic programming and branch and bound (MurTree-style [2]).

Public API: :func:`solve_max_accuracy_dp` (fewest errors) and :func:`solve_regularized_dp`
(OSDT/GOSDT's ``errors / n + lam * leaves``, any tree shape up to the depth), and on top of them
Avellaneda's two questions for consistent data: :func:`solve_min_depth_dp` (DT_depth) and
:func:`solve_min_size_dp` (DT_size), the DP alternative to :mod:`satdt.solvers.sat`. Both run the same
search on integer costs ``q * errors + leaf_cost * leaves``: ``q = 1, leaf_cost = 0`` for
accuracy, ``p / q`` = the exact engine lambda of
:func:`~satdt.objectives.scaled_objective` and ``leaf_cost = p * n`` for the
regularized objective (see :func:`solve_regularized_dp` for how each bound carries the leaf cost).

The search follows MurTree [2] over the binary columns of a
:class:`~satdt.binarize.BinaryProblem`, with the threshold-neighbourhood bounds of ConTree [3].
It runs compiled (``core/``, the module ``_core``; :class:`~satdt.solvers.dp.search.CoreSearch`);
its numpy statement (:mod:`satdt.solvers.dp.reference`) is kept as the reference the tests
compare with:

* **Column chains.** The ``all``/``quantile``/``tree`` binarizations give, per numeric feature,
  nested columns ``x > t_1 ⊇ x > t_2 ⊇ ...``. Each such *chain* is stored as one integer rank per
  distinct row (how many of its columns are True); a column is ``rank >= level``. Categorical
  columns (and any column set that is not nested) are chains of length one. The class counts of
  every column on any row subset ("frequency counting", MurTree §4.2) then come from one
  ``np.bincount`` over ``rows x chains`` and a suffix sum per chain: O(rows * features + columns),
  not O(rows * columns). The histograms are int64 (an integer cumsum is several times faster
  than a float one), and a root search renumbers its node's slots to the ranks that occur
  there (:class:`_LocalSlots`), so each root it tries costs O(rows * features + columns of the
  node) rather than O(... + columns of the problem).
* **Depth 1** (exact): for each column the class counts on the right (``F``) and left
  (``N - F``); errors = ``|S| - max_c F - max_c (N - F)``.
* **Depth 2, pair solver** (MurTree's specialised depth-two algorithm): per class ``c`` the pair
  counts ``P_c = (X * w_c)^T X`` by BLAS (float32, exact for totals < 2^24, else float64), from
  which every root column's best depth-one subtree on each side follows with array ops. Memory
  per chunk of ``k`` roots: ``5 * C * k * B`` floats (chunked, about 200 MB).
* **Depth >= 2, root search** (MurTree's general case): for each root column, solve the left and
  the right child at depth ``d - 1`` (recursively; depth-1 children inline from the counts),
  memoised on (row subset, depth) with the upper-bound semantics of DL8.5 [1] and MurTree [2]:
  a call with budget ``ub`` returns the exact optimum when it is below ``ub``, else a *lower
  bound* ``>= ub`` that is cached (MurTree §4.5).
* **Bounds used for pruning** (every one valid for the optimum of a fixed row set and depth):

  - *leaf-conflict bound*: rows identical in every column but of different classes are
    misclassified by every tree (``min_errors`` of the subset);
  - *similarity bound* (MurTree §4.6, ConTree's neighbourhood bound): for row sets ``A`` and
    ``A'`` and any depth, ``opt(A') >= opt(A) - w(A \\ A')`` (a tree's errors on ``A'`` are its
    errors on ``A`` minus at most the removed rows). After the children of a root column ``i``
    are solved (or bounded), this raises the child bounds of *every* other root column ``j`` at
    once, with ``w(L_i \\ L_j)`` etc. read off the column counts of ``L_i`` and ``R_i``;
  - *upper bound*: the best tree so far (initially the CART tree of that depth,
    :meth:`~satdt.solvers.dp.search.SearchBase.greedy`); a root is skipped when the sum of its
    children's lower bounds reaches it, a right child is searched only with the budget left
    by its left child.

  Roots are taken best-first by their children's lower bounds (ties: the depth-one error of the
  split), so the search stops as soon as the smallest remaining bound reaches the incumbent.

The result is exact: OPTIMAL means every root of every searched node was solved or pruned by
one of the valid bounds above. On the time limit the best tree found is returned as FEASIBLE with
the best proven bound of the top-level search.

Modules
-------
``chains``      column chains and frequency counting (shared by every algorithm here)
``search``      the search interface, its outcome object, the compiled search's wrapper
``core/``       the compiled branch and bound (C++, by component; ``core/search.h`` lists them),
                built as the module ``_core`` (pybind11: ``core/bindings.cpp`` only)
``reference``   the same search in numpy: the documented reference for tests, not an engine
``accuracy``    the drivers: :func:`solve_max_accuracy_dp`, :func:`solve_regularized_dp`
``consistent``  DT_depth / DT_size: :func:`solve_min_depth_dp`, :func:`solve_min_size_dp`
``boxes``       the DP over every box of the data for DT_depth / DT_size

In the compiled search a node's counts are taken on a *view* of the node: its rows and, per
chain, the ranks renumbered to the columns that still split the node, so a node costs
O(rows x chains + its own columns). The depth-two pair counts come from bitsets (64 rows a word,
weights by bit-planes) or, for long chains, from 2-D histograms of two chains with suffix sums,
whichever is estimated cheaper.

Threads (``n_jobs``, default all the cores the process may use), on a pool of worker threads
(``core/pool.h``), two ways. (1) At depth >= 3 the top node's roots run in *waves* (parallel
roots, P-STreeD's idea made deterministic): the calling thread picks the next ``n_jobs`` roots as
the serial search would (best-first, one per interval of ConTree's halving), the threads evaluate
them at once, each on a clone of the search that reads the shared memo and writes a memo of its
own, then the results are applied in root order with the serial tie-break (similarity bounds, the
incumbent) and the roots' memos absorbed in that order. The memo, the incumbent and the bounds are
shared between waves; nothing a root sees depends on which thread ran it or when, so the tree is
fixed for a given ``n_jobs`` (another optimal tree than one thread's may be returned when several
tie). At depth >= 4, where a root is a long search, the waves' barrier (every thread waiting for
the wave's longest root) gives way to a *pipeline*: a thread that finishes a root takes the next
at once; the roots are still committed (applied as above, their memos made visible) in root
order, and chosen right after each commit, at most ``n_jobs`` ahead of the last committed one,
each reading the memo as it stood when it was chosen (``Overlay``, ``core/memo.h``): again a
tree fixed for a given ``n_jobs``. At depth >= 6 the threads go inside the top node's roots: the
nodes of depth 4 run their roots that way, the levels above them in the serial order on the
calling thread (there the top node's first roots are often the whole proof, and roots run beside
them are dropped; ``set_root_level``, ``core/search.h``). (2) Below, and at depth <= 2, the big depth-two kernels run their parts on the threads: the
set-up of a depth-two scan and each root's chains, whose best split point is an atomic minimum
over (errors, chain) that keeps the serial tie-break, and the pairs of a pair solve, whose
per-thread best children are combined with the serial order's tie-break: there the tree is one
thread's. Kernels below a work threshold run on the calling thread, which alone calls Python.
"""

from .accuracy import DEFAULT_PAIR_OPS, ENGINES, solve_dp, solve_max_accuracy_dp, solve_regularized_dp
from .consistent import ALGORITHMS, choose_algorithm, solve_min_depth_dp, solve_min_size_dp

__all__ = ["solve_dp", "solve_max_accuracy_dp", "solve_regularized_dp", "solve_min_depth_dp", "solve_min_size_dp",
           "choose_algorithm", "DEFAULT_PAIR_OPS", "ALGORITHMS", "ENGINES"]
