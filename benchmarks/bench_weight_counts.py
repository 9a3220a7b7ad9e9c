"""Random sample weights against the unweighted solve, an older satdt tree against this one, side
by side (issue 24: "weighted cells <= 1.5x the unweighted solve").

Each cell (a DL8.5 set of ``benchmarks/data/dl85`` or raisin of ``../shared/datasets/quantbnb``,
a depth) is fit by ``DPTreeClassifier(max_depth=d, n_jobs=1).fit(X, y, sample_weight=w)`` with
w = None, float weights ``rng(0).random(n) + 0.05`` (no small common denominator: scaled to a 2^32
total and rounded, satdt/weights.py) and whole weights ``rng(0).integers(1, 6, n)``; each fit in
a fresh process, the older tree's process and this tree's in turns (``--pairs`` pairs), CPU
seconds of the median of ``--repeat`` fits in the process after a depth-2 fit (the first fit's
one-time costs); the nodes, roots, pair solves and the
objective of both trees, which must agree (the same search).

    python benchmarks/bench_weight_counts.py --before /tmp/before --pairs 3 --repeat 2

``--before DIR``: an older ``satdt`` package with its compiled core (``git archive <commit> | tar
-x -C DIR`` and that commit's built ``_core*.so`` copied into ``DIR/satdt/solvers/dp/``).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CELLS = [f"{n}:{d}" for n in ("diabetes", "australian-credit", "breast-wisconsin", "lymph", "anneal", "soybean")
         for d in (3, 4)] + ["raisin:3"]


def worker(root: str, name: str, depth: int, kind: str, repeat: int) -> None:
    """One cell's fits with the package at ``root``: the median CPU seconds and the search's sizes."""
    sys.path.insert(0, root)
    import numpy as np
    from satdt.data import load_csv
    from satdt.estimators import DPTreeClassifier

    path = (ROOT.parent / "shared" / "datasets" / "quantbnb" / f"{name}.train.csv" if name == "raisin"
            else ROOT / "benchmarks" / "data" / "dl85" / f"{name}.csv")
    data = load_csv(path)
    rng = np.random.default_rng(0)
    weights = {"unweighted": None, "float": rng.random(len(data.y)) + 0.05,
               "whole": rng.integers(1, 6, len(data.y))}
    DPTreeClassifier(max_depth=2, n_jobs=1).fit(data.X, data.y, sample_weight=weights[kind])  # the first fit's one-time costs
    times = []
    for _ in range(repeat):
        t = time.process_time()
        model = DPTreeClassifier(max_depth=depth, n_jobs=1).fit(data.X, data.y, sample_weight=weights[kind])
        times.append(time.process_time() - t)
    st = model.result_.stats
    print(statistics.median(times), st["nodes"], st["roots_evaluated"], st["pair_solves"], model.result_.objective)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True)
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--cells", default=",".join(CELLS))
    ap.add_argument("--worker", nargs=5, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        root, name, depth, kind, repeat = args.worker
        worker(root, name, int(depth), kind, int(repeat))
        return
    print("| set | depth | weights | before_s | after_s | after/before | ratio to unweighted, before | after | same search |")
    print("|---|---|---|---|---|---|---|---|---|")
    for cell in args.cells.split(","):
        name, depth = cell.split(":")
        runs = {}
        for kind in ("unweighted", "float", "whole"):
            runs[kind] = {"before": [], "after": []}
            seen = {}
            for _ in range(args.pairs):
                for tag, root in (("before", args.before), ("after", str(ROOT))):
                    out = subprocess.run([sys.executable, __file__, "--before", args.before, "--worker", root, name,
                                          depth, kind, str(args.repeat)], capture_output=True, text=True,
                                         check=True).stdout.split()
                    runs[kind][tag].append(float(out[0]))
                    seen[tag] = out[1:]
            b, a = runs[kind]["before"], runs[kind]["after"]
            ratio = statistics.median(x / y for x, y in zip(a, b))
            if kind == "unweighted":
                rel = ("", "")
            else:
                u = runs["unweighted"]
                rel = tuple(f"{statistics.median(x / y for x, y in zip(runs[kind][t], u[t])):.2f}"
                            for t in ("before", "after"))
            print(f"| {name} | {depth} | {kind} | {statistics.median(b):.3f} | {statistics.median(a):.3f} | "
                  f"{ratio:.2f} | {rel[0]} | {rel[1]} | {seen['before'] == seen['after']} |", flush=True)


if __name__ == "__main__":
    main()
