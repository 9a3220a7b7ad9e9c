"""The ``satdt`` command line.

Exit codes: 0 success (whatever the solver status), 1 bad input or data, 2 usage error.
Errors go to stderr as one line, never a traceback for a user mistake.

One module a command (:mod:`.solve`, :mod:`.verify`, :mod:`.bench`, :mod:`.select`), the parser
in :mod:`.parser`, what they share in :mod:`.common`, ``solve``'s resource plans and answers
without an estimator in :mod:`.plans`. No command module imports scikit-learn,
pandas or OR-tools at module level: ``import satdt.cli`` stays light.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from typing import Sequence

from ..data import DataError, bundled_datasets, load_dataset
from ..result import NoTreeFoundError
from .bench import cmd_bench
from .common import EXIT_INPUT, EXIT_OK, EXIT_USAGE, Clock, exit_now, fail, solve_summary
from .parser import METHOD_NAMES, build_parser, check_memory_env, check_solve_options
from .select import cmd_select
from .solve import cmd_solve
from .verify import cmd_verify

__all__ = ["main", "build_parser", "solve_summary", "COMMANDS", "Clock", "METHOD_NAMES", "EXIT_OK", "EXIT_INPUT",
           "EXIT_USAGE"]


def cmd_datasets(a: argparse.Namespace) -> int:
    """``satdt datasets``: the bundled datasets and their sizes."""
    for name, path in bundled_datasets().items():
        data = load_dataset(name)
        print(f"{name:16s} {data.n_rows:6d} rows {data.X.shape[1]:4d} features {len(data.classes):3d} classes")
    return EXIT_OK


def cmd_check(a: argparse.Namespace) -> int:
    """``satdt check PROOF_DIR``: exit 0 valid, 1 invalid (the first failing claim in one line)."""
    from ..proof.check import Invalid, check

    try:
        print("valid: " + check(a.proof_dir))
    except Invalid as exc:
        return fail(f"invalid certificate: {exc}")
    return EXIT_OK


def one_line(exc: BaseException, limit: int = 300) -> str:
    """The first line of ``exc``'s message, at most ``limit`` characters (a native error can hold
    whole arrays), or its type name when it has no message."""
    text = str(exc).strip()
    line = text.splitlines()[0] if text else type(exc).__name__
    return line if len(line) <= limit else line[:limit] + " ..."


def _debug_traceback() -> None:
    if os.environ.get("SATDT_DEBUG"):
        traceback.print_exc(file=sys.stderr)


COMMANDS = {"solve": cmd_solve, "verify": cmd_verify, "bench": cmd_bench, "select": cmd_select,
            "datasets": cmd_datasets, "check": cmd_check}


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. As the ``satdt`` program (``argv`` None: the process is the command) the
    clock of ``--time-limit`` starts when the process started, so the interpreter's start-up and
    the imports count; called with ``argv`` (tests, another program) it starts at the call."""
    clock = Clock(whole_process=argv is None)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command in ("solve", "verify", "select", "bench"):
            check_memory_env(parser)
        if args.command == "solve":
            check_solve_options(parser, args)
    except SystemExit as exc:  # argparse: usage error (2) or --help (0)
        return int(exc.code or 0)
    args.clock = clock
    if args.command != "solve":  # no signal policy: Python's own handling (an early signal acts now)
        from .._early_signals import restore_defaults

        restore_defaults()
    try:
        code = COMMANDS[args.command](args)
    except BrokenPipeError:  # output piped into `head` and closed: not an error
        sys.stderr.close()
        return EXIT_OK
    except (DataError, ValueError, OSError, NoTreeFoundError, MemoryError) as exc:
        _debug_traceback()
        code = fail(one_line(exc))
    except KeyboardInterrupt:
        code = fail("interrupted")
    except Exception as exc:  # noqa: BLE001 - a bug: one line, the traceback with SATDT_DEBUG=1
        _debug_traceback()
        code = fail(f"internal error, please report: {type(exc).__name__}: {one_line(exc)}"
                    + ("" if os.environ.get("SATDT_DEBUG") else " (SATDT_DEBUG=1 shows the traceback)"))
    # the program ends at once after its answer or its error (no interpreter teardown, during which
    # a late signal would find Python's default handlers back)
    if argv is None and (args.command in ("solve", "verify") or (args.command == "select" and args.jobs == 1)):
        exit_now(code)
    return code
