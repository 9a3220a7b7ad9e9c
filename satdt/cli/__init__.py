"""The ``satdt`` command line.

Exit codes: 0 success (whatever the solver status), 1 bad input or data, 2 usage error.
Errors go to stderr as one line, never a traceback for a user mistake.

One module a command (:mod:`.solve`, :mod:`.verify`, :mod:`.bench`, :mod:`.select`), the parser
in :mod:`.parser`, what they share in :mod:`.common`. No command module imports scikit-learn,
pandas or OR-tools at module level: ``import satdt.cli`` stays light.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from ..data import DataError, bundled_datasets, load_dataset
from ..result import NoTreeFoundError
from .bench import cmd_bench
from .common import EXIT_INPUT, EXIT_OK, EXIT_USAGE, Clock, exit_now, fail, solve_summary
from .parser import METHOD_NAMES, build_parser
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
    except SystemExit as exc:  # argparse: usage error (2) or --help (0)
        return int(exc.code or 0)
    args.clock = clock
    try:
        code = COMMANDS[args.command](args)
    except BrokenPipeError:  # output piped into `head` and closed: not an error
        sys.stderr.close()
        return EXIT_OK
    except (DataError, ValueError, OSError, NoTreeFoundError, MemoryError) as exc:
        return fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    except KeyboardInterrupt:
        return fail("interrupted")
    if argv is None and (args.command in ("solve", "verify") or (args.command == "select" and args.jobs == 1)):
        exit_now(code)
    return code
