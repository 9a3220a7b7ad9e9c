"""The one fit path of satdt: the estimators' ``fit`` and ``satdt solve`` both call
:func:`fit_problem`, which reads the method registry (:mod:`satdt.methods`) for the engine,
binarizes under the caller's clock, runs the engine and returns a ``SolveResult``. A module of the
top layer (``docs/architecture.md``, "Layers"): it imports the engines; the registry stays
standard library only, so the command line can parse before anything heavy is imported.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from .methods import MethodSpec, engine_function, result_objective, spec

__all__ = ["fit_problem"]


def _as_result(outcome: Any) -> Any:
    """The ``SolveResult`` of an engine's outcome: itself, the first of a pair (RDT's result and
    model), or its ``result`` attribute (DPDT's front, ADAPTTREE0's learning curve)."""
    if isinstance(outcome, tuple):
        return outcome[0]
    return getattr(outcome, "result", outcome)


def fit_problem(method: "str | MethodSpec", data: Any, deadline: Any = None, *, binarizer: Any = None,
                keep: Callable[[Any], object] | None = None, on_binarized: Callable[[Any], object] | None = None,
                **options: Any) -> Any:
    """The one fit path: ``data`` -> (binarization) -> ``method``'s engine -> ``SolveResult``.

    Taken by every estimator's ``fit`` and by ``satdt solve``.

    Parameters
    ----------
    method : str or MethodSpec
        A registry name or spec.
    data : Dataset or BinaryProblem
        A ``Dataset`` is binarized here (under ``deadline``) when the engine reads a
        ``BinaryProblem``; a ``BinaryProblem`` goes to the engine as it is.
    deadline : Deadline, float or None
        The clock of the whole call, started where the user's clock starts (a float or None:
        started now). It is handed down to the binarization and the engine, so every step gets
        the time left, and ``result.runtime`` is its elapsed time at the end.
    binarizer : Binarizer, None or False
        The binarizer to use (None: ``Binarizer(binarization, n_thresholds)`` from ``options``;
        False: the data goes to the engine unbinarized, e.g. RDT's softmax-linear model).
    keep : callable, optional
        Called with the engine's whole outcome (DPDT's front, RDT's model) before its
        ``SolveResult`` is returned.
    on_binarized : callable, optional
        Called with the ``BinaryProblem`` made here, before the engine runs (``satdt solve``
        keeps it for the greedy answer to a signal).
    **options
        The engine's keyword arguments (``binarization`` and ``n_thresholds`` are the
        binarizer's); ``time_limit`` is the deadline's.

    Returns
    -------
    SolveResult
        The engine's result; when the time limit struck before the engine could answer
        (:class:`~satdt.deadline.DeadlineExpired`, e.g. in the binarization), the majority leaf
        (FEASIBLE), or no tree (UNKNOWN) for the consistent-tree questions. ``stats["engine_s"]``
        is the engine call's own time; an INFEASIBLE result says in ``stats["proof"]`` what was
        proven (:func:`satdt.result.explain_infeasible`).
    """
    from .deadline import Deadline, DeadlineExpired

    s = method if isinstance(method, MethodSpec) else spec(method)
    deadline = Deadline.of(deadline)
    binarization = options.pop("binarization", "all")
    n_thresholds = options.pop("n_thresholds", 10)
    engine = engine_function(s)
    source = data
    try:
        if s.binarized and binarizer is not False and not hasattr(data, "n_binary"):
            if binarizer is None:
                from .binarize import Binarizer

                binarizer = Binarizer(binarization, n_thresholds=n_thresholds)
            source = binarizer.problem(data, deadline=deadline)
            if on_binarized is not None:
                on_binarized(source)
        t0 = time.perf_counter()
        outcome = engine(source, **s.engine_args, time_limit=deadline, **options)
        engine_s = time.perf_counter() - t0
    except DeadlineExpired:
        from .heuristics.greedy import timeout_answer

        rows = getattr(data, "data", data)  # a BinaryProblem keeps its Dataset
        # CART's tree of that depth when better than the majority leaf
        result = timeout_answer(rows, s.name, result_objective(s, options.get("lam")), 0.0,
                                lam=options.get("lam"), max_depth=options.get("max_depth"))
    else:
        from .result import explain_infeasible

        if keep is not None:
            keep(outcome)
        result = _as_result(outcome)
        result.stats.setdefault("engine_s", round(engine_s, 4))
        explain_infeasible(result, max_depth=options.get("max_depth"))
    result.runtime = deadline.elapsed()
    return result
