"""The per-fit fixed cost on small sets, and the missing-value solve at depth 3, against an older
satdt tree side by side (issue 24).

Part ``fit``: ``DPTreeClassifier(max_depth=d).fit(X, y)`` at depths 2 and 3 on the DL8.5 sets of
``benchmarks/data/dl85`` (the whole fit: validation, binarization, the engine, the tree's
re-evaluation), against STreeD (``pystreed``, accuracy task, on satdt's ``all`` binary matrix,
which it gets ready-made: its own binarization is not timed). Each satdt tree and STreeD run in
their own processes, in turns (``--rounds`` rounds of ``--repeat`` fits each; the median per
round, then the median of the rounds), wall-clock and CPU milliseconds.

Part ``missing``: the learned-direction optimum (``missing="learn"``, ``n_jobs=1``) at depth 3 on
Quant-BnB sets (``../shared/datasets/quantbnb``) with 5 % / 20 % of the entries removed at random
(seed 0, as ``bench_weights.py``), and the complete data (``0 %``), CPU seconds of one thread, the
roots evaluated and the depth-two scans, against the complete-data solve of the current tree
(with ``--before``: each run of the older tree followed by one of this one, after/before the
median of the pairs' ratios); ``--jobs 2``: the same with
``n_jobs=2`` (the threaded root search; CPU seconds of the process, both threads).

Part ``weights``: ``DPTreeClassifier(max_depth=d, n_jobs=1).fit`` on the DL8.5 sets at depths
2-4, unweighted, with random float sample weights (``rng(0).random(n) + 0.05``: no small common
denominator, so scaled to a 2^32 total and rounded, with the stated bound), with
``class_weight="balanced"`` and with a cost matrix (``costs=[[0, 1], [5, 0]]``: false negatives
5x, as ``bench_weights.py``), CPU milliseconds (median of ``--repeat``) of each tree in its own
processes, in turns (``--rounds``); STreeD on the same binary matrix: ``STreeDClassifier``
unweighted and, for the other cells, ``STreeDInstanceCostSensitiveClassifier`` with the cost of
each label for each row (a wrong label: the row's weight; the cost matrix's row of its class):
the same objective; its weighted errors (total cost) are checked against satdt's optimum (within
the rounding bound).

``--before DIR``: a directory holding an older ``satdt`` package with its compiled core (e.g.
``git archive <commit> satdt | tar -x -C DIR`` and the ``_core*.so`` built from that commit copied
into ``DIR/satdt/solvers/dp/``); without it, the current tree alone.

    python benchmarks/bench_fixed_cost.py --part fit --before /tmp/before
    python benchmarks/bench_fixed_cost.py --part missing --before /tmp/before --sets raisin,bank,wilt
    python benchmarks/bench_fixed_cost.py --part weights --before /tmp/before --repeat 3 --rounds 2
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DL85 = ROOT / "benchmarks" / "data" / "dl85"
QUANTBNB = ROOT.parent / "shared" / "datasets" / "quantbnb"
FIT_SETS = ("anneal", "australian-credit", "breast-wisconsin", "diabetes", "lymph", "soybean")


def _fit_worker(root: str, repeat: int, sets: list[str]) -> dict:
    """In a fresh process: per set and depth, the median wall / CPU ms of ``repeat`` fits."""
    import numpy as np

    sys.path.insert(0, str(ROOT) if root == "streed" else root)
    from satdt.binarize import Binarizer
    from satdt.data import load_csv
    from satdt.estimators import DPTreeClassifier

    out = {}
    for name in sets:
        d = load_csv(DL85 / f"{name}.csv")
        if root == "streed":
            from pystreed import STreeDClassifier

            binary = Binarizer("all").fit(d).transform(d.X).astype(np.int32)
            fit = lambda depth: STreeDClassifier(max_depth=depth).fit(binary, d.y)  # noqa: E731
            X = binary
        else:
            fit = lambda depth: DPTreeClassifier(max_depth=depth).fit(d.X, d.y)  # noqa: E731
            X = d.X
        for depth in (2, 3):
            fit(depth)  # warm: imports, first calls
            wall, cpu = [], []
            for _ in range(repeat):
                t, c = time.perf_counter(), time.process_time()
                model = fit(depth)
                wall.append(time.perf_counter() - t)
                cpu.append(time.process_time() - c)
            out[f"{name} {depth}"] = {"wall": 1000 * statistics.median(wall), "cpu": 1000 * statistics.median(cpu),
                                      "predict": np.asarray(model.predict(X)).tolist()}
    return out


def _missing_worker(root: str, name: str, rate: float, depth: int, n_jobs: int = 1) -> dict:
    import numpy as np

    sys.path.insert(0, root)
    from satdt.data import load_csv
    from satdt.estimators import DPTreeClassifier

    train = load_csv(QUANTBNB / f"{name}.train.csv")
    X = train.X.copy()
    if rate > 0:  # as bench_weights._remove(X, rate, 0)
        X[np.random.default_rng(0).random(X.shape) < rate] = np.nan
    t = time.process_time()
    model = DPTreeClassifier(max_depth=depth, n_jobs=n_jobs, time_limit=300).fit(X, train.y)
    st = model.result_.stats
    return {"cpu": time.process_time() - t, "objective": float(model.result_.objective),
            "status": str(model.result_.status), "roots": st["roots_evaluated"], "scans": st["depth2_scans"]}


WEIGHT_CELLS = ("unweighted", "float", "balanced", "costs")
#: the costs cell's matrix (cost of predicting j for true class i), two classes
COSTS = [[0.0, 1.0], [5.0, 0.0]]


def _weights_worker(root: str, repeat: int, sets: list[str], depths: list[int]) -> dict:
    """In a fresh process: per set, depth and cell, the median CPU seconds of ``repeat`` fits
    and the objective (satdt: its own; STreeD: its tree's weighted errors in the user's units)."""
    import numpy as np

    sys.path.insert(0, str(ROOT) if root == "streed" else root)
    from satdt.binarize import Binarizer
    from satdt.data import load_csv
    from satdt.estimators import DPTreeClassifier

    out, warmed = {}, set()
    for name in sets:
        d = load_csv(DL85 / f"{name}.csv")
        n = len(d.y)
        weights = {"unweighted": np.ones(n), "float": np.random.default_rng(0).random(n) + 0.05}
        counts = np.bincount(d.y)
        weights["balanced"] = n / (len(counts) * counts[d.y])  # scikit-learn's "balanced"
        binary = Binarizer("all").fit(d).transform(d.X).astype(np.int32) if root == "streed" else None
        weights["costs"] = np.ones(n)
        for depth in depths:
            for cell in WEIGHT_CELLS:
                w = weights[cell]
                # each row's cost of each label
                row_costs = (np.asarray(COSTS)[d.y] if cell == "costs" else
                             np.where(np.arange(len(counts))[None, :] == d.y[:, None], 0.0, w[:, None]))
                if root == "streed":
                    if cell == "unweighted":
                        from pystreed import STreeDClassifier

                        fit = lambda: STreeDClassifier(max_depth=depth).fit(binary, d.y)  # noqa: E731
                    else:
                        from pystreed import STreeDInstanceCostSensitiveClassifier

                        fit = lambda: STreeDInstanceCostSensitiveClassifier(  # noqa: E731
                            max_depth=depth).fit(binary, row_costs)
                    X = binary
                else:
                    kw = ({"class_weight": "balanced"} if cell == "balanced" else
                          {"costs": COSTS} if cell == "costs" else {})
                    sw = w if cell == "float" else None
                    fit = lambda: DPTreeClassifier(max_depth=depth, n_jobs=1, **kw).fit(  # noqa: E731
                        d.X, d.y, sample_weight=sw)
                    X = d.X
                if cell not in warmed:  # the first fit of a kind in the process: imports, first calls
                    fit()
                    warmed.add(cell)
                cpu = []
                for _ in range(repeat):
                    c = time.process_time()
                    model = fit()
                    cpu.append(time.process_time() - c)
                pred = np.asarray(model.predict(X)).astype(np.int64)
                bound = 0.0 if root == "streed" else float(model.result_.stats.get("weight_rounding_bound", 0.0))
                out[f"{name} {depth} {cell}"] = {"cpu": statistics.median(cpu), "bound": bound,
                                                 "errors": float(row_costs[np.arange(n), pred].sum())}
    return out


def part_weights(before: str | None, repeat: int, rounds: int, sets: list[str], depths: list[int]) -> None:
    runs, cols = _alternated("weights", before, rounds, str(repeat), ",".join(sets), ",".join(map(str, depths)))
    head = ["set", "depth"]
    for cell in WEIGHT_CELLS:
        head += [f"{cell} {k}_ms" for k in cols]
    head += [f"{c} after/unweighted" for c in WEIGHT_CELLS[1:]] + ["same optimum"]
    print("| " + " | ".join(head) + " |")
    print("|---" * len(head) + "|")
    for name in sets:
        for depth in depths:
            med = {(k, cell): statistics.median(run[f"{name} {depth} {cell}"]["cpu"] for run in runs[k])
                   for k in cols for cell in WEIGHT_CELLS}
            # every tree's weighted errors: satdt's (before and after) the same optimum, STreeD's
            # within the rounding bound of it
            same = True
            for cell in WEIGHT_CELLS:
                a = runs["after"][0][f"{name} {depth} {cell}"]
                for k in cols:
                    o = runs[k][0][f"{name} {depth} {cell}"]
                    same &= abs(o["errors"] - a["errors"]) <= a["bound"] + 1e-6 * max(1.0, a["errors"])
            row = [name, str(depth)] + [f"{1000 * med[k, cell]:.2f}" for cell in WEIGHT_CELLS for k in cols]
            row += [f"{med['after', c] / max(med['after', 'unweighted'], 1e-9):.2f}" for c in WEIGHT_CELLS[1:]]
            print("| " + " | ".join(row + [str(same)]) + " |", flush=True)


def _run(*args: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--worker", *args], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def _alternated(part: str, before: str | None, rounds: int, *args: str) -> tuple[dict, list[str]]:
    """``part``'s worker run ``rounds`` times in turns on this tree ("after"), ``before`` (a
    checkout, if given) and STreeD (if installed): the runs of each, and the columns present."""
    roots = {"after": str(ROOT)} | ({"before": before} if before else {})
    try:
        import pystreed  # noqa: F401
        roots["streed"] = "streed"
    except ImportError:
        pass
    runs: dict[str, list] = {k: [] for k in roots}
    for _ in range(rounds):
        for k, r in roots.items():
            runs[k].append(_run(part, r, *args))
    return runs, [k for k in ("before", "after", "streed") if k in roots]


def part_fit(before: str | None, repeat: int, rounds: int, sets: list[str]) -> None:
    runs, cols = _alternated("fit", before, rounds, str(repeat), ",".join(sets))
    print("| set | depth | " + " | ".join(f"{k}_ms" for k in cols) + " | " + " | ".join(f"{k}_cpu_ms" for k in cols)
          + (" | same predictions |" if "before" in cols else " |"))
    print("|---" * (2 + 2 * len(cols) + ("before" in cols)) + "|")
    for key in runs["after"][0]:
        wall = [statistics.median(run[key]["wall"] for run in runs[k]) for k in cols]
        cpu = [statistics.median(run[key]["cpu"] for run in runs[k]) for k in cols]
        same = (f" | {runs['before'][0][key]['predict'] == runs['after'][0][key]['predict']} |"
                if "before" in cols else " |")
        name, depth = key.split()
        print(f"| {name} | {depth} | " + " | ".join(f"{x:.1f}" for x in wall) + " | "
              + " | ".join(f"{x:.1f}" for x in cpu) + same, flush=True)


def part_missing(before: str | None, repeat: int, sets: list[str], depth: int, jobs: int = 1) -> None:
    """Per set: the complete data ("0 %") and 5 % / 20 % removed; with ``before``, each run of the
    older tree followed by one of this tree (``repeat`` pairs, a fresh process each), after/before
    the median of the pairs' ratios."""
    print("| set | depth | removed | complete_s | before_s | after_s | after/before | after/complete | "
          "before roots / scans | after roots / scans | errors |")
    print("|---" * 11 + "|")
    for name in sets:
        complete = None
        for rate in (0.0, 0.05, 0.20):
            a, b = [], []
            for _ in range(repeat):
                if before:
                    b.append(_run("missing", before, name, str(rate), str(depth), str(jobs)))
                a.append(_run("missing", str(ROOT), name, str(rate), str(depth), str(jobs)))
            ta = statistics.median(x["cpu"] for x in a)
            tb = statistics.median(x["cpu"] for x in b) if b else float("nan")
            ratio = statistics.median(x["cpu"] / y["cpu"] for x, y in zip(a, b)) if b else float("nan")
            if rate == 0:
                complete = ta
            if b and b[0]["objective"] != a[0]["objective"]:
                raise AssertionError(f"{name} {rate}: optimum {a[0]['objective']} != before {b[0]['objective']}")
            print(f"| {name} | {depth} | {int(rate * 100)} % | {complete:.3f} | {tb:.3f} | {ta:.3f} | {ratio:.2f} | "
                  f"{ta / complete:.2f} | " + (f"{b[0]['roots']} / {b[0]['scans']}" if b else "-")
                  + f" | {a[0]['roots']} / {a[0]['scans']} | {a[0]['objective']:g} |", flush=True)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        kind, *args = sys.argv[2:]
        if kind == "fit":
            print(json.dumps(_fit_worker(args[0], int(args[1]), args[2].split(","))))
        elif kind == "weights":
            print(json.dumps(_weights_worker(args[0], int(args[1]), args[2].split(","),
                                             [int(x) for x in args[3].split(",")])))
        else:
            print(json.dumps(_missing_worker(args[0], args[1], float(args[2]), int(args[3]), int(args[4]))))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", choices=("fit", "missing", "weights"), default="fit")
    ap.add_argument("--before", default=None, help="directory of an older satdt package (with its built core)")
    ap.add_argument("--repeat", type=int, default=9, help="fits per process (fit); runs per cell (missing)")
    ap.add_argument("--rounds", type=int, default=3, help="fit: rounds of one process per tree")
    ap.add_argument("--sets", default=None, help="comma-separated set names (default: every set of the part)")
    ap.add_argument("--depth", type=int, default=3, help="missing: the depth")
    ap.add_argument("--depths", default="2,3,4", help="weights: comma-separated depths")
    ap.add_argument("--jobs", type=int, default=1, help="missing: n_jobs (2: the threaded root search)")
    a = ap.parse_args()
    if a.part == "weights":
        part_weights(a.before, a.repeat, a.rounds, a.sets.split(",") if a.sets else list(FIT_SETS),
                     [int(x) for x in a.depths.split(",")])
    elif a.part == "fit":
        part_fit(a.before, a.repeat, a.rounds, a.sets.split(",") if a.sets else list(FIT_SETS))
    else:
        part_missing(a.before, a.repeat, a.sets.split(",") if a.sets else ["raisin", "bank", "wilt"], a.depth,
                     a.jobs)


if __name__ == "__main__":
    main()
