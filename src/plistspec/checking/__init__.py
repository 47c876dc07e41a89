"""``plistspec check``'s engine: every diagnostic for a text, and what to do with them.

Owns: the checking flow read → extract → replay → lint (:mod:`.checker` for a whole text,
:mod:`.stream` for a big file a batch at a time, both through :mod:`.forms`), one input
checked as the user chose (:mod:`.run`), choosing rules (:mod:`.selection`), suppression
comments (:mod:`.suppress`), configuration files (:mod:`.config`), applying fixes
(:mod:`.fixes`) and every output format (:mod:`.report`: gnu, json, github, sarif).
(Named ``checking``: a subpackage ``plistspec.check`` would replace the public function
``plistspec.check``.)

Layer 8 of docs/architecture.md: may import lint, pipeline, emacs and everything below;
independent of :mod:`plistspec.fmt` and :mod:`plistspec.serve`.
Public: ``checker.check_text``, ``run.findings``/``settings_for``, ``fixes.fix_text``,
``report.render``, ``config.ConfigCache``, ``selection.Selection``.
"""
