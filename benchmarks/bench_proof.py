"""Certificates: produce and check time against the plain solve, and size (issue 23).

Each cell runs in its own process with a wall-clock cap (``--cap`` seconds for solve + produce +
check): the plain DP / DT_depth / DT_size solve, then :func:`satdt.proof.certify_result` (the
producer), then :func:`satdt.proof.check` (the independent checker). Writes
``benchmarks/results/proof.csv`` and ``benchmarks/results/proof.md``.

    .venv/bin/python benchmarks/bench_proof.py [--cap 150] [--quick]

``--target``: the issue's whole target (accuracy at depth 2-4 on the InferDT, binary (GOSDT) and
quantbnb train sets; DT_depth / DT_size on the InferDT sets), smallest first, with ``--solve-cap``
(the plain solve's time limit: a cell it does not prove is reported "not proven by the DP within the
cap", not dropped), ``--after`` (producer + checker stopped at max(30 s, this x the solve)) and
``--jsonl FILE`` (one row a cell as it ends; ``--skip-done`` resumes, ``--render FILE`` prints the
table). The run of ``benchmarks/results/proof.md``:

    .venv/bin/python benchmarks/bench_proof.py --target --solve-cap 120 --cap 120 --after 5 \
        --jsonl run.jsonl --print-only

``--witness``: only the DT_depth / DT_size witness search, the one-search :func:`find_witness`
against the search before it (every subset binarized and solved on its own by
:func:`satdt.proof.witness._fits`, rows drawn at random 5 a round, single-row deletion), side by
side in one process (best of 3); prints a table, writes nothing.
"""

from __future__ import annotations

import argparse
import csv
import json
import multiprocessing as mp
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"

CELLS = [  # (dataset, question, depth, lam)
    ("iris", "accuracy", 2, None), ("iris", "accuracy", 3, None), ("iris", "accuracy", 4, None),
    ("monk1", "accuracy", 3, None), ("monk1", "accuracy", 4, None), ("monk2", "accuracy", 3, None),
    ("monk3", "accuracy", 3, None), ("balance-scale", "accuracy", 2, None), ("balance-scale", "accuracy", 3, None),
    ("tic-tac-toe", "accuracy", 2, None), ("tic-tac-toe", "accuracy", 3, None), ("car", "accuracy", 2, None),
    ("car", "accuracy", 3, None), ("wine", "accuracy", 2, None), ("wine", "accuracy", 3, None),
    ("bmi", "accuracy", 3, None), ("iris", "regularized", 3, 0.01), ("monk1", "regularized", 4, 0.01),
    ("iris", "depth", None, None), ("monk1", "depth", None, None), ("monk2", "depth", None, None),
    ("monk3", "depth", None, None), ("lung-cancer", "depth", None, None), ("zoo", "depth", None, None),
    ("mouse", "depth", None, None), ("monk1", "size", None, None), ("iris", "size", None, None),
    ("monk3", "size", None, None), ("lung-cancer", "size", None, None), ("mouse", "size", None, None),
    # the same consistent questions with the DRUP proof over the witness rows (the verified checker)
    ("iris", "depth-drup", None, None), ("monk1", "depth-drup", None, None), ("monk3", "depth-drup", None, None),
    ("lung-cancer", "depth-drup", None, None), ("mouse", "depth-drup", None, None),
    ("lung-cancer", "size-drup", None, None), ("mouse", "size-drup", None, None),
    # zoo: a categorical column of 100 categories (animal_name), certified since format version 2
    ("zoo", "accuracy", 3, None), ("zoo", "size", None, None), ("zoo", "depth-drup", None, None),
]
DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
SHARED = DATASETS / "quantbnb"
if SHARED.is_dir():  # continuous sets (Quant-BnB's), where the depth-2 enumeration of the checker costs most
    CELLS += [(str(SHARED / f"{name}.train.csv"), "accuracy", d, None)
              for name, d in (("bank", 2), ("raisin", 2), ("bank", 3), ("raisin", 3), ("bank", 4), ("rice", 2),
                              ("wilt", 2), ("page", 2), ("fault", 2))]

# The whole target: every (set, depth 2-4) of the quantbnb train sets, the binary (GOSDT) sets
# and the InferDT sets (accuracy), DT_depth / DT_size on the InferDT sets. Cells whose plain solve does
# not prove the optimum within --solve-cap are reported as such (``--target`` runs them all, smallest
# first; the cells above are part of it).
INFERDT = ("iris", "monk1", "monk2", "monk3", "balance-scale", "car", "wine", "bmi", "lung-cancer", "mouse", "zoo")
GOSDT = ("monk1", "monk2", "tic-tac-toe", "compas")
QUANTBNB = ("raisin", "bank", "fault", "segment", "rice", "wilt", "page", "bidding", "room", "occupancy", "htru",
            "magic")  # by size (rows x binary columns)
TARGET = [(n, "accuracy", d, None) for n in INFERDT for d in (2, 3, 4)]
TARGET += [(n, q, None, None) for n in INFERDT for q in ("depth", "size")]
TARGET += [(str(DATASETS / "gosdt" / f"{n}.csv"), "accuracy", d, None) for n in GOSDT for d in (2, 3, 4)]
TARGET += [(str(SHARED / f"{n}.train.csv"), "accuracy", d, None) for d in (2, 3, 4) for n in QUANTBNB]


def label(name: str) -> str:
    """The dataset column: a bundled name, ``gosdt/NAME`` for the binary sets, else the file stem."""
    return f"gosdt/{Path(name).stem}" if Path(name).parent.name == "gosdt" else Path(name).stem


QUICK = [c for c in CELLS if c[0] in ("iris", "monk1")]


def _cell(args, queue, solve_cap=None) -> None:
    name, question, depth, lam = args
    route = "drup" if question.endswith("-drup") else "auto"
    question = question.replace("-drup", "")
    from satdt.binarize import Binarizer
    from satdt.data import load_dataset
    from satdt.proof import certify_result, check
    from satdt.result import keeping_work
    from satdt.solvers.dp import solve_max_accuracy_dp, solve_min_depth_dp, solve_min_size_dp, solve_regularized_dp
    # the producer's own modules imported before its clock, as the solve's are before the solve's:
    # with PYTHONDONTWRITEBYTECODE=1 (this machine) every import compiles its source, 9-17 ms here
    import satdt.proof.lower  # noqa: F401
    import satdt.proof.witness  # noqa: F401

    data = load_dataset(name)
    t0 = time.perf_counter()
    problem = Binarizer("all").problem(data)
    if question == "accuracy":  # (as `satdt solve --proof` does: the result keeps the DP's memo for the producer)
        with keeping_work():
            res = solve_max_accuracy_dp(problem, max_depth=depth, time_limit=solve_cap)
    elif question == "regularized":
        res = solve_regularized_dp(problem, lam=lam, max_depth=depth, time_limit=solve_cap)
    elif question == "depth":
        res = solve_min_depth_dp(problem, time_limit=solve_cap)
    else:
        res = solve_min_size_dp(problem, time_limit=solve_cap)
    solve_s = time.perf_counter() - t0
    row = {"dataset": label(name), "question": question, "depth": depth, "lam": lam, "rows": data.n_rows,
           "status": str(res.status), "objective": res.objective, "solve_s": round(solve_s, 3),
           "route": "drup" if route == "drup" else "dag"}  # the route asked for (a --merge key), then the one taken
    if str(res.status) != "OPTIMAL":  # nothing to certify: said so, not dropped
        row["note"] = (f"not proven by the DP within the cap ({solve_cap:g} s): {res.status}, "
                       f"objective {res.objective}, bound {getattr(res, 'bound', None)}")
        queue.put(dict(row))
        return
    queue.put(dict(row))
    out = Path(tempfile.mkdtemp()) / "cert"
    t1 = time.perf_counter()
    info = certify_result(res, data, out, max_depth=depth if question != "size" else None, route=route)
    row["route"] = "drup" if "cnf" in json.loads((out / "manifest.json").read_text())["files"] else "dag"
    row["produce_s"] = round(time.perf_counter() - t1, 3)
    row["peak_mb_after_produce"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    row["size_mb"] = info["size_mb"]
    if "witness_s" in info:  # DT_depth / DT_size: the witness search's part of produce_s
        row["witness_s"] = info["witness_s"]
    row["claims_or_witness"] = "/".join(str(v) for v in (info.get("claims"), len(info.get("witness_rows", [])) or None)
                                        if v is not None)
    queue.put(dict(row))
    t2 = time.perf_counter()
    check(out)
    row["check_s"] = round(time.perf_counter() - t2, 3)
    row["valid"] = True
    row["peak_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    queue.put(dict(row))
    shutil.rmtree(out.parent, ignore_errors=True)


def run(cells, cap: float, solve_cap: float | None = None, after: float = 8.0, out=None) -> list[dict]:
    """Each cell in its own process. Without ``solve_cap``: ``cap`` s for the whole cell. With it: the
    solve gets ``solve_cap`` s (its time limit; the process ``cap`` s more for binarizing and
    stopping), then the producer and the checker ``max(30, after x solve)`` s together."""
    rows = []
    ctx = mp.get_context("fork")
    for cell in cells:
        queue = ctx.Queue()
        proc = ctx.Process(target=_cell, args=(cell, queue, solve_cap))
        start = time.perf_counter()
        proc.start()
        last = {"dataset": label(cell[0]), "question": cell[1], "depth": cell[2], "lam": cell[3]}
        deadline = start + (cap if solve_cap is None else solve_cap + cap)
        while proc.is_alive() and time.perf_counter() < deadline:
            proc.join(0.2)
            while not queue.empty():
                last = queue.get()
                if solve_cap is not None and "produce_s" not in last and "solve_s" in last:
                    deadline = time.perf_counter() + max(30.0, after * last["solve_s"])
        while not queue.empty():
            last = queue.get()
        if proc.is_alive():
            proc.terminate()
            proc.join()
            phase = "solve" if "solve_s" not in last else "produce" if "produce_s" not in last else "check"
            last["note"] = (f"stopped in the {phase} at the cap" if solve_cap is not None
                            else f"stopped at the {cap:g} s cap")
        elif proc.exitcode != 0 and "valid" not in last:
            last["note"] = f"failed (exit {proc.exitcode})"
        rows.append(last)
        print(json.dumps(last), flush=True)
        if out is not None:  # one JSON line a cell, as it ends (a long run in parts loses nothing)
            with open(out, "a") as fh:
                fh.write(json.dumps(last) + "\n")
    return rows


def _per_subset_witness(X, y, depth, max_splits, seed=0, per_round=5):
    """The witness search before the one-search rewrite (for ``--witness``)."""
    import numpy as np
    from satdt.proof.witness import _fits

    rng = np.random.default_rng(seed)
    W = sorted(int(np.flatnonzero(y == c)[0]) for c in np.unique(y))
    asked = 1
    while (tree := _fits(X[W], y[W], depth, max_splits)) is not None:
        wrong = np.flatnonzero(tree.predict(X) != y)
        W = sorted(set(W) | set(rng.choice(wrong, size=min(per_round, wrong.size), replace=False).tolist()))
        asked += 1
    kept = 0
    while kept < len(W):
        trial = W[:kept] + W[kept + 1:]
        asked += 1
        if _fits(X[trial], y[trial], depth, max_splits) is None:
            W = trial
        else:
            kept += 1
    return W, asked


def witness_side_by_side() -> str:
    import numpy as np
    from satdt.binarize import Binarizer
    from satdt.data import load_dataset
    from satdt.proof import witness
    from satdt.solvers.dp import solve_min_depth_dp, solve_min_size_dp

    lines = ["| dataset | question | solve s | per-subset witness s | one-search witness s | per-subset / one-search "
             "| rows (per-subset / one-search) | questions (per-subset / one-search) |", "|" + " --- |" * 8]
    for name, question, _, _ in CELLS:
        if question not in ("depth", "size") or name == "zoo":
            continue
        data = load_dataset(name)
        t0 = time.perf_counter()
        problem = Binarizer("all").problem(data)
        res = solve_min_depth_dp(problem) if question == "depth" else solve_min_size_dp(problem)
        solve_s = time.perf_counter() - t0
        X, y, tree = np.asarray(data.X, float), np.asarray(data.y), res.tree
        D, m = (tree.depth() - 1, None) if question == "depth" else (tree.depth(), tree.n_splits - 1)
        old_s, new_s = [], []
        for _ in range(3):
            t0 = time.perf_counter()
            old_rows, old_q = _per_subset_witness(X, y, D, m)
            old_s.append(time.perf_counter() - t0)
            asked = []
            ask = witness._Questions.ask
            witness._Questions.ask = lambda self, rows, _ask=ask: asked.append(1) or _ask(self, rows)
            try:
                t0 = time.perf_counter()
                new_rows = witness.find_witness(X, y, len(data.classes), D, m)
                new_s.append(time.perf_counter() - t0)
            finally:
                witness._Questions.ask = ask
        o, n = min(old_s), min(new_s)
        lines.append(f"| {name} | {question} | {solve_s:.3f} | {o:.3f} | {n:.3f} | {o / n:.1f}x | "
                     f"{len(old_rows)} / {len(new_rows)} | {old_q} / {len(asked)} |")
        print(lines[-1], flush=True)
    return "\n".join(lines) + "\n"


def met(r: dict) -> str:
    """``yes`` when produce <= 2x and check <= 3x the solve, ``no`` when not (or stopped at the cap
    after a proven solve), empty when the DP proved nothing to certify."""
    if str(r.get("status", "OPTIMAL")) != "OPTIMAL" or not r.get("solve_s"):
        return ""
    if "check_s" not in r:
        return "no"
    return "yes" if r["produce_s"] <= 2 * r["solve_s"] and r["check_s"] <= 3 * r["solve_s"] else "no"


def table(rows: list[dict]) -> str:
    head = ("| dataset | question | depth | proof | rows | solve s | produce s | produce / solve | witness s | "
            "check s | check / solve | size MB | claims / witness rows | targets met | note |\n|" + " --- |" * 15)
    lines = [head]
    for r in rows:
        s = r.get("solve_s")

        def ratio(key: str) -> str:
            return f"{r[key] / s:.1f}x" if key in r and s else ""

        q = r["question"] + (f" lam {r['lam']}" if r.get("lam") else "")
        lines.append(f"| {r['dataset']} | {q} | {r.get('depth') if r.get('depth') not in (None, '') else 'min'} | "
                     f"{r.get('route', '')} | "
                     f"{r.get('rows', '')} | {s if s is not None else ''} | {r.get('produce_s', '')} | "
                     f"{ratio('produce_s')} | {r.get('witness_s', '')} | {r.get('check_s', '')} | {ratio('check_s')} | "
                     f"{r.get('size_mb', '')} | {r.get('claims_or_witness', '')} | {met(r)} | {r.get('note', '')} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cap", type=float, default=150.0)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--questions", default=None, help="comma-separated questions to run (default: all)")
    ap.add_argument("--datasets", default=None, help="comma-separated datasets to run (default: all)")
    ap.add_argument("--depths", default=None, help="comma-separated depths of the accuracy cells (default: all)")
    ap.add_argument("--print-only", action="store_true", help="print the table, write no file")
    ap.add_argument("--merge", action="store_true", help="replace those rows in the existing proof.csv")
    ap.add_argument("--witness", action="store_true", help="only the witness searches, old and new (prints a table)")
    ap.add_argument("--target", action="store_true", help="the issue's whole target (every set, depth 2-4, ...)")
    ap.add_argument("--solve-cap", type=float, default=None,
                    help="the plain solve's time limit (s); unproven cells are reported as such")
    ap.add_argument("--after", type=float, default=8.0,
                    help="with --solve-cap: produce + check get max(30 s, this x the solve) together")
    ap.add_argument("--jsonl", default=None, help="append each cell's row to this file as it ends")
    ap.add_argument("--render", default=None, help="print the table of the rows of this JSON-lines file, run nothing")
    ap.add_argument("--skip-done", action="store_true", help="with --jsonl: skip the cells already in it")
    a = ap.parse_args()
    if a.witness:
        print(witness_side_by_side())
        return
    if a.render:
        print(table([json.loads(line) for line in open(a.render)]))
        return
    cells = QUICK if a.quick else TARGET if a.target else CELLS
    if a.questions:
        cells = [c for c in cells if c[1] in a.questions.split(",")]
    if a.datasets:
        cells = [c for c in cells if label(c[0]) in a.datasets.split(",") or Path(c[0]).stem in a.datasets.split(",")]
    if a.depths:
        cells = [c for c in cells if c[2] is None or str(c[2]) in a.depths.split(",")]
    if a.skip_done and a.jsonl and Path(a.jsonl).exists():
        done = {(r["dataset"], r["question"], r.get("depth")) for r in map(json.loads, open(a.jsonl))}
        cells = [c for c in cells if (label(c[0]), c[1], c[2]) not in done]
    start, load0 = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.getloadavg()
    rows = run(cells, a.cap, a.solve_cap, a.after, out=a.jsonl)
    load1 = os.getloadavg()
    if a.print_only:
        print(f"{start}; load average {'/'.join(f'{v:.1f}' for v in load0)} -> {'/'.join(f'{v:.1f}' for v in load1)}")
        print(table(rows))
        return
    if a.merge and (RESULTS / "proof.csv").exists():
        def key(r):
            return (r["dataset"], r["question"], str(r.get("depth") or ""), str(r.get("route") or ""))

        with open(RESULTS / "proof.csv", newline="") as fh:
            old = [{k: v for k, v in r.items() if v != ""} for r in csv.DictReader(fh)]
        for r in old:
            for k in ("solve_s", "produce_s", "witness_s", "check_s", "size_mb"):
                if k in r:
                    r[k] = float(r[k])
        new = {key(r): r for r in rows}
        rows = [new.pop(key(r), r) for r in old] + list(new.values())
    RESULTS.mkdir(exist_ok=True)
    keys = sorted({k for r in rows for k in r})
    with open(RESULTS / "proof.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)
    command = " ".join(["benchmarks/bench_proof.py"] + [v for v in __import__("sys").argv[1:]])
    loads = "/".join(f"{v:.1f}" for v in load0) + " at the start, " + "/".join(f"{v:.1f}" for v in load1) + " at the end"
    (RESULTS / "proof.md").write_text("# Certificates: produce and check vs the plain solve\n\n"
                                      f"`.venv/bin/python {command}` ({start}; {os.cpu_count()} cores, shared "
                                      f"machine; load average 1/5/15 min {loads}).\n\n" + table(rows))


if __name__ == "__main__":
    main()
