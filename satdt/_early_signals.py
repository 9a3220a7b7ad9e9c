"""The ``satdt`` program's first SIGINT / SIGTERM handlers, installed before numpy is imported.

Only when this process is the ``satdt`` command (its console script, or ``python -m
satdt.cli``), never for a library import. A signal that arrives while the command is still
importing is remembered here (:data:`SEEN`) and handed to the command's signal policy
(:mod:`satdt.cli.signals`) once it is installed, so that even an early Ctrl-C or SIGTERM gets an
answer and exit 130 / 143 instead of a traceback or a silent kill. Standard library only.
"""

from __future__ import annotations

import os
import signal
import sys
import threading

#: signals received before the command installed its policy
SEEN: list[int] = []
INSTALLED = False


def is_program() -> bool:
    """This process runs the ``satdt`` command."""
    orig = list(getattr(sys, "orig_argv", []) or [])
    if "-m" in orig:
        i = orig.index("-m")
        return i + 1 < len(orig) and orig[i + 1] in ("satdt.cli", "satdt")
    return len(orig) > 1 and os.path.basename(orig[1]) == "satdt"


def _remember(signum: int, frame: object) -> None:
    SEEN.append(signum)


def restore_defaults() -> None:
    """Python's own handlers back (commands without a signal policy), then any signal seen is
    raised again, to act as it would have."""
    global INSTALLED
    if not INSTALLED:
        return
    INSTALLED = False
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if SEEN:
        signal.raise_signal(SEEN[0])


if is_program() and threading.current_thread() is threading.main_thread():
    signal.signal(signal.SIGINT, _remember)
    signal.signal(signal.SIGTERM, _remember)
    INSTALLED = True
