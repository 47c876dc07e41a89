"""Issue 31 §8: `serve` keeps only the tool definitions in use. A tool redefined again
and again in the user's Emacs (the real gptel, a real `emacs --daemon`) leaves its
catalogue's tables as large as after the first redefinition, while the served entry
follows each new text."""

from __future__ import annotations

import asyncio

import pytest

pytestmark = [pytest.mark.emacs, pytest.mark.slow]  # a real Emacs server


def _define(user_emacs, n: int) -> None:
    user_emacs.eval(
        '(gptel-make-tool :name "forget_me" :function (lambda (x) x) :category "forget"'
        f' :description "Version {n}: {"padding " * 50}"'
        ' :args (list \'(:name "x" :type string :description "X.")))'
    )


def test_redefinitions_do_not_pile_up(user_emacs, mcp_sdk):
    from plistspec.serve.setup import Options, serve_emacs

    _define(user_emacs, 0)
    opts = Options(poll=0)
    state, diags = serve_emacs(user_emacs.socket, opts)
    assert state is not None, [d.render() for d in diags]
    source = state.source

    def served() -> str:
        return state.tool("forget_me").entry["description"]

    async def main() -> list[tuple[int, int]]:
        sizes = []
        for n in range(1, 21):
            _define(user_emacs, n)
            assert await asyncio.wait_for(state.refresh(), 60)  # the list changed
            assert served().startswith(f"Version {n}:")
            sizes.append((len(source._forms), len(source._said)))
        return sizes

    try:
        sizes = asyncio.run(main())
    finally:
        for close in reversed(opts.closers):
            close()
        user_emacs.eval(
            '(gptel-make-tool :name "forget_me" :function #\'ignore :category '
            '"forget" :description "Done.")'
        )
    assert sizes[-1] == sizes[0], sizes  # one form per tool, whatever its history
    assert sizes[0][0] == len(state.tools)
