"""Running the real command line for the hostile-input tests: ``python -m plistspec``
in a subprocess (PYTHONPATH inherited), with a timeout, never in-process."""

from __future__ import annotations

import os
import subprocess
import sys

TOOL = (
    '(gptel-make-tool :name "a" :function #\'ignore :description "d"\n'
    '  :args (list \'(:name "x" :type integer :description "y")) :category "c")\n'
)


def run(
    *args: str, cwd=None, env=None, stdin: bytes | None = None, **kw
) -> subprocess.CompletedProcess:
    """``plistspec ARGS...``; stdout/stderr as bytes."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    return subprocess.run(
        [sys.executable, "-m", "plistspec", *args],
        cwd=cwd,
        env=full_env,
        input=stdin,
        capture_output="stdout" not in kw,
        timeout=120,
        **kw,
    )


def assert_no_traceback(r: subprocess.CompletedProcess) -> None:
    err = (r.stderr or b"").decode("utf-8", "replace")
    assert "Traceback" not in err, err
    assert r.returncode in (0, 1, 2), (r.returncode, err)


_PEAK = (
    "import resource, subprocess, sys\n"
    "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,"
    " timeout=300)\n"
    "sys.stderr.buffer.write(r.stderr)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024, r.returncode)\n"
)


def peak_run(*args: str) -> tuple[int, str, int]:
    """``(peak resident bytes, standard error, exit status)`` of ``plistspec ARGS...``,
    run in a fresh child of a fresh Python: its ``RUSAGE_CHILDREN`` peak is the
    command's alone (standard output is thrown away)."""
    r = subprocess.run(
        [sys.executable, "-c", _PEAK, sys.executable, "-m", "plistspec", *args],
        capture_output=True,
        text=True,
        timeout=400,
    )
    assert r.returncode == 0, r.stderr
    peak, rc = r.stdout.split()
    return int(peak), r.stderr, int(rc)


def traced_peak(fn) -> int:
    """The peak of Python allocations (tracemalloc, bytes) while ``fn()`` runs."""
    import tracemalloc

    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
