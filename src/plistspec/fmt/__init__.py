"""``plistspec fmt``'s engine: tool forms rewritten in the canonical layout, proven unchanged.

Owns: the stages of a rewrite (:mod:`.rewrite`: screen, place comments, replay, lint,
write), the proof that a rewritten form sends exactly what the original sent
(:mod:`.verify`, with the cheap token-level proof of :mod:`.proof`) and the streaming
path for big files (:mod:`.stream`). The layout itself is the Elisp emitter's
(:mod:`plistspec.emit_elisp`).

Layer 8 of docs/architecture.md: may import lint, pipeline, emacs and everything below;
independent of :mod:`plistspec.checking` and :mod:`plistspec.serve`.
Public: :func:`plistspec.fmt.rewrite.format_text`, :func:`plistspec.fmt.stream.format_stream`.
"""
