"""Witness rows for DT_depth / DT_size and the DRUP proof of their UNSAT over the reference encoding.

:func:`find_witness` grows a row set by incremental example addition (Avellaneda [6]) on the
reference encoding until "depth <= D (and <= m splits)" is UNSAT on it, then shrinks it by
deletion (as MUS extraction does, with the solver's core to drop several rows at once) to a
*minimal* witness: removing any one of its rows makes the question satisfiable.
:func:`drup_proof` solves the witness once more, non-incrementally, with proof logging.
References are numbered as in ``satdt/REFERENCES.md``.
"""

from __future__ import annotations

import numpy as np
from pysat.solvers import Solver

from .reference_encoding import BOT, encode

__all__ = ["find_witness", "drup_proof", "core_clauses", "PROOF_SOLVER"]

PROOF_SOLVER = "g4"  # Glucose 4: plain DRUP (no RAT steps), the format the verified checker reads


def _decode(model: list[int], var: dict, depth: int, X: np.ndarray) -> tuple[list, np.ndarray]:
    """The tree of a model: its tests (heap order) and a leaf index per row of X."""
    true = np.zeros(len(model) + 1, dtype=bool)
    true[[v for v in model if v > 0]] = True
    tests = var["tests"]
    chosen = [tests[int(np.flatnonzero(true[var["s"][j]])[0])] for j in range(2 ** depth - 1)]
    node = np.zeros(X.shape[0], dtype=np.int64)
    for _ in range(depth):
        f = np.array([chosen[j][0] for j in node])
        t = np.array([chosen[j][1] for j in node])
        right = (f != BOT) & (X[np.arange(X.shape[0]), np.maximum(f, 0)] > t)
        node = 2 * node + 1 + right
    leaf = node - (2 ** depth - 1)
    classes = np.array([int(np.flatnonzero(true[var["c"][lf]])[0]) if true[var["c"][lf]].any() else 0
                        for lf in range(2 ** depth)])
    return chosen, classes[leaf]


def find_witness(X: np.ndarray, y: np.ndarray, n_classes: int, depth: int, max_splits: int | None = None,
                 seed: int = 0, per_round: int = 5, solver: str = "cadical195") -> list[int]:
    """A minimal set of row indices on which no tree of depth <= ``depth`` (with <= ``max_splits``
    splits) classifies every row. Raises ValueError when all the rows admit such a tree."""
    X, y = np.asarray(X, float), np.asarray(y, np.int64)
    rng = np.random.default_rng(seed)
    W = sorted(int(np.flatnonzero(y == c)[0]) for c in np.unique(y))
    while True:
        n_vars, clauses, _, var = encode(X[W], y[W], n_classes, depth, max_splits)
        with Solver(name=solver, bootstrap_with=clauses) as s:
            if not s.solve():
                break
            _, pred = _decode(s.get_model(), var, depth, X)
        wrong = np.flatnonzero(pred != y)
        if wrong.size == 0:
            raise ValueError(f"the rows admit a tree of depth <= {depth}"
                             + ("" if max_splits is None else f" with <= {max_splits} splits"))
        W = sorted(set(W) | set(rng.choice(wrong, size=min(per_round, wrong.size), replace=False).tolist()))
    # deletion-based shrinking with one selector per row (the tests of W serve every subset of W)
    n_vars, clauses, rows, _ = encode(X[W], y[W], n_classes, depth, max_splits)
    sel = [n_vars + 1 + i for i in range(len(W))]
    with Solver(name=solver, bootstrap_with=[c + [-sel[r]] if r >= 0 else c for c, r in zip(clauses, rows)]) as s:
        active = list(range(len(W)))
        if s.solve(assumptions=[sel[i] for i in active]):
            raise AssertionError("the witness rows became satisfiable")
        core = set(s.get_core() or [])
        active = [i for i in active if sel[i] in core]
        kept = 0  # active[:kept] are each necessary
        while kept < len(active):
            trial = active[:kept] + active[kept + 1:]
            if s.solve(assumptions=[sel[i] for i in trial]):
                kept += 1
            else:
                core = set(s.get_core() or [])
                active = [i for i in trial if sel[i] in core or active.index(i) < kept]
    return sorted(W[i] for i in active)


def core_clauses(n_vars: int, clauses: list[list[int]], rounds: int = 3) -> list[list[int]]:
    """An unsatisfiable subset of ``clauses`` (the solver's core, shrunk a few times): a proof of
    its UNSAT is one of the whole formula, and the verified checker runs faster on fewer clauses."""
    for _ in range(rounds):
        sel = [n_vars + 1 + i for i in range(len(clauses))]
        with Solver(name="cadical195", bootstrap_with=[c + [-v] for c, v in zip(clauses, sel)]) as s:
            if s.solve(assumptions=sel):
                raise ValueError("the witness rows are satisfiable: no proof")
            core = set(s.get_core() or [])
        if len(core) == len(clauses):
            break
        clauses = [c for c, v in zip(clauses, sel) if v in core]
    return clauses


def drup_proof(X: np.ndarray, y: np.ndarray, n_classes: int, depth: int, max_splits: int | None = None
               ) -> tuple[str, str]:
    """The DIMACS text of an unsatisfiable subset of the reference encoding of ``(X, y)`` and a
    DRUP proof of its UNSAT."""
    n_vars, clauses, _, _ = encode(X, y, n_classes, depth, max_splits)
    clauses = core_clauses(n_vars, clauses)
    with Solver(name=PROOF_SOLVER, bootstrap_with=clauses, with_proof=True) as s:
        if s.solve():
            raise ValueError("the witness rows are satisfiable: no proof")
        proof = s.get_proof()
    cnf = "\n".join([f"p cnf {n_vars} {len(clauses)}"] + [" ".join(map(str, c + [0])) for c in clauses]) + "\n"
    return cnf, "\n".join(proof) + "\n"
