"""hypothesis-jsonschema 0.23.1 on Hypothesis 6.170.10 or newer.

hypothesis-jsonschema draws the keys of an object with Hypothesis's internal
``cu.many(...)`` and its old ``more()``/``reject()`` loop; Hypothesis 6.170.10 made
``many`` a context manager iterated with ``for _ in elements`` and removed ``more()``, so
every schema with ``required`` fails to draw (``'many' object has no attribute 'more'``).
:func:`patch` gives hypothesis-jsonschema the old loop on top of the new class (only when
``more`` is missing), for the tests; nothing of plistspec uses either.
"""

from __future__ import annotations

import types
from typing import Any

__all__ = ["patch"]


def patch() -> None:
    import hypothesis.internal.conjecture.utils as cu
    import hypothesis_jsonschema._from_schema as fs

    if hasattr(cu.many, "more") or getattr(fs, "_plistspec_patched", False):
        return
    new_many = cu.many

    class _OldMany:
        def __init__(self, data: Any, **kw: Any) -> None:
            self._m = new_many(data, **kw)
            self._m.__enter__()
            self._it = iter(self._m)
            self._open = True

        def more(self) -> bool:
            if not self._open:
                return False
            try:
                next(self._it)
            except StopIteration:
                self._open = False
                self._m.__exit__(None, None, None)
                return False
            return True

        def reject(self, why: str | None = None) -> None:
            self._m.reject(why)

    fs.cu = types.SimpleNamespace(many=_OldMany)
    fs._plistspec_patched = True
