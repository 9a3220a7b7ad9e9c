"""The method registry: one :class:`MethodSpec` per method name of ``satdt solve --method``.

Each spec says what the method optimizes, which options apply to it and their defaults, and the
depth bounds it accepts. The command line reads it to refuse an option that does not apply to the
chosen method (a usage error naming the methods it applies to) before any heavy import; the
estimators keep their own parameter checks (``satdt.estimators.make_estimator``), and
``tests/test_methods.py`` checks the two agree.

Standard library only: ``import satdt.methods`` loads no engine, no numpy.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["MethodSpec", "METHODS", "OPTIONS", "spec", "methods_taking", "option_errors"]


#: the options of ``satdt solve`` that apply to some methods only: argparse ``dest`` -> flag
OPTIONS = {
    "max_depth": "--max-depth", "lam": "--lam", "alpha": "--alpha", "cart_depth": "--cart-depth",
    "binarization": "--binarization", "n_thresholds": "--n-thresholds", "solver": "--solver",
    "engine": "--engine", "min_leaf": "--min-leaf", "warm_start": "--warm-start", "n_jobs": "--n-jobs",
}

_BINARIZED = ("max_depth", "binarization", "n_thresholds")


@dataclass(frozen=True)
class MethodSpec:
    """What one method is, for the command line and the docs.

    Attributes
    ----------
    name : str
        The ``--method`` name.
    objective : str
        What it optimizes: ``"depth"``, ``"nodes"``, ``"errors"``, ``"regularized"`` (errors / n +
        lam * leaves, or + alpha * splits for oct), ``"dpdt"`` or ``"heuristic"``.
    exact : bool
        True when the method proves optimality (OPTIMAL needs its engine's proof).
    options : frozenset of str
        The ``OPTIONS`` keys that apply to it.
    default_depth : int or None
        Its depth bound when ``--max-depth`` is not given (None: none, or found by the method).
    min_depth : int
        The smallest ``--max-depth`` it accepts.
    defaults : dict
        Its defaults for the options it takes, as the estimator applies them.
    """

    name: str
    objective: str
    exact: bool
    options: frozenset
    default_depth: int | None
    min_depth: int = 0
    defaults: dict = field(default_factory=dict)


def _spec(name: str, objective: str, exact: bool, options: tuple, default_depth: int | None,
          min_depth: int = 0, **defaults: object) -> MethodSpec:
    return MethodSpec(name, objective, exact, frozenset(options), default_depth, min_depth, dict(defaults))


METHODS: dict[str, MethodSpec] = {s.name: s for s in (
    _spec("sat-depth", "depth", True, (*_BINARIZED, "solver", "engine"), None, engine="auto"),
    _spec("sat-size", "nodes", True, (*_BINARIZED, "solver", "engine"), None, engine="auto"),
    _spec("maxsat", "errors", True, _BINARIZED, 3, min_depth=1),
    _spec("dp", "errors", True, (*_BINARIZED, "lam", "n_jobs"), 3, lam=None, n_jobs=None),
    _spec("binoct", "errors", True, (*_BINARIZED, "solver", "warm_start"), 2, min_depth=1, warm_start="cart"),
    _spec("oct", "regularized", True, (*_BINARIZED, "solver", "warm_start", "alpha", "min_leaf"), 2,
          min_depth=1, warm_start="cart", alpha=0.0),
    _spec("cpsat", "regularized", True, (*_BINARIZED, "lam", "warm_start"), 5, lam=0.01, warm_start="cart"),
    _spec("dpdt", "dpdt", False, ("max_depth", "alpha", "cart_depth"), 3, min_depth=1),
    _spec("adapttree", "heuristic", False, _BINARIZED, None),
    _spec("rdt", "heuristic", False, _BINARIZED, 3, min_depth=1),
)}


def spec(method: str) -> MethodSpec:
    """The spec of ``method`` (ValueError naming the methods when unknown)."""
    try:
        return METHODS[method]
    except KeyError:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}") from None


def methods_taking(option: str) -> list[str]:
    """The methods ``option`` (an ``OPTIONS`` key) applies to, in registry order."""
    return [name for name, s in METHODS.items() if option in s.options]


def option_errors(method: str, given: dict[str, object]) -> list[str]:
    """Why the options ``given`` (``OPTIONS`` key -> value, only those the user set) do not fit
    ``method``: one message per problem, empty when they all apply.

    >>> option_errors("dp", {"alpha": 0.1})
    ['--alpha does not apply to dp (it applies to: oct, dpdt)']
    >>> option_errors("dp", {"max_depth": 3, "lam": 0.01})
    []
    """
    s = spec(method)
    errors = []
    for key, value in given.items():
        if value is None or key not in OPTIONS:
            continue
        if key not in s.options:
            errors.append(f"{OPTIONS[key]} does not apply to {method} (it applies to: "
                          f"{', '.join(methods_taking(key))})")
    depth = given.get("max_depth")
    if isinstance(depth, int) and "max_depth" in s.options and depth < s.min_depth:
        errors.append(f"--max-depth {depth}: {method} needs a depth of at least {s.min_depth}")
    if given.get("n_thresholds") is not None and "n_thresholds" in s.options \
            and given.get("binarization") in (None, "all"):
        errors.append("--n-thresholds applies to --binarization quantile or tree only (all: every midpoint)")
    return errors
