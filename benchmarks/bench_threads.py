"""Wall-clock time to the proven optimum of the DP with one thread and with more (``n_jobs``).

Each cell (dataset, depth) is solved in a fresh process per run (``all`` binarization, the
whole call timed from the solve's start), alternating the thread counts run by run (A B A B ...)
so that a drift of the shared machine's load hits both alike; the ratio is taken pair by pair and
its median reported. Every run must prove the optimum; every thread count must give the same
optimum, and every run of one thread count the same tree and the same number of search nodes (a
mismatch is ``WRONG`` and makes the exit code 1; at depth >= 3 the roots run in parallel (in
waves at depth 3, in a pipeline deeper), whose optimal tree may differ from one thread's). The machine's load (``os.getloadavg``) is printed
before and after each cell.

Besides the wall time: the process's CPU time, the search nodes, and for parallel roots the
waves' *span*: the sum over the waves of the busiest thread's CPU time (a pipeline's: its roots'
CPU times replayed on the threads in the order they ran), plus the CPU time outside them. ``est`` = (CPU time of the first thread count) / span is the speed-up the threads
would give on free cores; on a shared, loaded machine it is steadier than the wall ratio.

No time limit by default (``--time-limit 0``): the complete search alone. With a limit, the
anytime schedule interleaves time-sliced heuristic phases, so a run's work depends on the clock.

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
t, c = time.perf_counter(), time.process_time()
res = solve_max_accuracy_dp(problem, max_depth=depth, n_jobs=n_jobs, time_limit=limit or None)
wall, cpu = time.perf_counter() - t, time.process_time() - c
st = res.stats
print(json.dumps({"status": res.status, "errors": res.objective, "seconds": wall, "cpu": cpu,
                  "span": cpu - st.get("wave_task_us", 0) / 1e6 + st.get("wave_span_us", 0) / 1e6,
                  "nodes": st["nodes"], "waves": st.get("root_waves", 0),
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
    ap.add_argument("--time-limit", type=float, default=0.0, help="seconds (0: none, the complete search alone)")
    ap.add_argument("--data-dir", type=Path, default=REPO.parent / "shared" / "datasets")
    a = ap.parse_args(argv)
    bad = 0
    print("| cell (optimum) | n_jobs | wall, runs (s) | median (s) | median wall ratio to n_jobs=%d | CPU median (s) | "
          "span median (s) | est | nodes | waves | load before / after |" % a.jobs[0])
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for cell in a.cells:
        name, depth = cell.split(":")
        path = a.data_dir / FILES.get(name, f"quantbnb/{name}.train.csv")
        load0 = os.getloadavg()[0]
        times = {j: [] for j in a.jobs}
        cpus = {j: [] for j in a.jobs}
        spans = {j: [] for j in a.jobs}
        seen = {}
        last = {}
        for _ in range(a.runs):
            for j in a.jobs:
                r = run(path, int(depth), j, a.time_limit)
                times[j].append(r["seconds"])
                cpus[j].append(r["cpu"])
                spans[j].append(r["span"])
                key = (r["status"], r["errors"], json.dumps(r["tree"], sort_keys=True), r["nodes"])
                if r["status"] != "OPTIMAL" or seen.setdefault("optimum", r["errors"]) != r["errors"] \
                        or seen.setdefault(j, key) != key:
                    bad += 1
                    print(f"WRONG {cell} n_jobs={j}: {r['status']} {r['errors']} (or another tree / node count)")
                last[j] = r
        load1 = os.getloadavg()[0]
        base = times[a.jobs[0]]
        cpu0 = statistics.median(cpus[a.jobs[0]])
        for j in a.jobs:
            ratios = [b / t for b, t in zip(base, times[j])]
            runs = ", ".join(f"{t:.1f}" for t in times[j])
            span = statistics.median(spans[j])
            print(f"| {name} d{depth} ({seen.get('optimum')}) | {j} | {runs} | {statistics.median(times[j]):.1f} | "
                  f"{statistics.median(ratios):.2f} | {statistics.median(cpus[j]):.1f} | {span:.1f} | "
                  f"{cpu0 / span:.2f} | {last[j]['nodes']} | {last[j]['waves']} | {load0:.1f} / {load1:.1f} |",
                  flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
