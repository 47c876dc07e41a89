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


def _transportable(text: str) -> str:
    """``text`` with every lone surrogate escaped (``\\udcc3``): what a test read from a
    program with ``surrogateescape`` (Emacs printing raw bytes) can hold, and what
    pytest-xdist cannot send from its worker (it crashes the whole run, INTERNALERROR)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failure message holding lone surrogates becomes a safe one before it leaves the
    worker: the failure is reported (escaped), the run goes on."""
    outcome = yield
    report = outcome.get_result()
    if report.longrepr is not None and not _encodable(str(report.longrepr)):
        report.longrepr = _transportable(str(report.longrepr))
    report.sections = [
        (_transportable(title), _transportable(body)) for title, body in report.sections
    ]


def pytest_collection_modifyitems(config, items):
    """Every test that takes the ``emacs`` fixture (itself or through another fixture) is
    marked ``emacs``: ``-m emacs`` selects the tests that start Emacs (.ci/run runs them a
    second time on Emacs 30). Tests that start Emacs otherwise carry the mark themselves."""
    for item in items:
        if "emacs" in getattr(item, "fixturenames", ()) and not item.get_closest_marker("emacs"):
            item.add_marker(pytest.mark.emacs)


def pytest_runtest_setup(item):
    """Tell the processes a test starts whether the test is marked ``emacs``
    (``PLISTSPEC_TEST_MARKED_EMACS``): .ci/emacs-guard/emacs, the ``emacs`` CI puts first
    on PATH, records a test that starts Emacs without the mark (it would be left out of
    the Emacs 30 pass)."""
    os.environ["PLISTSPEC_TEST_MARKED_EMACS"] = "1" if item.get_closest_marker("emacs") else "0"


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
