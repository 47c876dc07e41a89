"""The lowering targets' rules, read from ``grammars/providers/rules.json``.

Owns: loading that table once, resolving a target's ``base`` chain and the ``mcp`` alias,
and the small typed view (:class:`Rules`) the rewrites, the validator and the lints read.
Nothing here knows a provider by name: every provider fact is in the JSON file.
"""

from __future__ import annotations

import json
import re
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from plistspec.core.grammars import grammar_path

__all__ = [
    "Rules",
    "rules",
    "targets",
    "canonical",
    "table",
    "grammar_dir",
    "ref_target_ok",
    "GEMINI_OBJECT_KEYS",
]

#: the keywords Gemini's ``parameters`` takes only on a schema typed ``object``
#: ("required only allowed on OBJECT"; the same proto fields for the others)
GEMINI_OBJECT_KEYS = ("properties", "required", "minProperties", "maxProperties")


def grammar_dir() -> Path:
    """``grammars/providers`` of the source tree (or of the installed package's data)."""
    return Path(grammar_path("providers/rules.json")).parent


@lru_cache(maxsize=1)
def table() -> dict[str, Any]:
    with open(grammar_dir() / "rules.json", encoding="utf-8") as f:
        return json.load(f)


def targets() -> tuple[str, ...]:
    """Every lowering target name, aliases included, in the table's order."""
    t = table()
    return tuple(t["targets"]) + tuple(t.get("aliases", {}))


def canonical(target: str) -> str:
    return table().get("aliases", {}).get(target, target)


class Rules:
    """One target's rules (``base`` chain merged), with derived helpers."""

    def __init__(self, name: str, data: dict[str, Any], strict: dict[str, Any] | None) -> None:
        self.name = name
        self.data = data
        self.strict = strict  # the strict-mode table of the flavour, or None
        flag = data.get("strict") or {}
        self.strict_flag: str | None = flag.get("flag")
        self.strict_flavor: str | None = flag.get("flavor")
        kw = data.get("keywords")
        self.keywords: frozenset[str] | None = frozenset(kw) if kw is not None else None
        rk = data.get("root_keywords")
        self.root_keywords: frozenset[str] | None = frozenset(rk) if rk is not None else None
        fm = data.get("formats")
        self.formats: frozenset[str] | None = frozenset(fm) if fm is not None else None
        name_rule = data.get("name")
        self.name_re = re.compile(name_rule["pattern"]) if name_rule else None
        prop = data.get("property_name")
        self.property_re = re.compile(prop["pattern"]) if prop else None
        self.annotations = frozenset(table()["annotations"])
        self.json_schema_keywords = frozenset(table()["json_schema_keywords"])
        # the flags the walk reads at every node, as attributes
        self.ref_mode: str = data["ref"]
        self.cycle: str = data["cycle"]
        self.type_list: str = data["type_list"]
        self.enum_kind: str = data["enum"]
        self.const_mode: str = data["const"]
        self.one_of: str = data["oneOf"]
        self.all_of: str = data["allOf"]
        self.root_composition: bool = bool(data["root_composition"])
        self.items_required: bool = bool(data["items_required"])
        self.type_required: bool = bool(data["type_required"])
        self.anyof_with_type: bool = bool(data["anyof_with_type"])
        self.object_keywords_only: bool = bool(data["object_keywords_only_on_objects"])
        self.additional: str = data["additional_properties"]
        self.required_in_properties: bool = bool(data.get("required_in_properties"))
        self.free_form_objects: str = data.get("free_form_objects", "keep")
        self.no_args: str = data.get("no_args", "keep")
        self.recursive_required: str = data.get("recursive_required", "keep")
        # the tool-level rules each tool reads
        self.description_rule: str = data["description"]
        self.output_schema_rule: str | None = data.get("output_schema")
        self._sets: dict[bool, tuple[Any, Any, Any]] = {}
        #: :meth:`node_sets` of the plain and the strict mode, read by every walk
        self.plain_sets = self.node_sets(False)
        self.strict_sets = self.node_sets(True)

    def node_sets(self, strict: bool) -> tuple[Any, Any, Any]:
        """``(keywords of the root, of other nodes, formats)`` a lowered schema may hold
        (None: any), strict mode's when ``strict``; computed once."""
        key = bool(strict and self.strict is not None)
        got = self._sets.get(key)
        if got is None:
            node = self.keywords
            root = self.root_keywords if self.root_keywords is not None else self.keywords
            fm = self.formats
            if key:
                assert self.strict is not None
                ks = self.strict["keywords_set"]
                node = ks if node is None else node & ks
                root = ks if root is None else root & ks
                sf = self.strict_formats
                fm = sf if fm is None else (fm & sf if sf is not None else fm)
            got = self._sets[key] = (root, node, fm)
        return got

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def allowed(self, key: str, root: bool) -> bool:
        """May a schema node (the root when ``root``) hold ``key``?"""
        if root and self.root_keywords is not None:
            return key in self.root_keywords
        if self.keywords is None:
            return True
        return key in self.keywords

    @property
    def strict_formats(self) -> frozenset[str] | None:
        if self.strict_flavor is None:
            return None
        return frozenset(table()["strict_formats"][self.strict_flavor])


@cache
def rules(target: str) -> Rules:
    """The rules of ``target`` (``KeyError`` for an unknown one)."""
    name = canonical(target)
    t = table()["targets"]
    chain = []
    cur: str | None = name
    while cur is not None:
        entry = t[cur]
        chain.append(entry)
        cur = entry.get("base")
    merged: dict[str, Any] = {}
    for entry in reversed(chain):
        merged.update({k: v for k, v in entry.items() if k != "base"})
    flavor = (merged.get("strict") or {}).get("flavor")
    strict = None
    if flavor:
        strict = dict(table()["strict"][flavor])
        strict["reject"] = list(strict["reject"]) + list(strict.get("avoid", ()))
        strict["keywords_set"] = frozenset(strict["keywords"])
        targets = strict.get("ref_targets") or ()
        # an entry ending in "/" is a prefix (a definition under it), any other one the
        # whole reference ("#": the root, for recursion)
        strict["ref_targets"] = tuple(x for x in targets if x.endswith("/"))
        strict["ref_exact"] = frozenset(x for x in targets if not x.endswith("/"))
    return Rules(name, merged, strict)


def ref_target_ok(ref: str, strict: dict[str, Any]) -> bool:
    """Whether strict mode ``strict`` resolves the local ``$ref`` ``ref`` as it is (a
    definition under one of its ``ref_targets`` prefixes, or the root ``#`` where listed);
    any other reference is inlined by the walk, or the tool is sent non-strict."""
    return ref in strict["ref_exact"] or ref.startswith(strict["ref_targets"])
