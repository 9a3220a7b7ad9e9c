"""DT_depth and DT_size (Avellaneda SAT) on the InferDT datasets.

Usage (from the repository root)::

    python benchmarks/bench_sat.py --time-limit 300
    python benchmarks/bench_sat.py --datasets iris wine --solvers glucose4 cadical195 --objectives depth
    python benchmarks/bench_sat.py --objectives maxsat --depths 2 3 --datasets iris monk1 --out benchmarks/out/maxsat
    python benchmarks/bench_sat.py --datasets iris monk1 --repeat 3 --baseline   # median of 3, vs first version
    python benchmarks/bench_sat.py --solvers glucose4 dp --repeat 3   # SAT and the DP engine side by side
    python benchmarks/bench_sat.py --solvers dp-search dp-boxes   # the DP's two algorithms side by side
    python benchmarks/bench_sat.py --solvers glucose4-norepair glucose4   # without / with the subtree repair

For every dataset (full files of ``DATA_DIR/inferdt``, not the folds), ``all`` binarization,
each objective and each backend, it records (``maxsat``: the fewest errors at each of
``--depths`` with RC2; optimal errors from issue 3 in ``reference``) rows, distinct rows, binary features, the optimum
found, rows used by incremental example addition, status, solve time and clause-building time;
writes ``benchmarks/out/sat.csv`` and prints a Markdown table (also written to
``benchmarks/out/sat.md``).
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import sklearn.tree  # noqa: F401  (imported once, outside the timed calls)
from satdt import load_dataset
from satdt.binarize import Binarizer
from satdt.solvers import sat
from satdt.solvers.dp import choose_algorithm, solve_min_depth_dp, solve_min_size_dp
from satdt.solvers.maxsat import solve_max_accuracy
from satdt.solvers.sat import (DEFAULT_AT_MOST_ONE, DEFAULT_ROW_PICK, DEFAULT_ROWS_PER_ROUND, DEFAULT_SOLVER,
                               ROW_PICKS, solve_min_depth, solve_min_size)

# --solvers names "BACKEND-norepair": the SAT backend without the subtree repair (repair=False)
NOREPAIR = "-norepair"

ROOT = Path(__file__).resolve().parent.parent
DATASETS = ["iris", "monk1", "monk2", "monk3", "wine", "mouse", "zoo", "lung_cancer_examples", "car",
            "balance-scale", "500_Person_Gender_Height_Weight_Index"]

# --solvers names of the DP engine -> its `algorithm` (satdt.solvers.dp.solve_min_*_dp)
DP_ALGORITHMS = {"dp": "auto", "dp-search": "search", "dp-boxes": "boxes"}

# InferDT (authors' C++ tool, MiniSat), issue 2: (DT_depth s, k, DT_size s, nodes); None = > 300 s
INFERDT = {"iris": (0.11, 4, 0.30, 15), "monk1": (0.06, 5, 0.22, 15), "monk2": (0.53, 6, 15.2, 67),
           "monk3": (0.16, 6, 4.3, 39), "wine": (31.0, 3, 58.2, 15), "mouse": (0.03, 4, 0.11, 15),
           "zoo": (0.11, 4, 0.32, 21), "lung_cancer_examples": (0.02, 3, 0.03, 7),
           "car": (215.7, 8, None, None), "balance-scale": (None, None, None, None),
           "500_Person_Gender_Height_Weight_Index": (None, None, None, None)}


# issue 3: optimal training errors at depth 2 / 3 (all binarization)
MAXSAT_REF = {"iris": (6, 1), "monk1": (22, 11), "monk2": (57, 42), "monk3": (8, 6), "wine": (6, 0)}


def run_maxsat(args: argparse.Namespace, name: str, problem) -> list[dict]:
    rows = []
    for depth in args.depths:
        for backend in args.solvers:
            t0 = time.perf_counter()
            r = solve_max_accuracy(problem, max_depth=depth, solver=backend, time_limit=args.time_limit)
            wall = time.perf_counter() - t0
            ref = MAXSAT_REF.get(name, (None, None))
            row = {"dataset": name, "rows": problem.n_rows, "distinct": problem.n_distinct,
                   "binary_features": problem.n_binary, "objective": f"errors@{depth}", "backend": r.stats["backend"],
                   "status": r.status, "value": r.objective, "bound": r.bound,
                   "depth": r.tree.depth() if r.tree is not None else None,
                   "nodes": r.tree.n_nodes if r.tree is not None else None, "rows_used": problem.n_distinct,
                   "rounds": None, "sat_calls": None, "variables": r.stats.get("variables"),
                   "clauses": r.stats.get("clauses"), "build_s": r.stats.get("build_time_s"),
                   "sat_s": r.stats.get("maxsat_time_s"), "time_s": round(wall, 3), "times_s": f"{wall:.3f}",
                   "load_avg": _load(), "baseline_s": None, "inferdt_s": None,
                   "inferdt_value": ref[depth - 2] if depth in (2, 3) else None, "depth_times_s": ""}
            rows.append(row)
            print(f"{name:40s} errors@{depth} {row['backend']:22s} {r.status:9s} value={r.objective} "
                  f"bound={r.bound} time={wall:.2f}s reference={row['inferdt_value']}", file=sys.stderr, flush=True)
    return rows


@contextmanager
def baseline():
    """The fixed costs of the first version, for side-by-side timing: a ``threading.Timer``
    started and joined around every SAT call under a time limit, and the CART warm start built
    at the start of every call."""
    saved = sat.SatBackend._solve_interrupt, sat.CART_AFTER_S

    def timer_solve(self, assumptions, deadline):
        timer = threading.Timer(deadline.remaining(), self.solver.interrupt)
        timer.daemon = True
        timer.start()
        try:
            return self.solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
        finally:
            timer.cancel()
            timer.join()
            self.solver.clear_interrupt()

    sat.SatBackend._solve_interrupt, sat.CART_AFTER_S = timer_solve, 0.0
    try:
        yield
    finally:
        sat.SatBackend._solve_interrupt, sat.CART_AFTER_S = saved


def _load() -> str:
    """1-minute load average (the machine is shared)."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:  # pragma: no cover
        return ""


def warm_up() -> None:
    """One tiny solve first, so that one-time imports and library loading stay out of the timings."""
    import numpy as np
    from satdt import prepare
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    tiny = Binarizer("all").problem(prepare(X, np.array([0, 1, 1, 0])))
    solve_min_size(tiny)
    solve_min_size_dp(tiny)
    solve_max_accuracy(tiny, max_depth=1)


def run(args: argparse.Namespace) -> list[dict]:
    warm_up()
    rows = []
    for name in args.datasets:
        path = Path(args.data_dir) / "inferdt" / f"{name}.csv"
        problem = Binarizer("all").problem(load_dataset(path))
        for objective in args.objectives:
            if objective == "maxsat":
                rows += run_maxsat(args, name, problem)
                continue
            for label in args.solvers:
                backend, repair = (label[:-len(NOREPAIR)], False) if label.endswith(NOREPAIR) else (label, True)
                solve = solve_min_depth if objective == "depth" else solve_min_size
                if backend in DP_ALGORITHMS:  # the DP engine answering the same question (satdt.solvers.dp)
                    solve = solve_min_depth_dp if objective == "depth" else solve_min_size_dp
                walls, base_walls, cpus, statuses = [], [], [], []
                if backend == "dp-boxes":
                    try:  # the box DP only takes data with few boxes: skip the others
                        choose_algorithm(problem, "boxes")
                    except ValueError as error:
                        print(f"{name:40s} {objective:5s} {backend:11s} skipped: {error}", file=sys.stderr)
                        continue
                for rep in range(args.repeat):  # median wall time over repeats (InferDT: median of 3)
                    kwargs = dict(solver=backend, time_limit=args.time_limit, rows_per_round=args.rows_per_round,
                                  at_most_one=args.at_most_one, incremental=not args.all_rows,
                                  max_depth=args.max_depth, seed=args.seed + rep, row_pick=args.row_pick,
                                  repair=repair)
                    if backend in DP_ALGORITHMS:
                        kwargs = dict(time_limit=args.time_limit, max_depth=args.max_depth,
                                      algorithm=DP_ALGORITHMS[backend])
                    if args.baseline and backend not in DP_ALGORITHMS:  # interleaved: same load for both
                        with baseline():
                            t0 = time.perf_counter()
                            b = solve(problem, **kwargs)
                            base_walls.append(time.perf_counter() - t0)
                    t0, c0 = time.perf_counter(), time.process_time()
                    r = solve(problem, **kwargs)
                    walls.append(time.perf_counter() - t0)
                    cpus.append(time.process_time() - c0)
                    statuses.append(f"{r.status}:{r.objective}")
                    if args.baseline and backend not in DP_ALGORITHMS and "OPTIMAL" == b.status == r.status and b.objective != r.objective:
                        raise AssertionError(f"{name} {objective}: baseline {b.objective} != {r.objective}")
                wall = float(np.median(walls))
                ref = INFERDT.get(name, (None,) * 4)
                ref_time, ref_value = (ref[0], ref[1]) if objective == "depth" else (ref[2], ref[3])
                row = {"dataset": name, "rows": problem.n_rows, "distinct": problem.n_distinct,
                       "binary_features": problem.n_binary, "objective": objective, "backend": label,
                       "algorithm": r.stats.get("algorithm"),
                       "status": r.status, "value": r.objective, "bound": r.bound,
                       "depth": r.tree.depth() if r.tree is not None else None,
                       "nodes": r.tree.n_nodes if r.tree is not None else None,
                       "rows_used": r.stats.get("rows_used"), "rounds": r.stats.get("rounds"),
                       "sat_calls": r.stats.get("sat_calls"), "variables": r.stats.get("variables"),
                       "clauses": r.stats.get("clauses"), "build_s": r.stats.get("build_time_s"),
                       "sat_s": r.stats.get("sat_time_s"), "time_s": round(wall, 3),
                       "cpu_s": round(float(np.median(cpus)), 3), "cpus_s": " ".join(f"{c:.3f}" for c in cpus),
                       "statuses": " ".join(statuses),
                       "repairs": f"{r.stats.get('repaired', '')}/{r.stats.get('repairs', '')}",
                       "conflicts": r.stats.get("conflicts"),
                       "times_s": " ".join(f"{w:.3f}" for w in walls), "load_avg": _load(),
                       "baseline_s": round(float(np.median(base_walls)), 3) if base_walls else None,
                       "inferdt_s": ref_time, "inferdt_value": ref_value,
                       "depth_times_s": " ".join(f"{k}:{v}" for k, v in r.stats.get("depth_times_s", {}).items())}
                rows.append(row)
                print(f"{name:40s} {objective:5s} {label:11s} {r.status:9s} value={r.objective} "
                      f"bound={r.bound} rows_used={row['rows_used']} time={wall:.2f}s "
                      f"(build {row['build_s']}s, sat {row['sat_s']}s) inferdt={ref_time}s/{ref_value}",
                      file=sys.stderr, flush=True)
    return rows


def markdown(rows: list[dict]) -> str:
    head = ["dataset", "rows", "distinct", "binary_features", "objective", "backend", "algorithm", "status", "value",
            "depth", "nodes", "rows_used", "time_s", "times_s", "cpu_s", "cpus_s", "statuses", "repairs", "conflicts", "baseline_s", "build_s", "sat_s",
            "load_avg",
            "inferdt_value", "inferdt_s"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        timed_out = row["objective"] in ("depth", "size") and row["inferdt_s"] is None
        cells = ["> 300" if (h == "inferdt_s" and timed_out) else ("" if row.get(h) is None else str(row[h]))
                 for h in head]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=str(ROOT.parent / "shared" / "datasets"))
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--objectives", nargs="+", default=["depth", "size"], choices=["depth", "size", "maxsat"])
    parser.add_argument("--depths", nargs="+", type=int, default=[2, 3], help="depths for maxsat")
    parser.add_argument("--solvers", nargs="+", default=[DEFAULT_SOLVER],
                        help="SAT backends (BACKEND-norepair: without the subtree repair), and 'dp' for the DP "
                             "engine (satdt.solvers.dp) on the same question "
                             "(its algorithm chosen by the data; 'dp-search' / 'dp-boxes' force one)")
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--max-depth", type=int, default=None,
                        help="depth bound K (DT_size: trees of depth <= K instead of the minimum depth)")
    parser.add_argument("--rows-per-round", type=int, default=DEFAULT_ROWS_PER_ROUND)
    parser.add_argument("--at-most-one", default=DEFAULT_AT_MOST_ONE)
    parser.add_argument("--all-rows", action="store_true", help="no incremental example addition")
    parser.add_argument("--row-pick", default=DEFAULT_ROW_PICK, choices=ROW_PICKS)
    parser.add_argument("--repeat", type=int, default=1, help="runs per cell; time_s is their median")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first run (then seed + 1, ...)")
    parser.add_argument("--baseline", action="store_true",
                        help="also time the first version's fixed costs (see baseline()), interleaved")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "out" / "sat"))
    args = parser.parse_args(argv)
    rows = run(args)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.with_suffix(".csv"), "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    table = markdown(rows)
    out.with_suffix(".md").write_text(table)
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
