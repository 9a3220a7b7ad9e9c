"""satdt.peers: the one adapter per peer solver (used by satdt.bench, benchmarks/peer_run.py and
tests/known_optima.py), against the table of known optima when the peer is installed."""

import numpy as np
import pytest

from satdt import load_dataset
from satdt.bench import Task, peers, run_task
from satdt.peers import PEERS, available, fit_peer

from known_optima import _verify_one, known, known_errors


def test_unknown_peer_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown peer 'streed'"):
        fit_peer("streed", load_dataset("iris"), max_depth=2)


def test_available_peers_are_the_importable_ones():
    import importlib.util

    assert available() == [name for name, package in PEERS.items() if importlib.util.find_spec(package)]
    assert sorted(peers()) == sorted(available())


@pytest.mark.parametrize("peer", ["pystreed", "pycontree"])
@pytest.mark.parametrize("name, depth", [("iris", 2), ("monk1", 3)])
def test_peer_reaches_the_known_optimum(peer, name, depth):
    """STreeD on satdt's `all` columns and ConTree on the raw features: the optimum, proven; the
    training predictions (from the peer's input) equal those of ``predict`` on the raw rows."""
    pytest.importorskip(PEERS[peer])
    data = load_dataset(name)
    fit = fit_peer(peer, data, max_depth=depth, time_limit=60)
    assert fit.proven is True
    assert np.array_equal(fit.training_predictions(), fit.predict(data.X))
    assert int((fit.training_predictions() != data.y).sum()) == known_errors(name, depth)
    row = run_task(Task(peer, name, max_depth=depth, time_limit=60))
    assert row["status"] == "PEER" and row["errors"] == known_errors(name, depth)


def test_streed_with_a_split_limit():
    """With ``max_splits`` STreeD gives the fewest errors with that many splits (here: iris at
    depth 2 with one split is a stump, 50 errors; lung-cancer's 7-node tree has no error)."""
    pytest.importorskip("pystreed")
    iris = load_dataset("iris")
    fit = fit_peer("pystreed", iris, max_depth=2, max_splits=1, time_limit=60)
    assert fit.proven and int((fit.training_predictions() != iris.y).sum()) == 50
    assert _verify_one(known("min_nodes", "lung-cancer", 3), 60) == "ok"
    assert _verify_one(known("regularized", "monk1", 2, 0.025), 60) == "ok"
    assert _verify_one(known("errors", "iris", 2), 60) == "ok"
