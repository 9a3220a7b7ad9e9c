"""How fast the `satdt` command starts: import time and whole-process time (issue 13, item 4).

Each command runs ``--runs`` times in a fresh process, the commands interleaved (so a change of
machine load hits them alike); the figure is the median wall time of the whole process. Baselines
(bare ``python``, ``import numpy``) show what the machine costs at that moment: satdt's own part is
the difference. Prints one Markdown table; targets: ``import satdt.cli`` <= 0.25 s and
``satdt solve iris --method sat-depth`` <= 0.5 s on an idle machine.

    python benchmarks/bench_startup.py --runs 15
    python benchmarks/bench_startup.py --runs 11 --before /tmp/satdt_head   # and another tree, interleaved

``--before DIR``: the satdt commands also run from a copy of an older tree (e.g. ``git archive
HEAD | tar -x -C DIR``), put first on ``PYTHONPATH`` with the working directory outside both trees.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path


def commands(satdt_only: bool = False) -> dict[str, list[str]]:
    py = sys.executable
    satdt = str(Path(py).with_name("satdt"))
    if not Path(satdt).exists():
        satdt_cmd = [py, "-m", "satdt.cli"]
    else:
        satdt_cmd = [satdt]
    cmds = {
        "python -c pass": [py, "-c", "pass"],
        "python -c 'import numpy'": [py, "-c", "import numpy"],
        "python -c 'import satdt.cli'": [py, "-c", "import satdt.cli"],
        "satdt solve iris --method sat-depth --json": satdt_cmd + ["solve", "iris", "--method", "sat-depth", "--json"],
        "satdt solve iris --method sat-size --json": satdt_cmd + ["solve", "iris", "--method", "sat-size", "--json"],
        "python -c 'import sklearn.base' (for scale)": [py, "-c", "import sklearn.base"],
    }
    if satdt_only:
        cmds = {k: v for k, v in cmds.items() if "satdt" in k}
    return cmds


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--before", default=None, help="an older satdt tree to time side by side")
    a = ap.parse_args(argv)
    here = Path(__file__).resolve().parents[1]
    runs = [(name, cmd, {"cwd": str(here)}) for name, cmd in commands().items()]
    if a.before:
        env = dict(os.environ, PYTHONPATH=str(Path(a.before).resolve()))
        runs += [(f"{name} [before: {a.before}]", cmd, {"cwd": "/", "env": env})
                 for name, cmd in commands(satdt_only=True).items()]
    times: dict[str, list[float]] = {name: [] for name, _, _ in runs}
    load0 = os.getloadavg()[0]
    for _ in range(a.runs):
        for name, cmd, kwargs in runs:
            t0 = time.perf_counter()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, **kwargs)
            times[name].append(time.perf_counter() - t0)
    load1 = os.getloadavg()[0]
    print(f"| command (whole process) | median s | min s | runs |  load (1 min) {load0:.2f} -> {load1:.2f} |")
    print("|---|---|---|---|---|")
    for name, ts in times.items():
        print(f"| `{name}` | {statistics.median(ts):.3f} | {min(ts):.3f} | {len(ts)} | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
