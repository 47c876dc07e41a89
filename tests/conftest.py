"""Shared test fixtures: paths, and real Emacs (`emacs --batch`) as the reference.

Tests that need Emacs take the ``emacs`` fixture. On a developer machine without Emacs
they are skipped with a visible reason; when ``CI`` is set they fail instead, so CI can
never skip them silently.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "elisp"
GRAMMARS = ROOT / "grammars"
SHARED = ROOT.parent / "shared"
REFERENCE = SHARED / "reference"
EXPECTED = REFERENCE / "expected"


class Emacs:
    """A handle on ``emacs --batch``."""

    def __init__(self, exe: str) -> None:
        self.exe = exe

    def run(self, code: str, stdin: str | None = None, timeout: float = 120, check: bool = True) -> str:
        """Evaluate ``code`` (a string of Elisp forms) in ``emacs --batch -Q``; return stdout.

        Use ``(princ ...)`` to produce output. The code is passed in a temporary file,
        loaded with ``lexical-binding`` on and UTF-8 coding.
        """
        import tempfile

        with tempfile.NamedTemporaryFile(
            "w", suffix=".el", delete=False, encoding="utf-8"
        ) as f:
            f.write(";; -*- lexical-binding: t; coding: utf-8 -*-\n" + code)
            script = f.name
        try:
            proc = subprocess.run(
                [self.exe, "--batch", "-Q", "--eval", "(setq coding-system-for-write 'utf-8-unix)",
                 "-l", script],
                input=stdin.encode("utf-8") if stdin is not None else None,
                capture_output=True,
                timeout=timeout,
            )
        finally:
            os.unlink(script)
        out = proc.stdout.decode("utf-8", "surrogateescape")
        if check and proc.returncode != 0:
            raise AssertionError(
                f"emacs exited {proc.returncode}\nstderr:\n{proc.stderr.decode('utf-8', 'replace')}"
            )
        return out


@pytest.fixture(scope="session")
def emacs() -> Emacs:
    exe = shutil.which("emacs")
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("emacs is not installed, and CI must run the Emacs tests (.ci/run installs emacs-nox)")
        pytest.skip("emacs is not installed on this machine: the tests against real Emacs were skipped")
    return Emacs(exe)
