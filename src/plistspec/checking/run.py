"""One input checked as the user chose: the findings ``plistspec check`` reports for it.

A file that is not Emacs Lisp (``.py``, a Markdown/Org file without an Emacs Lisp
source block) gets one PS003 (:func:`plistspec.elisp.embedded.not_elisp`); a Markdown/Org file's source blocks
are checked where they are (:mod:`plistspec.elisp.embedded`).

Owns: the composition checking → rule selection (configuration, command line,
per-file ignores) → in-source suppressions → findings about the suppressions
themselves, as one function of a text (:func:`findings`), which ``check`` prints and the
fix engine (:mod:`plistspec.checking.fixes`) re-runs after each round of fixes. Suppression is a
filter after checking: it never changes what :func:`plistspec.checking.checker.check_text` sees.
"""

from __future__ import annotations

from plistspec.checking.config import Config
from plistspec.checking.selection import Layer, Selection
from plistspec.core.diagnostics import Diagnostic
from plistspec.core.record import Record

__all__ = ["Settings", "findings", "settings_for"]

_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


class Settings(Record):
    """What applies to one input: its configuration plus the command line's choices."""

    __slots__ = ("config", "cli", "target", "dialect")

    def __init__(
        self,
        config: Config | None = None,
        cli: Layer | None = None,
        target: str | None = None,
        dialect: str | None = None,
    ) -> None:
        self.config = Config() if config is None else config
        self.cli = Layer() if cli is None else cli
        self.target = target
        self.dialect = dialect

    @property
    def selection(self) -> Selection:
        return Selection([self.config.layer, self.cli])


def settings_for(config: Config, cli: Layer, target: str | None, dialect: str | None) -> Settings:
    """The command line's ``-t``/``-d`` win over the configuration's ``target``/``dialect``."""
    return Settings(config, cli, target or config.target, dialect or config.dialect)


def findings(
    text: str,
    path: str | None,
    settings: Settings,
    tally: dict[str, int] | None = None,
    names: object = None,
) -> list[Diagnostic]:
    """The findings of ``text`` (named ``path``) under ``settings``, sorted by position.
    ``tally``: as :func:`plistspec.checking.checker.check_text`'s (no tool forms in a file
    that is not Emacs Lisp; in a Markdown or Org file, those of its Emacs Lisp blocks).
    ``names``: as :func:`plistspec.checking.checker.check_text`'s (PS340 across files)."""
    from plistspec.checking.checker import check_text

    selection = settings.selection
    cache: dict[str, bool] = {}

    def enabled(code: str) -> bool:
        on = cache.get(code)
        if on is None:
            on = cache[code] = selection.enabled(code) and not settings.config.per_file_off(
                path, code
            )
        return on

    from plistspec.elisp.embedded import elisp_view, not_elisp

    view = elisp_view(path, text)
    if view.text is None:  # not Emacs Lisp: said once, not as a stream of syntax errors
        if tally is not None:
            tally["tool_forms"] = 0
        return [d for d in [not_elisp(path, text, view.language)] if enabled(d.code)]
    from plistspec.elisp.embedded import to_file_offsets

    found = check_text(view.text, path, settings.target, settings.dialect, tally=tally, names=names)
    diags = [d for d in to_file_offsets(found, view.text, text) if enabled(d.code)]
    if "plistspec" not in text:  # no directive can be there: no need to load suppress.py
        return diags
    from plistspec.checking.suppress import apply_suppressions

    kept, about = apply_suppressions(text, diags, enabled, path=path)
    about = [d for d in about if enabled(d.code)]
    if not about:
        return kept
    out = kept + about
    out.sort(
        key=lambda d: (d.start if d.start >= 0 else -1, _SEVERITY_ORDER.get(d.severity, 3), d.code)
    )
    return out
