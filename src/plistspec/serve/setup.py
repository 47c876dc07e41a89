"""Putting a ``plistspec serve`` together: tools, an Emacs to run them, the catalogue.

Owns: the two ways of serving.

* Files (``serve FILE.el...``): the tools are read statically (the ``to-json`` path);
  plistspec starts its own Emacs (:class:`~plistspec.emacs.daemon.OwnEmacs`) and loads
  the files there, recording every tool they create (so functions are found by name,
  whether gptel/llm are installed or plistspec's shims stand in). Tools that Emacs
  created but static reading could not see (built by a macro, at load time) are
  served too, read back from Emacs's registry through the same lowering.
* A running Emacs (``serve --emacs [NAME]``): the tools registered there, gptel's
  registry and an llm variable, read by :mod:`plistspec.emacs.registry`; the list is
  read again at every ``tools/list``.

Nothing here prints: problems are diagnostics, returned.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from plistspec.core.diagnostics import Diagnostic

__all__ = ["Options", "serve_files", "serve_emacs"]


@dataclass
class Options:
    lower: str | None = None
    map_names: bool = True
    allow_confirm: bool = False
    timeout: float = 60.0
    load_path: tuple[str, ...] = ()
    init_file: str | None = None
    emacs_program: str = "emacs"
    llm_variable: str | None = None
    categories: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    closers: list[Any] = field(default_factory=list)


def _emacs_error(message: str) -> Diagnostic:
    return Diagnostic("PS804", "error", message)


def serve_files(texts: list[tuple[str, str]], opts: Options):
    """``(state, diagnostics)`` serving the tools of ``texts`` (``(path, text)`` pairs);
    ``state`` is None when nothing can be served. ``opts.closers`` gets the Emacs stop."""
    from plistspec.emacs.client import EmacsError
    from plistspec.emacs.daemon import InitFileError, OwnEmacs
    from plistspec.emacs.registry import tools_from_registry
    from plistspec.pipeline.tools import read_tools
    from plistspec.serve.catalog import build_catalog
    from plistspec.serve.runner import Runner
    from plistspec.serve.server import ServeState

    tools: list[dict] = []
    diags: list[Diagnostic] = []
    for path, text in texts:
        found, more = read_tools(text, path)
        tools.extend(found)
        diags.extend(more)
    emacs = OwnEmacs(opts.emacs_program, opts.load_path, opts.init_file)
    try:
        client = emacs.start()
    except InitFileError as e:
        return None, diags + [Diagnostic("PS803", "error", str(e), path=opts.init_file)]
    except EmacsError as e:
        return None, diags + [_emacs_error(str(e))]
    opts.closers.append(emacs.stop)
    load_errors: dict[str, str] = {}
    for path, text in texts:
        if path == "-" or not os.path.isfile(path):  # standard input: load a private copy
            assert emacs.dir is not None
            copy = os.path.join(emacs.dir, f"stdin-{len(load_errors)}.el")
            with open(copy, "w", encoding="utf-8") as f:
                f.write(text)
            err = emacs.load(copy)
        else:
            err = emacs.load(path)
        if err is not None:
            load_errors[path] = err
            diags.append(Diagnostic("PS803", "error", f"cannot load in Emacs: {err}", path=path))
    try:
        reply = client.request({"op": "registry", "source": "recorded"})
    except EmacsError as e:
        return None, diags + [_emacs_error(str(e))]
    static_names = {t.get("name") for t in tools}
    extra = [e for e in reply.get("tools") or [] if e.get("name") not in static_names]
    more_tools, more = tools_from_registry(extra, "emacs")
    tools.extend(more_tools)
    diags.extend(d for d in more if d.is_error)
    served, more = build_catalog(tools, opts.lower, opts.map_names)
    diags.extend(more)
    runner = Runner(client, "recorded", opts.timeout)
    state = ServeState(served, runner, opts.allow_confirm, load_errors=load_errors)
    return state, diags


def serve_emacs(server_name: str | None, opts: Options):
    """``(state, diagnostics)`` serving the tools registered in a running Emacs."""
    import asyncio
    import json

    from plistspec.emacs.client import EmacsClient, EmacsError, socket_path
    from plistspec.emacs.registry import filter_entries, tools_from_registry
    from plistspec.serve.catalog import build_catalog
    from plistspec.serve.runner import Runner
    from plistspec.serve.server import ServeState

    client = EmacsClient(socket_path(server_name), timeout=opts.timeout + 5.0)
    source = {"llm_variable": opts.llm_variable}
    cache: dict[str, Any] = {}

    def catalogue():
        client.ensure_loaded()
        reply = client.request({"op": "registry", "source": source})
        entries = filter_entries(list(reply.get("tools") or []), opts.categories, opts.names)
        key = json.dumps(entries, sort_keys=True)
        if cache.get("key") == key:  # unchanged since the last tools/list: no re-lowering
            return cache["served"], []
        tools, diags = tools_from_registry(entries, "emacs")
        served, more = build_catalog(tools, opts.lower, opts.map_names)
        cache.update(key=key, served=served)
        return served, diags + list(more)

    try:
        served, diags = catalogue()
    except EmacsError as e:
        return None, [_emacs_error(str(e))]

    async def refresh():
        lock = runner._lock  # registry reads are Emacs requests too: serialize them
        async with lock:
            served, _diags = await asyncio.to_thread(catalogue)
        return served

    runner = Runner(client, source, opts.timeout)
    state = ServeState(served, runner, opts.allow_confirm, refresh=refresh)
    return state, diags
