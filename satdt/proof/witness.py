"""Witness rows for DT_depth / DT_size and the DRUP proof of their UNSAT over the reference encoding.

:func:`find_witness` grows a row set by incremental example addition (Avellaneda [6]) until
"depth <= D (and <= m splits)" has no error-free tree on it, then shrinks it by deletion (as MUS
extraction does) to a *minimal* witness: removing any one of its rows makes the question
satisfiable. The questions on row subsets are answered by the DP (measured 20x faster than the
reference encoding under CaDiCaL on monk2's 34-row witness); the certificate's proof does not
rely on them.
:func:`drup_proof` solves the witness once more, non-incrementally, with proof logging.
References are numbered as in ``satdt/REFERENCES.md``.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from .reference_encoding import encode

__all__ = ["find_witness", "drup_proof", "core_clauses", "PROOF_SOLVER"]

PROOF_SOLVER = "g4"  # Glucose 4: plain DRUP (no RAT steps), the format the verified checker reads


def _fits(X: np.ndarray, y: np.ndarray, depth: int, max_splits: int | None):
    """A tree of depth <= ``depth`` (<= ``max_splits`` splits) with no error on (X, y), or None
    (answered by the DP: the producer may use any engine, the checker re-proves the question)."""
    from ..binarize import Binarizer
    from ..data import Dataset, FeatureSchema
    from ..result import OPTIMAL
    from ..solvers.dp import solve_max_accuracy_dp, solve_regularized_dp
    from ..tree import Node, Tree

    if np.unique(y).size == 1:
        return Tree(Node.leaf(0), classes=np.unique(y))
    if depth == 0:
        return None
    classes, code = np.unique(y, return_inverse=True)  # (no pandas: a Dataset of numeric columns)
    data = Dataset(X=np.asarray(X, float), y=code.reshape(-1).astype(np.int64), classes=classes,
                   schema=FeatureSchema(names=[f"x{j}" for j in range(X.shape[1])]))
    problem = Binarizer("all").problem(data)
    if max_splits is None:
        # a yes / no question: is there a tree with 0 errors? (a FEASIBLE answer with bound 1 says no)
        res = solve_max_accuracy_dp(problem, max_depth=depth, upper_bound=0, optimize_above_bound=False)
        ok = res.objective == 0
        if not ok and res.bound is not None and res.bound >= 1:
            return None
    else:  # errors * (m + 2) + leaves (lam = 1 / (n (m + 2)), exact): <= m + 1 iff an error-free tree
        # with <= m splits exists (measured 100x faster than the box DP of DT_size on these subsets)
        res = solve_regularized_dp(problem, lam=Fraction(1, y.size * (max_splits + 2)), max_depth=depth)
        ok = res.status == OPTIMAL and not (res.tree.predict(X) != y).any() and res.tree.n_splits <= max_splits
    if res.status != OPTIMAL and res.status != "INFEASIBLE":
        raise RuntimeError(f"witness search: the DP answered {res.status}")
    return res.tree if ok else None


def find_witness(X: np.ndarray, y: np.ndarray, n_classes: int, depth: int, max_splits: int | None = None,
                 seed: int = 0, per_round: int = 5) -> list[int]:
    """A minimal set of row indices on which no tree of depth <= ``depth`` (with <= ``max_splits``
    splits) classifies every row. Raises ValueError when all the rows admit such a tree."""
    X, y = np.asarray(X, float), np.asarray(y, np.int64)
    rng = np.random.default_rng(seed)
    W = sorted(int(np.flatnonzero(y == c)[0]) for c in np.unique(y))
    while True:
        tree = _fits(X[W], y[W], depth, max_splits)
        if tree is None:
            break
        wrong = np.flatnonzero(tree.predict(X) != y)
        if wrong.size == 0:
            raise ValueError(f"the rows admit a tree of depth <= {depth}"
                             + ("" if max_splits is None else f" with <= {max_splits} splits"))
        W = sorted(set(W) | set(rng.choice(wrong, size=min(per_round, wrong.size), replace=False).tolist()))
    kept = 0  # deletion: W[:kept] are each necessary (removing one makes the question satisfiable)
    while kept < len(W):
        trial = W[:kept] + W[kept + 1:]
        if _fits(X[trial], y[trial], depth, max_splits) is None:
            W = trial
        else:
            kept += 1
    return W


def core_clauses(n_vars: int, clauses: list[list[int]], rounds: int = 3) -> list[list[int]]:
    """An unsatisfiable subset of ``clauses`` (the solver's core, shrunk a few times): a proof of
    its UNSAT is one of the whole formula, and the verified checker runs faster on fewer clauses."""
    from pysat.solvers import Solver

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
    from pysat.solvers import Solver

    n_vars, clauses, _, _ = encode(X, y, n_classes, depth, max_splits)
    clauses = core_clauses(n_vars, clauses)
    with Solver(name=PROOF_SOLVER, bootstrap_with=clauses, with_proof=True) as s:
        if s.solve():
            raise ValueError("the witness rows are satisfiable: no proof")
        proof = s.get_proof()
    cnf = "\n".join([f"p cnf {n_vars} {len(clauses)}"] + [" ".join(map(str, c + [0])) for c in clauses]) + "\n"
    return cnf, "\n".join(proof) + "\n"
