"""One policy for SIGINT and SIGTERM in ``satdt solve``: stop any engine within about a second and
answer with the best tree so far.

On the first signal a listener thread (woken through :func:`signal.set_wakeup_fd`, so even while
the main thread is inside a native solver that never returns to Python) calls
:func:`satdt.deadline.interrupt`: every deadline expires and every armed interrupt fires (SAT and
MaxSAT oracles, the MIP interrupter, CP-SAT's stop), so the engines return as at their time limit,
FEASIBLE with their incumbent. An engine that does not look at its deadline (the compiled DP core
checks only its own clock) gets a ``KeyboardInterrupt`` after :data:`ESCALATE_AFTER` seconds,
and the command answers with the greedy tree instead. A step that does not even return to Python
is not waited for: after :data:`ANSWER_AFTER` seconds the listener prints the majority leaf
itself, as the time-limit watchdog does. Either way ``stats["interrupted"]`` is true and the
process exits ``128 + signal`` (130 for SIGINT, 143 for SIGTERM) after writing its output.
A second signal skips the wait.
"""

from __future__ import annotations

import _thread
import signal
import socket
import threading
from typing import Callable

from ..deadline import clear_interrupt, interrupt, interrupted

__all__ = ["SignalPolicy", "ESCALATE_AFTER", "ANSWER_AFTER", "exit_code"]

#: seconds after the signal before the main thread gets a KeyboardInterrupt
ESCALATE_AFTER = 0.4
#: seconds after the signal before the listener answers itself (the main thread did not) ...
ANSWER_AFTER = 0.95
#: ... or, when the main thread is computing its fallback answer (:meth:`SignalPolicy.answering`)
ANSWER_AFTER_FALLBACK = 1.6

SIGNALS = (signal.SIGINT, signal.SIGTERM)


def exit_code(signum: int | None) -> int | None:
    """The exit code after signal ``signum`` (128 + its number), None when none came."""
    return None if signum is None else 128 + int(signum)


class SignalPolicy:
    """Install with :meth:`install` in the main thread; :meth:`finish` when the command's answer
    is being written (the listener stands down); :meth:`restore` puts the previous handlers back.

    ``answer(signum)`` is the last resort, called from the listener thread when the main thread
    has not started its answer :data:`ANSWER_AFTER` seconds after the signal; it must print a
    result and end the process.
    """

    def __init__(self, answer: Callable[[int], None] | None = None):
        self.answer = answer
        self.escalate = False  # a KeyboardInterrupt is due in the main thread
        self.escalated = False  # it was asked for (once)
        self.finished = threading.Event()
        self._previous: dict[int, object] = {}
        self._old_fd: int | None = None
        self._sockets: tuple[socket.socket, socket.socket] | None = None
        self._first = threading.Event()
        self.answering = threading.Event()  # the main thread computes its answer after the escalation
        self.installed = False

    def install(self) -> "SignalPolicy":
        if threading.current_thread() is not threading.main_thread():
            return self  # signals reach the main thread only: nothing to do elsewhere
        clear_interrupt()
        reader, writer = socket.socketpair()
        writer.setblocking(False)
        self._sockets = (reader, writer)
        for signum in SIGNALS:
            self._previous[signum] = signal.signal(signum, self._handler)
        self._old_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
        threading.Thread(target=self._listen, name="satdt-signals", daemon=True).start()
        self.installed = True
        return self

    def restore(self) -> None:
        if not self.installed:
            return
        self.installed = False
        self.finished.set()
        signal.set_wakeup_fd(self._old_fd if self._old_fd is not None else -1)
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        if self._sockets is not None:
            self._sockets[1].close()  # the listener's recv returns b"": it ends

    def finish(self) -> None:
        """The answer is being written by the main thread: no escalation, no last resort."""
        self.finished.set()

    # the Python-level handler (main thread, whenever it next runs Python code): the listener
    # has already acted; only an escalation raises
    def _handler(self, signum: int, frame: object) -> None:
        if self.escalate and not self.finished.is_set():
            self.escalate = False
            raise KeyboardInterrupt
        if interrupted() is None:  # no listener (wakeup fd replaced): act here
            interrupt(signum)

    def _listen(self) -> None:
        reader = self._sockets[0]
        while True:
            try:
                data = reader.recv(64)
            except OSError:
                return
            if not data:
                return
            for signum in data:
                if signum in SIGNALS:
                    self._on_signal(signum)

    def _on_signal(self, signum: int) -> None:
        if self.finished.is_set():
            return
        if not self._first.is_set():
            self._first.set()
            interrupt(signum)
            threading.Thread(target=self._escalation, args=(signum,), daemon=True).start()
        elif not self.escalated:  # a second signal: do not wait
            self._raise_in_main()

    def _escalation(self, signum: int) -> None:
        if self.finished.wait(ESCALATE_AFTER):
            return
        if not self.escalated:
            self._raise_in_main()
        if self.finished.wait(ANSWER_AFTER - ESCALATE_AFTER):
            return
        if self.answering.is_set() and self.finished.wait(ANSWER_AFTER_FALLBACK - ANSWER_AFTER):
            return
        if self.answer is not None:
            self.answer(interrupted() or signum)

    def _raise_in_main(self) -> None:
        if self.escalated:
            return
        self.escalated = True
        self.escalate = True
        _thread.interrupt_main(signal.SIGINT)
