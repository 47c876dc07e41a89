"""The Elisp writer gives exactly the recorded bytes (and diagnostics) on every case of
``data/writer_snapshot.json.xz`` (see ``writer_snapshot.py``): the differential test
that a rewrite of the writer changes no output. Plus: a schema nested 50 000 deep is
written in a thread with the default stack size, without a RecursionError."""

from __future__ import annotations

import difflib
import threading

import pytest
import writer_snapshot as ws


def test_writer_gives_the_recorded_bytes() -> None:
    cases = ws.load()
    assert len(cases) > 1000
    kinds = {(c["kind"], c["dialect"]) for c in cases}
    assert ("form", "llm") in kinds and ("file", None) in kinds
    bad = []
    for c in cases:
        got = ws.replay(c)
        if got != c["expect"]:
            bad.append((c, got))
    if bad:
        c, got = bad[0]
        diff = "\n".join(
            difflib.unified_diff(
                c["expect"]["text"].splitlines(), got["text"].splitlines(), lineterm="", n=2
            )
        )
        raise AssertionError(
            f"{len(bad)} of {len(cases)} cases differ; first: {c['name']} ({c['kind']}, "
            f"{c['dialect']})\n{diff[:3000]}\ndiags {c['expect']['diags']} -> {got['diags']}"
        )


def _deep_tool(depth: int) -> dict:
    node: dict = {"type": "string"}
    for i in range(depth):
        node = {"type": "array", "items": node} if i % 2 else {"type": "object", "p": [node]}
    return {
        "type": "function",
        "name": "deep",
        "description": "d",
        "parameters": {"type": "object", "properties": {"x": node}, "required": ["x"]},
        "metadata": {},
    }


def _in_thread(fn):
    """``fn()`` run in a new thread with the default stack size (smaller than the main
    thread's on some systems): its result, or its exception raised here."""
    out: dict = {}

    def work() -> None:
        try:
            out["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - raised again below
            out["error"] = e

    t = threading.Thread(target=work)
    t.start()
    t.join(300)
    assert not t.is_alive(), "still writing after 300 s"
    if "error" in out:
        raise out["error"]
    return out["value"]


@pytest.mark.slow
def test_deep_nesting_writes_in_a_thread_with_the_default_stack() -> None:
    from plistspec.emit_elisp import to_elisp, tool_form

    depth = 50_000
    tool = _deep_tool(depth)
    for text in (
        _in_thread(lambda: tool_form(tool, "gptel")[0]),
        _in_thread(lambda: tool_form(tool, "llm")[0]),
        _in_thread(lambda: to_elisp([tool], "gptel")[0]),
    ):
        assert text.count(":items") == depth // 2
        assert text.count("[") >= depth // 2
        # beyond MAX_INDENT the rest is one line: the text stays linear in the depth
        assert len(text) < 40 * depth

    # a key holding a line break puts the next column back at the left margin, so the
    # layout never reaches MAX_INDENT: multi-line at every one of the 50 000 levels
    low: dict = {"type": "string"}
    for _ in range(depth):
        low = {"a\nb": low, "type": "object"}
    low_tool = dict(tool, parameters={"type": "object", "properties": {"x": low}})
    text = _in_thread(lambda: tool_form(low_tool, "gptel")[0])
    assert text.count(":a\\\nb") == depth
    assert max(len(line) for line in text.split("\n")) < 200
