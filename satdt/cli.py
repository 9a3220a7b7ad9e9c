"""The ``satdt`` command line.

Exit codes: 0 success (whatever the solver status), 1 bad input or data, 2 usage error.
Errors go to stderr as one line, never a traceback for a user mistake.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from . import estimators as est
from .binarize import STRATEGIES
from .data import DataError, Dataset, bundled_datasets, load_dataset

EXIT_OK, EXIT_INPUT, EXIT_USAGE = 0, 1, 2


def _sat(objective: str) -> Callable[[argparse.Namespace], est._TreeClassifier]:
    def build(a: argparse.Namespace) -> est._TreeClassifier:
        kwargs = dict(objective=objective, max_depth=a.max_depth, time_limit=a.time_limit,
                      binarization=a.binarization, n_thresholds=a.n_thresholds)
        if a.solver:
            kwargs["solver"] = a.solver
        return est.SATTreeClassifier(**kwargs)
    return build


def _with_depth(cls: type, default_depth: int, **fixed: Any) -> Callable[[argparse.Namespace], Any]:
    def build(a: argparse.Namespace) -> Any:
        kwargs = dict(max_depth=default_depth if a.max_depth is None else a.max_depth,
                      time_limit=a.time_limit, binarization=a.binarization, n_thresholds=a.n_thresholds)
        if a.solver:
            kwargs["backend"] = a.solver
        kwargs.update({k: getattr(a, v) for k, v in fixed.items() if getattr(a, v) is not None})
        return cls(**kwargs)
    return build


def _maxsat(a: argparse.Namespace) -> est.MaxSATTreeClassifier:
    return est.MaxSATTreeClassifier(max_depth=3 if a.max_depth is None else a.max_depth,
                                    time_limit=a.time_limit, binarization=a.binarization,
                                    n_thresholds=a.n_thresholds)


def _cpsat(a: argparse.Namespace) -> est.CPSATTreeClassifier:
    return est.CPSATTreeClassifier(lam=0.01 if a.lam is None else a.lam,
                                   max_depth=5 if a.max_depth is None else a.max_depth,
                                   time_limit=a.time_limit, binarization=a.binarization,
                                   n_thresholds=a.n_thresholds)


def _dpdt(a: argparse.Namespace) -> est.DPDTClassifier:
    kwargs: dict[str, Any] = dict(max_depth=3 if a.max_depth is None else a.max_depth,
                                  alpha=0.0 if a.alpha is None else a.alpha, time_limit=a.time_limit)
    if a.cart_depth is not None:
        kwargs["cart_depth"] = a.cart_depth
    return est.DPDTClassifier(**kwargs)


#: method name -> builder of the estimator from the parsed arguments
METHODS: dict[str, Callable[[argparse.Namespace], Any]] = {
    "sat-depth": _sat("depth"),
    "sat-size": _sat("size"),
    "maxsat": _maxsat,
    "binoct": _with_depth(est.BinOCTClassifier, 2),
    "oct": _with_depth(est.OCTClassifier, 2, alpha="alpha"),
    "cpsat": _cpsat,
    "dpdt": _dpdt,
}


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not np.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def _nonneg_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not np.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text}")
    return value


def _nonneg_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def _depth_list(text: str) -> int | list[int]:
    parts = [_nonneg_int(p) for p in text.split(",")]
    return parts[0] if len(parts) == 1 else parts


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="satdt", description="Provably optimal decision trees.")
    sub = parser.add_subparsers(dest="command", required=True)

    solve = sub.add_parser("solve", help="find a tree for a dataset")
    solve.add_argument("data", help="a CSV file (header row, last column = label) or a bundled dataset name")
    solve.add_argument("--method", required=True, choices=sorted(METHODS))
    solve.add_argument("--max-depth", type=_nonneg_int, default=None)
    solve.add_argument("--lam", type=_nonneg_float, default=None, help="cpsat: penalty per leaf")
    solve.add_argument("--alpha", type=_nonneg_float, default=None, help="oct: penalty per split; dpdt: per test")
    solve.add_argument("--cart-depth", type=_depth_list, default=None, help="dpdt: CART depth, or a per-depth list 3,2,2")
    solve.add_argument("--binarization", choices=STRATEGIES, default="all")
    solve.add_argument("--n-thresholds", type=int, default=10, help="thresholds per feature (quantile, tree)")
    solve.add_argument("--solver", default=None, help="SAT backend (sat-*) or MIP backend (binoct, oct)")
    solve.add_argument("--time-limit", type=_positive_float, default=None, help="wall-clock seconds")
    solve.add_argument("--json", action="store_true", help="print one JSON object")
    solve.add_argument("--export", choices=("text", "json", "dot"), default=None, help="tree format to write")
    solve.add_argument("--output", default=None, help="file for --export (default: standard output)")

    sub.add_parser("datasets", help="list the bundled datasets")
    return parser


def _fail(message: str) -> int:
    print(f"satdt: error: {message}", file=sys.stderr)
    return EXIT_INPUT


def solve_summary(method: str, model: Any, data: Dataset) -> dict[str, Any]:
    """The JSON object of ``satdt solve --json`` (DESIGN.md keys)."""
    result, tree = model.result_, model.tree_
    errors = int((tree.predict_index(data.X) != data.y).sum())
    out = {
        "method": method, "dataset": data.name, "status": result.status,
        "objective_name": result.objective_name, "objective": result.objective, "bound": result.bound,
        "errors": errors, "train_accuracy": 1.0 - errors / data.n_rows, "n_rows": data.n_rows,
        "depth": tree.depth(), "n_nodes": tree.n_nodes, "n_leaves": tree.n_leaves,
        "runtime_s": round(result.runtime, 4),
        "binarization": getattr(model, "binarization", None),
        "stats": _jsonable(result.stats), "tree": tree.to_dict(),
    }
    front = getattr(model, "pareto_front_", None)
    if front is not None:
        out["pareto_front"] = _jsonable(front)
    return out


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, float) and not np.isfinite(obj):
        return None
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    return str(obj)


def _export(tree: Any, fmt: str) -> str:
    return {"text": tree.to_text, "json": lambda: tree.to_json(indent=2), "dot": tree.to_dot}[fmt]()


def cmd_solve(a: argparse.Namespace) -> int:
    data = load_dataset(a.data)
    model = METHODS[a.method](a)
    model.fit(data.X if not data.schema.categories else _frame(data), data.labels)
    summary = solve_summary(a.method, model, data)
    if a.json:
        print(json.dumps(summary))
    else:
        print(f"{a.method} on {data.name}: {summary['status']}  {summary['objective_name']} = "
              f"{summary['objective']}  (bound {summary['bound']})")
        print(f"depth {summary['depth']}, {summary['n_nodes']} nodes, {summary['n_leaves']} leaves, "
              f"{summary['errors']} training errors (accuracy {summary['train_accuracy']:.4f}), "
              f"{summary['runtime_s']} s")
        if a.export is None:
            print(model.tree_.to_text())
    if a.export is not None:
        text = _export(model.tree_, a.export)
        if a.output:
            Path(a.output).write_text(text + "\n")
        elif not a.json:
            print(text)
    return EXIT_OK


def _frame(data: Dataset) -> Any:
    """Categorical columns back as their values, so the estimator sees what a user would pass."""
    import pandas as pd

    cats = data.schema.categories
    columns = {j: ([cats[j][int(c)] for c in data.X[:, j]] if j in cats else data.X[:, j])
               for j in range(data.X.shape[1])}
    frame = pd.DataFrame(columns)
    frame.columns = data.feature_names
    return frame


def cmd_datasets(a: argparse.Namespace) -> int:
    for name, path in bundled_datasets().items():
        data = load_dataset(name)
        print(f"{name:16s} {data.n_rows:6d} rows {data.X.shape[1]:4d} features {len(data.classes):3d} classes")
    return EXIT_OK


COMMANDS = {"solve": cmd_solve, "datasets": cmd_datasets}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: usage error (2) or --help (0)
        return int(exc.code or 0)
    try:
        return COMMANDS[args.command](args)
    except (DataError, ValueError, OSError, est.NoTreeFoundError) as exc:
        return _fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    except KeyboardInterrupt:
        return _fail("interrupted")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
