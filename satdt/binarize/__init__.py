"""Binarization shared by every engine (references numbered as in ``satdt/REFERENCES.md``).

A :class:`Binarizer` turns the float matrix of :mod:`satdt.data` into Boolean tests
(:class:`BinaryTest`); :meth:`Binarizer.problem` gives a :class:`BinaryProblem`: the distinct
binarized rows with per-class counts, ready for any encoding, and the map back to the original
features.

Convention: a binary column is **True when its row goes right** in the original tree, i.e.
``x[f] > threshold`` for a numeric test and ``x[f] != category`` for a categorical one. A tree
built over the binary matrix with threshold 0.5 (left = column False) therefore maps node by node
onto a tree in the original features (:meth:`BinaryProblem.to_original`).

Strategies
----------
``"all"``
    Every midpoint between consecutive distinct values of each numeric column: every
    axis-aligned split of the training rows is available, so optima over it are optima over all
    axis-aligned trees.
``"quantile"``
    At most ``n_thresholds`` midpoints per numeric column, at the quantiles of its values.
``"tree"``
    Threshold guessing [17]: the midpoints used by a gradient-boosted ensemble of
    depth-``max_depth`` CART [11] trees fitted on the data (snapped to the midpoints of ``"all"``).

Categorical columns give one test per value (a two-valued column, one test). Constant columns,
duplicate columns and complements of other columns (equivalent up to swapping children) are
dropped; the first in (feature, threshold) order is kept.

Limits: every step takes an optional :class:`~satdt.deadline.Deadline` and checks it between
blocks of at most a few tens of millions of cells (so a time limit holds within a fraction of a
second even for the rows x thresholds matrix of ``"all"`` on 15,000 rows), raising
:class:`~satdt.deadline.DeadlineExpired`; the layer above returns its best tree so far. Before
the binary matrix is allocated its size is checked against :func:`~satdt.deadline.max_memory`
(:class:`~satdt.deadline.MemoryLimitError` names it).

Modules: :mod:`~satdt.binarize.columns` (the tests, their columns and the rows' codes),
:mod:`~satdt.binarize.thresholds` (the numeric features' thresholds by strategy),
:mod:`~satdt.binarize.redundant` (constant, duplicate and complement columns dropped),
:mod:`~satdt.binarize.problem` (:class:`BinaryProblem`, its distinct rows and chains, the map
between trees over the tests and over the features), :mod:`~satdt.binarize.binarizer`
(:class:`Binarizer`). Every name is imported from ``satdt.binarize``.
"""

from __future__ import annotations

from .binarizer import Binarizer
from .columns import BinaryTest, feature_blocks, matrix_bytes
from .problem import BinaryProblem, ConflictError
from .thresholds import STRATEGIES

# helpers the tests call on their own (each one's module is where it is looked up)
from .problem import _first_of_equal_rows, _words  # noqa: E402
from .redundant import _drop_redundant  # noqa: E402

__all__ = ["BinaryTest", "Binarizer", "BinaryProblem", "STRATEGIES", "ConflictError"]
