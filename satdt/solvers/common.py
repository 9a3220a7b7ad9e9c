"""What every solver does the same way: the final check of a returned tree, and the core count.

Starting trees (CART, DPDT, any tree mapped by routing) live in :mod:`satdt.warmstart`, the
deadline in :mod:`satdt.deadline`; ``Deadline`` and ``cart_binary_tree`` are re-exported here
for the modules that still import them from this one (``satdt.solvers.sat``), and the final check
of a returned tree (:func:`~satdt.result.finalize_tree`, :class:`~satdt.result.TreeCheckError`,
which the heuristics below the solvers use too) from :mod:`satdt.result`.
"""

from __future__ import annotations

import os

from ..deadline import Deadline
from ..result import TreeCheckError, finalize_tree
from ..warmstart import cart_binary_tree

__all__ = ["finalize_tree", "n_cores", "TreeCheckError", "Deadline", "cart_binary_tree"]


def n_cores() -> int:
    """Cores this process may use (CP-SAT ``num_workers``, joblib ``n_jobs``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)
