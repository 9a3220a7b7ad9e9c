"""Time to the proven optimum through the user's route, `satdt solve --time-limit L`, per thread count,
optionally against another version of the package (``--before DIR``: a directory holding a
``satdt`` package with its compiled core, e.g. a copy of main's ``satdt/`` with the built
``_core*.so``; imported first through ``PYTHONPATH``).

Unlike ``bench_threads.py`` (the complete search alone, no limit: deterministic), this times what a
user gets under a limit: the anytime schedule (its heuristic phases, the rows' bound, the two
lanes on two threads or more), whose work depends on the clock. Each run is a fresh `satdt solve`
process started outside the repository (so that ``--before`` is the package imported); for each
cell and thread count the versions alternate (before, after). A run that does not prove the
optimum, or proves another optimum than the cell's first run, prints ``WRONG`` (exit code 1).
The ``runtime_s`` of the CLI's JSON is reported (reading and binarization included).

Example::

    python benchmarks/bench_time_to_proof.py --limit 300 --jobs 2 1 --cells occupancy:6 compas:5
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FILES = {"compas": "gosdt/compas.csv", "monk1": "inferdt/monk1.csv", "tic-tac-toe": "gosdt/tic-tac-toe.csv"}


def run(package: Path, data: Path, depth: int, limit: float, n_jobs: int) -> dict:
    """One `satdt solve` on ``package`` (the directory holding ``satdt``): status, errors, bound,
    seconds and the anytime schedule's counters."""
    env = dict(os.environ, PYTHONPATH=str(package))
    cmd = [sys.executable, "-m", "satdt.cli", "solve", str(data), "--method", "dp", "--max-depth", str(depth),
           "--time-limit", str(limit), "--n-jobs", str(n_jobs), "--json", "--quiet"]
    with tempfile.TemporaryDirectory() as cwd:  # not the repository: its satdt/ would come first
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, check=True)
    r = json.loads(out.stdout)
    a = r["stats"].get("anytime", {})
    return {"status": r["status"], "errors": r["objective"], "bound": r["bound"], "seconds": r["runtime_s"],
            "complete_slices": a.get("complete_slices"), "demoted": a.get("heuristics_demoted"),
            "rows_steps": a.get("rows_steps")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cells", nargs="+", required=True, help="DATASET:DEPTH (quantbnb train files, compas)")
    ap.add_argument("--limit", type=float, default=300.0, help="the time limit of every run (s)")
    ap.add_argument("--jobs", nargs="+", type=int, default=[2, 1])
    ap.add_argument("--before", type=Path, default=None, help="another version's package directory")
    ap.add_argument("--data-dir", type=Path, default=REPO.parent / "shared" / "datasets")
    ap.add_argument("--csv", type=Path, default=None, help="append the rows to this CSV file")
    a = ap.parse_args(argv)
    versions = ([("before", a.before.resolve())] if a.before else []) + [("after", REPO)]
    bad = 0
    rows = []
    print("| cell | n_jobs | version | status | errors | bound | seconds | complete slices | demoted |")
    print("|---|---|---|---|---|---|---|---|---|")
    for j in a.jobs:
        for cell in a.cells:
            name, depth = cell.split(":")
            data = a.data_dir / FILES.get(name, f"quantbnb/{name}.train.csv")
            for version, package in versions:
                r = run(package, data, int(depth), a.limit, j)
                optimum = next((x["errors"] for x in rows if x["cell"] == cell), r["errors"])
                if r["status"] != "OPTIMAL" or r["errors"] != optimum:
                    bad += 1
                    print(f"WRONG {cell} n_jobs={j} {version}: {r['status']} {r['errors']} (optimum {optimum})")
                rows.append({"cell": cell, "n_jobs": j, "version": version, "limit": a.limit, **r})
                print(f"| {name} d{depth} | {j} | {version} | {r['status']} | {r['errors']} | {r['bound']} | "
                      f"{r['seconds']:.1f} | {r['complete_slices']} | {r['demoted']} |", flush=True)
    if a.csv is not None and rows:
        new = not a.csv.exists()
        with open(a.csv, "a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            if new:
                w.writeheader()
            w.writerows(rows)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
