"""Time to proven optimum of the DP / branch-and-bound engine (satdt.solvers.dp), depth 2-4.

Every run: ``all`` binarization of the file in ``--data-dir`` (binarization time reported apart),
one depth, a wall-clock limit per run. Each OPTIMAL is checked against the known optimum of
issue 3 (a mismatch is flagged ``WRONG`` and makes the exit code 1); a FEASIBLE is checked for
``bound <= known <= errors``. Runs go in the order given (put cheap ones first). With
``--binoct`` the same datasets/depths listed there are also run with BinOCT + CP-SAT
(``satdt.solvers.mip.solve_binoct``) side by side.

Example::

    python benchmarks/bench_dp.py --time-limit 300 --depths 2 3 --datasets iris monk1 raisin \
        --binoct monk1 tic-tac-toe
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from satdt.binarize import Binarizer  # noqa: E402
from satdt.data import load_csv  # noqa: E402
from satdt.solvers.dp import solve_max_accuracy_dp  # noqa: E402

# known optimal training errors at depth 2 / depth 3 (issue 3; `all` binarization)
KNOWN = {"iris": (6, 1), "monk1": (22, 11), "monk2": (57, 42), "monk3": (8, 6), "wine": (6, 0),
         "tic-tac-toe": (282, 216), "compas": (2296, 2171), "bank": (82, 19), "bidding": (95, 37),
         "fault": (647, 494), "htru": (300, 275), "magic": (2971, 2567), "occupancy": (86, 47),
         "page": (200, 125), "raisin": (91, 76), "rice": (203, 189), "room": (441, 62),
         "segment": (786, 208), "wilt": (37, 18)}
FILES = {"iris": "inferdt/iris.csv", "monk1": "inferdt/monk1.csv", "monk2": "inferdt/monk2.csv",
         "monk3": "inferdt/monk3.csv", "wine": "inferdt/wine.csv",
         "tic-tac-toe": "gosdt/tic-tac-toe.csv", "compas": "gosdt/compas.csv"}
CHEAP_FIRST = ["monk1", "monk2", "monk3", "tic-tac-toe", "iris", "wine", "compas", "raisin", "bank",
               "room", "segment", "fault", "page", "bidding", "occupancy", "rice", "wilt", "htru", "magic"]
FIELDS = ["dataset", "depth", "method", "status", "errors", "bound", "known", "check", "seconds",
          "binarize_s", "rows", "distinct", "columns", "roots_evaluated", "nodes", "tree_source"]


def dataset_path(data_dir: Path, name: str) -> Path:
    return data_dir / FILES.get(name, f"quantbnb/{name}.train.csv")


def check(res, known: int | None) -> str:
    if known is None or res.objective is None:
        return ""
    if res.status == "OPTIMAL":
        return "ok" if res.objective == known else "WRONG"
    return "ok" if res.bound <= known <= res.objective else "WRONG"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-dir", type=Path, default=REPO.parent / "shared" / "datasets")
    ap.add_argument("--time-limit", type=float, default=300.0, help="seconds per run (default 300)")
    ap.add_argument("--datasets", nargs="+", default=CHEAP_FIRST)
    ap.add_argument("--depths", nargs="+", type=int, default=[2, 3])
    ap.add_argument("--binoct", nargs="*", default=[], help="datasets also solved with BinOCT + CP-SAT")
    ap.add_argument("--binoct-time-limit", type=float, default=None, help="default: --time-limit")
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "out" / "dp.csv")
    args = ap.parse_args(argv)
    if args.time_limit > 300:
        ap.error("--time-limit above 300 s is not allowed on the shared machine")

    args.out.parent.mkdir(parents=True, exist_ok=True)
    rows, wrong = [], 0
    with open(args.out, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        writer.writeheader()
        for name in args.datasets:
            t0 = time.perf_counter()
            problem = Binarizer("all").problem(load_csv(dataset_path(args.data_dir, name)))
            bin_s = time.perf_counter() - t0
            methods = ["dp"] + (["binoct"] if name in args.binoct else [])
            for depth in args.depths:
                known = KNOWN[name][depth - 2] if name in KNOWN and depth in (2, 3) else None
                for method in methods:
                    t0 = time.perf_counter()
                    if method == "dp":
                        res = solve_max_accuracy_dp(problem, max_depth=depth, time_limit=args.time_limit)
                    else:
                        from satdt.solvers.mip import solve_binoct
                        res = solve_binoct(problem, max_depth=depth, backend="cpsat",
                                           time_limit=args.binoct_time_limit or args.time_limit)
                    seconds = time.perf_counter() - t0
                    ck = check(res, known)
                    wrong += ck == "WRONG"
                    row = {"dataset": name, "depth": depth, "method": method, "status": res.status,
                           "errors": res.objective, "bound": res.bound, "known": known, "check": ck,
                           "seconds": round(seconds, 2), "binarize_s": round(bin_s, 2),
                           "rows": problem.n_rows, "distinct": problem.n_distinct,
                           "columns": problem.n_binary,
                           "roots_evaluated": res.stats.get("roots_evaluated"),
                           "nodes": res.stats.get("nodes"), "tree_source": res.stats.get("tree_source")}
                    writer.writerow(row)
                    fh.flush()
                    rows.append(row)
                    print(" | ".join(str(row[k]) for k in FIELDS), flush=True)
    print()
    print("| dataset | rows | columns | depth | method | status | errors | bound | known | check | seconds |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['dataset']} | {r['rows']} | {r['columns']} | {r['depth']} | {r['method']} | {r['status']} | "
              f"{r['errors']} | {r['bound']} | {r['known'] if r['known'] is not None else ''} | {r['check']} | "
              f"{r['seconds']} |")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
