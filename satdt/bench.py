"""Benchmark harness: methods x datasets x depths, run in parallel through joblib.

Each task fits one method on one dataset and records status, objective, bound, training errors,
tree shape, wall time and the peak resident memory of the process that ran it. Tasks are
independent, so they run through :class:`joblib.Parallel`: on one machine with the ``loky``
backend (processes), and on a cluster through joblib's Dask or Ray backends, for instance::

    from dask.distributed import Client
    import joblib
    client = Client("scheduler-address:8786")
    with joblib.parallel_config(backend="dask"):
        rows = run_benchmark(tasks, n_jobs=-1)

(with Ray: ``from ray.util.joblib import register_ray; register_ray()`` then
``backend="ray"``). Each engine already limits its own threads (CP-SAT ``num_workers``), so
``n_jobs`` times that should not exceed the cores of a machine.

Methods are those of the registry (:data:`satdt.methods.METHODS`, fitted through
:func:`satdt.estimators.make_estimator`) plus ``cart-gini`` and ``cart-entropy``
(scikit-learn's CART at the same depth) and, when their packages are installed, the peers of
:mod:`satdt.peers` (``pystreed``, ``pycontree``, ``gosdt``, ``pytrees-lds``).
"""

from __future__ import annotations

import resource
import threading
import time
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from .data import Dataset, DataError, bundled_datasets, load_csv, load_dataset

__all__ = ["Task", "run_task", "run_benchmark", "resolve_dataset", "to_markdown", "HEURISTICS", "peers"]

HEURISTICS = ("cart-gini", "cart-entropy")


@dataclass
class Task:
    """One run: a method on a dataset with its options."""

    method: str
    dataset: str
    max_depth: int | None = None
    lam: float | None = None
    alpha: float | None = None
    time_limit: float | None = None
    binarization: str = "all"
    options: dict = field(default_factory=dict)


def resolve_dataset(name: str, data_dir: str | Path | None = None) -> Dataset:
    """A bundled name, a CSV path, or ``NAME`` / ``NAME.csv`` / ``sub/NAME.csv`` under ``data_dir``."""
    if name in bundled_datasets() or Path(name).is_file():
        return load_dataset(name)
    if data_dir is not None:
        root = Path(data_dir)
        candidates = [root / name, root / f"{name}.csv"]
        candidates += sorted(root.glob(f"*/{name}.csv")) + sorted(root.glob(f"*/{name}"))
        for path in candidates:
            if path.is_file():
                data = load_csv(path)
                data.name = name
                return data
    raise DataError(f"unknown dataset '{name}' (not bundled, not a file, not under {data_dir})")


def peers() -> dict[str, Callable[[Dataset, Task], tuple[Any, dict]]]:
    """Optional peer solvers that are importable here (:func:`satdt.peers.available`): name ->
    runner ``(data, task) -> (predictions on data, extra row fields)``."""
    from .peers import available

    return {name: partial(_run_peer, name) for name in available()}


#: a peer's depth when the task gives none
_PEER_DEPTH = {"gosdt": 5}


def _run_peer(name: str, data: Dataset, task: Task) -> tuple[Any, dict]:
    """One peer through its adapter (:mod:`satdt.peers`) on ``task``'s depth (3 when it has none,
    5 for GOSDT), ``lam`` and time limit (600 s when none)."""
    from .peers import fit_peer

    fit = fit_peer(name, data, max_depth=task.max_depth or _PEER_DEPTH.get(name, 3), lam=task.lam,
                   time_limit=task.time_limit or 600, binarization=task.binarization)
    return fit.training_predictions(), ({"n_leaves": None} if name == "gosdt" else {})


def _reset_peak_rss() -> bool:
    """Reset this process's peak resident set size (Linux: ``/proc/self/clear_refs``, "5"), so
    that the next :func:`_peak_rss_mb` is the peak of one task, not of the worker's life."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _peak_rss_mb() -> float:
    """Peak resident set size since the last reset (``VmHWM``), or of the whole process."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run_task(task: Task, data_dir: str | Path | None = None) -> dict[str, Any]:
    """Run one task; never raises (an error becomes the row's ``error``)."""
    from .estimators import make_estimator
    from .result import InfeasibleError

    row: dict[str, Any] = {k: v for k, v in asdict(task).items() if k != "options"}
    # threads share one process: only a task on the main thread owns the peak it resets
    per_task = threading.current_thread() is threading.main_thread() and _reset_peak_rss()
    start = time.perf_counter()
    try:
        data = resolve_dataset(task.dataset, data_dir)
        row["n_rows"] = data.n_rows
        if task.method in HEURISTICS:
            from sklearn.tree import DecisionTreeClassifier

            model = DecisionTreeClassifier(max_depth=task.max_depth, criterion=task.method.split("-")[1],
                                           random_state=0).fit(data.X, data.y)
            row.update(status="HEURISTIC", depth=int(model.get_depth()), n_leaves=int(model.get_n_leaves()),
                       n_nodes=int(model.tree_.node_count))
            pred = model.predict(data.X)
        elif task.method in peers():
            pred, extra = peers()[task.method](data, task)
            row.update(status="PEER", **extra)
        else:
            model = make_estimator(task.method, max_depth=task.max_depth, lam=task.lam, alpha=task.alpha,
                                   time_limit=task.time_limit, binarization=task.binarization, **task.options)
            model.fit(data.X, data.y)
            res = model.result_
            row.update(status=res.status, objective_name=res.objective_name, objective=res.objective,
                       bound=res.bound, depth=model.tree_.depth(), n_nodes=model.tree_.n_nodes,
                       n_leaves=model.tree_.n_leaves)
            pred = model.tree_.predict_index(data.X)
        errors = int((np.asarray(pred) != data.y).sum())
        row.update(errors=errors, train_accuracy=1.0 - errors / data.n_rows)
    except InfeasibleError as exc:  # a proof, not a failure: no tree meets the task's limits
        res = exc.result
        row.update(status=res.status, objective_name=res.objective_name, bound=res.bound,
                   proof=res.stats.get("proof"))
    except Exception as exc:  # a benchmark row records the failure and goes on
        row.update(status="ERROR", error=f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
    row["time_s"] = round(time.perf_counter() - start, 4)
    row["peak_rss_mb"] = round(_peak_rss_mb(), 1)
    # "task": peak of this task (it includes the process's memory at its start);
    # "process": the whole process's peak so far (no reset on this system)
    row["peak_rss_scope"] = "task" if per_task else "process"
    return row


def run_benchmark(tasks: Iterable[Task], n_jobs: int = 1, data_dir: str | Path | None = None,
                  progress: Callable[[int, int, dict], None] | None = None) -> list[dict[str, Any]]:
    """Run tasks in parallel with joblib (``n_jobs`` processes; see the module doc for clusters).

    ``progress(done, total, row)`` is called as each task finishes.
    """
    from joblib import Parallel, delayed

    tasks = list(tasks)
    indexed = list(enumerate(tasks))
    if n_jobs == 1:
        results: Iterator[tuple[int, dict]] = ((i, run_task(t, data_dir)) for i, t in indexed)
    else:
        results = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
            delayed(_indexed_task)(i, t, data_dir) for i, t in indexed)
    done: list[tuple[int, dict]] = []
    for i, row in results:
        done.append((i, row))
        if progress is not None:
            progress(len(done), len(tasks), row)
    return [row for _, row in sorted(done, key=lambda pair: pair[0])]


def _indexed_task(i: int, task: Task, data_dir: str | Path | None) -> tuple[int, dict[str, Any]]:
    return i, run_task(task, data_dir)


COLUMNS = ("dataset", "method", "max_depth", "lam", "alpha", "status", "objective", "bound", "errors",
           "train_accuracy", "depth", "n_nodes", "time_s", "peak_rss_mb", "error")


def to_markdown(rows: list[dict[str, Any]], columns: Iterable[str] = COLUMNS) -> str:
    """A Markdown table of the rows (only the columns some row has)."""
    cols = [c for c in columns if any(r.get(c) is not None for r in rows)]

    def fmt(v: Any) -> str:
        if v is None:
            return ""
        if isinstance(v, float):
            return f"{v:.4f}".rstrip("0").rstrip(".") if abs(v) < 1e6 else f"{v:.3g}"
        return str(v)

    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(fmt(r.get(c)) for c in cols) + " |" for r in rows]
    return "\n".join(lines)
