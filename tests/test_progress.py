"""Progress events: every engine reports start .. done through satdt.progress, in the units of
its SolveResult, and the CLI prints them on stderr without touching --json stdout."""

from __future__ import annotations

import io
import json
import threading
import time
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest

from satdt import load_dataset
from satdt.binarize import Binarizer
from satdt.deadline import Deadline
from satdt.progress import EVENT_KINDS, ProgressEvent, ProgressReporter, stderr_printer


def _problem(name: str = "iris"):
    return Binarizer("all").problem(load_dataset(name))


def _check_events(events: list[ProgressEvent], result, engine: str, minimise: bool = True) -> None:
    """The contract of every engine's event stream (see satdt.progress)."""
    assert events, "no progress event"
    kinds = [e.kind for e in events]
    assert kinds[0] == "start" and kinds[-1] == "done", kinds
    assert kinds.count("start") == 1 and kinds.count("done") == 1
    assert set(kinds) <= set(EVENT_KINDS)
    assert all(e.engine == engine for e in events)
    elapsed = [e.elapsed for e in events]
    assert all(b >= a for a, b in zip(elapsed, elapsed[1:])), elapsed
    incumbents = [e.incumbent for e in events if e.incumbent is not None]
    if minimise:
        assert all(b <= a + 1e-12 for a, b in zip(incumbents, incumbents[1:])), incumbents
    done = events[-1]
    assert done.incumbent == pytest.approx(result.objective)
    for e in events:
        if e.incumbent is not None and e.bound is not None:
            assert e.bound <= e.incumbent + 1e-9, (e.kind, e.bound, e.incumbent)
    if result.bound is not None:
        assert done.bound == pytest.approx(result.bound)


# ------------------------------------------------------------------ the reporter itself
def test_reporter_ticks_are_throttled_and_events_carry_state():
    seen: list[ProgressEvent] = []
    rep = ProgressReporter("x", seen.append, interval=0.2)
    rep.emit("start", bound=1)
    for _ in range(1000):
        rep.tick(nodes=5)          # within the interval: dropped
    assert [e.kind for e in seen] == ["start"]
    time.sleep(0.25)
    rep.tick(nodes=7)
    rep.emit("incumbent", incumbent=4)
    assert [e.kind for e in seen] == ["start", "tick", "incumbent"]
    assert seen[1].nodes == 7 and seen[1].bound == 1 and seen[2].incumbent == 4 and seen[2].bound == 1
    assert seen[2].gap == pytest.approx(0.75)
    with pytest.raises(ValueError, match="unknown progress event kind"):
        rep.emit("finished")


def test_reporter_periodic_thread_ticks_and_stops():
    seen: list[ProgressEvent] = []
    rep = ProgressReporter("x", seen.append, interval=0.1)
    with rep.periodic(lambda: {"nodes": 3}):
        time.sleep(0.45)
    n = len(seen)
    assert 2 <= n <= 5 and all(e.kind == "tick" and e.nodes == 3 for e in seen)
    time.sleep(0.25)
    assert len(seen) == n  # the thread stopped with the block
    silent = ProgressReporter("x", None)
    with silent.periodic(lambda: {}):   # no callback: no thread
        assert not any(t.name.startswith("satdt-progress") for t in threading.enumerate())


def test_stderr_printer_one_line_per_event():
    buf = io.StringIO()
    ProgressReporter("dp", stderr_printer(buf)).emit("incumbent", incumbent=3, bound=1, nodes=10)
    line = buf.getvalue()
    assert line.count("\n") == 1 and "incumbent 3" in line and "bound 1" in line and "gap 66.67%" in line


# ------------------------------------------------------------------ engines
def test_maxsat_events():
    from satdt.solvers.maxsat import solve_max_accuracy

    events: list[ProgressEvent] = []
    res = solve_max_accuracy(_problem(), max_depth=2, progress=events.append)
    assert res.status == "OPTIMAL"
    _check_events(events, res, "maxsat")
    assert any(e.kind == "incumbent" for e in events)


@pytest.mark.parametrize("formulation", ["binoct", "oct"])
def test_mip_events(formulation):
    from satdt.solvers import mip

    events: list[ProgressEvent] = []
    solve = mip.solve_binoct if formulation == "binoct" else mip.solve_oct
    res = solve(_problem(), max_depth=2, time_limit=60, progress=events.append)
    assert res.status == "OPTIMAL"
    _check_events(events, res, "mip")
    from satdt.solvers.maxsat import solve_max_accuracy

    assert res.objective == solve_max_accuracy(_problem(), max_depth=2).objective  # another engine


def test_mip_reports_engine_incumbents_and_ticks():
    """A search long enough for the CP-SAT backend's own solutions and a periodic tick."""
    from satdt.solvers import mip

    events: list[ProgressEvent] = []
    res = mip.solve_binoct(_problem(), max_depth=3, time_limit=5, warm_start=False, progress=events.append)
    _check_events(events, res, "mip")
    engine_incumbents = [e for e in events if e.kind == "incumbent" and e.message != "warm start"]
    assert engine_incumbents, [e.kind for e in events]
    # while the engine runs, a tick fills every quiet stretch: no gap much above the 2 s interval
    during = [e.elapsed for e in events if e.elapsed >= engine_incumbents[0].elapsed]
    assert max(b - a for a, b in zip(during, during[1:])) <= 2.0 + 1.0


def test_cpsat_events():
    from satdt.solvers.cpsat import solve_regularized

    events: list[ProgressEvent] = []
    res = solve_regularized(_problem(), lam=0.01, max_depth=2, time_limit=60, progress=events.append)
    assert res.status == "OPTIMAL"
    _check_events(events, res, "cpsat")


def test_dpdt_events():
    from satdt.heuristics.dpdt import solve_dpdt

    events: list[ProgressEvent] = []
    out = solve_dpdt(load_dataset("iris"), max_depth=3, alphas=np.linspace(0, 0.1, 11), alpha=0.01,
                     progress=events.append)
    _check_events(events, out.result, "dpdt", minimise=False)
    assert events[-1].nodes == out.stats["n_states"]


def test_no_callback_no_events_and_same_result():
    from satdt.solvers.maxsat import solve_max_accuracy

    p = _problem()
    events: list[ProgressEvent] = []
    a = solve_max_accuracy(p, max_depth=2)
    b = solve_max_accuracy(p, max_depth=2, progress=events.append)
    assert a.objective == b.objective and a.status == b.status and events


@pytest.mark.parametrize("method,kwargs", [("maxsat", {"max_depth": 2}), ("binoct", {"max_depth": 2}),
                                           ("cpsat", {"max_depth": 2, "lam": 0.01}),
                                           ("dpdt", {"max_depth": 2})])
def test_estimators_pass_progress(method, kwargs):
    from satdt.estimators import make_estimator

    data = load_dataset("iris")
    events: list[ProgressEvent] = []
    model = make_estimator(method, progress=events.append, **kwargs)
    assert model.get_params()["progress"] is not None
    model.fit(data.X, data.labels)
    assert events[0].kind == "start" and events[-1].kind == "done"
    assert events[-1].incumbent == pytest.approx(model.result_.objective)


def test_estimator_rejects_a_non_callable_progress():
    from satdt.estimators import MaxSATTreeClassifier

    data = load_dataset("iris")
    with pytest.raises(ValueError, match="progress must be a callable"):
        MaxSATTreeClassifier(progress="yes").fit(data.X, data.labels)


# ------------------------------------------------------------------ CLI
def _run_cli(args: list[str]) -> tuple[int, str, str]:
    from satdt.cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


def test_cli_progress_on_stderr_json_unchanged():
    code, out, err = _run_cli(["solve", "iris", "--method", "maxsat", "--max-depth", "2", "--json", "--progress"])
    assert code == 0
    summary = json.loads(out)                  # stdout is exactly one JSON object
    assert summary["status"] == "OPTIMAL"
    lines = [l for l in err.splitlines() if l.startswith("[maxsat")]
    assert len(lines) >= 2 and "start" in lines[0] and "done" in lines[-1]


def test_cli_quiet_prints_no_progress():
    code, out, err = _run_cli(["solve", "iris", "--method", "maxsat", "--max-depth", "2", "--json", "--quiet"])
    assert code == 0 and json.loads(out)["status"] == "OPTIMAL"
    assert "[maxsat" not in err


def test_cli_progress_and_quiet_exclude_each_other():
    code, _, err = _run_cli(["solve", "iris", "--method", "maxsat", "--progress", "--quiet"])
    assert code == 2 and "not allowed with" in err


def test_cli_not_a_terminal_prints_no_progress_by_default():
    code, out, err = _run_cli(["solve", "iris", "--method", "cpsat", "--max-depth", "2", "--lam", "0.01", "--json"])
    assert code == 0 and json.loads(out)["status"] == "OPTIMAL"
    assert "[cpsat" not in err                 # stderr is a StringIO here, not a terminal


def test_deadline_watch_calls_once_and_never_after_the_block():
    hits: list[float] = []
    d = Deadline(0.05)
    with d.watch(lambda: hits.append(time.perf_counter())):
        time.sleep(0.2)
    assert len(hits) == 1
    d2 = Deadline(0.3)
    with d2.watch(lambda: hits.append(0.0)):
        pass
    time.sleep(0.4)
    assert len(hits) == 1                      # disarmed when the block was left
    with Deadline(None).watch(lambda: hits.append(0.0)):
        time.sleep(0.01)
    assert len(hits) == 1
