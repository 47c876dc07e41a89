"""The jobs the commands run, composed from the stages: Elisp → IR → JSON, lowered or not.

Owns: the ``to-json`` job (:mod:`.tools`: ``read_tools``, ``to_provider``, ``to_json``,
which :mod:`plistspec.api` re-exports), its streaming path for big files (:mod:`.stream`),
the lowering jobs of ``to-json --lower`` and ``from-json --target`` (:mod:`.lowered`), and
where their diagnostics are in the input (:mod:`.place` for Elisp and JSON rewrites,
:mod:`.jsonplace` for from-json's diagnostics). Pure functions: nothing prints.

Layer 6 of docs/architecture.md: may import the emitters, replay, lowering, the sources,
elisp and core; independent of :mod:`plistspec.lint`.
Public: each module's ``__all__``.
"""
