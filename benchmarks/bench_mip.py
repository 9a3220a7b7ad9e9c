"""Time to proven optimum of BinOCT and OCT (OR-tools MIP) at depth 2 and 3.

Every run: ``all`` binarization of the file in ``--data-dir``, one formulation, one backend and
interface, one depth, a wall-clock limit per run. Each OPTIMAL is checked against the known
optimum of ``tests/known_optima.py`` (a mismatch is flagged ``WRONG`` and makes the exit code 1).

Example::

    python benchmarks/bench_mip.py --time-limit 120 --datasets monk1 tic-tac-toe \
        --formulations binoct oct --backends cpsat scip --depths 2 3
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from satdt.binarize import Binarizer  # noqa: E402
from satdt.data import load_csv  # noqa: E402
from satdt.solvers.mip import solve_binoct, solve_oct  # noqa: E402
from known_optima import errors_by_depth  # noqa: E402

# known optimal training errors at depth 2 / depth 3 (`all` binarization), with their sources in
# tests/known_optima.py
KNOWN = errors_by_depth()
FILES = {"iris": "inferdt/iris.csv", "monk1": "inferdt/monk1.csv", "monk2": "inferdt/monk2.csv",
         "monk3": "inferdt/monk3.csv", "wine": "inferdt/wine.csv",
         "tic-tac-toe": "gosdt/tic-tac-toe.csv", "compas": "gosdt/compas.csv"}
COMBOS = {"cpsat": "mathopt", "scip": "mathopt", "highs": "mathopt", "cbc": "pywraplp"}


def dataset_path(data_dir: Path, name: str) -> Path:
    return data_dir / FILES.get(name, f"quantbnb/{name}.train.csv")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-dir", type=Path, default=REPO.parent / "shared" / "datasets")
    ap.add_argument("--time-limit", type=float, default=120.0, help="seconds per run (default 120)")
    ap.add_argument("--datasets", nargs="+", default=list(KNOWN))
    ap.add_argument("--formulations", nargs="+", default=["binoct", "oct"], choices=["binoct", "oct"])
    ap.add_argument("--backends", nargs="+", default=["cpsat"],
                    help="backend or backend:interface, e.g. scip scip:pywraplp cbc:pywraplp")
    ap.add_argument("--depths", nargs="+", type=int, default=[2, 3])
    ap.add_argument("--no-warm-start", action="store_true")
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "out" / "mip.csv")
    args = ap.parse_args(argv)

    args.out.parent.mkdir(parents=True, exist_ok=True)
    rows, wrong = [], 0
    fields = ["dataset", "depth", "formulation", "backend", "interface", "status", "errors", "bound",
              "known", "check", "seconds", "build_s", "variables", "constraints", "nonzeros", "tree_source"]
    with open(args.out, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        for name in args.datasets:
            path = dataset_path(args.data_dir, name)
            problem = Binarizer("all").problem(load_csv(path))
            for depth in args.depths:
                for form in args.formulations:
                    for spec in args.backends:
                        backend, _, interface = spec.partition(":")
                        interface = interface or COMBOS[backend]
                        solve = solve_binoct if form == "binoct" else solve_oct
                        t0 = time.perf_counter()
                        res = solve(problem, max_depth=depth, backend=backend, interface=interface,
                                    time_limit=args.time_limit, warm_start=not args.no_warm_start)
                        seconds = time.perf_counter() - t0
                        known = KNOWN.get(name, (None, None, None, None))[depth - 2] if depth in (2, 3) else None
                        check = ""
                        if known is not None and res.status == "OPTIMAL":
                            check = "ok" if res.objective == known else "WRONG"
                        elif known is not None and res.objective is not None:
                            check = "ok" if res.bound <= known <= res.objective else "WRONG"
                        wrong += check == "WRONG"
                        row = {"dataset": name, "depth": depth, "formulation": form, "backend": backend,
                               "interface": interface, "status": res.status, "errors": res.objective,
                               "bound": res.bound, "known": known, "check": check,
                               "seconds": round(seconds, 2), "build_s": res.stats.get("build_s"),
                               "variables": res.stats.get("variables"),
                               "constraints": res.stats.get("constraints"),
                               "nonzeros": res.stats.get("nonzeros"),
                               "tree_source": res.stats.get("tree_source")}
                        writer.writerow(row)
                        fh.flush()
                        rows.append(row)
                        print(" | ".join(str(row[k]) for k in fields[:12]), flush=True)
    print()
    print("| dataset | depth | formulation | backend | status | errors | bound | known | check | seconds |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['dataset']} | {r['depth']} | {r['formulation']} | {r['backend']}:{r['interface']} | "
              f"{r['status']} | {r['errors']} | {r['bound']} | {r['known']} | {r['check']} | {r['seconds']} |")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
