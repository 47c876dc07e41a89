"""Test helpers: Elisp text → IR tools / provider JSON through the real pipeline."""

from __future__ import annotations

from typing import Any

from plistspec.elisp.reader import read_all
from plistspec.emit_json import emit
from plistspec.extract import find_tools
from plistspec.replay import lower


def lower_text(text: str, dialect: str | None = None) -> tuple[Any, list]:
    forms, diags = find_tools(read_all(text), text)
    assert len(forms) == 1, diags
    return lower(forms[0], dialect, "t.el")


def gptel(args: str, fmt: str, extra: str = ':name "t" :description "d"') -> Any:
    """The provider JSON gptel sends for a tool with ``:args ARGS`` (text)."""
    text = (
        f"(gptel-make-tool {extra} :args {args})"
        if args is not None
        else f"(gptel-make-tool {extra})"
    )
    tool, diags = lower_text(text)
    assert tool is not None, diags
    value, diags = emit([tool], fmt)
    assert diags == [], diags
    return value


def llm(args: str, fmt: str = "openai") -> Any:
    tool, diags = lower_text(f'(llm-make-tool :name "t" :description "d" :args {args})')
    assert tool is not None, diags
    value, diags = emit([tool], fmt)
    assert diags == []
    return value


def gptel_params(args: str, fmt: str) -> Any:
    v = gptel(args, fmt)
    if fmt in ("openai", "ollama"):
        return v[0]["function"]["parameters"]
    if fmt == "openai-responses":
        return v[0]["parameters"]
    if fmt == "anthropic":
        return v[0]["input_schema"]
    if fmt == "bedrock":
        return v[0]["toolSpec"]["inputSchema"]["json"]
    return v[0]["functionDeclarations"][0]["parameters"]
