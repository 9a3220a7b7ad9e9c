"""Good trees at a time limit: satdt's anytime DP against the anytime peers, side by side in one run.

For every cell (dataset, depth, time limit) each tool runs as its own process, one after the
other, on the same machine: ``satdt solve FILE --method dp --max-depth D --time-limit L --json``
(the user's command), the anytime ConTree of ``pytrees-rs`` (limited-discrepancy search,
``use_lds=True, sort_by_heuristic=True``), ConTree (``pycontree``), STreeD (``pystreed``,
``cost_complexity=0``, on satdt's ``all`` binarization) and scikit-learn's CART. Reported: training
errors of the returned tree (lower is better), satdt's proven lower bound and status, test accuracy
on the matching test file (quantbnb sets), and wall seconds. Each peer's tree is scored by
``benchmarks/peer_run.py`` on the training rows.

Also, with ``--curve``: satdt's incumbent and bound over time in one run of the longest limit
(progress events), drawn with matplotlib into ``benchmarks/figures/anytime_NAME_dD.png``.

Examples::

    python benchmarks/bench_anytime.py --sets magic htru --depths 4 5 --limits 60
    python benchmarks/bench_anytime.py --suite quantbnb --depths 4 5 6 --limits 60 --tools satdt,lds,cart
    python benchmarks/bench_anytime.py --sets magic --depths 5 --limits 300 --curve --tools satdt
    python benchmarks/bench_anytime.py --table benchmarks/out/anytime.csv    # the Markdown table
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "datasets"
BUNDLED = REPO / "satdt" / "datasets"
QUANTBNB = ["bank", "bidding", "fault", "htru", "magic", "occupancy", "page", "raisin", "rice", "room",
            "segment", "wilt"]
BINARY = ["monk1", "monk2", "tic-tac-toe", "compas"]  # the gosdt/ binary sets (compas: integer columns)
PEER_TOOLS = {"lds": "pytrees-lds", "contree": "pycontree", "streed": "pystreed", "cart": "cart"}


def paths(name: str) -> tuple[Path, Path | None]:
    """Training file and test file (None when the set has none) of a set name."""
    if name in QUANTBNB:
        return DATA / "quantbnb" / f"{name}.train.csv", DATA / "quantbnb" / f"{name}.test.csv"
    if name in BINARY:
        return DATA / "gosdt" / f"{name}.csv", None
    if name.endswith(".csv"):  # any CSV file (label last), e.g. a set outside the shared suites
        return Path(name), None
    return BUNDLED / f"{name}.csv", None


def _run(cmd: list[str], timeout: float) -> tuple[dict | None, float, str]:
    start = time.perf_counter()
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=REPO)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - start, "killed at the watchdog"
    wall = time.perf_counter() - start
    try:
        return json.loads(out.stdout.strip().splitlines()[-1]), wall, ""
    except (IndexError, json.JSONDecodeError):
        return None, wall, (out.stderr.strip().splitlines() or ["no output"])[-1][:200]


def run_satdt(train: Path, test: Path | None, depth: int, limit: float) -> dict:
    cmd = [sys.executable, "-m", "satdt.cli", "solve", str(train), "--method", "dp", "--max-depth", str(depth),
           "--time-limit", str(limit), "--json", "--quiet"]
    res, wall, err = _run(cmd, limit * 2 + 60)
    if res is None:
        return {"tool": "satdt", "wall_s": round(wall, 2), "error": err}
    row = {"tool": "satdt", "errors": res["errors"], "bound": res["bound"], "status": res["status"],
           "wall_s": round(wall, 2), "source": res["stats"].get("tree_source")}
    if test is not None:
        from satdt.data import load_csv
        from satdt.tree import Tree

        data = load_csv(str(test))
        tree = Tree.from_dict(res["tree"])
        row["test_accuracy"] = round(float((tree.predict(data.X) == data.labels).mean()), 4)
    return row


def run_peer(tool: str, train: Path, test: Path | None, depth: int, limit: float) -> dict:
    cmd = [sys.executable, str(REPO / "benchmarks" / "peer_run.py"), PEER_TOOLS[tool], str(train),
           "--depth", str(depth), "--time-limit", str(limit)]
    if test is not None:
        cmd += ["--test", str(test)]
    res, wall, err = _run(cmd, limit * 2 + 60)
    if res is None:
        return {"tool": tool, "wall_s": round(wall, 2), "error": err}
    row = {"tool": tool, "errors": res["errors"], "wall_s": round(wall, 2), "status": res.get("status")}
    if "test_accuracy" in res:
        row["test_accuracy"] = res["test_accuracy"]
    return row


def curve(name: str, depth: int, limit: float, figures: Path) -> list[tuple[float, float, float]]:
    """satdt's (seconds, incumbent, bound) after every progress event of one run, and its plot."""
    from satdt.binarize import Binarizer
    from satdt.data import load_csv
    from satdt.solvers.dp import solve_max_accuracy_dp

    train, _ = paths(name)
    start = time.perf_counter()
    data = load_csv(str(train))
    problem = Binarizer("all").problem(data)
    points: list[tuple[float, float, float]] = []

    def on_event(event) -> None:
        if event.incumbent is not None:
            points.append((time.perf_counter() - start, float(event.incumbent), float(event.bound or 0.0)))

    solve_max_accuracy_dp(problem, max_depth=depth, time_limit=limit - (time.perf_counter() - start),
                          progress=on_event)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - the plot extra
        return points
    figures.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(6, 3.5))
    t = [p[0] for p in points] + [limit]
    ax.step(t, [p[1] for p in points] + [points[-1][1]], where="post", label="satdt incumbent (errors)")
    ax.step(t, [p[2] for p in points] + [points[-1][2]], where="post", label="satdt proven bound")
    ax.set_xscale("log")
    ax.set_xlabel("seconds")
    ax.set_ylabel("training errors")
    ax.set_title(f"{name}, depth {depth}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(figures / f"anytime_{name}_d{depth}.png", dpi=110)
    plt.close(fig)
    return points


def table(path: Path) -> str:
    """The Markdown table of a CSV written by this script: one row per (set, depth, limit), the
    training errors of each tool (the best in bold), satdt's bound and status, test accuracies."""
    rows = list(csv.DictReader(path.open()))
    cells: dict[tuple, dict[str, dict]] = {}
    order: list[str] = []
    for r in rows:
        key = (r["set"], int(r["depth"]), float(r["limit"]))
        cells.setdefault(key, {})[r["tool"]] = r
        if r["tool"] not in order:
            order.append(r["tool"])
    head = ["set", "depth", "limit (s)"] + [f"{t} errors" for t in order] + ["satdt bound", "satdt status"] + \
        [f"{t} test acc." for t in order]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (name, depth, limit), by in cells.items():
        errs = {t: int(by[t]["errors"]) for t in order if t in by and by[t].get("errors") not in ("", None)}
        best = min(errs.values()) if errs else None
        line = [name, str(depth), f"{limit:g}"]
        for t in order:
            e = errs.get(t)
            line.append("—" if e is None else (f"**{e}**" if e == best else str(e)))
        s = by.get("satdt", {})
        line += [s.get("bound", "") or "", s.get("status", "") or ""]
        line += [by[t].get("test_accuracy", "") or "—" if t in by else "—" for t in order]
        out.append("| " + " | ".join(line) + " |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", nargs="*", default=None)
    ap.add_argument("--suite", choices=["quantbnb", "binary", "all"], default=None)
    ap.add_argument("--depths", nargs="+", type=int, default=[4, 5])
    ap.add_argument("--limits", nargs="+", type=float, default=[60])
    ap.add_argument("--tools", default="satdt,lds,contree,cart")
    ap.add_argument("--curve", action="store_true", help="also satdt's incumbent/bound curve (longest limit)")
    ap.add_argument("--curve-only", action="store_true",
                    help="only satdt's curves (one in-process run of the longest limit per set and depth)")
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "out" / "anytime.csv"))
    ap.add_argument("--table", metavar="CSV", help="print the Markdown table of a CSV of this script and stop")
    a = ap.parse_args()
    if a.table:
        print(table(Path(a.table)))
        return
    sets = a.sets or {"quantbnb": QUANTBNB, "binary": BINARY, "all": QUANTBNB + BINARY, None: ["magic"]}[a.suite]
    tools = a.tools.split(",")
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    new = not out.exists()
    fields = ["set", "depth", "limit", "tool", "errors", "bound", "status", "test_accuracy", "wall_s", "source",
              "error", "load"]
    with out.open("a", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields, extrasaction="ignore")
        if new:
            writer.writeheader()
        for name in sets:
            train, test = paths(name)
            for depth in a.depths:
                for limit in ([] if a.curve_only else a.limits):
                    for tool in tools:
                        load = round(os.getloadavg()[0], 1)
                        row = (run_satdt(train, test, depth, limit) if tool == "satdt"
                               else run_peer(tool, train, test, depth, limit))
                        row.update(set=name, depth=depth, limit=limit, load=load)
                        print(json.dumps(row), flush=True)
                        writer.writerow(row)
                        fh.flush()
                if a.curve or a.curve_only:
                    pts = curve(name, depth, max(a.limits), REPO / "benchmarks" / "figures")
                    print(json.dumps({"set": name, "depth": depth, "curve": pts}), flush=True)
                    with out.with_name(out.stem + "_curves.jsonl").open("a") as fc:  # the points, for the table
                        fc.write(json.dumps({"set": name, "depth": depth, "limit": max(a.limits),
                                             "load": round(os.getloadavg()[0], 1), "curve": pts}) + "\n")


if __name__ == "__main__":
    main()
