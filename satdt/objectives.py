"""Objective functions shared by every engine, exact and scaled.

* The regularized objective of OSDT/GOSDT [4, 5], ``errors / n + lam * leaves``, as an exact
  fraction (:func:`exact_objective`).
* Its integer form for exact engines (:func:`scaled_objective`, :class:`ScaledObjective`): the
  float ``lam`` is read as the exact rational ``Fraction(lam)`` and replaced by the simplest
  ``p / q`` that orders every pair (errors, leaves) of trees of depth ``<= D`` exactly as ``lam``
  does, ties included (:func:`engine_lambda`, by a Farey-sequence neighbour search,
  :func:`farey_neighbours`); engines minimize ``q * errors + p * n * leaves``.

This module imports nothing but the standard library, so the numpy DP and the CLI can use it
without loading OR-tools.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

__all__ = ["farey_neighbours", "engine_lambda", "ScaledObjective", "exact_objective", "scaled_objective"]


def farey_neighbours(x: Fraction, order: int) -> tuple[Fraction, Fraction]:
    """The two consecutive fractions of the Farey sequence of ``order`` around ``x`` in (0, 1).

    ``x`` must have a denominator larger than ``order``. Stern-Brocot descent with whole runs
    of one direction taken at once (continued-fraction steps), so it takes O(log) iterations.
    """
    if not (0 < x < 1) or x.denominator <= order:
        raise ValueError("x must lie in (0, 1) with a denominator above the order")
    a, b, c, d = 0, 1, 1, 1  # lo = a/b < x < hi = c/d, neighbours in Stern-Brocot
    while b + d <= order:
        if x * (b + d) < a + c:          # x left of the mediant: hi moves towards lo
            k = math.ceil((c - x * d) / (x * b - a)) - 1
            k = min(k, (order - d) // b)
            c, d = c + k * a, d + k * b
        else:                            # x right of the mediant (never equal: denominators)
            k = math.ceil((x * b - a) / (c - x * d)) - 1
            k = min(k, (order - b) // d)
            a, b = a + k * c, b + k * d
    return Fraction(a, b), Fraction(c, d)


def engine_lambda(lam: float | Fraction, n: int, max_leaves: int) -> Fraction:
    """A rational with a small denominator that orders every pair (errors, leaves) as ``lam``.

    Trees compare by the sign of ``lam - r`` for fractions ``r`` of denominator at most
    ``N = n * (max_leaves - 1)``; the returned value has the same sign against every such
    ``r`` (zero included).
    """
    lam = Fraction(lam)
    if lam < 0:
        raise ValueError(f"lam must be >= 0, got {float(lam)}")
    order = max(1, n * (max_leaves - 1))
    if lam > 1:
        return Fraction(2)
    if lam.denominator <= order:
        return lam
    lo, hi = farey_neighbours(lam, order)
    return Fraction(lo.numerator + hi.numerator, lo.denominator + hi.denominator)


@dataclass(frozen=True)
class ScaledObjective:
    """The integer objective ``q * errors + p * n * leaves`` used by the engine for ``lam``."""

    lam: Fraction        # the exact lambda asked for
    p: int
    q: int
    n: int

    def engine_value(self, errors: int, leaves: int) -> int:
        return self.q * int(errors) + self.p * self.n * int(leaves)

    def exact_value(self, errors: int, leaves: int) -> Fraction:
        return exact_objective(errors, leaves, self.n, self.lam)

    def lower_bound(self, engine_bound: float, max_leaves: int, min_errors: int = 0) -> Fraction:
        """Smallest exact objective of any (errors, leaves) pair whose engine value is at least
        ``engine_bound`` (a valid lower bound on the optimum of the real objective)."""
        bound = math.ceil(engine_bound - 1e-6)
        best = None
        for leaves in range(1, max_leaves + 1):
            need = bound - self.p * self.n * leaves
            e = max(min_errors, -(-need // self.q) if need > 0 else 0)
            if e > self.n:
                continue
            v = exact_objective(e, leaves, self.n, self.lam)
            best = v if best is None or v < best else best
        return best if best is not None else exact_objective(min_errors, 1, self.n, self.lam)


def exact_objective(errors: int, leaves: int, n: int, lam: float | Fraction) -> Fraction:
    """``errors / n + lam * leaves`` as an exact fraction."""
    return Fraction(int(errors), int(n)) + Fraction(lam) * int(leaves)


def scaled_objective(lam: float | Fraction, n: int, max_depth: int) -> ScaledObjective:
    """The integer objective for ``lam`` over trees of depth <= ``max_depth`` on ``n`` rows."""
    lam = Fraction(lam)
    lam_e = engine_lambda(lam, n, 2 ** max_depth)
    return ScaledObjective(lam=lam, p=lam_e.numerator, q=lam_e.denominator, n=int(n))
