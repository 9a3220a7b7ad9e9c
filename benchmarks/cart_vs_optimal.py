"""How far are CART (gini, entropy) and DPDT from the proven optimum?

For every dataset and depth: the training errors of scikit-learn's CART (gini and entropy) and of
DPDT (alpha = 0), each certified with :func:`satdt.verify.certify` (objective ``accuracy`` at
that depth, ``all`` binarization: the optimum over every axis-aligned tree of that depth). Tasks
run in parallel through joblib (see :mod:`satdt.bench` for clusters).

Example::

    python benchmarks/cart_vs_optimal.py --depths 2,3 --time-limit 120 --jobs 1 \
        --markdown benchmarks/results/cart_vs_optimal.md
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from satdt.bench import resolve_dataset  # noqa: E402
from satdt.verify import certify_many  # noqa: E402

DEFAULT_DATASETS = (
    "inferdt/iris,inferdt/monk1,inferdt/monk2,inferdt/monk3,inferdt/wine,inferdt/mouse,inferdt/zoo,"
    "inferdt/lung_cancer_examples,inferdt/balance-scale,inferdt/car,gosdt/tic-tac-toe,gosdt/compas,"
    "quantbnb/bank.train,quantbnb/bidding.train,quantbnb/fault.train,quantbnb/htru.train,"
    "quantbnb/magic.train,quantbnb/occupancy.train,quantbnb/page.train,quantbnb/raisin.train,"
    "quantbnb/rice.train,quantbnb/room.train,quantbnb/segment.train,quantbnb/wilt.train")


def heuristic_trees(data, depth: int) -> dict:
    from sklearn.tree import DecisionTreeClassifier

    from satdt.heuristics.dpdt import solve_dpdt

    trees = {f"cart-{c}": DecisionTreeClassifier(max_depth=depth, criterion=c, random_state=0).fit(data.X, data.labels)
             for c in ("gini", "entropy")}
    trees["dpdt-5"] = solve_dpdt(data, max_depth=depth, cart_depth=5, alphas=[0.0], alpha=0.0).result.tree
    return trees


def study(dataset: str, depth: int, data_dir: Path, time_limit: float, engine: str) -> list[dict]:
    data = resolve_dataset(str(data_dir / f"{dataset}.csv"))
    trees = heuristic_trees(data, depth)
    start = time.perf_counter()
    certs = certify_many(list(trees.values()), data, objective="accuracy", max_depth=depth,
                         time_limit=time_limit, engine=engine)
    seconds = round(time.perf_counter() - start, 2)
    return [dict(dataset=dataset, depth=depth, heuristic=name, n_rows=data.n_rows,
                 heuristic_errors=int(c.tree_value), optimum=c.optimum, bound=c.bound, best_found=c.best_found,
                 gap_errors=c.gap_errors, status=c.status, certify_s=seconds)
            for name, c in zip(trees, certs)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=str(ROOT.parent / "shared" / "datasets"))
    parser.add_argument("--datasets", default=DEFAULT_DATASETS)
    parser.add_argument("--depths", default="2,3")
    parser.add_argument("--time-limit", type=float, default=120.0)
    parser.add_argument("--engine", default="dp")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--csv", default=str(ROOT / "benchmarks" / "out" / "cart_vs_optimal.csv"))
    parser.add_argument("--markdown", default=None)
    parser.add_argument("--from-csv", action="store_true",
                        help="do not solve: rebuild the tables from --csv (a finished or partial run)")
    args = parser.parse_args()
    if args.from_csv:
        frame = pd.read_csv(args.csv)
    else:
        frame = run(args)
    text = report(frame)
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text)


def run(args: argparse.Namespace) -> pd.DataFrame:
    data_dir = Path(args.data_dir)
    tasks = [(d, int(k)) for d in args.datasets.split(",") if d for k in args.depths.split(",")]
    rows: list[dict] = []
    out = Parallel(n_jobs=args.jobs, return_as="generator_unordered")(
        delayed(study)(d, k, data_dir, args.time_limit, args.engine) for d, k in tasks)
    Path(args.csv).parent.mkdir(parents=True, exist_ok=True)
    for i, part in enumerate(out, 1):
        rows.extend(part)
        pd.DataFrame(rows).to_csv(args.csv, index=False)  # kept if the run is cut off
        r = part[0]
        print(f"[{i}/{len(tasks)}] {r['dataset']} depth {r['depth']}: optimum {r['optimum']} "
              f"(bound {r['bound']}); " + ", ".join(f"{p['heuristic']} {p['heuristic_errors']}" for p in part),
              file=sys.stderr, flush=True)
    return pd.DataFrame(rows)


def report(frame: pd.DataFrame) -> str:
    """Markdown: one row per (dataset, depth) with each heuristic's errors and the optimum (or
    the best tree found and the proven bound), then per heuristic and depth how often it is
    optimal where the optimum is proven, and its mean gap there."""
    frame = frame.sort_values(["dataset", "depth", "heuristic"])
    wide = frame.pivot_table(index=["dataset", "depth", "n_rows"], columns="heuristic",
                             values="heuristic_errors", aggfunc="first").reset_index()
    best = frame.groupby(["dataset", "depth"]).agg(optimum=("optimum", "min"), bound=("bound", "max"),
                                                  best_found=("best_found", "min"),
                                                  certify_s=("certify_s", "max")).reset_index()
    table = wide.merge(best, on=["dataset", "depth"])
    heuristics = [c for c in wide.columns if c not in ("dataset", "depth", "n_rows")]
    # the best tree known: the engine's or a heuristic's (every one is a valid tree of that depth)
    table["best_found"] = np.fmin(table["best_found"], table[heuristics].min(axis=1))
    table["optimum"] = table["optimum"].map(lambda v: "" if pd.isna(v) else str(int(v)))
    for col in ("bound", "best_found"):
        table[col] = table[col].map(lambda v: "" if pd.isna(v) else str(int(np.ceil(v - 1e-9))))
    proven = frame[frame.optimum.notna()].copy()
    proven["optimal"] = proven.heuristic_errors <= proven.optimum
    proven["gap"] = proven.heuristic_errors - proven.optimum
    proven["gap_pct_rows"] = 100.0 * proven.gap / proven.n_rows
    summary = (proven.groupby(["heuristic", "depth"])
               .agg(proven_cells=("dataset", "size"), optimal=("optimal", "sum"),
                    mean_gap_errors=("gap", "mean"), max_gap_errors=("gap", "max"),
                    mean_gap_pct_of_rows=("gap_pct_rows", "mean"))
               .round(2).reset_index())
    fmt = (lambda t: t.to_markdown(index=False)) if _has_tabulate() else (lambda t: t.to_string(index=False))
    return fmt(table) + "\n\n" + fmt(summary) + "\n"


def _has_tabulate() -> bool:
    try:
        import tabulate  # noqa: F401
        return True
    except ImportError:
        return False


if __name__ == "__main__":
    main()
