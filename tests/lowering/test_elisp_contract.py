"""From Elisp, ``to-json -t T --lower`` = what gptel/llm send for T + the rewrites the
diagnostics name (issue 20).

For every Elisp fixture and every target: the structural difference between what the
library sends (the emitter's JSON, itself held to the real gptel/llm by
``tests/providers``) and the lowered JSON maps onto the diagnostics: every difference is
at or beside a node a diagnostic names, every diagnostic about the schema names a node
that changed, and a tool without diagnostics is sent byte for byte as the library sends
it. Against the REAL gptel 0.9.9.5 in Emacs too, for the backends whose JSON gptel builds.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _lowering_support import FIXTURES, TARGETS  # noqa: E402

import plistspec  # noqa: E402
from plistspec.emit_json import emit  # noqa: E402
from plistspec.emit_json.target import sent_tools, to_target_json  # noqa: E402
from plistspec.lowering.rules import rules  # noqa: E402
from plistspec.lowering.tools import lower_tools_detailed  # noqa: E402

ELISP = (
    sorted((FIXTURES / "elisp").glob("*.el"))
    + sorted((FIXTURES / "corpus").glob("*.el"))
    + sorted((FIXTURES / "broken").glob("*.el"))
)
#: diagnostics that change nothing in the JSON: about the tool (PS426: not sent strict)
#: or about what the provider makes of a node sent as it is (PS435 below the root:
#: Gemini's parameters take an object without properties as an empty one)
TOOL_LEVEL = {"PS426", "PS435"}


def _notice(code: str, pointer: str) -> bool:
    return code == "PS426" or (code == "PS435" and pointer != "/parameters")


def diffs(a: Any, b: Any, p: str = "") -> list[str]:
    """JSON pointers where ``a`` and ``b`` differ (``#order``: same keys, other order)."""
    out = []
    work = [(a, b, p)]
    while work:
        x, y, p = work.pop()
        if type(x) is dict and type(y) is dict:
            if list(x) != list(y) and set(x) == set(y):
                out.append(p + "#order")
            for k in set(x) | set(y):
                kp = p + "/" + str(k).replace("~", "~0").replace("/", "~1")
                if k not in x or k not in y:
                    out.append(kp)
                else:
                    work.append((x[k], y[k], kp))
        elif type(x) is list and type(y) is list and len(x) == len(y):
            work.extend((u, v, f"{p}/{i}") for i, (u, v) in enumerate(zip(x, y, strict=True)))
        elif not (type(x) is type(y) and x == y):
            out.append(p)
    return out


def _near(diff: str, pointer: str) -> bool:
    """A difference at ``diff`` belongs to a rewrite of the node at ``pointer``: inside
    it, or a keyword of the node holding it (``required`` beside ``properties/x``)."""
    d = diff.removesuffix("#order")
    parent = d.rsplit("/", 1)[0]
    return (
        d == pointer
        or d.startswith(pointer + "/")
        or pointer.startswith(d + "/")
        or pointer.startswith(parent + "/")
        or pointer == parent
    )


def _parts(tool: dict[str, Any]) -> dict[str, Any]:
    meta = tool.get("metadata") or {}
    params = tool.get("parameters")
    if (meta.get("lowered") or {}).get("no_parameters"):
        params = None  # sent without parameters
    elif meta.get("sent_null_parameters"):
        params = "null"  # gptel's parameters: null (Gemini), which lowering leaves out
    return {"parameters": params, "description": tool.get("description"), "name": tool["name"]}


def _has_tools(path: Path) -> bool:
    """Some tool of ``path`` is read statically (fixtures/broken has files with none)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    return bool(list(plistspec.read_tools(text, path=str(path))[0]))


CASES = [(p, t) for p in ELISP if _has_tools(p) for t in TARGETS]


def test_most_fixture_files_have_tools_to_lower() -> None:
    """The contract below runs on every fixture with a tool; a reader that found none
    in the real-world files would leave it nothing to check."""
    assert len({p for p, _ in CASES}) >= len(ELISP) * 2 // 3


@pytest.mark.parametrize(("path", "target"), CASES, ids=[f"{p.name}-{t}" for p, t in CASES])
def test_lowered_is_what_the_library_sends_plus_the_named_rewrites(path: Path, target: str):
    text = path.read_text(encoding="utf-8", errors="replace")
    tools, _ = plistspec.read_tools(text, path=str(path))
    tools = list(tools)
    start, errors = sent_tools(tools, target)
    if errors:
        return  # the library itself fails on this backend (PS203): nothing is lowered
    lowered, records = lower_tools_detailed(start, target)
    if any(r.severity == "error" for r in records):
        return
    for i, (before, after) in enumerate(zip(start, lowered, strict=True)):
        mine = [r for r in records if r.tool == i]
        pointers = [r.pointer for r in mine if not _notice(r.code, r.pointer)]
        changed = diffs(_parts(before), _parts(after))
        for d in changed:
            assert any(_near(d, q) for q in pointers), (
                f"{target}: {before['name']!r} changed at {d} with no diagnostic there",
                pointers,
            )
        for r in mine:
            if _notice(r.code, r.pointer) or r.pointer.startswith("/outputSchema"):
                continue
            assert any(_near(d, r.pointer) for d in changed), (
                f"{target}: {r.code} at {r.pointer} names a change that is not there",
                r.message,
            )
    # the envelope: with no rewrite at all, the library's JSON byte for byte (strict and
    # parametersJsonSchema are the target's own)
    wire = rules(target)["wire"]
    if not records and wire != "mcp":
        plain, _ = emit(tools, wire)
        got = to_target_json(lowered, target)
        for entry in next(iter(got[0].values())) if wire == "gemini" else got:
            home = entry.get("function", entry)
            home.pop("strict", None)
            if "parametersJsonSchema" in home:
                home["parameters"] = home.pop("parametersJsonSchema")
        assert json.dumps(got) == json.dumps(plain)


#: tools that exercise gptel's per-backend additions: object args (required: [] and
#: additionalProperties: false added), optional args, enums, a nested object, a free-form
#: object, an array without items, a zero-argument tool, :type nil, :required t
GPTEL_TOOLS = """
(gptel-make-tool :name "get_weather" :function #'ignore :description "Weather."
 :args (list '(:name "location" :type string :description "City")
             '(:name "unit" :type string :enum ["c" "f"] :description "Unit" :optional t)))
(gptel-make-tool :name "edit" :function #'ignore :description "Edit a file."
 :args (list '(:name "path" :type string :description "File" :required t)
             '(:name "opts" :type object :description "Options"
               :properties (:force (:type boolean) :mode (:type string :enum ["a" "b"])))
             '(:name "meta" :type object :description "Any keys")
             '(:name "tags" :type array :description "Tags" :optional t)
             '(:name "any" :type nil :description "Anything" :optional t)))
(gptel-make-tool :name "now" :function #'ignore :description "The time.")
"""

#: lowering target -> (gptel backend constructor, feature)
GPTEL = {
    "openai": ('(gptel-make-openai "o" :key "k")', "gptel-openai"),
    "openai-strict": ('(gptel-make-openai "o" :key "k")', "gptel-openai"),
    "anthropic": ('(gptel-make-anthropic "a" :key "k")', "gptel-anthropic"),
    "anthropic-strict": ('(gptel-make-anthropic "a" :key "k")', "gptel-anthropic"),
    "gemini": ('(gptel-make-gemini "g" :key "k")', "gptel-gemini"),
    "gemini-jsonschema": ('(gptel-make-gemini "g" :key "k")', "gptel-gemini"),
    "ollama": ('(gptel-make-ollama "l")', "gptel-ollama"),
}


@pytest.mark.emacs
@pytest.mark.parametrize("target", list(GPTEL))
def test_against_the_real_gptel(target, emacs, elisp_deps_dir, tmp_path) -> None:
    """The real gptel's JSON for GPTEL_TOOLS, against --lower's: equal for
    every tool without a diagnostic, every difference at a node a diagnostic names."""
    from plistspec.fromjson.rawjson import raw_tools
    from plistspec.pipeline.lowered import lower_inputs, read_for_lowering
    from support import elisp_deps_preamble

    src = tmp_path / "tools.el"
    src.write_text(GPTEL_TOOLS, encoding="utf-8")
    make, feature = GPTEL[target]
    code = (
        elisp_deps_preamble(elisp_deps_dir)
        + f"(require 'gptel) (require '{feature})\n"
        + "(defvar pt-tools nil)\n"
        + "(advice-add 'gptel-make-tool :filter-return (lambda (tl) (push tl pt-tools) tl))\n"
        + f'(load "{src.as_posix()}" nil t)\n'
        + f"(princ (gptel--json-encode (gptel--parse-tools {make} (reverse pt-tools))))\n"
    )
    real, _ = raw_tools(json.loads(emacs.run(code)))
    text = src.read_text(encoding="utf-8")
    tools, _diags, is_elisp = read_for_lowering(text, str(src), None)
    value, diags = lower_inputs([(str(src), text, tools, is_elisp)], target)
    assert value is not None, [d.message for d in diags]
    ours, _ = raw_tools(value)
    assert [t["name"] for t in ours] == [t["name"] for t in real]
    for mine, theirs in zip(ours, real, strict=True):
        named = []
        for d in diags:
            if f"tool {theirs['name']!r}," not in d.message:
                continue
            where = d.message.split(", ", 1)[1].split(": ", 1)[0]
            if not _notice(d.code, where):
                named.append(where)
        changed = diffs(_parts(theirs), _parts(mine))
        if not named:
            assert not changed, (theirs["name"], changed)
        for d in changed:
            assert any(_near(d, q) for q in named), (theirs["name"], d, named)
