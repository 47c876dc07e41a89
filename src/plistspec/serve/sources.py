"""Where the served tools come from, kept current.

Owns: the served catalogue of one server and how it follows Emacs. Emacs indexes its
tools (``plistspec-serve-index.el``) and names each state of them by a *generation*; every
refresh asks for the registry *given the generation already known*, and an unchanged
Emacs answers with that generation alone, so a ``tools/list`` or a watch costs one small
request. A changed registry (a tool defined, redefined or removed), a restarted Emacs or
one that comes back after being unreachable rebuilds the catalogue (each printed form is
read once: a cache by text, holding only the forms of the current registry, so a tool
redefined again and again costs nothing lasting) and :meth:`Source.refresh` says the list
changed, so the server can send ``notifications/tools/list_changed``.

* :class:`EmacsSource` (``serve --emacs``): gptel's registry, filtered in Emacs by
  category and name (so a name found in two categories is the one gptel would use among
  those served), plus an llm variable.
* :class:`FileSource` (``serve FILE.el``): the tools read statically from the files
  (with their positions, exactly ``to-json -t mcp``), each name at the definition that
  plistspec's own Emacs recorded as the one it calls; tools that only Emacs saw (made by
  a macro or at load time) are read back from it, as is a tool redefined at run time.
  A tool whose file failed to load before defining it keeps its file's load error; the
  tools that file defined before the error run.

Diagnostics found after start-up are logged once each (standard error); those of the
first build are returned to the command.
"""

from __future__ import annotations

import logging
from typing import Any

from plistspec.core.diagnostics import Diagnostic
from plistspec.serve.catalog import ServedTool, build_catalog
from plistspec.serve.runner import Runner

__all__ = ["Source", "EmacsSource", "FileSource"]

log = logging.getLogger("plistspec.serve")


class Source:
    """The catalogue of one server; :meth:`refresh` keeps it current."""

    def __init__(self, runner: Runner, lower: str | None, map_names: bool) -> None:
        self.runner = runner
        self.lower = lower
        self.map_names = map_names
        self.tools: list[ServedTool] = []
        self.by_name: dict[str, ServedTool] = {}
        self.generation: str | None = None
        self.pid: int | None = None
        self.down = False
        self.version = 0  # incremented whenever the served list changes
        # printed form -> (its IR tools, the lines of its errors): only the forms of the
        # current registry are kept (a redefinition's old text is forgotten), and of the
        # lines already said only those still true, so nothing grows with time
        self._forms: dict[str, tuple[list[dict[str, Any]], set[str]]] = {}
        self._used: set[str] = set()
        self._said: set[str] = set()

    # -- building ---------------------------------------------------------------------

    def _read_form(self, entry: dict[str, Any], origin: str) -> list[dict[str, Any]]:
        """The IR tools of one registry entry, read once per printed form."""
        import copy

        from plistspec.emacs.registry import tools_from_registry

        form = str(entry.get("form", ""))
        key = f"{origin}\0{entry.get('function_kind')}\0{form}"
        self._used.add(key)
        if key not in self._forms:
            tools, diags = tools_from_registry([entry], origin)
            lines = set()
            for d in diags:
                if d.is_error:
                    self._say(d)
                    lines.add(d.render())
            self._forms[key] = (tools, lines)
        return copy.deepcopy(self._forms[key][0])

    def _build(self, reply: dict[str, Any]) -> list[Diagnostic]:
        """:meth:`build`, then forget what the new registry no longer holds: the forms
        not read for it, the lines said that are no longer said."""
        self._used = set()
        diags = self.build(reply)
        self._forms = {k: v for k, v in self._forms.items() if k in self._used}
        true = {d.render() for d in diags}
        for _tools, lines in self._forms.values():
            true |= lines
        self._said &= true
        return diags

    def build(self, reply: dict[str, Any]) -> list[Diagnostic]:  # pragma: no cover
        raise NotImplementedError

    def _set(self, served: list[ServedTool]) -> bool:
        changed = [t.entry for t in served] != [t.entry for t in self.tools]
        self.tools = served
        self.by_name = {t.name: t for t in served}
        if changed:
            self.version += 1
        return changed

    def _say(self, d: Diagnostic) -> None:
        line = d.render()
        if line not in self._said:
            self._said.add(line)
            log.warning("%s", line)

    def say_later(self, diags: list[Diagnostic]) -> None:
        """Remember ``diags`` as said (the command printed them at start-up)."""
        self._said.update(d.render() for d in diags)

    # -- following Emacs --------------------------------------------------------------

    def payload(self) -> dict[str, Any]:
        return {"op": "registry", "source": self.runner.source}

    def first(self, reply: dict[str, Any]) -> list[Diagnostic]:
        """Build the catalogue from the registry ``reply`` read at start-up; its
        diagnostics (the command prints them)."""
        self.generation = reply.get("generation")
        self.pid = self.runner.client.pid
        diags = self._build(reply)
        self.say_later(diags)
        return diags

    async def refresh(self, force: bool = False) -> bool:
        """Read the registry again (cheaply when unchanged); True when the served list
        changed or Emacs came back. Raises ``EmacsError`` when Emacs cannot be reached."""
        from plistspec.emacs.client import EmacsError

        payload = self.payload()
        if force:  # a call found a definition the index did not: index again
            payload["rebuild"] = True
        elif self.generation is not None:
            payload["known"] = self.generation
        try:
            reply = await self.runner.request(payload, 10.0)
        except EmacsError:
            self.down = True
            raise
        came_back = self.down or (self.pid is not None and self.runner.client.pid != self.pid)
        self.down = False
        self.pid = self.runner.client.pid
        if reply.get("unchanged") and reply.get("generation") == self.generation:
            return came_back
        self.generation = reply.get("generation")
        diags = self._build(reply)
        for d in diags:
            if d.severity != "info":
                self._say(d)
        return self._set_last or came_back

    _set_last = False


class EmacsSource(Source):
    """The tools registered in a running Emacs (``serve --emacs``)."""

    def __init__(self, runner: Runner, lower: str | None, map_names: bool, where: str) -> None:
        super().__init__(runner, lower, map_names)
        self.where = where  # emacs:SERVER, for diagnostics

    def build(self, reply: dict[str, Any]) -> list[Diagnostic]:
        from plistspec.emacs.registry import registry_diagnostics

        source = self.runner.source
        diags = registry_diagnostics(reply, self.where, source.get("llm_variable"))
        tools: list[dict[str, Any]] = []
        fingerprints: dict[str, str] = {}
        for e in reply.get("tools") or []:
            tools.extend(self._read_form(e, "emacs"))
            fingerprints[str(e.get("name"))] = str(e.get("fingerprint"))
        served, more = build_catalog(tools, self.lower, self.map_names, fingerprints=fingerprints)
        self._set_last = self._set(served)
        return diags + list(more)


class FileSource(Source):
    """The tools of files, run by plistspec's own Emacs (``serve FILE.el``)."""

    def __init__(
        self,
        runner: Runner,
        lower: str | None,
        map_names: bool,
        static: list[dict[str, Any]],
        load_errors: dict[str, str],
    ) -> None:
        super().__init__(runner, lower, map_names)
        self.static = static  # every tool read from the files, in order
        self.load_errors = load_errors  # path -> message
        self.first_prints: dict[str, str] = {}  # name -> fingerprint at the first build

    def build(self, reply: dict[str, Any]) -> list[Diagnostic]:
        from plistspec.emacs.registry import registry_diagnostics

        diags = [
            d
            for d in registry_diagnostics(reply, "emacs", None)
            if d.code != "PS801"  # said by the catalogue, at the file's position
        ]
        recorded = {str(e.get("name")): e for e in reply.get("tools") or []}
        counts = {str(s.get("name")): int(s.get("count") or 1) for s in reply.get("shadowed") or []}
        by_name: dict[str, list[dict[str, Any]]] = {}
        for t in self.static:
            by_name.setdefault(str(t.get("name")), []).append(t)
        if not self.first_prints:
            self.first_prints = {n: str(e.get("fingerprint")) for n, e in recorded.items()}
        tools: list[dict[str, Any]] = []
        served_index: dict[str, int] = {}
        fingerprints: dict[str, str] = {}
        load_errors: dict[str, str] = {}
        done: set[str] = set()
        for t in self.static:
            name = str(t.get("name"))
            if name in done:
                continue
            done.add(name)
            defs = by_name[name]
            e = recorded.get(name)
            if e is None:  # never defined in Emacs: its file failed before, or never ran it
                tools.extend(defs)
                for p in {(d.get("metadata") or {}).get("source", {}).get("path") for d in defs}:
                    if p in self.load_errors:
                        load_errors[name] = f"{p} failed to load in Emacs: {self.load_errors[p]}"
                        break
                continue
            fingerprints[name] = str(e.get("fingerprint"))
            same = self.first_prints.get(name) == fingerprints[name]
            if same and counts.get(name, 1) == len(defs):
                tools.extend(defs)
                served_index[name] = int(e.get("ordinal") or len(defs)) - 1
            else:  # Emacs has a definition the files do not show: serve Emacs's
                tools.extend(self._read_form(e, "emacs"))
        for name, e in recorded.items():
            if name not in done:  # made by a macro, at load time, or later
                tools.extend(self._read_form(e, "emacs"))
                fingerprints[name] = str(e.get("fingerprint"))
        served, more = build_catalog(
            tools,
            self.lower,
            self.map_names,
            served_index=served_index,
            fingerprints=fingerprints,
            load_errors=load_errors,
        )
        self._set_last = self._set(served)
        return diags + list(more)
