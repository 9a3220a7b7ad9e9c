"""Alternated A/B runs of ``satdt solve --method dp`` under two (or more) environments.

Each variant is a set of environment variables, e.g. ``PYTHONPATH=/tmp/before`` (an export of an
older commit with its compiled core built in it: the "before" code) against nothing (this tree).
Every cell (dataset, depth) runs once per variant per round, the order reversed every other round
(A B, B A, ...) so that a drift of the shared machine's load hits the variants alike. One line per
run: errors, the proven bound, the status, the solve's seconds (``runtime_s`` of ``--json``) and
the wall time of the process, and the machine's load.

Example (the demotion of the heuristic lane, stop 36; "before" = main at 38e7451)::

    git archive 38e7451 | tar -x -C /tmp/before   # then build its core there (see RESULTS.md)
    python benchmarks/bench_ab.py --limit 10 --cells wilt:4 --rounds 2 \\
        --variant before=PYTHONPATH=/tmp/before --variant after=
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_anytime import REPO, paths  # noqa: E402


def solve(path: Path, depth: int, limit: float, env: dict[str, str]) -> tuple[str, float]:
    """One run in a fresh process: (the answer as 'errors [bound] STATUS runtime_s', wall seconds)."""
    cmd = [sys.executable, "-m", "satdt.cli", "solve", str(path), "--method", "dp", "--max-depth", str(depth),
           "--json"] + (["--time-limit", str(limit)] if limit > 0 else [])
    start = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **env}, cwd="/tmp")
    wall = time.perf_counter() - start
    try:
        res = json.loads(out.stdout)
    except json.JSONDecodeError:
        return "ERROR " + out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "ERROR", wall
    return f"{res['objective']} [{res['bound']}] {res['status']} {res['runtime_s']:.2f}", wall


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cells", nargs="+", required=True, help="DATASET:DEPTH (a shared set's name or a CSV path)")
    ap.add_argument("--limit", type=float, default=10.0, help="seconds (0: no limit)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--variant", action="append", required=True,
                    help="NAME=KEY=VALUE[,KEY=VALUE...] (NAME= alone: this tree, the environment as it is)")
    args = ap.parse_args(argv)
    variants = []
    for spec in args.variant:
        name, _, rest = spec.partition("=")
        env = dict(kv.split("=", 1) for kv in rest.split(",") if kv)
        if "PYTHONPATH" not in env:
            env["PYTHONPATH"] = str(REPO)
        variants.append((name, env))
    print("| cell | variant | errors [bound] status solve_s | wall_s | load |\n|---|---|---|---|---|")
    for r in range(args.rounds):
        for cell in args.cells:
            name, depth = cell.rsplit(":", 1)
            path = paths(name)[0]
            for vname, env in variants if r % 2 == 0 else variants[::-1]:
                answer, wall = solve(path, int(depth), args.limit, env)
                print(f"| {cell} | {vname} | {answer} | {wall:.1f} | {os.getloadavg()[0]:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
