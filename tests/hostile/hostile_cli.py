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
