"""What is wrong with a tool call, and the message a model reads about it.

Owns: :class:`Problem` (one finding: where in the arguments, what the schema expects,
what was sent) and :func:`message`, the tool result a model gets instead of running the
tool: every problem on one line, short enough to act on (the spirit of pydantic-ai's
retry prompt). ``plistspec-gptel-mode`` and ``plistspec serve`` send the same text.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

__all__ = ["Problem", "message", "shown", "pointer_of"]


class Problem(NamedTuple):
    pointer: str  # JSON pointer into the arguments ("" is the arguments object)
    expected: str  # what the schema wants there, in a few words
    got: str  # what was sent there ("nothing" for a missing argument)
    keyword: str = ""  # the JSON Schema keyword that failed (type, enum, required...)

    def line(self) -> str:
        where = self.pointer or "/"
        if self.keyword == "required":
            return f"{where}: missing (required), expected {self.expected}"
        if self.keyword in ("additionalProperties", "unevaluatedProperties"):
            return f"{where}: unexpected ({self.expected}); got {self.got}"
        return f"{where}: expected {self.expected}; got {self.got}"


def shown(value: Any, limit: int = 60) -> str:
    """``value`` as compact JSON, cut at ``limit`` characters."""
    try:
        s = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except RecursionError:
        return "(a value nested too deep to show)"
    except (TypeError, ValueError):
        s = repr(value)
    return s if len(s) <= limit else s[: limit - 1] + "…"


def pointer_of(parts: Any) -> str:
    """The JSON pointer of a path (keys and indexes)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def message(tool_name: str, problems: list[Problem], limit: int = 20) -> str:
    """The tool result that tells a model why ``tool_name`` was not run: arguments that
    are not JSON (keyword ``json``) and a check that ran out of time (``timeout``) are
    said as such, every other problem on its line."""
    if len(problems) == 1 and problems[0].keyword == "json":
        return (
            f"Error: tool {tool_name} was not run: its arguments are not valid JSON "
            f"({problems[0].got}). Call {tool_name} again with a JSON object of arguments."
        )
    if len(problems) == 1 and problems[0].keyword == "timeout":
        return (
            f"Error: tool {tool_name} was not run: its arguments could not be checked in "
            f"time ({problems[0].got}). Call {tool_name} again with simpler values."
        )
    n = len(problems)
    head = (
        f"Error: tool {tool_name} was not run: its arguments do not match its schema "
        f"({n} problem{'' if n == 1 else 's'})."
    )
    lines = [f"- {p.line()}" for p in problems[:limit]]
    if n > limit:
        lines.append(f"- ... and {n - limit} more")
    tail = f"Call {tool_name} again with arguments that fix {'it' if n == 1 else 'every one'}."
    return "\n".join([head, *lines, tail])
