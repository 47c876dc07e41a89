"""Emacs Lisp text ↔ datums: a reader that agrees with Emacs's ``read``, and a printer
whose output Emacs reads back exactly.

Owns: the datums (:mod:`.datum`), the reader (:mod:`.reader` with :mod:`.scanner`,
:mod:`.number`, :mod:`.escapes`, :mod:`.hash_syntax`, :mod:`.errors`, :mod:`.recover` for a
file with a bad form in it), the printer (:mod:`.printer`, :mod:`.comment` for text put in
comments), what visiting a file puts in the buffer (:mod:`.source`, :mod:`.eol`), plist
access on datums (:mod:`.plists`) and whether loading a form can run code from it
(:mod:`.loadsafe`). Nothing here knows what a tool is.

Layer 2 of docs/architecture.md: may import :mod:`plistspec.core` only.
Public: each module's ``__all__`` (``read_all``, ``read_recovering``, the datum classes,
``print_*``, ``buffer_text``, ``is_plist``/``plist_pairs``/``key_name``).
"""
