"""``plistspec serve``: Emacs tools for any MCP client, on the official ``mcp`` SDK.

Owns: what is listed (:mod:`.catalog`: IR tools → MCP ``Tool`` entries, names mapped to
what clients accept), running one call in Emacs from asyncio (:mod:`.runner`), the MCP
server over stdio and HTTP (:mod:`.server`) and putting one together from files or a
running Emacs (:mod:`.setup`). The SDK is imported only here, and only when serving.

Layer 8 of docs/architecture.md: may import emacs, lint, pipeline and everything below;
independent of :mod:`plistspec.checking` and :mod:`plistspec.fmt`.
Public: ``setup.serve_files``/``serve_emacs``, ``server.make_server``/``run_stdio``/``run_http``.
"""
