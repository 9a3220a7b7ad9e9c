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


def run(tool: str, path: str, depth: int, lam: float | None, time_limit: float, test: str | None = None) -> dict:
    from satdt.data import load_csv

    data = load_csv(path)
    start = time.perf_counter()
    if tool == "cart":
        from sklearn.tree import DecisionTreeClassifier

        model = DecisionTreeClassifier(max_depth=depth, random_state=0)
        fit_start = time.perf_counter()
        model.fit(data.X, data.y)
        fit_s, leaves, status = time.perf_counter() - fit_start, int(model.get_n_leaves()), None
        predict, pred = model.predict, model.predict(data.X)
    else:  # a peer through its adapter (satdt.peers): STreeD and GOSDT on satdt's `all` columns
        from satdt.peers import fit_peer

        fit = fit_peer(tool, data, max_depth=depth, lam=lam, time_limit=time_limit)
        fit_s, leaves, status = fit.fit_s, None, fit.status
        predict, pred = fit.predict, fit.training_predictions()
    seconds = time.perf_counter() - start
    row = {"tool": tool, "errors": int((np.asarray(pred) != data.y).sum()), "leaves": leaves,
           "solver_s": round(seconds, 4), "fit_s": round(fit_s, 4)}
    if tool == "pytrees-lds":
        row["status"] = status
    if test is not None:  # accuracy out of sample (STreeD/GOSDT through the training binarizer)
        tdata = load_csv(test)
        row["test_accuracy"] = round(float((np.asarray(predict(tdata.X)) == tdata.y).mean()), 4)
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
