"""satdt's exact DP side by side with the field's C++ solvers, whole process, same machine, same run.

For every cell (dataset file, depth, optional lambda) the two commands run in turn, A B A B ...
(``--runs`` pairs after one warm-up pair), each as its own process: ``satdt solve FILE --method
dp --max-depth D [--lam L] --json`` against ``python benchmarks/peer_run.py PEER FILE ...``
(STreeD = ``pystreed`` on satdt's ``all`` binarization, ConTree = ``pycontree`` on the raw
features, GOSDT = ``gosdt``). Reported per cell: median wall seconds of each (whole process:
start-up, loading, binarization, search), the median of the pairwise ratios satdt / peer, the
solver-only seconds each reports, peak memory of each process (``ru_maxrss`` from ``wait4``),
and a check that both reach the same training errors (for lambda cells: the same objective).
Needs the optional peers: ``pip install -e '.[peers]'``.

Examples::

    python benchmarks/bench_peers.py --suite quantbnb --runs 3          # 12 sets, depth 3, ConTree
    python benchmarks/bench_peers.py --suite binary --runs 3            # depth 4-5, STreeD
    python benchmarks/bench_peers.py --suite regularized --runs 3       # lam 0.01/0.005, depth 5
    python benchmarks/bench_peers.py --suite quantile --runs 2 --warmup 0    # binarized real sets, STreeD
    python benchmarks/bench_peers.py --suite dl85-regularized --runs 2     # DL8.5 sets, depth 5, lambda
    python benchmarks/bench_peers.py --suite continuous --runs 2           # depth 2 and 4, ConTree
    python benchmarks/bench_peers.py --cell gosdt/compas.csv:4 --peer pystreed
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "datasets"
BUNDLED = REPO / "satdt" / "datasets"
QUANTBNB = ["bank", "bidding", "fault", "htru", "magic", "occupancy", "page", "raisin", "rice", "room",
            "segment", "wilt"]
# the quantile suite: real continuous sets binarized into DL8.5-like binary sets (one 0/1 column per
# quantile threshold, the shapes of the MurTree paper's sets: hundreds of columns, 700-15,000 rows),
# written by ``quantile_file`` into benchmarks/out/quantile/ (NAME: (thresholds per feature, rows kept))
QUANTILE = {"bank": (25, None), "raisin": (16, None), "segment": (13, None), "fault": (10, None),
            "rice": (40, None), "wilt": (50, None), "bidding": (28, None), "fault351": (16, 351),
            "magic": (22, None)}
DL85 = ["anneal", "australian-credit", "breast-wisconsin", "diabetes", "lymph", "soybean", "zoo-1"]
SUITES = {
    "quantbnb": [(f"quantbnb/{d}.train.csv", 3, None, "pycontree") for d in QUANTBNB],
    # compas at depth 5 takes STreeD more than 300 s here: run it apart (--cell gosdt/compas.csv:5)
    "binary": [(f, d, None, "pystreed") for f in ("bundled/monk1-onehot.csv", "bundled/monk2-onehot.csv",
                                                  "gosdt/monk1.csv", "gosdt/monk2.csv", "gosdt/tic-tac-toe.csv")
               for d in (4, 5)] + [("gosdt/compas.csv", 4, None, "pystreed")],
    # the DL8.5 / MurTree / STreeD binary benchmark sets (label first in the source files, last here),
    # fetched into benchmarks/data/dl85/ (see its README.md), depths 2-4 against STreeD
    "dl85": [(f"dl85/{d}.csv", depth, None, "pystreed") for d in DL85 for depth in (2, 3, 4)],
    "quantile": [(f"quantile/{d}.csv", depth, None, "pystreed")
                 for d, depth in (("bank", 4), ("raisin", 4), ("segment", 4), ("bidding", 4), ("rice", 3),
                                  ("wilt", 3), ("fault351", 3), ("magic", 3), ("fault", 4), ("rice", 4))],
    "dl85-regularized": [(f"dl85/{d}.csv", 5, lam, "pystreed") for d in ("anneal", "australian-credit",
                                                                         "breast-wisconsin", "diabetes")
                         for lam in (0.01, 0.005)],
    "continuous": [(f"quantbnb/{d}.train.csv", 2, None, "pycontree") for d in QUANTBNB]
    + [(f"quantbnb/{d}.train.csv", 4, None, "pycontree") for d in ("bank", "raisin")],
    "regularized": [(f, 5, lam, "pystreed") for f in ("gosdt/monk1.csv", "gosdt/monk2.csv", "gosdt/tic-tac-toe.csv",
                                                      "gosdt/compas.csv") for lam in (0.01, 0.005)],
}


def quantile_file(name: str) -> Path:
    """The quantile suite's binary CSV of a Quant-BnB train set (written once, deterministic)."""
    out = REPO / "benchmarks" / "out" / "quantile" / f"{name}.csv"
    if out.exists():
        return out
    import numpy as np
    import pandas as pd

    k, rows = QUANTILE[name]
    source = "".join(ch for ch in name if not ch.isdigit())
    df = pd.read_csv(DATA / "quantbnb" / f"{source}.train.csv")
    if rows:
        df = df.sample(n=rows, random_state=0)
    X, y = df.iloc[:, :-1].to_numpy(float), df.iloc[:, -1].to_numpy()
    cols = [(X[:, j] <= t).astype(np.int8) for j in range(X.shape[1])
            for t in np.unique(np.quantile(X[:, j], np.linspace(0, 1, k + 2)[1:-1]))]
    B = np.unique(np.array([c for c in cols if 0 < c.sum() < len(c)]), axis=0)  # no constant or repeated column
    table = pd.DataFrame(B.T, columns=[f"b{i}" for i in range(B.shape[0])])
    table["label"] = y
    out.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(out, index=False)
    return out


def _path(name: str) -> Path:
    if name.startswith("quantile/"):
        return quantile_file(name.split("/", 1)[1][:-len(".csv")])
    if name.startswith("bundled/"):
        return BUNDLED / name.split("/", 1)[1]
    if name.startswith("dl85/"):
        return REPO / "benchmarks" / "data" / name
    return DATA / name


def run_measured(cmd: list[str], timeout: float) -> tuple[float, float, str]:
    """(wall seconds, peak RSS MB of the process itself, from ``os.wait4``, stdout) of one run."""
    with tempfile.TemporaryFile(mode="w+") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL, text=True)
        deadline = start + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                os.wait4(proc.pid, 0)
                return float("nan"), float("nan"), ""
            time.sleep(0.002)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        return wall, usage.ru_maxrss / 1024.0, out.read()


def _last_json(out: str) -> dict:
    """The last JSON object line of a process's output (a peer may print its own log first)."""
    for line in reversed(out.strip().splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    return {}


def commands(cell: tuple, time_limit: float) -> tuple[list[str], list[str]]:
    name, depth, lam, peer = cell
    path = str(_path(name))
    ours = [str(Path(sys.executable).with_name("satdt")), "solve", path, "--method", "dp", "--max-depth",
            str(depth), "--time-limit", str(time_limit), "--json"]
    theirs = [sys.executable, str(REPO / "benchmarks" / "peer_run.py"), peer, path, "--depth", str(depth),
              "--time-limit", str(time_limit)]
    if lam is not None:
        ours += ["--lam", str(lam)]
        theirs += ["--lam", str(lam)]
    return ours, theirs


def bench_cell(cell: tuple, runs: int, time_limit: float, warmup: int = 1) -> dict:
    ours, theirs = commands(cell, time_limit)
    a, b, ratios, mem_a, mem_b = [], [], [], [], []
    out_a = out_b = ""
    for i in range(runs + warmup):
        wa, ma, oa = run_measured(ours, time_limit * 2 + 60)
        wb, mb, ob = run_measured(theirs, time_limit * 2 + 60)
        if i < warmup:
            continue  # warm-up pairs (file cache, imports)
        a.append(wa), b.append(wb), mem_a.append(ma), mem_b.append(mb), ratios.append(wa / wb)
        out_a, out_b = oa or out_a, ob or out_b
    ra, rb = _last_json(out_a), _last_json(out_b)
    name, depth, lam, peer = cell
    row = {"cell": f"{name} d{depth}" + (f" lam {lam}" if lam is not None else ""), "peer": peer,
           "satdt_status": ra.get("status"), "satdt_errors": ra.get("errors"), "peer_errors": rb.get("errors"),
           "satdt_s": statistics.median(a), "peer_s": statistics.median(b),
           "ratio": statistics.median(ratios), "satdt_solver_s": ra.get("runtime_s"),
           "peer_solver_s": rb.get("solver_s"), "peer_fit_s": rb.get("fit_s"), "satdt_mb": max(mem_a), "peer_mb": max(mem_b)}
    if lam is None:
        row["check"] = "ok" if ra.get("errors") == rb.get("errors") else "DIFF"
    else:  # the regularized optimum: the peers report no leaf count here, so errors are compared
        # (two optimal trees may trade errors for leaves: a difference is flagged, not failed)
        row["check"] = "ok" if ra.get("errors") == rb.get("errors") else "errors differ"
    return row


def to_markdown(rows: list[dict]) -> str:
    cols = ["cell", "peer", "satdt_status", "satdt_errors", "peer_errors", "check", "satdt_s", "peer_s",
            "ratio", "satdt_solver_s", "peer_solver_s", "peer_fit_s", "satdt_mb", "peer_mb"]

    def fmt(v):
        if isinstance(v, float):
            return f"{v:.3g}" if abs(v) < 100 else f"{v:.0f}"
        return "" if v is None else str(v)

    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(fmt(r.get(c)) for c in cols) + " |" for r in rows]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--suite", choices=sorted(SUITES), action="append", default=[])
    ap.add_argument("--cell", action="append", default=[], help="FILE:DEPTH[:LAM] (FILE under shared/datasets "
                    "or bundled/NAME.csv)")
    ap.add_argument("--peer", default=None, choices=["pystreed", "pycontree", "gosdt"],
                    help="the peer of --cell cells (default pystreed), and of the suites' cells when given")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1, help="uncounted pairs first (file cache, imports)")
    ap.add_argument("--time-limit", type=float, default=300)
    ap.add_argument("--only", nargs="*", default=None, help="keep cells whose name contains one of these")
    a = ap.parse_args()
    cells = [c if a.peer is None else (*c[:3], a.peer) for s in a.suite for c in SUITES[s]]
    for spec in a.cell:
        parts = spec.split(":")
        cells.append((parts[0], int(parts[1]), float(parts[2]) if len(parts) > 2 else None, a.peer or "pystreed"))
    if a.only:
        cells = [c for c in cells if any(o in c[0] for o in a.only)]
    rows = []
    for cell in cells:
        row = bench_cell(cell, a.runs, a.time_limit, a.warmup)
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    print(to_markdown(rows))
    return 1 if any(r["check"] == "DIFF" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
