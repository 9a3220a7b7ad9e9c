"""``satdt select``: a penalty or depth chosen by cross-validation, then refit on every row."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..data import Dataset, load_dataset
from ..deadline import set_max_memory
from ..result import NoTreeFoundError
from .common import EXIT_OK, data_frame, jsonable, progress_callback, solve_summary


def cmd_select(a: argparse.Namespace) -> int:
    clock = a.clock
    deadline = clock.deadline(a.time_limit)  # the whole command: start-up, folds and refit
    if a.max_memory is not None:
        set_max_memory(a.max_memory)
    progress = progress_callback(a)
    data = load_dataset(a.data)
    for module in ("satdt.select", "pandas"):
        if not clock.can_import(module, deadline):  # too late to start: no fold can run
            why = f"time limit reached during start-up (the import of {module} not started)"
            out = {"method": a.method, "dataset": data.name, "param": None, "folds": a.folds, "status": "UNKNOWN",
                   "chosen": None, "table": [], "refit": None, "tree": None, "note": why, "runtime_s": 0.0,
                   "wall_s": round(clock.wall(), 3), "time_limit": a.time_limit, "heuristics": {}}
            print(json.dumps(out) if a.json else f"{a.method} on {data.name}: UNKNOWN: no tree within the time "
                  f"limit of {a.time_limit:g} s: {why}  ({out['wall_s']} s)")
            return EXIT_OK
    from ..select import TreeSelectorCV

    frame = data_frame(data)
    selector = TreeSelectorCV(a.method, lams=a.lams, depths=a.depths, folds=a.folds, one_se=a.one_se,
                              max_depth=a.max_depth, time_limit=deadline if a.time_limit is not None else None,
                              options={"binarization": a.binarization}, n_jobs=a.jobs, random_state=a.seed,
                              heuristics=a.heuristics, progress=progress)
    try:
        selector.fit(frame, data.labels)
    except NoTreeFoundError as exc:  # no setting scored on every fold, or the refit had no tree
        if not hasattr(selector, "cv_results_"):
            raise
        return _print_select_without_tree(a, selector, data, str(exc))
    param, row = selector.param_, selector.cv_results_[selector.best_index_]
    refit = solve_summary(a.method, selector.best_estimator_, data)
    out = {"method": a.method, "dataset": data.name, "param": param, "folds": a.folds,
           "rule": "one-se" if a.one_se else "best", "status": refit["status"],
           "chosen": {param: row[param], "mean_accuracy": row["mean_accuracy"], "std_accuracy": row["std_accuracy"]},
           "table": selector.cv_results_,
           "refit": {k: refit[k] for k in ("status", "objective_name", "objective", "bound", "errors",
                                           "train_accuracy", "depth", "n_nodes", "n_leaves", "runtime_s")},
           "tree": refit["tree"], "runtime_s": round(selector.runtime_, 4),
           "wall_s": round(clock.wall(), 3), "time_limit": a.time_limit,
           "heuristics": selector.heuristics_}
    if a.json:
        print(json.dumps(jsonable(out)))
        return EXIT_OK
    print(f"{a.method} on {data.name}: {a.folds}-fold cross-validation over {param} (held-out accuracy)")
    _print_cv_table(param, selector.cv_results_, selector.best_index_)
    for name, h in selector.heuristics_.items():
        print(f"{name} (heuristic, same folds) over {h['param']}:")
        _print_cv_table(h["param"], h["table"], h["chosen_index"])
    rule = "the simplest within one standard error of the best mean" if a.one_se else "the best mean"
    print(f"chosen: {param} = {row[param]:g} ({rule}); refit on all {data.n_rows} rows: {refit['status']}, "
          f"depth {refit['depth']}, {refit['n_leaves']} leaves, training accuracy {refit['train_accuracy']:.4f}"
          f"  ({out['wall_s']} s)")
    print(selector.tree_.to_text())
    return EXIT_OK


def _print_select_without_tree(a: argparse.Namespace, selector: Any, data: Dataset, why: str) -> int:
    """``satdt select`` when no tree came out (every setting INFEASIBLE or unscored, or the refit
    out of time before any tree): status UNKNOWN with the table, exit 0 (a result, not an error)."""
    param = selector.param_
    chosen = selector.best_index_
    out = {"method": a.method, "dataset": data.name, "param": param, "folds": a.folds,
           "rule": "one-se" if a.one_se else "best", "status": "UNKNOWN",
           "chosen": None if chosen is None else {param: selector.cv_results_[chosen][param]},
           "table": selector.cv_results_, "refit": None, "tree": None, "note": why,
           "runtime_s": round(getattr(selector, "runtime_", 0.0), 4), "wall_s": round(a.clock.wall(), 3),
           "time_limit": a.time_limit, "heuristics": selector.heuristics_}
    if a.json:
        print(json.dumps(jsonable(out)))
        return EXIT_OK
    print(f"{a.method} on {data.name}: {a.folds}-fold cross-validation over {param} (held-out accuracy)")
    _print_cv_table(param, selector.cv_results_, chosen)
    limit = f" within the time limit of {a.time_limit:g} s" if a.time_limit is not None else ""
    print(f"UNKNOWN: no tree{limit}: {why}  ({out['wall_s']} s)")
    return EXIT_OK


def _print_cv_table(param: str, table: list[dict], chosen: int | None) -> None:
    print(f"  {param:>10s}  {'mean':>7s}  {'std':>7s}  {'train':>7s}  {'leaves':>6s}  {'depth':>5s}  "
          f"{'tests/row':>9s}  status")
    for i, r in enumerate(table):
        statuses = sorted(set(r["statuses"]))
        print(f"{'*' if i == chosen else ' '} {r[param]:>10g}  {r['mean_accuracy']:7.4f}  "
              f"{r['std_accuracy']:7.4f}  {r['mean_train_accuracy']:7.4f}  {r['mean_leaves']:6.1f}  "
              f"{r['mean_depth']:5.1f}  {r['mean_avg_tests']:9.2f}  {'/'.join(statuses)}")
