"""Which JSON Schema ``type`` a decoded JSON value has.

Owns: :func:`is_json_type` (and :data:`only_strings`, :func:`scalar_type`), the one test every stage uses (the call validator's
messages, mapping a model's call back, lowering's enum split): ``integer`` is a number
with no fraction (``1.0`` counts, as JSON Schema says), ``true``/``false`` are never
numbers, and an integer of any size is tested without a conversion to float (a model may
send ``1e400`` digits long: no overflow).
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["is_json_type", "JSON_TYPES", "only_strings", "scalar_type"]

#: the seven type names of JSON Schema
JSON_TYPES = frozenset(("string", "number", "integer", "boolean", "null", "object", "array"))
#: ``only_strings(map(type, values))``: every value is a ``str`` (a list of names, such as
#: ``required`` or a type list, holds nothing else), asked in C on the lowering's hot path
only_strings = frozenset((str,)).issuperset


def is_json_type(value: Any, t: Any) -> bool:
    """``value`` (as :func:`json.loads` gives it) is of the JSON Schema type named ``t``;
    False for a name that is no JSON type."""
    if t == "string":
        return isinstance(value, str)
    if t == "boolean":
        return isinstance(value, bool)
    if t == "null":
        return value is None
    if t == "object":
        return isinstance(value, dict)
    if t == "array":
        return isinstance(value, list)
    if t == "number" or t == "integer":
        if isinstance(value, bool):
            return False
        if isinstance(value, int):
            return True
        if isinstance(value, float):
            return t == "number" or (math.isfinite(value) and value.is_integer())
    return False


def scalar_type(value: Any) -> str | None:
    """The JSON Schema type of a scalar ``value`` (``null``, ``boolean``, ``integer``
    for a Python int, ``number`` for a float, ``string``); None for anything else."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return None
