"""DPDT: decision tree search as a Markov decision process (Kohler, Akrour & Preux [9]).

References are numbered as in ``satdt/REFERENCES.md``.

Algorithm 1 of "Interpretable Decision Tree Search as a Markov Decision Process", vectorized
numpy, no numba: the trees of depth ``<= max_depth`` that minimize the DPDT objective (error rate
+ alpha * average number of tests per training row; docs/architecture.md, "Definitions") among
the policies of an MDP whose test actions come from a test generator, for a whole grid of alphas
at once.

The package, one job per module:

* :mod:`.splits`: split kernels on one state's rows (numpy CART, fewest-errors splits, the
  batched last level);
* :mod:`.generators`: the test generators (``"hybrid"``, ``"sklearn"``, ``"cart"``,
  ``"exhaustive"``), the reference CART of Proposition 2, ``exact_last``;
* :mod:`.build`: building the MDP level by level (state merging, sorted orders, batches);
* :mod:`.mdp`: the MDP and its backward induction over many alphas;
* :mod:`.front`: the trees, Pareto fronts and :class:`DPDTResult` over a grid, CART's pruning
  path;
* this module: the public API, :func:`solve_dpdt` and :func:`build_mdp`.
"""

from __future__ import annotations

import resource
import time
from typing import Any, Sequence

import numpy as np

from ...data import Dataset
from ...deadline import Deadline
from ...progress import ProgressCallback, ProgressReporter
from ...result import FEASIBLE, SolveResult
from .build import build_model
from .front import DPDTResult, cart_pruning_path, check_alpha, dpdt_objective, grid_trees
from .generators import GENERATORS
from .mdp import DPDTModel
from .splits import (all_splits, best_split_errors, best_split_per_feature, cart_splits,
                     last_level_children)

__all__ = ["solve_dpdt", "DPDTResult", "DPDTModel", "build_mdp", "cart_splits", "GENERATORS",
           "last_level_children", "best_split_per_feature", "best_split_errors", "all_splits",
           "dpdt_objective", "cart_pruning_path"]


def _check_params(max_depth: Any, cart_depth: Any, alphas: Any, max_states: Any, generator: str
                  ) -> tuple[int, list[int], np.ndarray, int]:
    if isinstance(max_depth, bool) or not isinstance(max_depth, (int, np.integer)) or max_depth < 1:
        raise ValueError(f"max_depth must be an integer >= 1, got {max_depth!r}")
    if isinstance(cart_depth, (int, np.integer)) and not isinstance(cart_depth, bool):
        cds = [int(cart_depth)]
    else:
        try:
            cds = [int(c) for c in cart_depth]
        except (TypeError, ValueError):
            raise ValueError(f"cart_depth must be an integer >= 1 or a list of them, got {cart_depth!r}") from None
        if any(not isinstance(c, (int, np.integer)) or isinstance(c, bool) for c in cart_depth):
            raise ValueError(f"cart_depth must hold integers, got {cart_depth!r}")
    if not cds or min(cds) < 1 or max(cds) > 14:
        raise ValueError(f"cart_depth values must be integers in [1, 14], got {cart_depth!r}")
    if alphas is None:
        grid = np.linspace(0.0, 1.0, 1000)
    else:
        grid = np.atleast_1d(np.asarray(alphas, dtype=float))
        if grid.ndim != 1 or len(grid) == 0:
            raise ValueError("alphas must be a non-empty 1-D array of numbers >= 0")
        if not np.all(np.isfinite(grid)) or (grid < 0).any():
            raise ValueError("alphas must be finite numbers >= 0")
    if isinstance(max_states, bool) or not isinstance(max_states, (int, np.integer)) or max_states < 1:
        raise ValueError(f"max_states must be a positive integer, got {max_states!r}")
    if generator not in GENERATORS:
        raise ValueError(f"unknown DPDT test generator {generator!r}; choose one of {', '.join(GENERATORS)}")
    return int(max_depth), cds, grid, int(max_states)


def build_mdp(data: Dataset, *, max_depth: int = 3, cart_depth: int | Sequence[int] = 5,
              max_states: int = 1_000_000, random_state: int = 0, time_limit: float | Deadline | None = None,
              generator: str = "hybrid", exact_last: bool = True,
              deadline: Deadline | None = None, reporter: ProgressReporter | None = None,
              n_alphas: int = 0) -> DPDTModel:
    """Build the DPDT MDP of ``data`` (see :mod:`.build`); raises ValueError past ``max_states``.
    ``reporter`` gets a tick every ~2 s while the states are expanded."""
    max_depth, cds, _, max_states = _check_params(max_depth, cart_depth, None, max_states, generator)
    return build_model(data, max_depth=max_depth, cart_depth=cds, max_states=max_states,
                       random_state=random_state, generator=generator, exact_last=bool(exact_last),
                       deadline=deadline or Deadline.of(time_limit), reporter=reporter, n_alphas=n_alphas)


def solve_dpdt(data: Dataset, *, max_depth: int = 3, cart_depth: int | Sequence[int] = 5,
               alphas: Sequence[float] | np.ndarray | None = None, alpha: float = 0.0,
               max_states: int = 1_000_000, random_state: int = 0,
               time_limit: float | Deadline | None = None, generator: str = "hybrid",
               exact_last: bool = True, progress: ProgressCallback | None = None) -> DPDTResult:
    """DPDT trees for a grid of alphas and the tree for ``alpha``.

    Parameters
    ----------
    data : Dataset
        Continuous features used directly (categorical codes are treated as numbers).
    max_depth : int
        Depth of the trees (>= 1).
    cart_depth : int or list of int
        Depth of the CART tree that proposes the tests of a state of depth ``d``
        (``cart_depth[min(d, len - 1)]`` for a list, e.g. ``[3, 2]``).
    alphas : array of float, optional
        The grid (default 1000 values evenly spaced in [0, 1]).
    alpha : float
        The alpha of ``result`` (need not be on the grid).
    max_states : int
        State budget; ValueError when the MDP would exceed it.
    random_state : int
        For scikit-learn's CART (reference tree, generators ``"hybrid"`` and ``"sklearn"``).
    time_limit : float or Deadline, optional
        Wall-clock seconds; states not expanded in time become leaves (``stats["truncated"]``).
    generator : {"hybrid", "sklearn", "cart", "exhaustive"}
        How candidate tests are proposed (:mod:`.generators`). Default ``"hybrid"``: at the root
        scikit-learn's CART of depth ``cart_depth`` plus each feature's fewest-errors split,
        deeper scikit-learn's CART grown best-first to ``2**cart_depth`` leaves (the authors'
        package's rule, 32 leaves for ``cart_depth=5``). ``"sklearn"``: CART of depth
        ``cart_depth`` at every state, the paper's text; ``"cart"``: satdt's numpy CART (same
        splits as ``"sklearn"`` up to tie-breaking).
    exact_last : bool
        Default True: every split at states one test from ``max_depth`` (the best last split is
        exact; never worse than CART's candidates for any alpha, and cheaper). False: CART's
        candidates there too, the paper's algorithm verbatim.
    progress : callable or None
        Receives :class:`~satdt.progress.ProgressEvent` objects: start, ticks while the MDP is
        built (``nodes`` = states so far), one ``"incumbent"`` with the tree for ``alpha`` after
        the backward induction, done. DPDT is a heuristic: no bound.

    Returns
    -------
    DPDTResult
    """
    t0 = time.perf_counter()
    alpha = check_alpha(alpha)
    max_depth, cds, grid, max_states = _check_params(max_depth, cart_depth, alphas, max_states, generator)
    deadline = Deadline.of(time_limit)
    reporter = ProgressReporter("dpdt", progress)
    reporter.emit("start", message=f"depth {max_depth}, {len(grid)} alphas")
    model = build_mdp(data, max_depth=max_depth, cart_depth=cds, max_states=max_states,
                      random_state=random_state, generator=generator, exact_last=exact_last,
                      deadline=deadline, reporter=reporter if reporter.active else None,
                      n_alphas=len(grid) + 1)
    t1 = time.perf_counter()
    reporter.emit("tick", nodes=model.n_states, message=f"MDP built: {model.n_states} states; backward induction")
    A = len(grid)
    policy = model.induction(np.append(grid, alpha))     # the grid, then ``alpha`` (index A)
    groups = policy.trees()
    t2 = time.perf_counter()
    found = grid_trees(groups, A, grid, data)
    objective = dpdt_objective(found.chosen, data, alpha)
    reporter.emit("incumbent", incumbent=objective, nodes=model.n_states, message=f"{len(found.trees)} trees")
    t3 = time.perf_counter()
    stats = {
        "n_states": model.n_states, "n_levels": len(model.levels),
        "n_tests": int(sum(lv.n_tests for lv in model.levels)),
        "states_per_level": [lv.n_states for lv in model.levels],
        "n_alphas": A, "n_trees": len(found.trees), "truncated": model.truncated,
        "generator": generator, "exact_last": bool(exact_last), "cart_depth": cds,
        "dpdt_value": float(policy.values[-1]),
        "build_s": t1 - t0, "induction_s": t2 - t1, "trees_s": t3 - t2,
        "mdp_mb": model.nbytes() / 2**20,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    result = SolveResult(tree=found.chosen, status=FEASIBLE, objective=objective, bound=None,
                         runtime=time.perf_counter() - t0, method="dpdt", objective_name="dpdt",
                         stats=stats)
    reporter.emit("done", incumbent=objective, nodes=model.n_states, message=FEASIBLE)
    return DPDTResult(result=result, alpha=alpha, alphas=grid, trees=found.trees,
                      tree_index_per_alpha=found.tree_index_per_alpha, values=policy.values[:A],
                      pareto_front=found.pareto_front, pareto_front_nodes=found.pareto_front_nodes,
                      model=model, data=data, stats=stats)
