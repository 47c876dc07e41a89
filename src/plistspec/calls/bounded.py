"""A hard time bound on one call's validation, so that no schema can stall the checker.

Owns: :func:`time_bound` (a context manager) and :class:`TimedOut`. A JSON Schema
``pattern`` is a regular expression, and Python's ``re`` backtracks: ``"^(a+)+$"``
against 34 ``a`` and a ``!`` runs for minutes. Python 3.11's ``re`` checks for signals
while it matches, so in the main thread (where ``plistspec check --server`` and
``plistspec serve`` validate calls) an ``ITIMER_PROF`` timer ends any validation that
runs past its bound of CPU time (not wall time: a process starved by a busy machine is
not cut short): :class:`TimedOut` is raised where the work stood, and the caller answers
"could not be checked in time" (docs/emacs.md). Elsewhere (another thread, a
system without ``SIGPROF``, or a profiling timer already running) the work runs unbounded, as it
would without this module. No dependency: a linear-time engine (RE2) would refuse
look-arounds and back-references that JSON Schema's ECMA-262 patterns may hold.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["TimedOut", "time_bound", "DEFAULT_SECONDS"]

DEFAULT_SECONDS = 0.5  # one call's validation, at most (CPU seconds)


class TimedOut(BaseException):
    """The bounded work ran past its time (a ``BaseException``, as ``KeyboardInterrupt``
    is, so that no ``except Exception`` on the way reads it as a broken schema)."""


_active = False


def _alarm(_signum: int, _frame: object) -> None:
    if _active:
        raise TimedOut()


@contextmanager
def time_bound(seconds: float = DEFAULT_SECONDS) -> Iterator[bool]:
    """Run the body with a hard bound of ``seconds``; yields whether the bound holds (see
    the module). Past it, :class:`TimedOut` is raised inside the body."""
    global _active
    usable = (
        not _active
        and seconds > 0
        and hasattr(signal, "setitimer")
        and hasattr(signal, "SIGPROF")
        and threading.current_thread() is threading.main_thread()
        and signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)
    )
    if not usable:
        yield False
        return
    old = signal.signal(signal.SIGPROF, _alarm)
    _active = True
    try:
        signal.setitimer(signal.ITIMER_PROF, seconds)
        yield True
    finally:
        _active = False  # a signal between here and the reset below is ignored
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old if old is not None else signal.SIG_DFL)
