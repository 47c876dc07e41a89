"""A running Emacs as a source of tools and as the place where tools run.

Owns: :mod:`.client` (the Emacs server protocol over its socket), :mod:`.daemon`
(an Emacs plistspec starts for itself, always stopped) and :mod:`.registry` (the tools
registered in a running Emacs → the IR, through the same reader, extractor and lowerer
as static reading). The Elisp half is ``plistspec-serve.el`` and the parts it
requires (:data:`.client.ELISP_FILES`, package data here, linked from ``elisp/``).
:mod:`.package_files` says where the whole Emacs package installed with plistspec is
(``plistspec emacs-path``).

Layer 7 of docs/architecture.md: may import :mod:`plistspec.pipeline` (a registry's
forms are read as a file's are) and everything below. Public: ``client.EmacsClient``,
``daemon.OwnEmacs``, ``registry.tools_from_registry``.
"""
