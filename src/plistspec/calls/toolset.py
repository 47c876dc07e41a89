"""The run-time tool sets of ``plistspec-gptel-mode``: lowered per backend, cached by content.

Owns: :class:`Toolsets`, the state ``plistspec check --server`` keeps for Emacs, and its
two requests (docs/emacs.md, "plistspec-gptel-mode"):

* :meth:`Toolsets.lower`: the tools JSON gptel was about to send (exactly what its
  ``gptel--parse-tools`` made for the backend), the backend's kind and, optionally, each
  tool's *contract* (the parameters schema its author declared, before gptel added or
  removed anything) → the JSON to send instead: every tool lowered for that backend by
  the rules of ``--lower`` (:func:`plistspec.lowering.tools.lower_tools_detailed`,
  emitted by :func:`plistspec.emit_json.target.to_target_json`), a tool the backend
  cannot express left out with the reason, every rewrite listed. ``$defs`` the contract
  holds and gptel's JSON lost (mcp.el drops them) are put back; a ``$ref`` that still
  points at nothing is loosened to any value, with a warning, rather than the tool left
  out. Cached by the text's content: the same tools cost a dictionary lookup.
* :meth:`Toolsets.call`: one call of a tool of a lowered set (by the id the lowering
  gave it) → mapped back to the contract's shape (:mod:`plistspec.calls.mapback`) and
  run when it then fits the contract, else the message that tells the model every
  problem. A call is judged against the contract only: constraints lowering moved into a
  description are still enforced, and what only gptel or the lowering added
  (``additionalProperties: false``, strict mode's required nulls) never refuses one.

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
from plistspec.calls.elements import split_array, split_tools
from plistspec.calls.judge import judge
from plistspec.calls.problems import Problem, message
from plistspec.calls.refs import restore_refs
from plistspec.calls.validate import Checker, timed_out

__all__ = ["Toolsets", "target_of"]

_SETS = 64  # lowered tool sets kept
_TOOLS = 20_000  # tools kept for calls


@dataclass
class _Tool:
    name: str  # the name the model sees (and calls)
    original: Any  # the contract: the parameters its author declared
    lowered: Any  # the parameters as sent
    _checker: list = field(default_factory=list)
    declared: bool = False  # plistspec-llm-mode's (:mod:`.llmwire`): sent as declared

    def checker(self) -> Checker:
        if not self._checker:
            self._checker.append(Checker(self.original))
        return self._checker[0]


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
        # one tool lowered: (target, name it is sent under, its key) -> (tool, rewrites)
        self._lowered: OrderedDict[str, tuple[dict[str, Any], list[Any]]] = OrderedDict()
        # one element read: its key (its text, its contract's) -> :meth:`_read_element`
        self._elements: OrderedDict[str, tuple] = OrderedDict()
        # one lowered tool's entry in the target's JSON, by the key of self._lowered
        self._emitted: OrderedDict[Any, Any] = OrderedDict()
        # the ids whose entry a compact answer gave (the client keeps them)
        self._told: set[str] = set()

    # --- lowering a request's tools ------------------------------------------------

    def lower(
        self,
        backend: Any,
        text: Any,
        rewrites: bool = False,
        contracts: Any = None,
        compact: Any = False,
    ) -> dict[str, Any]:
        """The tools JSON ``text`` gptel made for a backend of kind ``backend`` → the
        answer (docs/emacs.md, "plistspec-gptel-mode"); ``rewrites``: with every rewrite
        (for a report: the answer a request needs is smaller without them);
        ``contracts``: the JSON text of a list with each tool's declared parameters
        schema, in the order of ``text``'s tools (``null``: the one in ``text``);
        ``compact``: the answer's tools as :meth:`_compact` gives them (``"reset"``: the
        client forgot the entries it was given)."""
        reply = self._lower_cached(backend, text, contracts)
        if not rewrites and "rewrites" in reply:
            reply = {k: v for k, v in reply.items() if k != "rewrites"}
        if compact:
            return self._compact(reply, compact == "reset")
        return reply

    def _compact(self, reply: dict[str, Any], reset: bool) -> dict[str, Any]:
        """``reply`` with ``elements`` instead of ``tools``: each sent tool's entry in the
        target's JSON, or null when a compact answer of this process gave it before (the
        client keeps them by id: the same id is always the same entry); ``wrap``: the key
        of the one object holding the entries (Gemini's ``functionDeclarations``), or
        null when they are the array itself."""
        if reset:
            self._told.clear()
        tools = reply.get("tools")
        if not isinstance(tools, list):
            return reply
        wrap = None
        entries = tools
        if (
            len(tools) == 1
            and isinstance(tools[0], dict)
            and list(tools[0]) == ["functionDeclarations"]
        ):
            wrap, entries = "functionDeclarations", tools[0]["functionDeclarations"]
        sent = reply.get("sent") or []
        if len(entries) != len(sent):
            return reply
        elements = []
        for (_, _, tool_id), entry in zip(sent, entries, strict=True):
            elements.append(None if tool_id in self._told else entry)
            self._told.add(tool_id)
        out = {k: v for k, v in reply.items() if k != "tools"}
        out["elements"] = elements
        out["wrap"] = wrap
        return out

    def _lower_cached(self, backend: Any, text: Any, contracts: Any = None) -> dict[str, Any]:
        if not isinstance(text, str):
            raise ValueError('"tools" must be the JSON text of the tools gptel made')
        if backend is not None and not isinstance(backend, str):
            raise ValueError('"backend" must be a string')
        if contracts is not None and not isinstance(contracts, str):
            raise ValueError('"contracts" must be JSON text')
        key = hashlib.sha1(f"{backend}\0{text}\0{contracts}".encode()).hexdigest()
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
        value, texts, declared = _read(text, contracts)
        reply, ids = self._lower(value, backend, declared, texts)
        self._sets[key] = {"reply": reply, "ids": ids}
        while len(self._sets) > _SETS:
            self._sets.popitem(last=False)
        return reply

    def _read_element(self, key: str, el: Any, mine: Any) -> tuple[Any, Any, list, str]:
        """``(tool or None, its contract, notes, why not a tool)`` of one element, kept
        by ``key`` (its text and its contract's)."""
        hit = self._elements.get(key)
        if hit is not None:
            self._elements.move_to_end(key)
            return hit
        from plistspec.fromjson.rawjson import raw_tools

        got, diags = raw_tools(el)
        if len(got) != 1:
            out: tuple = (None, None, [], diags[0].message if diags else "not a tool")
        else:
            tool = got[0]
            params, notes = restore_refs(tool.get("parameters"), mine)
            if notes:
                tool = {**tool, "parameters": params}
            out = (tool, mine if isinstance(mine, dict) else tool.get("parameters"), notes, "")
        self._elements[key] = out
        while len(self._elements) > _TOOLS:
            self._elements.popitem(last=False)
        return out

    def _lower(
        self, value: Any, backend: str | None, declared: list[Any], texts: list[str]
    ) -> tuple[dict[str, Any], list[str]]:
        backend, llm = llmwire.family(backend)
        target = target_of(value, backend)
        elements = _elements(value)
        if target is None:
            return {"target": None, "why": "not a tools array gptel makes"}, []
        tools: list[dict[str, Any]] = []
        index: list[int] = []  # element index of each tool
        contract: list[Any] = []  # each tool's contract
        keys: list[str] = []  # each tool's key: its text and its contract's
        skipped: list[list[Any]] = []
        rewrites: list[list[Any]] = []
        for i, el in enumerate(elements):
            mine = declared[i] if i < len(declared) else None
            key = texts[i] if i < len(texts) else json.dumps([el, mine], sort_keys=True)
            tool, params, notes, why = self._read_element(key, el, mine)
            if tool is None:
                skipped.append([i, _name(el), why])
                continue
            rewrites.extend([i, tool.get("name"), *n] for n in notes)
            tools.append(tool)
            index.append(i)
            contract.append(params)
            keys.append(key)
        lowered, records, lkeys = self._lower_each(tools, target, keys)
        kept_keys: list[Any] = []
        errors: dict[int, str] = {}
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
            params = contract[j]
            key = f"{target}\0{name}\0{keys[j]}{chr(0) + 'llm' if llm else ''}"
            tool_id = hashlib.sha1(key.encode()).hexdigest()[:20]
            kept_keys.append(lkeys[j])
            self._tools[tool_id] = _Tool(str(name), params, low.get("parameters"), declared=llm)
            self._tools.move_to_end(tool_id)
            sent.append([index[j], name, tool_id])
            ids.append(tool_id)
        while len(self._tools) > _TOOLS:
            self._tools.popitem(last=False)
        final = self._emit(kept, kept_keys, target) if kept else []
        left_out.sort(key=lambda x: x[0])
        reply = {
            "target": target,
            "tools": final,
            "sent": sent,
            "left_out": left_out,
            "rewrites": rewrites,
        }
        return reply, ids

    def _lower_each(
        self, tools: list[dict[str, Any]], target: str, elements: list[str]
    ) -> tuple[list, list]:
        """``lower_tools_detailed(tools, target)``, each tool taken from the cache when it
        was lowered before under the same name (a set that changed in one tool costs one);
        ``elements``: each tool's key (:meth:`_read_element`)."""
        from plistspec.lowering.names import map_names
        from plistspec.lowering.rules import rules
        from plistspec.lowering.tools import lower_tools_detailed

        names = map_names([t.get("name") for t in tools], rules(target))
        keys = [(target, n, k) for n, k in zip(names, elements, strict=True)]
        todo = [i for i, k in enumerate(keys) if k not in self._lowered]
        if todo:
            new, recs = lower_tools_detailed([tools[i] for i in todo], target)
            if any(t.get("name") != names[i] for t, i in zip(new, todo, strict=True)):
                # a name taken in the set: the set as a whole, nothing kept
                whole, records = lower_tools_detailed(tools, target)
                return whole, records, [None] * len(whole)
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
        return lowered, records, keys

    def _emit(self, tools: list[dict[str, Any]], keys: list[Any], target: str) -> Any:
        """``to_target_json(tools, target)``, each tool's entry kept by its key (None: not
        kept) so that a set that changed in one tool emits one."""
        from plistspec.emit_json.target import to_target_json

        entries: list[Any] = []
        for tool, key in zip(tools, keys, strict=True):
            entry = self._emitted.get(key) if key is not None else None
            if entry is None:
                one = to_target_json([tool], target)
                if not (isinstance(one, list) and len(one) == 1):
                    return to_target_json(tools, target)
                entry = one[0]
                if key is not None:
                    self._emitted[key] = entry
            else:
                self._emitted.move_to_end(key)
            entries.append(entry)
        while len(self._emitted) > _TOOLS:
            self._emitted.popitem(last=False)
        if all(isinstance(e, dict) and list(e) == ["functionDeclarations"] for e in entries):
            return [
                {"functionDeclarations": [d for e in entries for d in e["functionDeclarations"]]}
            ]
        return entries

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
            problems = [Problem("", "a JSON object of arguments", e.message, "json")]
            return _refused(tool.name, problems)
        if emacs and (args is None or args == []):
            args = {}
        checked = None
        if tool.declared:
            checked = tool.checker().problems(args, nil=emacs)
            if not checked:
                # plistspec-llm-mode: a call that fits the declared schema as sent runs as
                # sent, exactly as llm alone runs it (a JSON null stays llm's :null)
                return {"ok": True, "edits": []}
        verdict = judge(
            tool.name,
            tool.original,
            tool.lowered,
            args,
            nil=emacs,
            # gptel hands a function nil for a null it was sent; llm's mode judges as declared
            absent_null=emacs and not tool.declared,
            checker=tool.checker(),
            checked=checked,  # llm's mode: absent_null is False, as in the check above
        )
        if verdict.ok:
            return {"ok": True, "edits": [list(c) for c in verdict.edits]}
        return _refused(tool.name, verdict.problems)


def _read(text: str, contracts: str | None) -> tuple[Any, list[str], list[Any]]:
    """``(tools JSON, each element's text + its contract's, the contracts)`` of a
    ``lower`` request (:mod:`plistspec.calls.elements`; read whole when not split)."""
    from plistspec.core.jsontext import JsonError, load_json

    try:
        split = split_tools(text)
        csplit = split_array(contracts) if contracts is not None else ([], 0)
    except JsonError as e:  # nested too deep
        raise ValueError(f"the tools are not JSON gptel or llm can send: {e.message}") from None
    if csplit is None or (contracts is not None and contracts[csplit[1] :].strip()):
        raise ValueError("the contracts are not a JSON array")
    ctexts = [t for t, _ in csplit[0]]
    declared = [v for _, v in csplit[0]]
    if split is None:
        try:
            value, _ = load_json(text)
        except JsonError as e:
            raise ValueError(f"the tools are not JSON: {e.message}") from None
        return value, [], declared
    value, elements = split
    texts = [f"{t}\0{ctexts[i] if i < len(ctexts) else ''}" for i, (t, _) in enumerate(elements)]
    return value, texts, declared


def _refused(name: str, problems: list[Problem]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "ok": False,
        "message": message(name, problems),
        "problems": [[p.pointer, p.expected, p.got] for p in problems],
    }
    if timed_out(problems):
        out["unchecked"] = True
    return out


def _name(el: Any) -> Any:
    if isinstance(el, dict):
        for k in ("function", "toolSpec"):
            if isinstance(el.get(k), dict):
                return el[k].get("name")
        return el.get("name")
    return None
