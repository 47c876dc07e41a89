"""Pausing Python's cyclic garbage collector around a whole pipeline run.

Owns: :func:`paused`, a context manager. The pipeline builds millions of small acyclic
objects (datums, JSON values); each generation-2 collection would walk all of them
again, which once cost more than the work itself. Reference counting still frees
everything at once; the collector runs again when the block ends.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["paused"]


@contextmanager
def paused() -> Iterator[None]:
    """Run the block with the cyclic collector off (restored to its state after)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        # what the block allocated goes straight to the oldest generation (no walk): left
        # in the youngest, the first collection after enabling would walk all of it
        gc.freeze()
        gc.unfreeze()
        if was:
            gc.enable()
