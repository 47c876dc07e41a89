"""Shared test fixtures: paths, and real Emacs (`emacs --batch`) as the reference.

Tests that need Emacs take the ``emacs`` fixture. On a developer machine without Emacs
they are skipped with a visible reason; when ``CI`` is set they fail instead, so CI can
never skip them silently.
"""

from __future__ import annotations

import os
import shutil
import sys

import pytest

from support import EXPECTED, FIXTURES, GRAMMARS, REFERENCE, ROOT, Emacs  # noqa: F401

# Hypothesis: where CI is set, every property test draws the same examples on every run
# (derandomize), so a CI result depends on the commit alone, never on the day's seed; the
# examples stay as bounded as each test's own max_examples says. Elsewhere the tests
# explore new examples each run (hypothesis's default), which is how new cases are found:
# each one found becomes an explicit test.
try:
    from hypothesis import settings as _hypothesis_settings
except ImportError:  # pragma: no cover - the test extras are not installed
    _hypothesis_settings = None
if _hypothesis_settings is not None:
    _hypothesis_settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
    if os.environ.get("CI"):
        _hypothesis_settings.load_profile("ci")

# As in an activated virtual environment: `python3` on the path (what the tools from-py
# writes run, unless told otherwise) is the Python running the tests, which has plistspec.
_bin = os.path.dirname(sys.executable)
if os.environ.get("PATH", "").split(os.pathsep)[:1] != [_bin]:
    os.environ["PATH"] = _bin + os.pathsep + os.environ.get("PATH", "")


@pytest.fixture(scope="session")
def emacs() -> Emacs:
    exe = shutil.which("emacs")
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail(
                "emacs is not installed, and CI must run the Emacs tests (.ci/run installs emacs-nox)"
            )
        pytest.skip(
            "emacs is not installed on this machine: the tests against real Emacs were skipped"
        )
    return Emacs(exe)


@pytest.fixture(scope="session")
def elisp_deps_dir():
    """The real gptel 0.9.9.5 / llm 0.31.1 sources, or a skip with a visible reason."""
    from support import elisp_deps

    deps = elisp_deps()
    if deps is None:
        pytest.skip(
            "the real gptel/llm sources are absent (no ../shared/elisp-deps beside the checkout and "
            "no PLISTSPEC_ELISP_DEPS): the tests that run the real libraries were skipped"
        )
    return deps
