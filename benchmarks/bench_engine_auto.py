"""SAT vs the DP's two algorithms on DT_depth / DT_size: the measurements behind ``engine="auto"``.

For each dataset (the "all" binarization) and objective, runs the SAT engine
(:func:`satdt.solvers.sat.solve_min_depth` / ``solve_min_size``), the DP engine's branch and bound
(:func:`satdt.solvers.dp.solve_min_depth_dp` / ``solve_min_size_dp`` with ``algorithm="search"``)
and its box DP (``algorithm="boxes"``, only up to 4e7 boxes: above, its tables do not fit the
DP's own limits), one after the other, and prints one Markdown row per cell with the problem's
figures (rows, binary columns, boxes, chains), the three times and what
:func:`satdt.solvers.engine_choice.choose_engine` picks. Times are the median of ``--repeat`` runs
(engine time, binarization excluded; one run when a run takes over 5 s); a run that does not
finish counts as ``--time-limit``.

    python benchmarks/bench_engine_auto.py --repeat 3 --time-limit 60 [--datasets iris car ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "datasets" / "inferdt"
if not SHARED.is_dir():
    SHARED = Path("/work/shared/datasets/inferdt")

DEFAULT = ["monk1", "monk2", "monk3", "car", "balance-scale", "500_Person_Gender_Height_Weight_Index",
           "monk1-onehot", "monk2-onehot", "tic-tac-toe", "iris", "mouse", "zoo", "lung_cancer_examples", "wine",
           "iris.train0", "iris.train1", "iris.train2", "wine.train0", "wine.train1"]


def _path(name: str) -> Path:
    for folder in (SHARED, SHARED.parent / "quantbnb", ROOT / "satdt" / "datasets"):
        p = folder / f"{name}.csv"
        if p.is_file():
            return p
    raise SystemExit(f"no dataset {name}")


def _run(fn, problem, time_limit: float, repeat: int):
    times, res = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = fn(problem, time_limit=time_limit)
        elapsed = time.perf_counter() - t0
        times.append(elapsed if res.status == "OPTIMAL" else max(elapsed, time_limit))
        if elapsed > 5:
            break  # slow cells: one run is enough to rank the engines
    return statistics.median(times), res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", nargs="+", default=DEFAULT)
    ap.add_argument("--objectives", nargs="+", default=["depth", "size"])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--time-limit", type=float, default=60.0)
    a = ap.parse_args(argv)

    from satdt import Binarizer, load_csv
    from satdt.binarize import ConflictError
    from satdt.solvers import sat
    from satdt.solvers.engine_choice import choose_engine
    from satdt.solvers.dp import solve_min_depth_dp, solve_min_size_dp

    print("| dataset | objective | rows | binary columns | boxes | chains | value | SAT s | DP search s | "
          "DP boxes s | fastest | auto picks |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in a.datasets:
        data = load_csv(_path(name))
        problem = Binarizer("all").problem(data)
        try:
            problem.check_consistent()
        except ConflictError:
            print(f"| {name} | - | inconsistent data: skipped |", flush=True)
            continue
        for objective in a.objectives:
            engine, reason, info = choose_engine(problem, objective)
            sat_fn = sat.solve_min_depth if objective == "depth" else sat.solve_min_size
            dp_fn = solve_min_depth_dp if objective == "depth" else solve_min_size_dp
            runs = {"sat": _run(sat_fn, problem, a.time_limit, a.repeat),
                    "search": _run(lambda p, **k: dp_fn(p, algorithm="search", **k), problem, a.time_limit, a.repeat)}
            if info["boxes"] <= 4e7:
                runs["boxes"] = _run(lambda p, **k: dp_fn(p, algorithm="boxes", **k), problem, a.time_limit,
                                     a.repeat)
            optima = {r.objective for _, r in runs.values() if r.status == "OPTIMAL"}
            if len(optima) > 1:
                print(f"MISMATCH {name} {objective}: {optima}", file=sys.stderr)
            fmt = lambda t, r: f"{t:.3f}" if r.status == "OPTIMAL" else f"> {a.time_limit:g} ({r.status})"  # noqa: E731
            cell = {k: fmt(*v) for k, v in runs.items()}
            fastest = min(runs, key=lambda k: runs[k][0])
            pick = "sat" if engine == "sat" else info["algorithm"]
            print(f"| {name} | {objective} | {data.n_rows} | {problem.n_binary} | {info['boxes']:.3g} | "
                  f"{info['chains']} | {optima.pop() if optima else '?'} | {cell['sat']} | {cell['search']} | "
                  f"{cell.get('boxes', 'n/a')} | {fastest} | {engine} ({pick}) |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
