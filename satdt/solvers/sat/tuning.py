"""The tuning constants of the SAT search, in one place (measurements: ``benchmarks/results/sat.md``).

The search reads each one here at every use, so a value set here (or on the package:
``satdt.solvers.sat.CART_AFTER_S = 0.0``, which :mod:`satdt.solvers.sat` forwards here) takes
effect at the next call. Budgets are counted in solver *conflicts*, never seconds, so that a seed
takes the same path at any machine load.
"""

from __future__ import annotations

__all__ = ["TICK_CONFLICTS", "PROGRESS_INTERVAL", "REPAIR_AFTER_CONFLICTS", "REPAIR_SHARE",
           "REPAIR_MIN_CONFLICTS", "REPAIR_MIN_DEPTH", "CORE_ROWS_CAP", "REPAIR_KEEP_LEVELS", "SEED_MODELS",
           "CART_AFTER_S", "GREEDY_MAX_CELLS", "CANONICAL_SPLITS",
           "CANONICAL_PAIRS_PER_COLUMN", "CANONICAL_MIN_ROWS"]

#: conflicts per chunk of a SAT call that reports progress (one tick between two chunks)
TICK_CONFLICTS = 20_000
#: seconds between two progress ticks
PROGRESS_INTERVAL = 2.0

#: subtree repair (:func:`satdt.solvers.sat.repair.repair`) is tried after a SAT call of the
#: incremental loop that spent at least this many conflicts (the loop is then in its hard regime:
#: each further call is hard) ...
REPAIR_AFTER_CONFLICTS = 5_000
#: ... with at most this share of that call's conflicts for all its sub-calls (at least
#: REPAIR_MIN_CONFLICTS) ...
REPAIR_SHARE = 0.25
REPAIR_MIN_CONFLICTS = 2_000
#: ... on depths from this one (the top three levels are kept, so depth 4 re-solves depth-1 regions)
REPAIR_MIN_DEPTH = 4
#: at most this many rows of a failed repair's core join the main encoding per round
CORE_ROWS_CAP = 0
#: levels of a model's top the repair keeps (its largest regions have depth k - REPAIR_KEEP_LEVELS)
REPAIR_KEEP_LEVELS = 3
#: models of depth k - 1 kept (fewest misclassified rows) whose repair at depth k is tried first
SEED_MODELS = 1

#: DT_depth's encodings carry the canonical-split clauses
#: (:class:`~satdt.encodings.sat_depth.DepthEncoding` ``canonical``) when they are cheap: at most
#: CANONICAL_PAIRS_PER_COLUMN implied column pairs (per side) per binary column, on problems of
#: at least CANONICAL_MIN_ROWS distinct rows (:func:`satdt.solvers.sat.depth.canonical_is_cheap`;
#: car: about half the work; iris and zoo: 2-3x slower with them, the monks +-30 %)
CANONICAL_SPLITS = True
CANONICAL_PAIRS_PER_COLUMN = 1.0
CANONICAL_MIN_ROWS = 500

#: the CART warm start is built only once a call has run this long (or when it times out): on
#: the small datasets it costs 10-40 ms, as much as the whole SAT search, and never closed a
#: search there (its depth is always above the minimum)
CART_AFTER_S = 0.5
#: the warm start is grown by :func:`satdt.solvers.sat.incumbent.greedy_tree` up to this many
#: cells of the binary matrix
GREEDY_MAX_CELLS = 20_000_000
