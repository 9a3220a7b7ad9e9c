"""Certificates shared by the proof tests (a module, not a test file: imported by them)."""

from __future__ import annotations

from pathlib import Path

from satdt.binarize import Binarizer
from satdt.data import load_dataset
from satdt.proof import write_certificate
from satdt.solvers.dp import solve_max_accuracy_dp


def write_iris_over_listed_thresholds(path: Path) -> None:
    """iris's depth-3 optimum over 3 quantile thresholds a feature (12 tests), its certificate written to
    ``path`` over those listed thresholds."""
    data = load_dataset("iris")
    problem = Binarizer("quantile", n_thresholds=3).problem(data)
    res = solve_max_accuracy_dp(problem, max_depth=3)
    listed: dict[int, list[float]] = {}
    for t in problem.tests:
        listed.setdefault(t.feature, []).append(t.threshold)
    write_certificate(path, res.tree, data, "accuracy", max_depth=3, thresholds=listed)
