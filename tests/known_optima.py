"""KNOWN_OPTIMA: the optimal values the tests and benchmarks compare with, each with its source.

One row per (objective, dataset, depth, lambda). Every optimum is over satdt's ``all``
binarization (every midpoint between consecutive distinct values; one test per category), i.e.
over all axis-aligned trees, of the dataset named (a bundled dataset, :func:`satdt.load_dataset`,
or for the ``quantbnb/`` sets a training file in ``$SATDT_DATA``, see :func:`dataset_file`; the
test suite reads only the bundled sets).

Objectives
    ``errors``       fewest training errors of a tree of depth <= ``depth`` (``value``: errors)
    ``regularized``  ``errors / n + lam * leaves`` over trees of depth <= ``depth`` (``value``:
                     the objective; ``errors`` and ``leaves`` of the optimal tree)
    ``min_depth``    DT_depth: smallest depth of a tree with no training error (``value``)
    ``min_nodes``    DT_size: fewest nodes (splits + leaves) of a tree with no training error and
                     depth <= ``depth`` (the minimum depth) (``value``)

Sources (``source``)
    ``issue 3 table``        the optima listed in issue 3 (how they were obtained is not stated there)
    ``GOSDT 1.0.4``          the ``gosdt`` package, ``depth_budget=5, allow_small_reg=True``, issue 4
    ``InferDT``              Avellaneda's C++ tool [6] on MiniSat, measured in issue 2
    ``issue 2 (stated)``     stated in issue 2 without a named tool
    ``brute force``          :mod:`satdt.bruteforce` (explicit enumeration; itself checked against
                             a plain enumeration of every tree in ``tests/test_bruteforce.py``)
    ``regression (satdt)``   first found and proven by satdt's own engines; no independent source.
                             A change here is a change of satdt's answer, not a confirmed fix.

Independent confirmation (``verified``): the peer and version that reproduced the value on this
machine, with the commands of :func:`verify`::

    .venv/bin/python tests/known_optima.py --verify                 # every row with a peer check
    .venv/bin/python tests/known_optima.py --verify --only errors   # one objective
    .venv/bin/python tests/known_optima.py --verify --unverified    # try the unconfirmed rows

Each peer runs through its adapter, :func:`satdt.peers.fit_peer`.

* ``errors``: STreeD [10] (``pystreed``, ``STreeDClassifier(optimization_task="accuracy",
  max_depth=d, cost_complexity=0)``) on the ``all``-binarized 0/1 matrix; for the all-numeric
  ``quantbnb`` sets ConTree [3] (``pycontree``, ``ConTree(max_depth=d)``) on the raw features.
* ``regularized``: STreeD's fewest errors with at most ``s`` splits (``max_num_nodes=s``), for every
  ``s`` with ``lam * (s + 1)`` below the value; the optimum is ``min_s errors(s) / n + lam (s + 1)``.
* ``min_depth`` (k): STreeD's fewest errors are 0 at depth k and > 0 at depth k - 1.
* ``min_nodes`` (N at depth K): STreeD with ``max_depth=K``: 0 errors with ``max_num_nodes``
  = (N - 1) / 2 splits, > 0 errors with one split fewer.

With a node limit STreeD runs without its depth-two terminal solver (``use_terminal_solver=False``):
pystreed 1.4.0's terminal solver misses trees deeper than two with at most three splits (on
lung-cancer it reports 1 error for 3 splits at depth 3, where satdt's 7-node tree has none).
A peer run that does not prove its answer within the time limit counts as no confirmation.

References in brackets are numbered as in ``satdt/REFERENCES.md``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

STREED = "pystreed 1.4.0 (STreeD)"
CONTREE = "pycontree 1.0.8 (ConTree)"


@dataclass(frozen=True)
class Optimum:
    objective: str                  # "errors", "regularized", "min_depth", "min_nodes"
    dataset: str
    depth: int | None               # depth limit (None for min_depth)
    value: float                    # errors, objective, depth or nodes
    source: str
    verified: str | None = None     # the peer (and version) that reproduced the value
    lam: float | None = None
    errors: int | None = None       # regularized: the optimal tree's errors and leaves
    leaves: int | None = None

    @property
    def exact(self) -> Fraction:
        """The regularized optimum as an exact fraction (``errors / n + lam * leaves``)."""
        from satdt import load_dataset
        n = load_dataset(self.dataset).n_rows
        return Fraction(self.errors, n) + Fraction(self.lam) * self.leaves


def _errors(dataset, d2, d3, source="issue 3 table", verified=(None, None)):
    return [Optimum("errors", dataset, 2, d2, source, verified[0]),
            Optimum("errors", dataset, 3, d3, source, verified[1])]


_S2 = (STREED, STREED)
_C2 = (CONTREE, CONTREE)

KNOWN_OPTIMA: list[Optimum] = [
    # ---- fewest training errors at depth 2 / 3 (bundled datasets)
    *_errors("iris", 6, 1, verified=_S2),
    *_errors("monk1", 22, 11, verified=_S2),
    *_errors("monk2", 57, 42, verified=_S2),
    *_errors("monk3", 8, 6, verified=_S2),
    *_errors("wine", 6, 0, verified=_S2),
    *_errors("tic-tac-toe", 282, 216, verified=_S2),
    *_errors("compas", 2296, 2171, verified=_S2),
    Optimum("errors", "mouse", 2, 2, "regression (satdt)", STREED),
    # ---- the Quant-BnB [18] training sets (shared datasets directory; benchmarks only)
    *_errors("bank", 82, 19, verified=_C2),
    *_errors("bidding", 95, 37, verified=_C2),
    *_errors("fault", 647, 494, verified=_C2),
    *_errors("htru", 300, 275, verified=_C2),
    *_errors("magic", 2971, 2567, verified=_C2),
    *_errors("occupancy", 86, 47, verified=_C2),
    *_errors("page", 200, 125, verified=_C2),
    *_errors("raisin", 91, 76, verified=_C2),
    *_errors("rice", 203, 189, verified=_C2),
    *_errors("room", 441, 62, verified=_C2),
    *_errors("segment", 786, 208, verified=_C2),
    *_errors("wilt", 37, 18, verified=_C2),
    # ---- errors / n + lam * leaves at depth <= 5 (GOSDT [5]; the one-hot monks of GOSDT's repo)
    Optimum("regularized", "monk1-onehot", 5, 0.07, "GOSDT 1.0.4", STREED, lam=0.01, errors=0, leaves=7),
    Optimum("regularized", "monk1-onehot", 5, 0.035, "GOSDT 1.0.4", STREED, lam=0.005, errors=0, leaves=7),
    Optimum("regularized", "monk2-onehot", 5, 0.28568, "GOSDT 1.0.4", STREED, lam=0.01, errors=28, leaves=12),
    Optimum("regularized", "monk2-onehot", 5, 0.20926, "GOSDT 1.0.4", STREED, lam=0.005, errors=21, leaves=17),
    Optimum("regularized", "tic-tac-toe", 5, 0.25119, "GOSDT 1.0.4", None, lam=0.01, errors=164, leaves=8),
    Optimum("regularized", "tic-tac-toe", 5, 0.17098, "GOSDT 1.0.4", None, lam=0.005, errors=68, leaves=20),
    Optimum("regularized", "monk1", 2, 0.277419354839, "brute force", STREED, lam=0.025, errors=22, leaves=4),
    # ---- DT_depth / DT_size on consistent data (Avellaneda [6])
    *[Optimum("min_depth", name, None, k, "InferDT", STREED) for name, k in
      (("iris", 4), ("monk1", 5), ("monk2", 6), ("monk3", 6), ("wine", 3), ("mouse", 4), ("zoo", 4),
       ("lung-cancer", 3), ("car", 8))],
    Optimum("min_depth", "balance-scale", None, 10, "issue 2 (stated)"),
    Optimum("min_depth", "bmi", None, 7, "issue 2 (stated)"),
    *[Optimum("min_nodes", name, k, nodes, "InferDT", v) for name, k, nodes, v in
      (("iris", 4, 15, None), ("monk1", 5, 15, STREED), ("monk2", 6, 67, None), ("monk3", 6, 39, None),
       ("wine", 3, 15, None), ("mouse", 4, 15, STREED), ("zoo", 4, 21, None), ("lung-cancer", 3, 7, STREED))],
    Optimum("min_nodes", "car", 8, 143, "regression (satdt)"),
    Optimum("min_nodes", "balance-scale", 10, 309, "regression (satdt)"),
    Optimum("min_nodes", "bmi", 7, 115, "regression (satdt)"),
]

_INDEX = {(o.objective, o.dataset, o.depth, o.lam): o for o in KNOWN_OPTIMA}
assert len(_INDEX) == len(KNOWN_OPTIMA), "one row per (objective, dataset, depth, lam)"


def known(objective: str, dataset: str, depth: int | None = None, lam: float | None = None) -> Optimum:
    """The row of one optimum (KeyError if absent)."""
    return _INDEX[(objective, dataset, depth, lam)]


def known_errors(dataset: str, depth: int) -> int:
    return int(known("errors", dataset, depth).value)


def known_or_none(objective: str, dataset: str, depth: int | None = None, lam: float | None = None):
    row = _INDEX.get((objective, dataset, depth, lam))
    return None if row is None else row.value


def rows(objective: str, datasets=None, depths=None) -> list[Optimum]:
    """The rows of one objective (optionally of some datasets / depths), in table order."""
    return [o for o in KNOWN_OPTIMA if o.objective == objective
            and (datasets is None or o.dataset in datasets) and (depths is None or o.depth in depths)]


def min_depth_and_nodes(dataset: str) -> tuple[int, int]:
    """DT_depth k and DT_size at depth k of one dataset."""
    k = int(known("min_depth", dataset).value)
    return k, int(known("min_nodes", dataset, k).value)


# ------------------------------------------------------------------------------ for benchmarks/
def errors_by_depth() -> dict[str, tuple[int | None, int | None]]:
    """``{dataset: (fewest errors at depth 2, at depth 3)}`` for the datasets with both rows."""
    out: dict[str, list] = {}
    for o in rows("errors", depths=(2, 3)):
        out.setdefault(o.dataset, [None, None])[o.depth - 2] = int(o.value)
    return {name: tuple(v) for name, v in out.items() if None not in v}


#: GOSDT 1.0.4's run time on each regularized row (issue 4; a measurement, not an optimum)
GOSDT_SECONDS = {("monk1-onehot", 0.01): 2.5, ("monk1-onehot", 0.005): 3.5, ("monk2-onehot", 0.01): 5.0,
                 ("monk2-onehot", 0.005): 10.3, ("tic-tac-toe", 0.01): 7.3, ("tic-tac-toe", 0.005): 10.6}


def gosdt_rows(rename: dict[str, str] | None = None) -> dict[tuple[str, float], tuple[float, int, int, float]]:
    """``{(dataset, lam): (objective, leaves, errors, GOSDT seconds)}`` of the GOSDT rows (depth 5),
    datasets renamed by ``rename`` (the benchmarks call the one-hot monks ``monk1``, ``monk2``)."""
    rename = rename or {}
    return {(rename.get(o.dataset, o.dataset), o.lam): (o.value, o.leaves, o.errors, GOSDT_SECONDS[(o.dataset, o.lam)])
            for o in rows("regularized", depths=(5,)) if o.source == "GOSDT 1.0.4"}


# ------------------------------------------------------------------------------ verification
QUANTBNB = {"bank", "bidding", "fault", "htru", "magic", "occupancy", "page", "raisin", "rice", "room",
            "segment", "wilt"}


def dataset_file(name: str, data_dir: Path | None = None) -> Path | None:
    """The training file of a ``quantbnb`` set under ``data_dir`` (default: ``$SATDT_DATA``), for
    the peer re-verification of this script only (the test suite reads none: those sets are not
    in the repository); None for a bundled dataset. ValueError when no directory is given."""
    if name not in QUANTBNB:
        return None
    base = data_dir or os.environ.get("SATDT_DATA")
    if not base:
        raise ValueError(f"{name} is a Quant-BnB set, not in the repository: set SATDT_DATA to the directory "
                         "that holds quantbnb/<name>.train.csv")
    return Path(base) / "quantbnb" / f"{name}.train.csv"


def _load(name: str):
    from satdt import load_dataset
    from satdt.data import load_csv
    path = dataset_file(name)
    return load_dataset(name) if path is None else load_csv(path)


def _streed_errors(data, depth, *, splits=None, time_limit=600):
    """STreeD's fewest training errors at ``depth`` (with at most ``splits`` splits) on the
    ``all``-binarized rows, through its adapter (:mod:`satdt.peers`: with a node limit, without
    STreeD's terminal solver); TimeoutError when STreeD did not prove it."""
    from satdt.peers import fit_peer

    fit = fit_peer("pystreed", data, max_depth=depth, max_splits=splits, time_limit=time_limit)
    if not fit.proven:  # a time-out proves nothing
        raise TimeoutError(f"STreeD did not prove depth {depth}, {splits} splits in {time_limit} s")
    return int((fit.training_predictions() != data.y).sum())


def verify(only: str | None = None, time_limit: float = 600,
           unverified: bool = False) -> list[tuple[Optimum, str]]:
    """Recompute every row with its peer (``verified``); returns (row, "ok" or what differed).
    ``unverified``: try the rows without a confirmation instead (ConTree for the ``quantbnb``
    sets, STreeD otherwise), to find new confirmations."""
    import dataclasses

    out = []
    for o in KNOWN_OPTIMA:
        if (o.verified is None) != unverified or (only and o.objective != only):
            continue
        if unverified:
            o = dataclasses.replace(o, verified=CONTREE if o.dataset in QUANTBNB else STREED)
        try:
            verdict = _verify_one(o, time_limit)
        except TimeoutError as e:
            verdict = f"not proven: {e}"
        out.append((o, verdict))
        print(f"{o.objective:11s} {o.dataset:13s} depth={o.depth} lam={o.lam} value={o.value}: {verdict}",
              flush=True)
    return out


def _verify_one(o: Optimum, time_limit: float) -> str:
    import numpy as np

    from satdt.peers import fit_peer

    data = _load(o.dataset)
    y = np.asarray(data.y)
    if o.verified == CONTREE:
        fit = fit_peer("pycontree", data, max_depth=o.depth, time_limit=time_limit)
        if not fit.proven:  # stopped by its limit: no proof
            raise TimeoutError(f"ConTree did not finish depth {o.depth} in {time_limit} s")
        got = int((fit.training_predictions() != y).sum())
        verdict = "ok" if got == o.value else f"ConTree says {got}"
    elif o.objective == "errors":
        got = _streed_errors(data, o.depth, time_limit=time_limit)
        verdict = "ok" if got == o.value else f"STreeD says {got}"
    elif o.objective == "regularized":
        # fewest errors with at most s splits, for every s that can still beat the value:
        # the optimum is min_s errors(s) / n + lam (s + 1), exactly
        best = None
        for s in range(min(int(o.value / o.lam), 2 ** o.depth - 1) + 1):
            if s == 0:  # one leaf: the majority class
                errors = len(y) - int(np.unique(y, return_counts=True)[1].max())
            else:
                errors = _streed_errors(data, o.depth, splits=s, time_limit=time_limit)
            value = Fraction(errors, len(y)) + Fraction(o.lam) * (s + 1)
            best = value if best is None else min(best, value)
        verdict = "ok" if best == o.exact else f"STreeD gives {float(best):.6f}"
    elif o.objective == "min_depth":
        k = int(o.value)
        at_k = _streed_errors(data, k, time_limit=time_limit)
        below = _streed_errors(data, k - 1, time_limit=time_limit)
        verdict = "ok" if at_k == 0 < below else f"STreeD errors {below} at {k - 1}, {at_k} at {k}"
    else:  # min_nodes
        s = (int(o.value) - 1) // 2
        at_s = _streed_errors(data, o.depth, splits=s, time_limit=time_limit)
        below = _streed_errors(data, o.depth, splits=s - 1, time_limit=time_limit)
        verdict = "ok" if at_s == 0 < below else f"STreeD errors {below} with {s - 1} splits, {at_s} with {s}"
    return verdict


if __name__ == "__main__":
    import argparse
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    ap = argparse.ArgumentParser(description="KNOWN_OPTIMA: print the table or re-verify it with the peers")
    ap.add_argument("--verify", action="store_true")
    ap.add_argument("--only", choices=["errors", "regularized", "min_depth", "min_nodes"])
    ap.add_argument("--time-limit", type=float, default=600)
    ap.add_argument("--unverified", action="store_true", help="try the rows without a confirmation")
    args = ap.parse_args()
    if args.verify:
        bad = [o for o, v in verify(args.only, args.time_limit, args.unverified) if v != "ok"]
        sys.exit(1 if bad else 0)
    for o in KNOWN_OPTIMA:
        print(f"{o.objective:11s} {o.dataset:13s} depth={o.depth} lam={o.lam} value={o.value} "
              f"source={o.source} verified={o.verified}")
