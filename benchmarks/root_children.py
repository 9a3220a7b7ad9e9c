"""How the proof of a cell splits between the two children of its top test (issue 21, threads).

Solves the set at depth D with the compiled search on one thread and no limit (the greedy tree's
cost as upper bound), then each child of the optimal tree's top test at depth D - 1, each on a
fresh search (no memo shared) with the same upper bound. Where the first top-level root is the
whole proof (segment / occupancy depth 6), two threads could at best run the two children side by
side: the larger child's time over the whole is what that would leave.

    python benchmarks/root_children.py segment 6
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_anytime import paths  # noqa: E402

from satdt.binarize import Binarizer  # noqa: E402
from satdt.data import load_dataset  # noqa: E402
from satdt.deadline import Deadline  # noqa: E402
from satdt.solvers.dp.accuracy import new_search  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("set")
    ap.add_argument("depth", type=int)
    a = ap.parse_args()
    problem = Binarizer("all").problem(load_dataset(str(paths(a.set)[0])))

    def search():
        return new_search(problem, Deadline(None), None, n_jobs=1)

    whole = search()
    rows = np.arange(whole.counts.shape[0])
    ub, _ = whole.greedy(rows, a.depth)
    start = time.perf_counter()
    out = whole.run(a.depth, ub)
    print(f"{a.set} depth {a.depth}: optimum {out.cost:.0f} in {time.perf_counter() - start:.1f} s, "
          f"{whole.stats['nodes']} nodes (upper bound {ub:.0f})", flush=True)
    right = whole.goes_right_binary(rows, out.node.feature)
    for side, S in (("left", rows[~right]), ("right", rows[right])):
        child = search()
        start = time.perf_counter()
        o = child.run(a.depth - 1, ub, rows=S)
        print(f"  {side} child ({S.size} rows) at depth {a.depth - 1}: {o.cost:.0f} in "
              f"{time.perf_counter() - start:.1f} s, {child.stats['nodes']} nodes", flush=True)


if __name__ == "__main__":
    main()
