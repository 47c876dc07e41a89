"""The run-time tool sets of ``plistspec-gptel-mode``: lowered per backend, cached by content.

Owns: :class:`Toolsets`, the state ``plistspec check --server`` keeps for Emacs, and its
two requests (docs/emacs.md, "plistspec-gptel-mode"):

* :meth:`Toolsets.lower`: the tools JSON gptel was about to send (exactly what its
  ``gptel--parse-tools`` made for the backend) and the backend's kind → the JSON to send
  instead: every tool lowered for that backend by the rules of ``--lower``
  (:func:`plistspec.lowering.tools.lower_tools_detailed`, emitted by
  :func:`plistspec.emit_json.target.to_target_json`), a tool the backend cannot express
  left out with the reason, every rewrite listed. Cached by the text's content: the same
  tools cost a dictionary lookup.
* :meth:`Toolsets.call`: one call of a tool of a lowered set (by the id the lowering
  gave it) → run it unchanged when the arguments fit the original schema; else, when
  they fit the lowered schema the model saw, the edits that map them back
  (:mod:`plistspec.calls.mapback`); else the message that tells the model every problem.

The target follows the envelope gptel made (OpenAI Chat, Responses, Anthropic, Gemini,
Bedrock), with the backend's kind telling Ollama from other OpenAI-compatible hosts.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from plistspec.calls import llmwire
from plistspec.calls.mapback import edits
from plistspec.calls.problems import Problem, message
from plistspec.calls.validate import EMPTY_PARAMETERS, Checker

__all__ = ["Toolsets", "target_of"]

_SETS = 64  # lowered tool sets kept
_TOOLS = 20_000  # tools kept for calls


@dataclass
class _Tool:
    name: str  # the name the model sees (and calls)
    original: Any  # the parameters as gptel would send them
    lowered: Any  # the parameters as sent
    _checkers: list = field(default_factory=list)
    declared: bool = False  # plistspec-llm-mode's: judged by :mod:`.llmwire`

    def checkers(self) -> tuple[Checker, Checker | None]:
        if not self._checkers:
            orig = Checker(self.original)
            same = self.lowered == self.original
            self._checkers = [orig, None if same else Checker(self.lowered)]
        return self._checkers[0], self._checkers[1]


def _envelope(element: Any) -> str | None:
    if not isinstance(element, dict):
        return None
    if isinstance(element.get("function"), dict):
        return "openai"
    if isinstance(element.get("toolSpec"), dict):
        return "bedrock"
    if "input_schema" in element:
        return "anthropic"
    if "functionDeclarations" in element or "function_declarations" in element:
        return "gemini"
    if "name" in element:
        return "openai-responses"
    return None


def target_of(tools: Any, backend: str | None) -> str | None:
    """The lowering target for ``tools`` (gptel's JSON) sent by a backend of kind ``backend``."""
    first = tools[0] if isinstance(tools, list) and tools else None
    env = _envelope(first)
    if env is None:
        return None
    if env == "openai" and backend == "ollama":
        return "ollama"
    return env


def _elements(tools: Any) -> list[Any]:
    if (
        isinstance(tools, list)
        and len(tools) == 1
        and isinstance(tools[0], dict)
        and isinstance(tools[0].get("functionDeclarations"), list)
    ):
        return list(tools[0]["functionDeclarations"])
    return list(tools) if isinstance(tools, list) else []


class Toolsets:
    """Lowered tool sets and their tools, most recently used kept (bounded)."""

    def __init__(self) -> None:
        self._sets: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._tools: OrderedDict[str, _Tool] = OrderedDict()
        # one tool lowered: (target, name it is sent under, its JSON) -> (tool, rewrites)
        self._lowered: OrderedDict[str, tuple[dict[str, Any], list[Any]]] = OrderedDict()

    # --- lowering a request's tools ------------------------------------------------

    def lower(self, backend: Any, text: Any, rewrites: bool = False) -> dict[str, Any]:
        """The tools JSON ``text`` gptel made for a backend of kind ``backend`` → the
        answer (docs/emacs.md, "plistspec-gptel-mode"); ``rewrites``: with every rewrite
        (for a report: the answer a request needs is smaller without them)."""
        reply = self._lower_cached(backend, text)
        if rewrites or "rewrites" not in reply:
            return reply
        return {k: v for k, v in reply.items() if k != "rewrites"}

    def _lower_cached(self, backend: Any, text: Any) -> dict[str, Any]:
        if not isinstance(text, str):
            raise ValueError('"tools" must be the JSON text of the tools gptel made')
        if backend is not None and not isinstance(backend, str):
            raise ValueError('"backend" must be a string')
        key = hashlib.sha1(f"{backend}\0{text}".encode()).hexdigest()
        hit = self._sets.get(key)
        if hit is not None:
            self._sets.move_to_end(key)
            for tool_id in hit["ids"]:
                if tool_id in self._tools:
                    self._tools.move_to_end(tool_id)
                else:  # evicted meanwhile: computed again below
                    break
            else:
                return hit["reply"]
        from plistspec.core.jsontext import JsonError, load_json

        try:
            value, _ = load_json(text)
        except JsonError as e:
            raise ValueError(f"the tools are not JSON: {e.message}") from None
        reply, ids = self._lower(value, backend)
        self._sets[key] = {"reply": reply, "ids": ids}
        while len(self._sets) > _SETS:
            self._sets.popitem(last=False)
        return reply

    def _lower(self, value: Any, backend: str | None) -> tuple[dict[str, Any], list[str]]:
        from plistspec.emit_json.target import to_target_json
        from plistspec.fromjson.rawjson import raw_tools

        backend, declared = llmwire.family(backend)

        target = target_of(value, backend)
        elements = _elements(value)
        if target is None:
            return {"target": None, "why": "not a tools array gptel makes"}, []
        tools: list[dict[str, Any]] = []
        index: list[int] = []  # element index of each tool
        skipped: list[list[Any]] = []
        for i, el in enumerate(elements):
            got, diags = raw_tools(el)
            if len(got) == 1:
                tools.append(got[0])
                index.append(i)
            else:
                why = diags[0].message if diags else "not a tool"
                skipped.append([i, _name(el), why])
        lowered, records = self._lower_each(tools, target)
        errors: dict[int, str] = {}
        rewrites: list[list[Any]] = []
        for r in records:
            rewrites.append([index[r.tool], r.name, r.pointer, r.code, r.severity, r.message])
            if r.severity == "error" and r.tool not in errors:
                errors[r.tool] = f"{r.message} ({r.pointer}) [{r.code}]"
        kept, sent, ids = [], [], []
        left_out = list(skipped)
        for j, (tool, low) in enumerate(zip(tools, lowered, strict=True)):
            if j in errors:
                left_out.append([index[j], tool.get("name"), errors[j]])
                continue
            kept.append(low)
            name = low.get("name")
            params = tool.get("parameters")
            tool_id = hashlib.sha1(
                json.dumps(
                    [target, name, params, low.get("parameters"), *(["llm"] if declared else [])],
                    sort_keys=True,
                ).encode()
            ).hexdigest()[:20]
            self._tools[tool_id] = _Tool(
                str(name), params, low.get("parameters"), declared=declared
            )
            self._tools.move_to_end(tool_id)
            sent.append([index[j], name, tool_id])
            ids.append(tool_id)
        while len(self._tools) > _TOOLS:
            self._tools.popitem(last=False)
        final = to_target_json(kept, target) if kept else []
        left_out.sort(key=lambda x: x[0])
        reply = {
            "target": target,
            "tools": final,
            "sent": sent,
            "left_out": left_out,
            "rewrites": rewrites,
        }
        return reply, ids

    def _lower_each(self, tools: list[dict[str, Any]], target: str) -> tuple[list, list]:
        """``lower_tools_detailed(tools, target)``, each tool taken from the cache when it
        was lowered before under the same name (a set that changed in one tool costs one)."""
        from plistspec.lowering.names import map_names
        from plistspec.lowering.rules import rules
        from plistspec.lowering.tools import lower_tools_detailed

        names = map_names([t.get("name") for t in tools], rules(target))
        keys = [
            hashlib.sha1(
                json.dumps([target, n, t], ensure_ascii=False, separators=(",", ":")).encode()
            ).hexdigest()
            for n, t in zip(names, tools, strict=True)
        ]
        todo = [i for i, k in enumerate(keys) if k not in self._lowered]
        if todo:
            new, recs = lower_tools_detailed([tools[i] for i in todo], target)
            if any(t.get("name") != names[i] for t, i in zip(new, todo, strict=True)):
                return lower_tools_detailed(tools, target)  # a name taken in the set
            mine: dict[int, list[Any]] = {i: [] for i in todo}
            for r in recs:
                mine[todo[r.tool]].append(r)
            for j, i in enumerate(todo):
                self._lowered[keys[i]] = (new[j], mine[i])
        lowered, records = [], []
        for i, k in enumerate(keys):
            self._lowered.move_to_end(k)
            tool, recs = self._lowered[k]
            lowered.append(tool)
            records.extend(r._replace(tool=i) for r in recs)
        while len(self._lowered) > _TOOLS:
            self._lowered.popitem(last=False)
        return lowered, records

    # --- checking one call ---------------------------------------------------------

    def call(self, tool_id: Any, text: str, emacs: bool = False) -> dict[str, Any]:
        """The JSON arguments ``text`` of a call of the tool ``tool_id`` → ``{"ok": true,
        "edits": [...]}`` (edits to make first, often none), ``{"ok": false, "message":
        TEXT, "problems": [...]}`` or ``{"unknown": true}`` (a tool this process has not
        lowered, or has forgotten). ``emacs``: the arguments were written by Emacs, where
        ``null`` and ``{}`` are both nil (:mod:`plistspec.calls.validate`)."""
        tool = self._tools.get(tool_id) if isinstance(tool_id, str) else None
        if tool is None:
            return {"unknown": True}
        from plistspec.core.jsontext import JsonError, load_json

        try:
            args, _ = load_json(text)
        except JsonError as e:
            problems = [Problem("", "a JSON object of arguments", f"invalid JSON ({e.message})")]
            return _refused(tool.name, problems)
        if emacs and (args is None or args == []):
            args = {}
        original, lowered = tool.checkers()
        first = original.problems(args, nil=emacs)
        if not first:
            return {"ok": True, "edits": []}
        if tool.declared and lowered is not None:
            schemas = (tool.original or EMPTY_PARAMETERS, tool.lowered)
            changes, problems = llmwire.declared_call(original, schemas, args, emacs, first)
            if not problems:
                return {"ok": True, "edits": [list(c) for c in changes]}
            return _refused(tool.name, problems)
        checker = original if lowered is None else lowered
        problems = checker.problems(args, nil=emacs)
        if not problems and lowered is not None:
            changes = edits(tool.original or EMPTY_PARAMETERS, tool.lowered, args, nil=emacs)
            return {"ok": True, "edits": [list(c) for c in changes]}
        return _refused(tool.name, problems)


def _refused(name: str, problems: list[Problem]) -> dict[str, Any]:
    return {
        "ok": False,
        "message": message(name, problems),
        "problems": [[p.pointer, p.expected, p.got] for p in problems],
    }


def _name(el: Any) -> Any:
    if isinstance(el, dict):
        for k in ("function", "toolSpec"):
            if isinstance(el.get(k), dict):
                return el[k].get("name")
        return el.get("name")
    return None
