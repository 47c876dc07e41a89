"""Fixtures for the reader/printer tests (helpers live in ``elisp_dump.py``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from elisp_dump import emacs_read_with


@pytest.fixture(scope="session")
def emacs_read(emacs) -> Callable[[list[str]], list[tuple[str, object]]]:
    """Read each text with Emacs's `read` in one process: see ``elisp_dump``."""
    return lambda texts: emacs_read_with(emacs, texts)
