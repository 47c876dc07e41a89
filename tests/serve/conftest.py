"""Fixtures of the serve tests: the MCP SDK and a real `emacs --daemon` (always killed)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def mcp_sdk():
    """The official MCP Python SDK, or a visible skip where it is not installed."""
    return pytest.importorskip(
        "mcp", reason="the MCP SDK is not installed (pip install 'plistspec[serve]')"
    )


@pytest.fixture(scope="module")
def user_emacs(emacs, elisp_deps_dir, tmp_path_factory):
    """A user's running Emacs: a real `emacs --daemon` with its socket in a private
    directory, the REAL gptel and llm loaded, the tools of data/tools.el, tools made at
    run time and an llm tools variable. Killed at the end, whatever happens."""
    from serve_util import DATA, TOOLS, UserEmacs

    from support import elisp_deps_preamble

    ue = UserEmacs(emacs.exe, tmp_path_factory.mktemp("user-emacs"))
    try:
        preamble = tmp_path_factory.mktemp("user-init") / "preamble.el"
        preamble.write_text(
            ";;; -*- lexical-binding: t; -*-\n"
            + elisp_deps_preamble(elisp_deps_dir)
            + "(require 'gptel)\n(require 'llm)\n(require 'llm-provider-utils)\n",
            encoding="utf-8",
        )
        ue.load(preamble)
        ue.load(TOOLS)
        ue.load(DATA / "user_init.el")
        yield ue
    finally:
        ue.kill()
