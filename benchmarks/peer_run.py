"""Run one peer solver on one cell as a whole process, for side-by-side timing with ``satdt solve``.

The peers (optional, ``pip install -e '.[peers]'``): STreeD (``pystreed``; binary input, so the
rows go through satdt's ``all`` binarization first, the same columns satdt searches), ConTree
(``pycontree``; the raw numeric features), GOSDT (``gosdt``; binary input as for STreeD), the
anytime ConTree of pytrees-rs (``pytrees-lds``: limited-discrepancy search, raw features) and
scikit-learn's CART (``cart``). Prints
one JSON line: tool, errors (training), leaves, seconds in the solver (``solver_s``: from after loading
the CSV, so the peer's import and its input's binarization included; ``fit_s``: the peer's ``fit`` call
alone).

Examples::

    python benchmarks/peer_run.py pystreed DATA.csv --depth 3
    python benchmarks/peer_run.py pystreed DATA.csv --depth 5 --lam 0.01   # errors/n + lam*leaves
    python benchmarks/peer_run.py pycontree DATA.csv --depth 3
    /usr/bin/time -v python benchmarks/peer_run.py pycontree DATA.csv --depth 3   # peak memory
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _binary(data):
    from satdt.binarize import Binarizer

    return Binarizer("all").fit(data).transform(data.X).astype(np.int32)


def _binary_of(train, test):
    from satdt.binarize import Binarizer

    return Binarizer("all").fit(train).transform(test.X).astype(np.int32)


def run(tool: str, path: str, depth: int, lam: float | None, time_limit: float, test: str | None = None) -> dict:
    from satdt.data import load_csv

    data = load_csv(path)
    start = time.perf_counter()
    if tool == "pystreed":
        from pystreed import STreeDClassifier

        X = _binary(data)
        # STreeD's cost_complexity is charged per split and normalised by n like lam: errors/n +
        # lam * splits = errors/n + lam * leaves - lam, the same optima as satdt's objective
        model = STreeDClassifier(optimization_task="cost-complex-accuracy" if lam else "accuracy", max_depth=depth,
                                 cost_complexity=lam or 0.0, time_limit=time_limit)
        fit_start = time.perf_counter()
        model.fit(X, data.y)
        fit_s = time.perf_counter() - fit_start
        pred = model.predict(X)
        leaves = None
    elif tool == "pycontree":
        from pycontree import ConTree

        X = data.X
        model = ConTree(max_depth=depth, time_limit=time_limit)
        fit_start = time.perf_counter()
        model.fit(X, data.y)
        fit_s = time.perf_counter() - fit_start
        pred = model.predict(X)
        leaves = None
    elif tool == "gosdt":
        from gosdt import GOSDTClassifier

        X = _binary(data)
        model = GOSDTClassifier(regularization=0.01 if lam is None else lam, depth_budget=depth,
                                allow_small_reg=True, time_limit=int(time_limit))
        fit_start = time.perf_counter()
        model.fit(X, data.y)
        fit_s = time.perf_counter() - fit_start
        pred = np.asarray(model.trees_[0].predict(X))
        leaves = None
    elif tool == "pytrees-lds":
        from pytrees import ConTreeClassifier

        X = data.X
        # the anytime ConTree of pytrees-rs: limited-discrepancy search in Gini order
        model = ConTreeClassifier(max_depth=depth, max_time=time_limit, use_lds=True, sort_by_heuristic=True)
        fit_start = time.perf_counter()
        model.fit(X, data.y)
        fit_s = time.perf_counter() - fit_start
        pred = model.predict(X)
        leaves = None
        status = getattr(model, "status_", None)
    elif tool == "cart":
        from sklearn.tree import DecisionTreeClassifier

        X = data.X
        model = DecisionTreeClassifier(max_depth=depth, random_state=0)
        fit_start = time.perf_counter()
        model.fit(X, data.y)
        fit_s = time.perf_counter() - fit_start
        pred = model.predict(X)
        leaves = int(model.get_n_leaves())
    else:
        raise SystemExit(f"unknown tool {tool!r}")
    seconds = time.perf_counter() - start
    row = {"tool": tool, "errors": int((np.asarray(pred) != data.y).sum()), "leaves": leaves,
           "solver_s": round(seconds, 4), "fit_s": round(fit_s, 4)}
    if tool == "pytrees-lds":
        row["status"] = status
    if test is not None:  # accuracy out of sample (the raw features; STreeD/GOSDT through the binarizer)
        tdata = load_csv(test)
        Xt = _binary_of(data, tdata) if tool in ("pystreed", "gosdt") else tdata.X
        tpred = np.asarray(model.trees_[0].predict(Xt) if tool == "gosdt" else model.predict(Xt))
        row["test_accuracy"] = round(float((tpred == tdata.y).mean()), 4)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tool", choices=["pystreed", "pycontree", "gosdt", "pytrees-lds", "cart"])
    ap.add_argument("data")
    ap.add_argument("--depth", type=int, required=True)
    ap.add_argument("--lam", type=float, default=None)
    ap.add_argument("--time-limit", type=float, default=600)
    ap.add_argument("--test", default=None, help="a test CSV: also report test accuracy")
    a = ap.parse_args()
    print(json.dumps(run(a.tool, a.data, a.depth, a.lam, a.time_limit, a.test)))


if __name__ == "__main__":
    main()
