"""Time-limit overruns of every method on the largest shared datasets.

Each run is one ``satdt solve DATA --method M --time-limit L --json --quiet`` process, timed from
outside: the table gives the process's wall time (fork to exit: Python start-up, imports,
reading, binarization, model building, the engine, output and interpreter exit), its CPU time
(user + system of the child, from ``getrusage``), the command's own ``wall_s`` (from the process
start, as the deadline counts it) and ``runtime_s`` (the estimator's call, from the data loaded
to the result), the overrun of the outside wall time beyond the limit and whether it is within
the contract, max(1 s, 5 %) of the limit, and the status with where the time ran out or why a
model was not run. The load average (1 min) is read before and after each run. Usage::

    python benchmarks/bench_limits.py --limits 5 30 --out benchmarks/results/limits.md
    python benchmarks/bench_limits.py --render benchmarks/out/limits-5.json benchmarks/out/limits-30.json

Each limit's rows are also saved to ``benchmarks/out/limits-<limit>.json`` as they come, and
``--render`` writes the table from such files without running anything.

``--library`` times the library instead of the program: each run is one Python process that
loads the CSV and calls the method's estimator ``fit`` with ``time_limit`` (no CLI, so no
last-resort watchdog answers for a step that overruns); ``runtime_s`` is then the estimator's
own clock and the contract is checked on it (rows saved to ``limits-lib-<limit>.json``)::

    python benchmarks/bench_limits.py --library --limits 5 30 --out /tmp/limits-lib.md

``--shapes`` runs issue 22's shape targets instead: random float data of 200 x 5,000, 200 x
50,000 and 10^6 x 10 (written to a temporary directory, deleted afterwards), every method with
``--max-depth 3 --time-limit 10``, each run one process timed from fork to exit, its peak RSS from
``wait4``; the targets are wall <= 10.5 s, peak RSS <= 4 GB, exit 0, and for the accuracy methods a
tree at least as good as scikit-learn's CART of the same depth on the method's own objective::

    python benchmarks/bench_limits.py --shapes --out /tmp/shapes.md
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path("/work/shared/datasets")
DATASETS = [SHARED / "quantbnb" / f"{n}.train.csv" for n in ("magic", "htru", "fault")] + [SHARED / "gosdt" / "compas.csv"]
METHODS = {"sat-depth": [], "sat-size": ["--max-depth", "6"], "maxsat": ["--max-depth", "3"],
           "binoct": ["--max-depth", "3"], "oct": ["--max-depth", "2"],
           "cpsat": ["--max-depth", "4", "--lam", "0.001"], "dp": ["--max-depth", "4"], "dpdt": ["--max-depth", "5"]}


def _note(out: dict) -> str:
    stats = out.get("stats") or {}
    if stats.get("watchdog"):  # the step that had not returned when the program's watchdog answered
        return "watchdog: " + stats["watchdog"].split(" < ")[0] + " < " + " < ".join(
            f.rsplit(" ", 1)[-1] for f in stats["watchdog"].split(" < ")[1:])
    why = stats.get("timeout_in") or next((str(v) for k, v in stats.items()
                                           if k.endswith("status") and str(v).startswith("NOT_RUN")), "")
    return why


def run(data: Path, method: str, limit: float) -> dict:
    cmd = [str(REPO / ".venv" / "bin" / "satdt"), "solve", str(data), "--method", method, *METHODS[method],
           "--time-limit", f"{limit:g}", "--json", "--quiet"]
    load_before = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    row = {"dataset": data.name.replace(".train.csv", "").replace(".csv", ""), "method": method, "limit": limit,
           "wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "exit": proc.returncode,
           "load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2)}
    try:
        out = json.loads(proc.stdout)
        row.update(status=out["status"], runtime_s=out["runtime_s"], cmd_wall_s=out.get("wall_s"),
                   startup_s=out.get("startup_s"), note=_note(out)[:110])
    except (json.JSONDecodeError, KeyError):
        row.update(status="error", runtime_s=None, cmd_wall_s=None, startup_s=None,
                   note=proc.stderr.strip().splitlines()[-1][:120] if proc.stderr.strip() else "")
    tolerance = max(1.0, 0.05 * limit)
    row["overrun_s"] = round(wall - limit, 2)
    row["ok"] = wall <= limit + tolerance
    return row


_LIBRARY_RUN = """
import json, sys, time
from satdt.data import load_csv
from satdt.estimators import NoTreeFoundError, make_estimator
data = load_csv(sys.argv[1])
kwargs = json.loads(sys.argv[3])
model = make_estimator(sys.argv[2], time_limit=float(sys.argv[4]), **kwargs)
t0 = time.perf_counter()
try:
    model.fit(data.X, data.y)
except NoTreeFoundError:
    pass
except (MemoryError, ValueError) as exc:
    print(json.dumps({"error": str(exc)})); sys.exit(0)
r = model.result_
print(json.dumps({"status": str(r.status), "runtime_s": round(r.runtime, 4), "wall_s": round(time.perf_counter() - t0, 4),
                  "stats": {k: str(v) for k, v in r.stats.items()}}))
"""


def _kwargs(method: str) -> dict:
    """The CLI options of :data:`METHODS` as estimator keywords."""
    opts = METHODS[method]
    names = {"--max-depth": "max_depth", "--lam": "lam"}
    return {names[k]: (int(v) if k == "--max-depth" else float(v)) for k, v in zip(opts[::2], opts[1::2])}


def run_library(data: Path, method: str, limit: float) -> dict:
    """One estimator ``fit`` in a fresh Python process; the contract on its ``runtime_s``."""
    cmd = [sys.executable, "-c", _LIBRARY_RUN, str(data), method, json.dumps(_kwargs(method)), f"{limit:g}"]
    load_before = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    row = {"dataset": data.name.replace(".train.csv", "").replace(".csv", ""), "method": method, "limit": limit,
           "wall_s": round(wall, 2), "cpu_s": round((after.ru_utime - before.ru_utime)
                                                    + (after.ru_stime - before.ru_stime), 2),
           "exit": proc.returncode, "load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2),
           "cmd_wall_s": None, "startup_s": None, "library": True}
    try:
        out = json.loads(proc.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        out = {"error": (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]}
    if "error" in out:
        row.update(status="error", runtime_s=None, note=out["error"][:120], overrun_s=None, ok=True)
        return row
    row.update(status=out["status"], runtime_s=out["runtime_s"], cmd_wall_s=out["wall_s"], note=_note(out)[:110])
    row["overrun_s"] = round(out["runtime_s"] - limit, 2)
    row["ok"] = out["runtime_s"] <= limit + max(1.0, 0.05 * limit)
    return row


def _load_line(rows: list[dict]) -> str:
    loads = [r[k] for r in rows for k in ("load_before", "load_after")]
    return (f"Load average (1 min) read before and after each run: min {min(loads):.1f}, "
            f"mean {sum(loads) / len(loads):.1f}, max {max(loads):.1f} on {os.cpu_count()} cores.")


def _within_counts(rows: list[dict]) -> list[str]:
    """One line per limit: how many runs held it."""
    lines = []
    for limit in sorted({r["limit"] for r in rows}):
        sel = [r for r in rows if r["limit"] == limit]
        lines += ["", f"Limit {limit:g} s: {sum(r['ok'] for r in sel)} of {len(sel)} runs within the bound."]
    return lines


def render_library(rows: list[dict], cmdline: str) -> str:
    """The table of ``--library`` rows: the estimator's own runtime against the limit."""
    lines = ["## Time limits of the library (issue 16, item 6)", "", f"Command: `{cmdline}`", "",
             "Each row is one Python process that loads the CSV and calls the method's estimator `fit` with "
             "`time_limit` (no CLI, so no last-resort watchdog). `runtime_s` = `result_.runtime`, the estimator's "
             "own clock from `fit` entered (binarization, warm start, model building, the engine, finishing); the "
             "contract is runtime_s <= limit + max(1 s, 5 %). `fit wall s` = the same call timed around it; "
             "`process wall s` / `CPU s` = the whole process (start-up and CSV reading included). "
             "Depths: " + ", ".join(f"{m} {' '.join(o) or '(none)'}" for m, o in METHODS.items()) + ".", "",
             _load_line(rows), "",
             "| dataset | method | limit s | runtime_s | overrun s | within | fit wall s | process wall s | CPU s | "
             "status | load | not run / why |",
             "| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- | ---: | --- |"]
    for r in rows:
        within = "yes" if r["ok"] else "**no**"
        lines.append(f"| {r['dataset']} | {r['method']} | {r['limit']:g} | {r['runtime_s']} | {r['overrun_s']} | "
                     f"{within} | {r['cmd_wall_s']} | {r['wall_s']} | {r['cpu_s']} | {r['status']} | "
                     f"{(r['load_before'] + r['load_after']) / 2:.1f} | {r['note']} |")
    return "\n".join(lines + _within_counts(rows)) + "\n"


def render(rows: list[dict], cmdline: str) -> str:
    if rows and rows[0].get("library"):
        return render_library(rows, cmdline)
    lines = ["## Time limits that hold (issue 16, item 6)", "", f"Command: `{cmdline}`", "",
             "Wall = the whole `satdt solve` process timed from outside (Python start-up, imports, CSV reading, "
             "binarization, model building, the engine, output, interpreter exit); CPU = user + system seconds "
             "of that process; `wall_s` = the command's own wall time from its process start (what the deadline "
             "counts), `startup_s` = its part before `main()` (the interpreter and the first imports); `runtime_s` = "
             "the estimator's call (from the data loaded). The contract is wall <= limit + max(1 s, 5 %). "
             "Depths: " + ", ".join(f"{m} {' '.join(o) or '(none)'}" for m, o in METHODS.items()) + ".", "",
             _load_line(rows), "",
             "| dataset | method | limit s | wall s | CPU s | cmd wall_s | startup_s | runtime_s | overrun s | within | status | "
             "load | where the time ran out / not run |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | --- |"]
    for r in rows:
        within = "yes" if r["ok"] else "**no**"
        lines.append(f"| {r['dataset']} | {r['method']} | {r['limit']:g} | {r['wall_s']} | {r['cpu_s']} | "
                     f"{r['cmd_wall_s']} | {r.get('startup_s')} | {r['runtime_s']} | {r['overrun_s']} | {within} | "
                     f"{r['status']} | {(r['load_before'] + r['load_after']) / 2:.1f} | {r['note']} |")
    return "\n".join(lines + _within_counts(rows)) + "\n"


#: issue 22's shapes: name -> (rows, columns)
SHAPES = {"200x5000": (200, 5_000), "200x50000": (200, 50_000), "1000000x10": (1_000_000, 10)}
SHAPE_METHODS = ["sat-depth", "sat-size", "maxsat", "dp", "binoct", "oct", "cpsat", "dpdt", "adapttree", "rdt"]
#: the methods whose tree must be at least as good as CART's (their objective: errors, or errors / n
#: + lam * leaves for cpsat, errors + alpha * splits for oct with alpha 0, dpdt's errors at alpha 0)
ACCURACY_METHODS = {"maxsat", "dp", "binoct", "oct", "cpsat", "dpdt"}
SHAPE_LIMIT, SHAPE_DEPTH, SHAPE_RSS = 10.0, 3, 4e9


def write_shape(folder: Path, name: str, seed: int = 22) -> Path:
    """Random floats (6 significant digits) and random binary labels, as a CSV with a header."""
    import numpy as np

    rows, cols = SHAPES[name]
    rng = np.random.default_rng(seed)
    path = folder / f"{name}.csv"
    with open(path, "w") as f:
        f.write(",".join([f"x{j}" for j in range(cols)] + ["label"]) + "\n")
        for start in range(0, rows, 50_000):
            n = min(50_000, rows - start)
            block = np.column_stack([rng.random((n, cols)).round(6), rng.integers(0, 2, n)])
            np.savetxt(f, block, delimiter=",", fmt=["%.6g"] * cols + ["%d"])
        del block
    return path


_CART_RUN = """
import json, sys
import pandas as pd
from sklearn.tree import DecisionTreeClassifier
data = pd.read_csv(sys.argv[1]).to_numpy()
X, y = data[:, :-1], data[:, -1].astype(int)
tree = DecisionTreeClassifier(max_depth=int(sys.argv[2]), random_state=0).fit(X, y)
print(json.dumps({"errors": int((tree.predict(X) != y).sum()), "leaves": int(tree.get_n_leaves()), "n": len(y)}))
"""


def cart_reference(path: Path, depth: int) -> dict:
    """scikit-learn's CART of ``depth`` on the file: its errors and leaves. In a process of its
    own: the benchmark's process stays small, and a child forked from it does not inherit its
    resident size into ``ru_maxrss`` (Linux keeps the larger of the two across ``exec``)."""
    proc = subprocess.run([sys.executable, "-c", _CART_RUN, str(path), str(depth)], capture_output=True,
                          text=True, check=True)
    return json.loads(proc.stdout)


def run_shape(path: Path, method: str, cart: dict) -> dict:
    """One ``satdt solve`` of the shape targets: wall from fork to exit, peak RSS from ``wait4``."""
    cmd = [str(REPO / ".venv" / "bin" / "satdt"), "solve", str(path), "--method", method,
           "--max-depth", str(SHAPE_DEPTH), "--time-limit", f"{SHAPE_LIMIT:g}", "--json", "--quiet"]
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    code = os.waitstatus_to_exitcode(status)
    row = {"shape": path.stem, "method": method, "wall_s": round(wall, 2), "rss_gb": round(usage.ru_maxrss * 1024 / 1e9, 2),
           "exit": code, "load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2),
           "cart_errors": cart["errors"], "cart_leaves": cart["leaves"]}
    try:
        answer = json.loads(stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        answer = None
    if answer is None:
        row.update(status="error", errors=None, objective=None, depth=None, source="",
                   note=(stderr.strip().splitlines() or [""])[-1][:140])
    else:
        stats = answer.get("stats") or {}
        row.update(status=answer.get("status"), errors=answer.get("errors"), objective=answer.get("objective"),
                   objective_name=answer.get("objective_name"), depth=answer.get("depth"),
                   leaves=answer.get("n_leaves"), source=str(stats.get("tree_source", "")),
                   note=str(stats.get("note") or stats.get("watchdog") or stats.get("timeout_in") or "")[:140])
    problems = []
    if code != 0:
        problems.append(f"exit {code}")
    if wall > SHAPE_LIMIT + 0.5:
        problems.append("wall")
    if usage.ru_maxrss * 1024 > SHAPE_RSS:
        problems.append("RSS")
    if method in ACCURACY_METHODS:
        if row.get("errors") is None:
            problems.append("no tree")
        elif method == "cpsat":  # errors / n + lam * leaves, lam = 0.01 (the default)
            cart_value = cart["errors"] / cart["n"] + 0.01 * cart["leaves"]
            if row["objective"] is None or row["objective"] > cart_value + 1e-9:
                problems.append(f"worse than CART ({cart_value:.4f})")
        elif row["errors"] > cart["errors"]:
            problems.append("worse than CART")
    row["problems"] = problems
    return row


def render_shapes(rows: list[dict], cmdline: str) -> str:
    lines = ["## Shape targets (issue 22)", "", f"Command: `{cmdline}`", "",
             f"Every method as `satdt solve FILE --method M --max-depth {SHAPE_DEPTH} --time-limit {SHAPE_LIMIT:g} "
             "--json --quiet` on random floats (6 digits, random binary labels), one process each: wall from fork "
             "to exit, peak RSS of the process (`wait4`). Targets: wall <= 10.5 s, RSS <= 4 GB, exit 0, and for "
             "the accuracy methods (" + ", ".join(sorted(ACCURACY_METHODS)) + ") a tree at least as good as "
             f"scikit-learn's `DecisionTreeClassifier(max_depth={SHAPE_DEPTH})` on the method's objective (cpsat: "
             "errors / n + 0.01 leaves). `load` = the 1-min load average before / after the run "
             f"({os.cpu_count()} cores).", "",
             "| shape | method | wall s | peak RSS GB | exit | status | errors (CART) | depth | tree source | load | "
             "target | note |",
             "| --- | --- | ---: | ---: | ---: | --- | --- | ---: | --- | --- | --- | --- |"]
    for r in rows:
        target = "ok" if not r["problems"] else "**" + ", ".join(r["problems"]) + "**"
        lines.append(f"| {r['shape']} | {r['method']} | {r['wall_s']} | {r['rss_gb']} | {r['exit']} | {r['status']} | "
                     f"{r['errors']} ({r['cart_errors']}) | {r['depth']} | {r['source']} | "
                     f"{r['load_before']:.1f} / {r['load_after']:.1f} | {target} | {r['note'].replace('|', '/')} |")
    ok = sum(not r["problems"] for r in rows)
    return "\n".join(lines + ["", f"{ok} of {len(rows)} runs met every target."]) + "\n"


def main_shapes(a: argparse.Namespace, cmdline: str) -> None:
    """Issue 22's shape targets: the files in a temporary directory, every method on each."""
    out_dir = REPO / "benchmarks" / "out"
    out_dir.mkdir(exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="satdt-shapes-") as tmp:
        for name in a.shapes_only or list(SHAPES):
            t0 = time.perf_counter()
            path = write_shape(Path(tmp), name)
            cart = cart_reference(path, SHAPE_DEPTH)
            print(f"{name}: written and CART in {time.perf_counter() - t0:.1f} s: {cart}", file=sys.stderr, flush=True)
            for method in (m for m in SHAPE_METHODS if m in a.methods):
                row = run_shape(path, method, cart)
                if row["problems"] and a.rerun:  # once more, to tell the load's noise from an overrun
                    again = run_shape(path, method, cart)
                    row["note"] = (f"rerun: {again['wall_s']} s, {again['rss_gb']} GB, "
                                   f"{', '.join(again['problems']) or 'ok'}; " + row["note"])[:200]
                    row["rerun"] = again
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
                (out_dir / "limits-shapes.json").write_text(json.dumps({"command": cmdline, "rows": rows}, indent=1))
            os.unlink(path)
    text = render_shapes(rows, cmdline)
    print(text)
    if a.out is not None:
        a.out.write_text(text)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limits", type=float, nargs="+", default=[5.0, 30.0, 60.0])
    ap.add_argument("--methods", nargs="+", default=None, help="default: all of the mode's methods")
    ap.add_argument("--datasets", nargs="+", default=[str(d) for d in DATASETS])
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "limits.md")
    ap.add_argument("--library", action="store_true",
                    help="time each estimator's fit in its own process (no CLI, no watchdog)")
    ap.add_argument("--render", nargs="+", type=Path, default=None,
                    help="write the table from saved limits-*.json files, run nothing")
    ap.add_argument("--shapes", action="store_true",
                    help="issue 22's shape targets (200 x 5,000, 200 x 50,000, 10^6 x 10 random floats)")
    ap.add_argument("--shapes-only", nargs="+", choices=list(SHAPES), default=None, help="with --shapes: these shapes")
    ap.add_argument("--rerun", action="store_true", help="with --shapes: run a cell that misses a target once more")
    a = ap.parse_args()
    if a.methods is None:
        a.methods = SHAPE_METHODS if a.shapes else list(METHODS)
    if a.shapes:
        if "--out" not in sys.argv:
            a.out = None
        main_shapes(a, "python benchmarks/bench_limits.py " + " ".join(sys.argv[1:]))
        return
    out_dir = REPO / "benchmarks" / "out"
    out_dir.mkdir(exist_ok=True)
    if a.render:
        rows = [r for path in a.render for r in json.loads(path.read_text())["rows"]]
        cmdlines = [json.loads(path.read_text())["command"] for path in a.render]
        a.out.write_text(render(rows, "`; `".join(dict.fromkeys(cmdlines))))
        print(f"wrote {a.out}")
        return
    cmdline = "python benchmarks/bench_limits.py " + " ".join(sys.argv[1:])
    rows = []
    for limit in a.limits:
        these = []
        for data in map(Path, a.datasets):
            for method in a.methods:
                row = (run_library if a.library else run)(data, method, limit)
                rows.append(row)
                these.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
                (out_dir / f"limits-{'lib-' if a.library else ''}{limit:g}.json").write_text(json.dumps({"command": cmdline, "rows": these},
                                                                           indent=1))
    a.out.write_text(render(rows, cmdline))
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
