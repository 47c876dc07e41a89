"""Provider and MCP tool JSON → IR: one of the sources of the flow.

Owns: recognising each element's format (:mod:`.detect`: OpenAI chat and Responses,
Anthropic, Gemini, Bedrock, Ollama, MCP ``tools/list``, plistspec's IR), turning it into an
IR tool (:mod:`.convert`), ``$ref`` inlining with a bound (:mod:`.refs`), the IR's Elisp
metadata made safe to write (:mod:`.ir_meta`), tools with their schemas kept exactly as
written for ``--lower`` (:mod:`.rawjson`) and the pieces they share (:mod:`.common`).

Layer 3 (sources) of docs/architecture.md: may import :mod:`plistspec.core` and
:mod:`plistspec.elisp`; independent of the other sources.
Public: :func:`plistspec.fromjson.detect.from_json`, :func:`plistspec.fromjson.rawjson.raw_tools`.
"""
