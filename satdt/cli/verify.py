"""``satdt verify``: certify whether a given tree (scikit-learn or satdt JSON) is optimal."""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path
from typing import Any

from ..data import DataError, load_dataset
from ..deadline import set_max_memory
from ..tree import Tree
from ..verify import certify, complete_data
from .common import EXIT_OK, jsonable, progress_callback


def _load_model(a: argparse.Namespace) -> Any:
    if a.tree:
        try:
            return Tree.from_dict(json.loads(Path(a.tree).read_text()))
        except json.JSONDecodeError as exc:
            raise DataError(f"{a.tree} is not valid JSON: {exc}") from None
    import joblib

    path = Path(a.sklearn)
    if not path.is_file():
        raise DataError(f"no such file: {path}")
    try:
        return joblib.load(path)
    except Exception as exc:  # unpickling errors have many types
        raise DataError(f"{path} is not a readable joblib model: {exc}") from None


def cmd_verify(a: argparse.Namespace) -> int:
    import inspect

    from ..progress import ProgressReporter

    deadline = a.clock.deadline(a.time_limit)  # the whole command, start-up included
    if a.max_memory is not None:
        set_max_memory(a.max_memory)
    progress = progress_callback(a)
    data = complete_data(load_dataset, a.data)
    model = _load_model(a)
    if a.objective == "regularized" and a.lam is None:
        raise DataError("--objective regularized needs --lam")
    if a.objective == "dpdt" and a.alpha is None:
        raise DataError("--objective dpdt needs --alpha")
    extra = {}
    if progress is not None and "progress" in inspect.signature(certify).parameters:
        extra["progress"] = progress  # the engine's own events
    reporter = ProgressReporter("verify", None if extra else progress)  # else: start and done from here
    reporter.emit("start", message=f"certify {a.objective} on {data.name}")
    with warnings.catch_warnings():  # (its note below instead)
        warnings.filterwarnings("ignore", "certify: no certificate written", RuntimeWarning)
        cert = certify(model, data, objective=a.objective, max_depth=a.max_depth, lam=a.lam, alpha=a.alpha,
                       time_limit=deadline.from_now(), engine=a.engine, proof=a.proof, **extra)
    reporter.emit("done", incumbent=cert.best_found, bound=cert.bound, message=cert.status)
    if a.proof is not None and "certificate" not in cert.params:  # as `satdt solve --proof` says it
        why = cert.params.get("no_certificate")  # (producing it ran out of time)
        print(f"satdt: note: no certificate written: " + (why or f"the result is {cert.status}"
              + ("" if cert.optimum is not None or cert.status == "INFEASIBLE" else ", the optimum not proven")),
              file=sys.stderr)
    if a.json:
        print(json.dumps(jsonable({**cert.to_dict(), "wall_s": round(a.clock.wall(), 3)})))
        return EXIT_OK
    print(f"{cert.status}: objective {cert.objective} (depth <= {cert.max_depth}) on {data.name}")
    if cert.proof is not None:  # INFEASIBLE: the search space is empty, proven
        print(f"proven: {cert.proof}; given tree: {cert.tree_value:g}")
        return EXIT_OK
    if cert.status == "UNKNOWN":  # not proven: the loss is only enclosed, never "gap: 0.0"
        low = f"{cert.gap:g}" if cert.gap is not None else "0"
        high = f"{cert.max_gap:g}" if cert.max_gap is not None else "unknown"
        print(f"given tree: {cert.tree_value:g}   optimum: unknown   bound: {cert.bound}   "
              f"gap: unknown (the tree loses between {low} and {high})")
    else:
        print(f"given tree: {cert.tree_value:g}   optimum: {cert.optimum}   bound: {cert.bound}   "
              f"gap: {cert.gap}" + (f" ({cert.gap_errors} training errors)" if cert.gap_errors is not None else "")
              + (f"   loses at most: {cert.max_gap:g}" if cert.max_gap is not None and cert.optimum is None
                 else ""))
    if cert.better_tree is not None:
        print("a better tree:")
        print(cert.better_tree.to_text())
    if "certificate" in cert.params:
        print(f"certificate: {a.proof} ({cert.params['certificate']['size_mb']} MB); check it with "
              f"`satdt check {a.proof}`")
    return EXIT_OK
