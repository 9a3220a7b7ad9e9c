"""DT_depth and DT_size by the engine that suits the data (``engine="auto"``).

Two exact engines answer "the smallest tree (by depth, or by nodes within a depth) that
classifies every training row correctly": Avellaneda's SAT encodings
(:func:`satdt.solvers.sat.solve_min_depth`, :func:`~satdt.solvers.sat.solve_min_size`) and the
dynamic program (:func:`satdt.solvers.dp.solve_min_depth_dp`, :func:`~satdt.solvers.dp.solve_min_size_dp`,
which itself runs the DP over every box when the boxes are few, else its branch and bound).
:func:`choose_engine` picks the engine, and the DP's algorithm, by the rule measured in
``benchmarks/results/sat.md`` (section "engine=auto"); :func:`solve_consistent` runs it and says in
``stats["engine"]`` and ``stats["engine_reason"]`` which engine ran and why.

This module imports neither engine until one runs (the ``satdt`` command starts without them).
"""

from __future__ import annotations

from typing import Any

from ..binarize import BinaryProblem
from ..deadline import Deadline
from ..limits import box_size
from ..methods import METHODS
from ..progress import ProgressCallback
from ..result import SolveResult

__all__ = ["ENGINES", "OBJECTIVES", "choose_engine", "box_figures", "solve_consistent"]

ENGINES = METHODS["sat-depth"].engines  # the registry's: "auto", "sat", "dp"
OBJECTIVES = tuple(METHODS[m].engine_args["objective"] for m in ("sat-depth", "sat-size"))  # "depth", "size"

# The DP engine's own algorithm="auto" takes the box DP up to these (satdt.solvers.dp constants
# BOX_AUTO_CELLS / BOX_AUTO_WORK, read from there when present)
_BOX_AUTO_CELLS = 40_000_000
_BOX_AUTO_WORK = 1e10
_BOX_MAX_CLASSES = 64


#: the box DP below this many boxes (rule 1 of :func:`choose_engine`)
FEW_BOXES = 1e6
#: and, for DT_size, up to the DP's box limits when the columns form at most this many chains (rule 2)
FEW_CHAINS = 6


def _chain_ranks(problem: BinaryProblem) -> list[int]:
    """Ranks ``R = columns + 1`` of each chain of :meth:`BinaryProblem.threshold_chains` (the
    chains the DP builds its ranks from)."""
    return [len(chain) + 1 for chain in problem.threshold_chains()]


def box_figures(problem: BinaryProblem) -> dict[str, float]:
    """Boxes of the box DP (every product of one interval of ranks per chain) and the cell
    operations of one level of its recurrence, from the chains alone (no table is built):
    :func:`satdt.limits.box_size`, as the DP's own :func:`~satdt.solvers.dp.boxes.box_count` /
    ``box_work`` (the DP splits a chain only if its ranks disagree with the binary matrix).
    """
    ranks = _chain_ranks(problem)
    cells, work = box_size(ranks)
    return {"boxes": float(cells), "box_work_per_level": float(work), "chains": len(ranks)}


def _box_limits() -> tuple[float, float]:
    """The DP's limits for its box DP (``satdt.solvers.dp.consistent``), or the defaults above."""
    try:
        from .dp import consistent as where
    except ImportError:  # pragma: no cover - another layout of the DP package
        where = None
    return (float(getattr(where, "BOX_AUTO_CELLS", _BOX_AUTO_CELLS)),
            float(getattr(where, "BOX_AUTO_WORK", _BOX_AUTO_WORK)))


def choose_engine(problem: BinaryProblem, objective: str, max_depth: int | None = None) -> tuple[str, str, dict]:
    """The engine ``engine="auto"`` runs for ``objective`` ("depth" or "size") on ``problem``.

    The rule (measurements: ``benchmarks/results/sat.md``, section "engine=auto"), always the DP
    engine, with the algorithm chosen here:

    1. at most :data:`FEW_BOXES` boxes: the **box DP** (every box at once; the monks 1.9e4 boxes,
       balance-scale 5.1e4, car 2.2e5: 0.012-0.064 s, the search 0.019-3.9 s, SAT 0.2 s to no
       answer in 60 s);
    2. DT_size with more boxes, within the DP's limits for them (4e7 boxes, 1e10 cell operations
       per level, 64 classes), in at most :data:`FEW_CHAINS` chains of nested columns: the
       **box DP** (BMI, 3 chains, 3.4e7 boxes: 18 s; the search and SAT: no answer in 60 s);
    3. otherwise the DP's **branch and bound** (compiled core): DT_depth on BMI in 1.1 s (box DP
       24 s); the one-hot monks (15 two-rank chains, 1.4e7 boxes) in 0.011-0.12 s (box DP
       1.3-1.8 s, SAT 0.05 s to no answer in 60 s); tic-tac-toe 1.4 s / 7.0 s (SAT: no answer in
       60 s); iris, mouse, zoo, lung, wine and train splits of iris and wine in 0.001-0.33 s (SAT
       0.04-25 s).

    SAT is not auto-picked: it was the fastest in none of the 38 measured cells; it stays one
    ``engine="sat"`` away (the mission's reference encoding), and a measured case where it wins
    becomes a rule here. ``max_depth`` is not used by today's rule.

    Returns
    -------
    engine : {"sat", "dp"}
    reason : str
        One sentence, stored in ``stats["engine_reason"]``.
    figures : dict
        ``boxes``, ``box_work_per_level``, ``chains``, ``binary_columns`` and the DP ``algorithm``
        chosen (``"boxes"`` or ``"search"``), stored in ``stats["engine_figures"]``.
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be 'depth' or 'size', got {objective!r}")
    figures: dict[str, Any] = box_figures(problem)
    figures["binary_columns"] = int(problem.n_binary)
    cells_max, work_max = _box_limits()
    classes = int(problem.counts.shape[1])
    boxes, chains = figures["boxes"], figures["chains"]
    if boxes <= FEW_BOXES:
        figures["algorithm"] = "boxes"
        return "dp", (f"few boxes ({boxes:.3g} <= {FEW_BOXES:.0e}): the box DP answers every box at once, "
                      "measured fastest (against its search and SAT) on every such dataset"), figures
    if (objective == "size" and boxes <= cells_max and figures["box_work_per_level"] <= work_max
            and classes <= _BOX_MAX_CLASSES and chains <= FEW_CHAINS):
        figures["algorithm"] = "boxes"
        return "dp", (f"DT_size, few long chains ({chains} <= {FEW_CHAINS}, {boxes:.3g} boxes): the box DP, "
                      "measured fastest (against its search and SAT) on such data"), figures
    figures["algorithm"] = "search"
    return "dp", (f"{boxes:.3g} boxes in {chains} chains, {problem.n_binary} binary columns: the DP's branch "
                  "and bound, measured fastest (against the box DP and SAT) on every such dataset"), figures


def solve_consistent(problem: BinaryProblem, objective: str, *, engine: str = "auto",
                     max_depth: int | None = None, time_limit: float | Deadline | None = None,
                     sat_options: dict | None = None, progress: ProgressCallback | None = None) -> SolveResult:
    """DT_depth (``objective="depth"``) or DT_size (``"size"``) by ``engine``.

    Parameters
    ----------
    problem : BinaryProblem
    objective : {"depth", "size"}
    engine : {"auto", "sat", "dp"}
        ``"auto"``: :func:`choose_engine`.
    max_depth, time_limit : as the engines' (``time_limit``: seconds or the caller's ``Deadline``,
        one clock for the depth cap's greedy tree and the engine)
    sat_options : dict, optional
        Extra keyword arguments of the SAT engine (``solver``, ``incremental``, ``rows_per_round``);
        ignored when the DP runs.
    progress : callable or None
        Passed to the engine that runs (:mod:`satdt.progress`).

    Returns
    -------
    SolveResult
        The engine's result, with ``stats["engine"]`` ("sat" or "dp") and
        ``stats["engine_reason"]`` (why that one: the user's choice, or the auto rule).
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(map(repr, ENGINES))}, got {engine!r}")
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be 'depth' or 'size', got {objective!r}")
    if sat_options and sat_options.get("solver") is not None:  # a typo fails whichever engine runs
        from . import sat

        sat.check_solver_name(sat_options["solver"])
    figures: dict = {}
    time_limit = Deadline.of(time_limit)
    asked_depth = max_depth
    max_depth = _useful_depth(problem, objective, max_depth, time_limit)
    if engine == "auto":
        engine, reason, figures = choose_engine(problem, objective, max_depth)
        reason = "auto: " + reason
    else:
        reason = f"engine={engine!r} requested"
    if objective == "size" and max_depth is not None and max_depth >= 1:
        engine, reason = _size_engine_fits(problem, engine, reason, max_depth)
    if engine == "dp":
        from . import dp

        solve = dp.solve_min_depth_dp if objective == "depth" else dp.solve_min_size_dp
        # "boxes" goes to the DP as its "auto": the DP checks its exact chains against its limits
        extra = {"algorithm": "search"} if figures.get("algorithm") == "search" else {}
        res = solve(problem, max_depth=max_depth, time_limit=time_limit, progress=progress, **extra)
    else:
        from . import sat

        solve = sat.solve_min_depth if objective == "depth" else sat.solve_min_size
        res = solve(problem, max_depth=max_depth, time_limit=time_limit, progress=progress, **(sat_options or {}))
    res.stats["engine"] = engine
    res.stats["engine_reason"] = reason
    if asked_depth is not None and max_depth != asked_depth:
        res.stats["depth_cap"] = {"asked": int(asked_depth), "used": int(max_depth),
                                  "why": "no optimal tree is deeper (satdt.limits.useful_depth)"}
    if figures:
        res.stats["engine_figures"] = figures
    return res


def _useful_depth(problem: BinaryProblem, objective: str, max_depth: Any, time_limit: Deadline) -> Any:
    """``max_depth`` capped where no answer changes (:func:`satdt.limits.useful_depth`): for
    DT_size also at the leaves of a consistent greedy tree minus one (the fewest-nodes tree has no
    more leaves, hence no more depth). Invalid values pass through to the engine's own checks."""
    import numpy as np

    if max_depth is None or isinstance(max_depth, bool) or not isinstance(max_depth, (int, np.integer)) \
            or max_depth < 0:
        return max_depth
    from ..limits import useful_depth

    cap = useful_depth(problem, int(max_depth))
    if objective == "size" and cap > 6 and problem.n_distinct > 1:
        try:
            from .dp.consistent import _consistent_fallback

            greedy = _consistent_fallback(problem, None, deadline=time_limit)
        except Exception:  # noqa: BLE001 - inconsistent data, no core: the engines report it
            greedy = None
        if greedy is not None:
            cap = useful_depth(problem, cap, leaves_bound=greedy.n_leaves)
    return max(cap, 0) if cap < max_depth else max_depth


def _size_engine_fits(problem: BinaryProblem, engine: str, reason: str, depth: int) -> tuple[str, str]:
    """DT_size at ``depth``: the DP's lexicographic penalty must stay exact below 2**53, the SAT
    encoding (``2**depth`` nodes) must fit the memory limit. An automatic choice moves to the
    engine that fits; a requested engine that cannot is refused with a clear ValueError."""
    from fractions import Fraction

    from ..deadline import check_memory, format_bytes, max_memory
    from ..limits import dp_lam_fits, sat_size_bytes

    n = int(problem.n_rows)
    dp_ok = dp_lam_fits(Fraction(1, n * (2 ** depth + 1)), n, depth)
    sat_bytes = sat_size_bytes(int(problem.n_distinct), int(problem.n_binary), depth)
    auto = reason.startswith("auto")
    if engine == "dp" and not dp_ok:
        if auto and sat_bytes <= max_memory():
            return "sat", reason + f"; the DP's exact integers do not reach depth {depth} on {n} rows: SAT"
        raise ValueError(f"sat-size at depth {depth} on {n} rows is beyond both engines: the DP's exact "
                         f"integers stop below 2**53 and the SAT encoding would need about "
                         f"{format_bytes(sat_bytes)}; give a smaller --max-depth")
    if engine == "sat" and sat_bytes > max_memory():
        if auto and dp_ok:
            return "dp", reason + f"; the SAT encoding at depth {depth} would need {format_bytes(sat_bytes)}: DP"
        check_memory(sat_bytes, f"the DT_size SAT encoding at depth {depth} ({2 ** depth} nodes)",
                     "give a smaller --max-depth or --engine dp")
    return engine, reason
