"""The names of the JSON formats and check targets, in one place.

Owns: the vocabulary the CLI, the emitters, the JSON reader and the linters share. Kept in
a module of its own with no imports, so the command line can offer the choices without
importing the code behind them.
"""

from __future__ import annotations

__all__ = ["FORMATS", "TARGETS", "DIALECTS", "LOWER_TARGETS", "REPORT_FORMATS", "report_is_empty"]

# What to-json / from-py emit and from-json reads: the IR, or a provider's tools array.
FORMATS = (
    "ir",
    "openai",
    "openai-responses",
    "anthropic",
    "gemini",
    "vertex",
    "bedrock",
    "ollama",
    "mcp",
)

# How `--output-format` prints its findings (plistspec.checking.report renders each).
REPORT_FORMATS = ("gnu", "json", "github", "sarif")
# the report formats that are one line per diagnostic and nothing else
_LINE_FORMATS = ("gnu", "github")


def report_is_empty(count: int, fmt: str) -> bool:
    """The report of ``count`` diagnostics in ``fmt`` is empty (no diagnostic, one line
    each): the caller need not load :mod:`plistspec.checking.report` to know it."""
    return count == 0 and fmt in _LINE_FORMATS


# What `check --target` knows: the providers, with OpenAI's strict mode as its own target.
TARGETS = (
    "openai",
    "openai-strict",
    "openai-responses",
    "anthropic",
    "gemini",
    "bedrock",
    "ollama",
    "mcp",
    # judged by the rules table alone (grammars/providers/rules.json)
    "gemini-jsonschema",
    "anthropic-strict",
    "mcp-2025-06-18",
    "mcp-2025-11-25",
    "mcp-2026-07-28",
)

DIALECTS = ("gptel", "llm")

# What `to-json --lower` and `from-json --target` lower for (grammars/providers/rules.json;
# `mcp` is the latest revision, 2026-07-28).
LOWER_TARGETS = (
    "gemini",
    "gemini-jsonschema",
    "openai",
    "openai-strict",
    "openai-responses",
    "anthropic",
    "anthropic-strict",
    "bedrock",
    "ollama",
    "mcp",
    "mcp-2025-06-18",
    "mcp-2025-11-25",
    "mcp-2026-07-28",
)

# What `from-json --target` lowers for: the LOWER_TARGETS gptel/llm have a backend for.
ELISP_TARGETS = (
    "gemini",
    "openai",
    "openai-strict",
    "openai-responses",
    "anthropic",
    "anthropic-strict",
    "bedrock",
    "ollama",
)
