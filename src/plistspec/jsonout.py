"""The one JSON printer of plistspec's output (semantics.md §6.3).

Owns: :func:`dumps`, ``json.dumps(value, indent=2, ensure_ascii=False)`` plus a final
newline: the form of every file in ``expected/``.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["dumps"]


def dumps(value: Any) -> str:
    """``value`` printed as the expected files are: indent 2, non-ASCII raw, final newline."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"
