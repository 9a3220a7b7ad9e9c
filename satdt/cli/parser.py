"""The argument parser of the ``satdt`` command: every command's options, checked as they are read
(a usage error exits with code 2)."""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from ..binarize import STRATEGIES
from ..methods import METHODS
from ..verify import ENGINES, OBJECTIVES


# the method names of the registry (satdt.methods, standard library only), so that checking
# --method imports no scikit-learn (its import is ~1.2 s of CPU, which --time-limit counts)
METHOD_NAMES = frozenset(METHODS)


class _MethodChoices:
    """``--method`` choices: the registry's names, read when a name is checked or the choices are
    listed (help, errors), so a spec added to the registry is a choice too."""

    def __contains__(self, name: object) -> bool:
        return name in METHODS

    def __iter__(self):
        return iter(sorted(METHODS))


def _number(kind: type, low: float, strict: bool) -> Any:
    """An argparse type: a finite ``kind`` (int or float) above ``low``."""
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {'an integer' if kind is int else 'a number'}: {text!r}") from None
        if not np.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be a finite number, got {text} (leave the option out for no limit)")
        if value <= low if strict else value < low:
            raise argparse.ArgumentTypeError(f"must be {'>' if strict else '>='} {low:g}, got {text}")
        return value
    return parse


_positive_float = _number(float, 0, strict=True)
_nonneg_float = _number(float, 0, strict=False)
_nonneg_int = _number(int, 0, strict=False)
_positive_int = _number(int, 0, strict=True)


def _n_jobs(text: str) -> int:
    """An argparse type: scikit-learn's n_jobs, a non-zero integer (-1: all cores)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a non-zero integer, got {text}") from None
    if value == 0:
        raise argparse.ArgumentTypeError("must be a non-zero integer (-1: all cores), got 0")
    return value


def _list_of(parse: Any) -> Any:
    """An argparse type: a comma-separated list of values each read by ``parse``."""
    def parse_list(text: str) -> list:
        parts = [p for p in text.split(",") if p.strip()]
        if not parts:
            raise argparse.ArgumentTypeError(f"expected a comma-separated list, got {text!r}")
        return [parse(p.strip()) for p in parts]
    return parse_list


def _depth_list(text: str) -> int | list[int]:
    parts = [_nonneg_int(p) for p in text.split(",")]
    return parts[0] if len(parts) == 1 else parts


def _add_run_options(parser: argparse.ArgumentParser, time_help: str) -> None:
    """``--time-limit`` (what it covers: ``time_help``), the resource limits and ``--json``."""
    parser.add_argument("--time-limit", type=_positive_float, default=None, help=time_help)
    _add_limits(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _add_proof(parser: argparse.ArgumentParser, more: str = "") -> None:
    parser.add_argument("--proof", metavar="DIR", default=None,
                        help="write a certificate of the optimum to DIR (absent or empty; see `satdt check`)" + more)


def _add_limits(cmd: argparse.ArgumentParser) -> None:
    """``--progress`` / ``--quiet`` and ``--max-memory`` of the commands that run an engine."""
    shown = cmd.add_mutually_exclusive_group()
    shown.add_argument("--progress", action="store_true",
                       help="print progress lines on stderr (default when stderr is a terminal)")
    shown.add_argument("--quiet", action="store_true", help="no progress lines")
    cmd.add_argument("--max-memory", type=_positive_float, default=None, metavar="GB",
                     help="refuse models and matrices estimated above this size (default: 75%% of RAM, "
                          "or SATDT_MAX_MEMORY)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="satdt", description="Provably optimal decision trees.")
    sub = parser.add_subparsers(dest="command", required=True)

    solve = sub.add_parser("solve", help="find a tree for a dataset")
    solve.add_argument("data", help="a CSV file (header row, last column = label) or a bundled dataset name")
    solve.add_argument("--method", required=True, choices=_MethodChoices(), metavar="METHOD",
                       help="one of: %(choices)s")
    solve.add_argument("--max-depth", type=_nonneg_int, default=None)
    solve.add_argument("--lam", type=_nonneg_float, default=None, help="cpsat, dp: penalty per leaf (dp without it: plain accuracy)")
    solve.add_argument("--alpha", type=_nonneg_float, default=None, help="oct: penalty per split; dpdt: per test")
    solve.add_argument("--cart-depth", type=_depth_list, default=None, help="dpdt: CART depth, or a per-depth list 3,2,2")
    solve.add_argument("--binarization", choices=STRATEGIES, default=None, help="default: all")
    solve.add_argument("--n-thresholds", type=_positive_int, default=None,
                       help="thresholds per feature (quantile, tree; default 10)")
    solve.add_argument("--solver", default=None, help="SAT backend (sat-*) or MIP backend (binoct, oct)")
    solve.add_argument("--engine", choices=("auto", "sat", "dp"), default=None,
                       help="sat-depth, sat-size: auto (default: the measured rule, stats say which ran and "
                            "why), Avellaneda's SAT encodings, or the DP engine (branch and bound, or the DP "
                            "over every box on data with few distinct values); --solver alone implies sat")
    solve.add_argument("--n-jobs", type=_n_jobs, default=None, metavar="N",
                       help="dp: threads of the search (default: all cores; -1 all, 1 one); same tree for any N")
    solve.add_argument("--min-leaf", type=_positive_int, default=None, help="oct: minimum rows per nonempty leaf (N_min)")
    solve.add_argument("--warm-start", choices=("cart", "dpdt", "none"), default=None,
                       help="binoct, oct, cpsat: starting tree (default cart)")
    solve.add_argument("--class-weight", choices=("balanced",), default=None,
                       help="maxsat, dp, binoct, oct, cpsat: weigh each class n / (k * n_c)")
    solve.add_argument("--objective", choices=("accuracy", "balanced-accuracy"), default=None,
                       help="maxsat, dp, binoct, oct, cpsat: the accuracy to maximize")
    solve.add_argument("--costs", default=None, metavar="FILE",
                       help="maxsat, dp, binoct (oct, cpsat: true-class costs only): a k x k matrix "
                            "(CSV or whitespace), row = true class, column = predicted, classes sorted, "
                            "or under a header row of the classes (rows led by theirs)")
    solve.add_argument("--missing", choices=("learn", "error"), default="error",
                       help="learn: empty/NaN feature values are searched with both directions at every test "
                            "(default error: a missing value is an error)")
    _add_run_options(solve, "wall-clock seconds for the whole command (reading and binarization included); "
                            "the best tree so far is returned")
    solve.add_argument("--export", choices=("text", "json", "dot", "png", "svg", "sklearn"), default=None,
                       help="tree format to write (png, svg: a picture, needs --output and matplotlib; "
                            "sklearn: a fitted DecisionTreeClassifier saved with joblib, needs --output)")
    solve.add_argument("--output", default=None,
                       help="file for --export (default: standard output); without --export, the JSON result")
    _add_proof(solve, "; producing it gets --time-limit again, after the solve: past it, or on Ctrl-C, "
                      "no certificate and DIR as it was")

    verify = sub.add_parser("verify", help="certify whether a given tree is optimal")
    verify.add_argument("data", help="a CSV file or a bundled dataset name (the tree's training data)")
    source = verify.add_mutually_exclusive_group(required=True)
    source.add_argument("--sklearn", metavar="MODEL.joblib", help="a fitted scikit-learn DecisionTreeClassifier (joblib)")
    source.add_argument("--tree", metavar="TREE.json", help="a tree as written by `satdt solve --export json`")
    verify.add_argument("--objective", choices=OBJECTIVES, default="accuracy")
    verify.add_argument("--max-depth", type=_nonneg_int, default=None, help="depth bound (default: the tree's)")
    verify.add_argument("--lam", type=_nonneg_float, default=None, help="regularized: penalty per leaf")
    verify.add_argument("--alpha", type=_nonneg_float, default=None, help="dpdt: penalty per test")
    verify.add_argument("--engine", choices=ENGINES, default="auto",
                        help="exact engine (auto: dp, or for depth and size the measured rule of sat-depth; "
                             "accuracy: dp, cpsat, maxsat, binoct; regularized: dp, cpsat; depth, size: dp, sat)")
    _add_run_options(verify, "wall-clock seconds for the whole command; the engine gets what is left after "
                             "reading and loading the tree, and its best bound so far is reported (UNKNOWN)")
    _add_proof(verify)

    check = sub.add_parser("check", help="check a certificate written by --proof (exit 0 valid, 1 invalid)")
    check.add_argument("proof_dir", metavar="PROOF_DIR")

    bench = sub.add_parser("bench", help="run methods x datasets x depths and tabulate the results")
    bench.add_argument("--methods", default="sat-depth,cpsat,cart-gini", help="comma-separated method names")
    bench.add_argument("--datasets", default="iris,monk1,mouse", help="comma-separated names or CSV paths")
    bench.add_argument("--depths", default="2,3", help="comma-separated depths (ignored by sat-depth)")
    bench.add_argument("--lam", type=_nonneg_float, default=None)
    bench.add_argument("--alpha", type=_nonneg_float, default=None)
    bench.add_argument("--time-limit", type=_positive_float, default=60.0)
    bench.add_argument("--jobs", type=int, default=1, help="parallel tasks (joblib processes)")
    bench.add_argument("--data-dir", default=None, help="folder searched for dataset names")
    bench.add_argument("--output", default=None, help="CSV file of all rows")
    bench.add_argument("--json", action="store_true")

    select = sub.add_parser("select", help="choose lam or depth by cross-validation, then refit on all rows")
    select.add_argument("data", help="a CSV file (header row, last column = label) or a bundled dataset name")
    select.add_argument("--method", required=True, choices=_MethodChoices(), metavar="METHOD",
                        help="one of: %(choices)s")
    grid = select.add_mutually_exclusive_group(required=True)
    grid.add_argument("--lams", type=_list_of(_nonneg_float), default=None,
                      help="comma-separated penalties: lam of dp, cpsat; alpha of oct, dpdt")
    grid.add_argument("--depths", type=_list_of(_nonneg_int), default=None, help="comma-separated depth bounds")
    select.add_argument("--folds", type=_number(int, 1, strict=True), default=5, help="K of K-fold (>= 2)")
    select.add_argument("--one-se", action="store_true",
                        help="the simplest setting within one standard error of the best mean")
    select.add_argument("--max-depth", type=_nonneg_int, default=None, help="depth bound along a --lams path")
    select.add_argument("--binarization", choices=STRATEGIES, default="all")
    select.add_argument("--time-limit", type=_positive_float, default=None,
                        help="wall-clock seconds for the whole command (all folds and the refit): each fit "
                             "gets an even share of the time left when it starts; fits that would start "
                             "after the limit are not run (NOT_RUN, their setting not chosen)")
    _add_limits(select)
    select.add_argument("--jobs", type=int, default=1, help="parallel fits (joblib processes)")
    select.add_argument("--seed", type=int, default=0, help="seed of the fold split")
    select.add_argument("--heuristics", type=_list_of(str), default=[],
                        help="also cross-validate cart,dpdt on the same folds and grid, for comparison")
    select.add_argument("--json", action="store_true", help="print one JSON object")

    sub.add_parser("datasets", help="list the bundled datasets")
    return parser


def check_solve_options(parser: argparse.ArgumentParser, a: argparse.Namespace) -> None:
    """The options of ``satdt solve`` against the method registry (:mod:`satdt.methods`): an
    option that does not apply to the method is a usage error (exit 2) naming the methods it
    applies to; then the registry-wide defaults are filled in. No heavy import."""
    from ..methods import OPTIONS, option_errors

    given = {key: getattr(a, key, None) for key in OPTIONS}
    errors = option_errors(a.method, given)
    if errors:
        _usage_error("solve", "; ".join(errors))
    a.binarization = a.binarization or "all"
    a.n_thresholds = 10 if a.n_thresholds is None else a.n_thresholds


def check_memory_env(parser: argparse.ArgumentParser) -> None:
    """``SATDT_MAX_MEMORY`` must be a positive number of gigabytes (usage error otherwise)."""
    import os

    env = os.environ.get("SATDT_MAX_MEMORY")
    if env is None or env == "":
        return
    try:
        value = float(env)
    except ValueError:
        value = float("nan")
    if not (np.isfinite(value) and value > 0):
        _usage_error(None, f"SATDT_MAX_MEMORY must be a positive number of gigabytes, got {env!r}")


def _usage_error(command: str | None, message: str) -> None:
    """A usage error after parsing: one line on stderr, exit 2 (as argparse's own)."""
    import sys

    print(f"satdt{' ' + command if command else ''}: error: {message}", file=sys.stderr)
    raise SystemExit(2)
