"""Two builds of satdt side by side: the exact DP's process CPU time, one thread, no time limit.

Each cell is solved in a fresh process per run, alternating the two builds (A B A B ...) so that a
drift of the shared machine's load hits both alike; the ratio B / A is taken pair by pair and its
median reported. A build is a folder holding a ``satdt`` package with its compiled core, put
first on ``PYTHONPATH`` (e.g. ``git archive main satdt | tar -x -C /tmp/before`` plus the
``_core*.so`` pip built from it). Both builds must find the same optimum with the same tree and
the same number of search nodes (else ``WRONG``, exit code 1): only the speed may differ.

Cells: ``DATASET:DEPTH`` (the ``all`` binarization, ``solve_max_accuracy_dp``), or
``DATASET:DEPTH:w`` for ``DPTreeClassifier(max_depth=DEPTH, n_jobs=1).fit(X, y,
sample_weight=rng.random(n) + 0.05)`` (float weights, rounded to a total of 2**32 by
satdt/weights.py; ``rng = numpy.random.default_rng(0)``).

Example::

    python benchmarks/bench_build.py --before /tmp/before --after /tmp/after --cells wilt:4 raisin:3 --pairs 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_threads import FILES, REPO  # noqa: E402  (the sets outside quantbnb/, by name)

CHILD = r"""
import json, sys, time
import numpy as np
from satdt.binarize import Binarizer
from satdt.data import load_csv
path, depth, weighted = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "w"
data = load_csv(path)
if weighted:
    from satdt.estimators import DPTreeClassifier
    X, y = data.X, data.classes[data.y]
    w = np.random.default_rng(0).random(len(y)) + 0.05
    c = time.process_time()
    est = DPTreeClassifier(max_depth=depth, n_jobs=1).fit(X, y, sample_weight=w)
    cpu = time.process_time() - c
    res = est.result_
else:
    from satdt.solvers.dp import solve_max_accuracy_dp
    problem = Binarizer("all").problem(data)
    c = time.process_time()
    res = solve_max_accuracy_dp(problem, max_depth=depth, n_jobs=1)
    cpu = time.process_time() - c
print(json.dumps({"status": res.status, "objective": str(res.objective), "cpu": cpu,
                  "nodes": res.stats.get("nodes"), "tree": res.tree.to_dict()}, default=str))
"""


def run(build: Path, path: Path, depth: int, kind: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(build))
    out = subprocess.run([sys.executable, "-c", CHILD, str(path), str(depth), kind], capture_output=True,
                         text=True, check=True, cwd="/tmp", env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, required=True, help="folder of build A (first on PYTHONPATH)")
    ap.add_argument("--after", type=Path, required=True, help="folder of build B")
    ap.add_argument("--cells", nargs="+", default=["wilt:4", "raisin:3"], help="DATASET:DEPTH[:w]")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--data-dir", type=Path, default=REPO.parent / "shared" / "datasets")
    args = ap.parse_args(argv)
    wrong = False
    print("| cell | A: CPU s per pair | B: CPU s per pair | B / A per pair | median B / A | nodes | load |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for cell in args.cells:
        name, depth, *kind = cell.split(":")
        path = args.data_dir / FILES.get(name, f"quantbnb/{name}.train.csv")
        load0 = os.getloadavg()[0]
        a, b = [], []
        for _ in range(args.pairs):
            a.append(run(args.before, path, int(depth), kind[0] if kind else ""))
            b.append(run(args.after, path, int(depth), kind[0] if kind else ""))
        same = all((r["status"], r["objective"], r["tree"], r["nodes"]) == (a[0]["status"], a[0]["objective"],
                                                                          a[0]["tree"], a[0]["nodes"]) for r in a + b)
        wrong |= not same
        ratios = [y["cpu"] / x["cpu"] for x, y in zip(a, b)]
        fmt = lambda v: ", ".join(f"{x:.2f}" for x in v)  # noqa: E731
        print(f"| {cell} | {fmt(r['cpu'] for r in a)} | {fmt(r['cpu'] for r in b)} | {fmt(ratios)} | "
              f"{statistics.median(ratios):.3f} | {a[0]['nodes']}{'' if same else ' WRONG'} | "
              f"{load0:.1f}-{os.getloadavg()[0]:.1f} |", flush=True)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
