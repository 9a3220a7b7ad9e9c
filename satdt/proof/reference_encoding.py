"""The reference encoding of the consistent-tree questions: deliberately simple, not the production one.

``encode(X, y, n_classes, depth, max_splits)`` is CNF for "a binary tree of depth ``<= depth``
(with at most ``max_splits`` splits, when given) classifies every row of ``(X, y)``". It is read
by the independent checker (:mod:`satdt.proof.check`), which rebuilds it from the witness rows
of a certificate, so it imports numpy only. Why an UNSAT answer is a proof that no such tree exists:

* **Tests.** Per feature, the midpoints between consecutive distinct values *of these rows*
  (``x <= t`` goes left; one test per way of routing the rows, the first in feature order), plus the test ``BOT`` that sends every row left. A tree whose tests
  are all non-trivial on the rows reaching them routes these rows as a tree of these tests does
  (a test that splits the rows equals, on them, the midpoint test of the same gap); a trivial
  test can be removed (its non-empty side replaces it) without adding depth or splits.
* **Perfect tree of depth D** in heap order: internal nodes ``0 .. 2^D - 2``, children
  ``2j + 1`` (left) and ``2j + 2`` (right), leaves ``0 .. 2^D - 1`` after them. A smaller tree
  is embedded by ``BOT`` at and below each of its leaves (every leaf below gets its class).
* **Variables**: ``s[j, t]`` node ``j`` uses test ``t``; ``g[i, j]`` row ``i`` goes right at
  ``j``; ``c[l, k]`` leaf ``l`` has class ``k``; ``u[j]`` node ``j`` uses a test other than
  ``BOT``; ``cnt[a, b]`` at least ``b`` of ``u[0..a]`` are true.
* **Clauses**: each node uses at least one test; ``s[j, t] -> (g[i, j] <-> row i goes right
  under t)`` (two tests chosen at one node must then agree on every row); a leaf has at most one
  class; for every row and leaf, "the row follows the path to the leaf" implies the leaf has the
  row's class; with ``max_splits = m``: ``s[j, t] -> u[j]`` for ``t != BOT``, and the unary
  counter ``u -> cnt`` with ``not cnt[last, m + 1]``.

Every tree of depth ``<= D`` (and ``<= m`` splits) that classifies the rows gives a model
(its tests, its routing, its classes, ``u`` = its real splits, ``cnt`` = the true counts), so
UNSAT means no such tree.
"""

from __future__ import annotations

import numpy as np

__all__ = ["candidate_tests", "encode", "BOT"]

BOT = -1  # the test that sends every row left


def candidate_tests(X: np.ndarray) -> list[tuple[int, float]]:
    """``(feature, threshold)``: one per gap between consecutive distinct values of a feature."""
    tests, seen = [], set()
    for f in range(X.shape[1]):
        v = np.unique(X[:, f])
        for a, b in zip(v[:-1].tolist(), v[1:].tolist()):
            m = (a + b) / 2.0
            t = m if a <= m < b else a
            side = (X[:, f] > t).tobytes()
            if side not in seen:  # a test that routes the rows as an earlier one is left out
                seen.add(side)
                tests.append((f, t))
    return tests


def encode(X: np.ndarray, y: np.ndarray, n_classes: int, depth: int, max_splits: int | None = None
           ) -> tuple[int, list[list[int]], list[int], dict]:
    """CNF of "a tree of depth <= ``depth`` (and <= ``max_splits`` splits) classifies (X, y)".

    Returns ``(n_vars, clauses, row_of_clause, variables)``: ``row_of_clause[c]`` is the row a
    clause is about (-1 for the others), ``variables`` maps ``"s"``, ``"c"`` to the selection
    and class variables (for decoding a model) and ``"tests"`` to the tests.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=np.int64)
    n = X.shape[0]
    tests = candidate_tests(X) + [(BOT, 0.0)]
    inner, leaves = 2 ** depth - 1, 2 ** depth
    top = 0

    def block(*shape: int) -> np.ndarray:
        nonlocal top
        size = int(np.prod(shape))
        out = np.arange(top + 1, top + 1 + size, dtype=np.int64).reshape(shape)
        top += size
        return out

    s, g, c = block(inner, len(tests)), block(n, inner), block(leaves, n_classes)
    clauses: list[list[int]] = []
    rows: list[int] = []

    def add(clause: list[int], row: int = -1) -> None:
        clauses.append([int(v) for v in clause])
        rows.append(row)

    right = np.array([[t[0] != BOT and X[i, t[0]] > t[1] for t in tests] for i in range(n)], dtype=bool)
    for j in range(inner):
        add(list(s[j]))
    for i in range(n):
        for j in range(inner):
            for t in range(len(tests)):
                add([-s[j, t], g[i, j] if right[i, t] else -g[i, j]], i)
    for lf in range(leaves):
        path, node = [], inner + lf
        while node > 0:
            parent = (node - 1) // 2
            path.append((parent, node == 2 * parent + 2))  # (ancestor, went right)
            node = parent
        for i in range(n):
            add([-g[i, j] if went_right else g[i, j] for j, went_right in path] + [c[lf, y[i]]], i)
        for a in range(n_classes):
            for b in range(a + 1, n_classes):
                add([-c[lf, a], -c[lf, b]])
    if max_splits is not None and max_splits < inner:
        u = block(inner)
        for j in range(inner):
            for t in range(len(tests) - 1):
                add([-s[j, t], u[j]])
        m = max_splits
        cnt = block(inner, m + 1)  # cnt[a, b]: at least b + 1 of u[0..a]
        for a in range(inner):
            add([-u[a], cnt[a, 0]])
            for b in range(m + 1):
                if a > 0:
                    add([-cnt[a - 1, b], cnt[a, b]])
                    if b > 0:
                        add([-u[a], -cnt[a - 1, b - 1], cnt[a, b]])
        add([-cnt[inner - 1, m]])
    return top, clauses, rows, {"s": s, "c": c, "tests": tests}
