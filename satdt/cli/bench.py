"""``satdt bench``: methods x datasets x depths, tabulated (:mod:`satdt.bench` runs them)."""

from __future__ import annotations

import argparse
import json
import sys

from ..methods import METHODS
from .common import EXIT_OK, jsonable


def cmd_bench(a: argparse.Namespace) -> int:
    from ..bench import HEURISTICS, Task, peers, resolve_dataset, run_benchmark, to_markdown

    methods = [m for m in a.methods.split(",") if m]
    known = set(METHODS) | set(HEURISTICS) | set(peers())
    unknown = [m for m in methods if m not in known]
    if unknown:
        raise ValueError(f"unknown method(s) {', '.join(unknown)}; choose from {', '.join(sorted(known))}")
    try:
        depths = [int(d) for d in a.depths.split(",") if d]
    except ValueError:
        raise ValueError(f"--depths must be comma-separated integers, got {a.depths!r}") from None
    if any(d < 0 for d in depths):
        raise ValueError(f"--depths must be integers >= 0, got {a.depths!r}")
    datasets = [d for d in a.datasets.split(",") if d]
    for dataset in datasets:  # a typo fails here, before any task runs
        resolve_dataset(dataset, a.data_dir)
    tasks = []
    for dataset in datasets:
        for method in methods:
            for depth in ([None] if method == "sat-depth" else depths):
                tasks.append(Task(method, dataset, max_depth=depth, lam=a.lam, alpha=a.alpha,
                                  time_limit=a.time_limit))

    def progress(done: int, total: int, row: dict) -> None:
        print(f"[{done}/{total}] {row['dataset']} {row['method']} depth={row['max_depth']}: "
              f"{row.get('status')} {row.get('errors', '')} errors, {row['time_s']} s"
              + (f" ({row['error']})" if row.get("error") else ""), file=sys.stderr)

    rows = run_benchmark(tasks, n_jobs=a.jobs, data_dir=a.data_dir, progress=progress)
    if a.output:
        import pandas as pd

        pd.DataFrame(rows).to_csv(a.output, index=False)
    print(json.dumps(jsonable(rows)) if a.json else to_markdown(rows))
    return EXIT_OK
