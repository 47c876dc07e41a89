"""Shared test support: repository paths and a handle on real Emacs (`emacs --batch`).

Import it as ``from support import ...`` (``tests/`` is on pytest's ``pythonpath``); the
``emacs`` fixture in ``tests/conftest.py`` hands out an :class:`Emacs`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "elisp"
GRAMMARS = ROOT / "grammars"
# Reference data recorded from the real gptel / llm, kept in the repository (fixtures/reference/README.md)
REFERENCE = ROOT / "fixtures" / "reference"
EXPECTED = REFERENCE / "expected"


def elisp_deps() -> Path | None:
    """The folder of the real gptel / llm sources (``PLISTSPEC_ELISP_DEPS``, else ``../shared/elisp-deps``).

    ``None`` where it is absent: tests that need the real libraries skip with a visible reason.
    """
    env = os.environ.get("PLISTSPEC_ELISP_DEPS")
    path = Path(env) if env else ROOT.parent / "shared" / "elisp-deps"
    return (
        path
        if (path / "gptel" / "gptel.el").is_file() and (path / "llm" / "llm.el").is_file()
        else None
    )


ELISP_DEPS_DIRS = (
    "compat",
    "gptel",
    "transient/lisp",
    "cond-let",
    "llama",
    "llm",
    "plz",
    "plz-media-type",
    "plz-event-source",
)


class Emacs:
    """A handle on ``emacs --batch``."""

    def __init__(self, exe: str) -> None:
        self.exe = exe

    def run(
        self, code: str, stdin: str | None = None, timeout: float = 120, check: bool = True
    ) -> str:
        """Evaluate ``code`` (a string of Elisp forms) in ``emacs --batch -Q``; return stdout.

        Use ``(princ ...)`` to produce output. The code is passed in a temporary file,
        loaded with ``lexical-binding`` on and UTF-8 coding. The Emacs package's folder
        (``elisp/``) is on ``load-path``, as the README's set-up puts it: the files
        ``from-py`` writes require its ``plistspec-bridge``.
        """
        import tempfile

        with tempfile.NamedTemporaryFile("w", suffix=".el", delete=False, encoding="utf-8") as f:
            f.write(";; -*- lexical-binding: t; coding: utf-8 -*-\n" + code)
            script = f.name
        try:
            proc = subprocess.run(
                [
                    self.exe,
                    "--batch",
                    "-Q",
                    "-L",
                    str(ROOT / "elisp"),
                    "--eval",
                    "(setq coding-system-for-write 'utf-8-unix)",
                    "-l",
                    script,
                ],
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


def schema_orders(schema, out=None):
    """Every ``properties`` key order and ``required`` list of a schema, in document order
    (the conformance tests compare these: key order inside objects is not normative, the
    order of properties and of required is)."""
    out = [] if out is None else out
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("properties"), dict):
                out.append(("properties", list(node["properties"])))
            if isinstance(node.get("required"), list):
                out.append(("required", list(node["required"])))
            stack.extend(reversed(list(node.values())))
        elif isinstance(node, list):
            stack.extend(reversed(node))
    return out


def elisp_deps_preamble(deps: Path) -> str:
    """Elisp that puts the real gptel / llm (and their dependencies) on ``load-path``."""
    dirs = " ".join(f'"{(deps / d).as_posix()}"' for d in ELISP_DEPS_DIRS)
    return f"(dolist (d (list {dirs})) (push d load-path))\n(require 'compat)\n"


def copy_build_tree(dest: Path) -> Path:
    """A copy, at ``dest``, of the files of this checkout a build reads (what
    package-vc-install leaves; a wheel built there shares no build/ with another build)."""
    dest.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.elc", "build", ".venv")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, dest / name)
    for name in ("src", "grammars", "elisp"):
        shutil.copytree(ROOT / name, dest / name, symlinks=True, ignore=ignore)
    return dest
