"""Putting a ``plistspec serve`` together: tools, an Emacs to run them, the catalogue.

Owns: the two ways of serving.

* Files (``serve FILE.el...``): the tools are read statically (the ``to-json`` path);
  plistspec starts its own Emacs (:class:`~plistspec.emacs.daemon.OwnEmacs`) and loads
  the files there, recording every tool they create (so functions are found by name,
  whether gptel/llm are installed or plistspec's shims stand in). If that Emacs dies,
  the next request starts it again (files loaded again) once; a call it died in reports
  it. See :class:`~plistspec.serve.sources.FileSource` for what is served.
* A running Emacs (``serve --emacs [NAME]``): the tools registered there, gptel's
  registry and an llm variable, indexed in that Emacs and followed by
  :class:`~plistspec.serve.sources.EmacsSource`; ``plistspec-serve.el`` (and its parts)
  is installed on demand with every request, so a restarted Emacs serves again at the next request.

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
    poll: float = 1.0
    closers: list[Any] = field(default_factory=list)


def _emacs_error(message: str, where: str) -> Diagnostic:
    return Diagnostic("PS804", "error", message, path=where)


def _load_all(emacs: Any, texts: list[tuple[str, str]]) -> dict[str, str]:
    """Load every file into ``emacs``; ``path -> error`` of those that failed."""
    load_errors: dict[str, str] = {}
    for i, (path, text) in enumerate(texts):
        if path == "-" or not os.path.isfile(path):  # standard input: load a private copy
            assert emacs.dir is not None
            copy = os.path.join(emacs.dir, f"stdin-{i}.el")
            with open(copy, "w", encoding="utf-8") as f:
                f.write(text)
            err = emacs.load(copy)
        else:
            err = emacs.load(path)
        if err is not None:
            load_errors[path] = err
    return load_errors


def serve_files(texts: list[tuple[str, str]], opts: Options):
    """``(state, diagnostics)`` serving the tools of ``texts`` (``(path, text)`` pairs);
    ``state`` is None when nothing can be served. ``opts.closers`` gets the Emacs stop."""
    from plistspec.emacs.client import EmacsError
    from plistspec.emacs.daemon import InitFileError, OwnEmacs
    from plistspec.pipeline.tools import read_tools
    from plistspec.serve.runner import Runner
    from plistspec.serve.server import ServeState
    from plistspec.serve.sources import FileSource

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
        return None, diags + [_emacs_error(str(e), opts.emacs_program)]
    opts.closers.append(emacs.stop)
    opts.closers.append(client.close)
    load_errors = _load_all(emacs, texts)
    for path, err in load_errors.items():
        diags.append(Diagnostic("PS803", "error", f"cannot load in Emacs: {err}", path=path))

    async def restart():
        import asyncio

        def again():
            emacs.stop()
            new = emacs.start()
            source.load_errors = _load_all(emacs, texts)
            return new

        return await asyncio.to_thread(again)

    def alive() -> bool:
        return emacs.proc is not None and emacs.proc.poll() is None

    runner = Runner(client, "recorded", opts.timeout, restart=restart, alive=alive)
    source = FileSource(runner, opts.lower, opts.map_names, tools, load_errors)
    try:
        reply = client.request({"op": "registry", "source": "recorded"})
    except EmacsError as e:
        return None, diags + [_emacs_error(str(e), opts.emacs_program)]
    diags.extend(source.first(reply))
    state = ServeState(source, runner, opts.allow_confirm, poll=opts.poll)
    return state, diags


def serve_emacs(server_name: str | None, opts: Options):
    """``(state, diagnostics)`` serving the tools registered in a running Emacs."""
    from plistspec.emacs.client import EmacsClient, EmacsError, socket_path
    from plistspec.emacs.registry import source_payload
    from plistspec.serve.runner import Runner
    from plistspec.serve.server import ServeState
    from plistspec.serve.sources import EmacsSource

    where = f"emacs:{server_name or 'server'}"
    client = EmacsClient(socket_path(server_name), timeout=opts.timeout + 5.0)
    opts.closers.append(client.close)
    source_spec = source_payload(opts.llm_variable, opts.categories, opts.names)
    runner = Runner(client, source_spec, opts.timeout)
    source = EmacsSource(runner, opts.lower, opts.map_names, where)
    try:
        reply = client.request({"op": "registry", "source": source_spec})
    except EmacsError as e:
        return None, [_emacs_error(str(e), where)]
    diags = source.first(reply)
    state = ServeState(source, runner, opts.allow_confirm, poll=opts.poll)
    return state, diags
