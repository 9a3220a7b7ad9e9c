"""What the ``satdt`` commands share: exit codes, the command's clock (from process start),
guarded imports, one-line errors, the JSON form of a result and of the data, the progress printer.

Start fast: this module and the command modules import no scikit-learn, pandas or OR-tools at
module level; the commands import them when they run (``tests/test_import_time.py``).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from ..data import Dataset
from ..deadline import Deadline
from ..progress import ProgressCallback, stderr_printer


EXIT_OK, EXIT_INPUT, EXIT_USAGE = 0, 1, 2


def estimators_module() -> Any:
    """:mod:`satdt.estimators`, imported on first use (scikit-learn: ~1.2 s of CPU)."""
    from .. import estimators

    return estimators


def process_age() -> float:
    """Seconds since this process started (Linux: ``/proc/self/stat`` against the boot clock,
    10 ms resolution), so that ``--time-limit`` counts the interpreter's start-up and the imports
    before :func:`main` ran. 0 where that cannot be read."""
    try:
        with open("/proc/self/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):  # pragma: no cover - not Linux
        return 0.0
    return age if 0.0 <= age < 3600.0 else 0.0


# CPU seconds of the imports a command may still need after start-up (measured on this project's
# machine: scikit-learn with satdt.estimators ~1.2 s, pandas ~0.4 s, OR-tools ~0.3 s, PySAT ~0.1 s).
# Before each, the CLI checks that the time left covers it (scaled by how much slower than its CPU
# time this process has run so far: a loaded machine); if not, it does not start it and returns
# the best result so far (see plans._degraded). An import cannot be interrupted once started.
IMPORT_CPU = {"satdt.estimators": 1.2, "satdt.select": 1.2, "pandas": 0.4, "satdt.solvers.cpsat": 0.3,
               "satdt.solvers.mip": 0.3, "satdt.solvers.maxsat": 0.15, "satdt.heuristics.dpdt": 0.05}


class Clock:
    """The command's clock: started at process start when :func:`main` runs as the ``satdt``
    program (``argv`` None), at the call otherwise (tests, a caller's own process)."""

    def __init__(self, whole_process: bool):
        now, cpu = time.perf_counter(), time.process_time()
        age = process_age() if whole_process else 0.0
        self.whole_process = whole_process
        self.start = now - age
        self.startup = age  # seconds from the process start to main(): interpreter, satdt.cli imports
        # wall / CPU of the start-up so far: > 1 on a loaded machine. Clamped to [1, 2]: the
        # start-up's ratio also holds disk reads (measured 4x at load 6 while the imports after it
        # ran at ~1.4x their CPU time)
        self.slowdown = min(2.0, max(1.0, age / cpu)) if whole_process and cpu > 0.05 else 1.0

    def wall(self) -> float:
        return time.perf_counter() - self.start

    def deadline(self, time_limit: float | None) -> Deadline:
        deadline = Deadline(time_limit)
        deadline.start = self.start  # the limit covers the whole command, start-up included
        return deadline

    def can_import(self, module: str, deadline: Deadline) -> bool:
        """Import ``module`` unless the time left cannot cover it; False when not imported."""
        if module in sys.modules:
            return True
        left = deadline.remaining()
        if left is not None and left < IMPORT_CPU.get(module, 0.1) * self.slowdown:
            return False
        __import__(module)
        return True


def progress_callback(a: argparse.Namespace) -> ProgressCallback | None:
    """The stderr printer when asked (``--progress``) or when stderr is a terminal, not ``--quiet``."""
    if getattr(a, "quiet", False):
        return None
    if getattr(a, "progress", False) or sys.stderr.isatty():
        return stderr_printer()
    return None


def fail(message: str) -> int:
    print(f"satdt: error: {message}", file=sys.stderr)
    return EXIT_INPUT


def solve_summary(method: str, model: Any, data: Dataset) -> dict[str, Any]:
    """The JSON object of ``satdt solve --json`` (keys: docs/architecture.md, "The command line")."""
    result, tree = model.result_, getattr(model, "tree_", None)
    if tree is None:  # a proven INFEASIBLE: no tree, the proof and its bound instead
        out = {"method": method, "dataset": data.name, "status": result.status,
               "objective_name": result.objective_name, "objective": None, "bound": result.bound,
               "errors": None, "train_accuracy": None, "n_rows": data.n_rows, "depth": None,
               "n_nodes": None, "n_leaves": None, "runtime_s": round(result.runtime, 4),
               "binarization": getattr(model, "binarization", None), "stats": jsonable(result.stats),
               "tree": None, "proof": result.stats.get("proof"),
               "depth_bound": result.stats.get("depth_bound")}
        return out
    errors = int((tree.predict_index(data.X) != data.y).sum())
    out = {
        "method": method, "dataset": data.name, "status": result.status,
        "objective_name": result.objective_name, "objective": result.objective, "bound": result.bound,
        "errors": errors, "train_accuracy": 1.0 - errors / data.n_rows, "n_rows": data.n_rows,
        "depth": tree.depth(), "n_nodes": tree.n_nodes, "n_leaves": tree.n_leaves,
        "runtime_s": round(result.runtime, 4),
        "binarization": getattr(model, "binarization", None),
        "stats": jsonable(result.stats), "tree": tree.to_dict(),
    }
    front = getattr(model, "pareto_front_", None)
    if front is not None:
        out["pareto_front"] = jsonable(front)                         # accuracy vs average tests
        out["pareto_front_nodes"] = jsonable(model.pareto_front_nodes_)  # accuracy vs nodes
    return out


def jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, float) and not np.isfinite(obj):
        return None
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    return str(obj)


def data_frame(data: Dataset) -> Any:
    """The data as a user would pass it: named columns, categorical columns as their values."""
    import pandas as pd

    cats = data.schema.categories
    columns = {j: ([cats[j][int(c)] for c in data.X[:, j]] if j in cats else data.X[:, j])
               for j in range(data.X.shape[1])}
    frame = pd.DataFrame(columns)
    frame.columns = data.feature_names
    return frame


def exit_now(code: int) -> None:
    """End the ``satdt`` process once its output is written, without the interpreter's teardown
    (freeing every module and array, joining solver threads: 0.3 s and more measured on a loaded
    machine, after the answer is already out). Only for commands that hold no worker pool."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # closed by the reader: nothing more to write
        code = code or EXIT_OK
    os._exit(code)


def check_output(output: str | None, data: str | None = None) -> None:
    """Refuse, before any solve, an ``--output`` that cannot take the result: a directory, the
    input data file itself, a file or folder that is not writable (``DataError``: one line, exit 1)."""
    from ..data import DataError

    if not output:
        return
    path = Path(output)
    if path.is_dir():
        raise DataError(f"--output {output} is a directory; name a file")
    if data is not None and path.exists():
        try:
            same = Path(data).exists() and os.path.samefile(path, data)
        except OSError:
            same = False
        if same:
            raise DataError(f"--output {output} is the input data file; name another file")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise DataError(f"--output {output}: no such folder {parent}")
    if path.exists() and not os.access(path, os.W_OK):
        raise DataError(f"--output {output} is not writable")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise DataError(f"--output {output}: the folder {parent} is not writable")


@contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """A temporary file next to ``path`` (same suffix) to write to; renamed over ``path`` when the
    block ends without an error (an existing file is replaced whole or not at all), removed otherwise."""
    path = Path(path)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix or ".tmp",
                                dir=str(path.parent) if str(path.parent) else ".")
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        if path.exists():
            try:
                os.chmod(tmp, path.stat().st_mode & 0o777)
            except OSError:
                pass
        else:
            os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (temporary file + rename)."""
    with atomic_path(path) as tmp:
        tmp.write_text(text)
