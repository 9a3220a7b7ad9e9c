"""Model selection by cross-validation on the Quant-BnB train/test splits (issue 16, item 4).

The shape of the DPDT paper's Table 2 (Kohler, Akrour & Preux): for each dataset, the complexity
of each family is chosen by K-fold cross-validation on the train file, the chosen setting is
refitted on the whole train file, and the test file gives the test accuracy and the average
number of tests per test row, at depth <= D. Families, all on the same folds and the same grid:

* ``dp``: the exact regularized optimum (errors / n + lambda * leaves, depth <= D; DP engine,
  ``--binarization`` with ``--n-thresholds``), lambda chosen by CV;
* ``cart``: scikit-learn's CART of depth D with cost-complexity pruning, ``ccp_alpha`` chosen by CV;
* ``dpdt``: DPDT of depth D (``cart_depth`` 3, 2: the paper's Table 2 setting), its penalty per
  test ``alpha`` chosen by CV.

Example::

    python benchmarks/bench_select.py --datasets bank wilt occupancy --depth 5 --time-limit 30
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from satdt import load_csv  # noqa: E402
from satdt.estimators import make_estimator  # noqa: E402
from satdt.select import select_complexity  # noqa: E402


def refit_and_test(family: str, param: str, value: float, depth: int, train, test, args) -> dict:
    start = time.perf_counter()
    if family == "cart":
        from sklearn.tree import DecisionTreeClassifier

        model = DecisionTreeClassifier(max_depth=depth, ccp_alpha=value, random_state=0).fit(train.X, train.labels)
        accuracy = model.score(test.X, test.labels)
        tests = float(np.asarray(model.decision_path(test.X).sum(axis=1)).ravel().mean() - 1)
        leaves, status = int(model.get_n_leaves()), "HEURISTIC"
    else:
        options = {"max_depth": depth, param: value}
        if family == "dp":
            options.update(binarization=args.binarization, n_thresholds=args.n_thresholds,
                           time_limit=args.time_limit)
        else:
            options.update(cart_depth=[3, 2])
        model = make_estimator(family, **options).fit(train.X, train.labels)
        accuracy = model.score(test.X, test.labels)
        tests = model.tree_.average_tests(test.X)
        leaves, status = model.tree_.n_leaves, model.result_.status
    return {"test_accuracy": accuracy, "test_avg_tests": tests, "leaves": leaves, "refit_status": status,
            "refit_s": time.perf_counter() - start}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=str(ROOT.parent / "shared" / "datasets" / "quantbnb"))
    ap.add_argument("--datasets", nargs="*", default=["bank", "wilt", "occupancy"])
    ap.add_argument("--depth", type=int, default=5)
    ap.add_argument("--lams", default="0.001,0.0025,0.005,0.01,0.025")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--binarization", default="quantile")
    ap.add_argument("--n-thresholds", type=int, default=16)
    ap.add_argument("--time-limit", type=float, default=30.0, help="seconds per dp fit")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--output", default=None, help="CSV of the rows")
    args = ap.parse_args()
    lams = [float(v) for v in args.lams.split(",")]
    rows = []
    print(f"load average at start: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    for name in args.datasets:
        train = load_csv(Path(args.data_dir) / f"{name}.train.csv")
        test = load_csv(Path(args.data_dir) / f"{name}.test.csv")
        start = time.perf_counter()
        out = select_complexity(train.X, train.labels, "dp", lams=lams, folds=args.folds,
                                options={"max_depth": args.depth, "binarization": args.binarization,
                                         "n_thresholds": args.n_thresholds, "time_limit": args.time_limit},
                                n_jobs=args.jobs, heuristics=("cart", "dpdt"),
                                heuristic_options={"dpdt": {"cart_depth": [3, 2]}})
        cv_s = time.perf_counter() - start
        families = [("dp", out["param"], out["table"], out["chosen_index"])]
        families += [(h, v["param"], v["table"], v["chosen_index"]) for h, v in out["heuristics"].items()]
        for family, param, table, chosen in families:
            row = table[chosen]
            statuses = sorted({s for r in table for s in r["statuses"]})
            result = refit_and_test(family, param, row[param], args.depth, train, test, args)
            rows.append({"dataset": name, "family": family, "param": param, "chosen": row[param],
                         "cv_accuracy": row["mean_accuracy"], "cv_std": row["std_accuracy"],
                         "fold_statuses": "/".join(statuses), **result, "cv_s_all_families": cv_s})
            print(f"{name} {family}: {param}={row[param]:g} cv {row['mean_accuracy']:.4f} test "
                  f"{result['test_accuracy']:.4f} tests/row {result['test_avg_tests']:.2f}", file=sys.stderr)
    print(f"load average at end: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    print(f"| dataset | family | chosen | CV accuracy % (std) | test accuracy % | tests / test row | leaves | "
          f"fold statuses |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['dataset']} | {r['family']} | {r['param']} = {r['chosen']:g} | {100 * r['cv_accuracy']:.2f} "
              f"({100 * r['cv_std']:.2f}) | {100 * r['test_accuracy']:.2f} | {r['test_avg_tests']:.2f} | "
              f"{r['leaves']} | {r['fold_statuses']} |")
    if args.output:
        with open(args.output, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
