"""satdt.bench: the harness behind `satdt bench` and benchmarks/."""

import joblib
import pytest

from satdt.bench import Task, resolve_dataset, run_benchmark, run_task, to_markdown
from satdt.data import DataError

from known_optima import known, known_errors


def test_run_task_records_result_and_errors():
    row = run_task(Task("sat-depth", "mouse", time_limit=60))
    assert row["status"] == "OPTIMAL" and row["errors"] == 0
    assert row["depth"] == row["objective"] == known("min_depth", "mouse").value
    assert row["time_s"] > 0 and row["peak_rss_mb"] > 0
    bad = run_task(Task("sat-depth", "no-such-dataset"))
    assert bad["status"] == "ERROR" and "unknown dataset" in bad["error"]


@pytest.mark.slow
def test_parallel_run_keeps_task_order_and_reports_progress():
    tasks = [Task(m, d, max_depth=2) for d in ("iris", "mouse") for m in ("cart-gini", "dpdt")]
    seen = []
    rows = run_benchmark(tasks, n_jobs=2, progress=lambda done, total, row: seen.append((done, total)))
    assert [(r["dataset"], r["method"]) for r in rows] == [(t.dataset, t.method) for t in tasks]
    assert sorted(seen) == [(i, 4) for i in range(1, 5)]
    iris_cart = rows[0]
    assert iris_cart["errors"] == 6  # CART depth 2 on iris
    table = to_markdown(rows)
    assert table.count("\n") == len(rows) + 1 and "| dataset | method |" in table


def test_joblib_backend_is_honoured():
    tasks = [Task("cart-entropy", "iris", max_depth=d) for d in (1, 2, 3)]
    with joblib.parallel_config(backend="threading"):
        rows = run_benchmark(tasks, n_jobs=2)
    assert [r["errors"] for r in rows] == [50, 6, 4]


def test_resolve_dataset(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "tiny.csv").write_text("a,label\n1,0\n2,1\n")
    assert resolve_dataset("tiny", tmp_path).n_rows == 2
    with pytest.raises(DataError, match="unknown dataset"):
        resolve_dataset("absent", tmp_path)


@pytest.mark.parametrize("peer, dataset, depth, lam, errors", [
    ("pycontree", "iris", 2, None, known_errors("iris", 2)),   # ConTree is exact on continuous features
    pytest.param("gosdt", "monk2-onehot", 5, 0.01, known("regularized", "monk2-onehot", 5, 0.01).errors,
                 marks=pytest.mark.slow),   # GOSDT's optimum: 28 errors, 12 leaves
])
def test_optional_peers_when_installed(peer, dataset, depth, lam, errors):
    pytest.importorskip(peer)
    row = run_task(Task(peer, dataset, max_depth=depth, lam=lam, time_limit=120))
    assert row["status"] == "PEER", row.get("error")
    assert row["errors"] == errors


@pytest.mark.slow
def test_dask_cluster_runs_the_tasks_when_installed():
    """The README's scale-out example on a local Dask cluster (skipped without the `cluster` extra):
    every task runs on a cluster worker and gives the same answer as a serial run."""
    distributed = pytest.importorskip("distributed")
    tasks = [Task("sat-depth", name) for name in ("iris", "monk1", "mouse")]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        with distributed.get_task_stream(client) as stream, joblib.parallel_config(backend="dask"):
            rows = run_benchmark(tasks, n_jobs=-1)
    assert len(stream.data) == len(tasks)
    assert [r["objective"] for r in rows] == [r["objective"] for r in run_benchmark(tasks, n_jobs=1)] \
        == [known("min_depth", t.dataset).value for t in tasks]


@pytest.mark.slow
def test_peak_memory_is_per_task():
    """A task's peak_rss_mb is its own peak, not the largest of earlier tasks in the process."""
    import numpy as np
    from satdt.bench import _peak_rss_mb

    big = np.ones(80_000_000)          # about 610 MB, freed before the task
    big[::4096] = 2.0
    before = _peak_rss_mb()
    del big
    row = run_task(Task("cart-gini", "iris", max_depth=2))
    if row["peak_rss_scope"] == "task":
        assert row["peak_rss_mb"] < before - 400
    else:  # no reset on this system: the process's peak, and said so
        assert row["peak_rss_mb"] >= before
