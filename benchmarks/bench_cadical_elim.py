"""CaDiCaL with and without bounded variable elimination (issue 14's flaky time limit, again).

Two measurements, each configuration in turn in one process:

1. overrun: ``solve_min_size(wine, max_depth=4, solver="cadical195", time_limit=1.5)`` repeated;
   the call's own ``runtime`` minus the limit (with elimination one round on the 1.3 M-clause
   encoding takes ~1.5 s inside a single conflict budget);
2. cost: bundled sets solved to the end (60 s limit), wall seconds and the answer.

``python benchmarks/bench_cadical_elim.py [--repeat 10]``
"""

from __future__ import annotations

import argparse
import time

from satdt import load_dataset
from satdt.binarize import Binarizer
from satdt.solvers.sat import backend, solve_min_depth, solve_min_size

CELLS = [("wine", solve_min_depth, {}), ("zoo", solve_min_size, {}), ("mouse", solve_min_size, {}),
         ("monk2", solve_min_size, {"max_depth": 5}), ("car", solve_min_depth, {}),
         ("tic-tac-toe", solve_min_depth, {}), ("balance-scale", solve_min_depth, {})]


def configure(eliminate: bool) -> None:
    backend.CADICAL_LIMITED.clear()
    if not eliminate:
        backend.CADICAL_LIMITED["elim"] = 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    wine = Binarizer("all").problem(load_dataset("wine"))
    print("| elimination | overruns of wine d4 at 1.5 s (s, sorted) | max |")
    print("|---|---|---|")
    for eliminate in (True, False):
        configure(eliminate)
        over = sorted(solve_min_size(wine, max_depth=4, solver="cadical195", time_limit=1.5).runtime - 1.5
                      for _ in range(args.repeat))
        print(f"| {'on' if eliminate else 'off'} | {', '.join(f'{o:.2f}' for o in over)} | {over[-1]:.2f} |")
    print("\n| set | call | elimination on: s, status, objective | off: s, status, objective |")
    print("|---|---|---|---|")
    for name, solve, kw in CELLS:
        problem = Binarizer("all").problem(load_dataset(name))
        row = [name, f"{solve.__name__}{kw or ''}"]
        for eliminate in (True, False):
            configure(eliminate)
            t0 = time.perf_counter()
            r = solve(problem, solver="cadical195", time_limit=60, **kw)
            row.append(f"{time.perf_counter() - t0:.1f}, {r.status.name}, {r.objective}")
        print("| " + " | ".join(row) + " |", flush=True)
    configure(False)


if __name__ == "__main__":
    main()
