"""Wall-clock time to the proven optimum of the DP with one thread and with more (``n_jobs``).

Each cell (dataset, depth) is solved in a fresh process per run (``all`` binarization, the
whole call timed from the solve's start), alternating the thread counts run by run (A B A B ...)
so that a drift of the shared machine's load hits both alike; the ratio is taken pair by pair and
its median reported. Every run must prove the optimum, and every thread count must give the same
optimum and the same tree (a mismatch is ``WRONG`` and makes the exit code 1). The machine's load
(``os.getloadavg``) is printed before and after each cell.

Example::

    python benchmarks/bench_threads.py --cells compas:5 magic:3 --jobs 1 2 --runs 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FILES = {"compas": "gosdt/compas.csv", "monk1": "inferdt/monk1.csv", "tic-tac-toe": "gosdt/tic-tac-toe.csv"}

CHILD = r"""
import json, sys, time
from satdt.binarize import Binarizer
from satdt.data import load_csv
from satdt.solvers.dp import solve_max_accuracy_dp
path, depth, n_jobs, limit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
problem = Binarizer("all").problem(load_csv(path))
t = time.perf_counter()
res = solve_max_accuracy_dp(problem, max_depth=depth, n_jobs=n_jobs, time_limit=limit)
wall = time.perf_counter() - t
print(json.dumps({"status": res.status, "errors": res.objective, "seconds": wall,
                  "tree": res.tree.to_dict(), "thread_runs": res.stats.get("thread_runs", 0),
                  "worker_tasks": res.stats.get("worker_tasks", 0)}))
"""


def run(path: Path, depth: int, n_jobs: int, limit: float) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(path), str(depth), str(n_jobs), str(limit)],
                         capture_output=True, text=True, check=True, cwd=REPO)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cells", nargs="+", default=["compas:5", "magic:3"], help="DATASET:DEPTH")
    ap.add_argument("--jobs", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--time-limit", type=float, default=900.0)
    ap.add_argument("--data-dir", type=Path, default=REPO.parent / "shared" / "datasets")
    a = ap.parse_args(argv)
    bad = 0
    print("| cell | n_jobs | runs (s) | median (s) | median ratio to n_jobs=%d | tasks run by the workers (last run) | load before / after |"
          % a.jobs[0])
    print("|---|---|---|---|---|---|---|")
    for cell in a.cells:
        name, depth = cell.split(":")
        path = a.data_dir / FILES.get(name, f"quantbnb/{name}.train.csv")
        load0 = os.getloadavg()[0]
        times = {j: [] for j in a.jobs}
        seen = {}
        share = {}
        for _ in range(a.runs):
            for j in a.jobs:
                r = run(path, int(depth), j, a.time_limit)
                times[j].append(r["seconds"])
                key = (r["status"], r["errors"], json.dumps(r["tree"], sort_keys=True))
                if r["status"] != "OPTIMAL" or seen.setdefault("first", key) != key:
                    bad += 1
                    print(f"WRONG {cell} n_jobs={j}: {r['status']} {r['errors']} (or another tree)")
                if r["thread_runs"]:
                    share[j] = r["worker_tasks"]
        load1 = os.getloadavg()[0]
        base = times[a.jobs[0]]
        for j in a.jobs:
            ratios = [b / t for b, t in zip(base, times[j])]
            runs = ", ".join(f"{t:.1f}" for t in times[j])
            print(f"| {name} d{depth} | {j} | {runs} | {statistics.median(times[j]):.1f} | "
                  f"{statistics.median(ratios):.2f} | {share.get(j, '-')} | {load0:.1f} / {load1:.1f} |", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
