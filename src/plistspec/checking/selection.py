"""Choosing rules: which codes ``plistspec check`` reports, as ruff chooses them.

Owns: rule selectors (a code ``PS317``, a prefix ``PS3`` / ``PS31``, or ``ALL``), their
validation, and how layers of ``select`` / ``extend-select`` / ``ignore`` (the
configuration file, then the command line) resolve to one set of codes.

Resolution, per layer (ruff's rules): a layer with ``select`` starts from nothing, one
without starts from the previous layer's set (the first layer from every code). Each
code then follows the *most specific* selector of the layer that matches it (the longest
prefix, ``ALL`` being the shortest); on a tie ``ignore`` wins. So ``select = ["PS3"],
ignore = ["PS33"], extend-select = ["PS333"]`` reports PS3xx except PS330-PS339 but
with PS333.

A few codes are always reported, whatever is selected: a syntax error (PS001: nothing
else can be trusted), an internal error (PS332) and input/output errors (PS90x).
"""

from __future__ import annotations

from collections.abc import Iterable

from plistspec.core.record import Record

__all__ = [
    "ALWAYS",
    "Layer",
    "Selection",
    "split_selectors",
    "invalid_selector",
    "matches",
]

ALWAYS = frozenset({"PS001", "PS332", "PS901", "PS902"})


def split_selectors(values: Iterable[str]) -> list[str]:
    """``("PS3,PS4", "PS901")`` → ``["PS3", "PS4", "PS901"]`` (upper-cased, blanks dropped)."""
    out = []
    for v in values:
        for part in v.split(","):
            part = part.strip().upper()
            if part:
                out.append(part)
    return out


def invalid_selector(sel: str, codes: Iterable[str] | None = None) -> str | None:
    """Why ``sel`` is not a selector (None when it is): it must be ``ALL`` or a prefix of
    at least one known code."""
    if sel == "ALL":
        return None
    if codes is None:
        from plistspec.core.codes import CODES

        codes = CODES
    if len(sel) >= 2 and any(c.startswith(sel) for c in codes):
        return None
    return f"{sel!r} is not a code or a prefix of one (e.g. PS3, PS317, ALL)"


def _specificity(sel: str) -> int:
    return 0 if sel == "ALL" else len(sel)


def matches(sel: str, code: str) -> bool:
    return sel == "ALL" or code.startswith(sel)


class Layer(Record):
    """One source of choices (a configuration file, the command line)."""

    __slots__ = ("select", "extend_select", "ignore")

    def __init__(
        self,
        select: list[str] | None = None,
        extend_select: list[str] | None = None,
        ignore: list[str] | None = None,
    ) -> None:
        self.select = select
        self.extend_select: list[str] = [] if extend_select is None else extend_select
        self.ignore: list[str] = [] if ignore is None else ignore

    def decide(self, code: str, before: bool) -> bool:
        """Whether ``code`` is on after this layer, given whether it was on before it."""
        best_on = max(
            (_specificity(s) for s in (self.select or []) + self.extend_select if matches(s, code)),
            default=-1,
        )
        best_off = max((_specificity(s) for s in self.ignore if matches(s, code)), default=-1)
        if best_on < 0 and best_off < 0:
            return False if self.select is not None else before
        return best_on > best_off


class Selection(Record):
    """Layers applied in order, plus per-file ignores (``(glob, selectors)``, matched by
    the caller against the file's path)."""

    __slots__ = ("layers",)

    def __init__(self, layers: list[Layer] | None = None) -> None:
        self.layers: list[Layer] = [] if layers is None else layers

    def enabled(self, code: str) -> bool:
        if code in ALWAYS:
            return True
        on = True
        for layer in self.layers:
            on = layer.decide(code, on)
        return on
