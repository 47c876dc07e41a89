"""Provider lints (PS4xx): each fires for its target and not for a target that accepts it."""

from __future__ import annotations

import pytest

from plistspec.checking.checker import check_text


def tool(
    args: str, *, head: str = "gptel-make-tool", name: str = "f", desc: str = '"Does f."'
) -> str:
    return (
        f"({head} :name \"{name}\" :description {desc} :function #'ignore :args (list '({args})))"
    )


def codes(text: str, target: str) -> list[str]:
    return [d.code for d in check_text(text, "t.el", target=target)]


CASES = [
    # code, bad spec, target that rejects it, target that accepts it
    ("PS401", tool(':name "x" :type string', name="9lives"), "gemini", "openai"),
    ("PS401", tool(':name "x" :type string', name="a.b"), "openai", "mcp"),
    ("PS402", tool(':name "x" :type string', desc='""'), "bedrock", "openai"),
    ("PS403", tool(':name "x" :type string :const "a"'), "gemini", "openai"),
    ("PS403", tool(':name "x" :type string :default "a"'), "openai-strict", "openai"),
    ("PS404", tool(':name "x" :type integer :minimum 0'), "ollama", "openai"),
    ("PS405", tool(':name "x" :type ["string" "null"]'), "gemini", "openai"),
    (
        "PS406",
        tool(
            ':name "x" :type array :items (:type object :properties (:a (:type string)) :required ["a"])'
        ),
        "openai-strict",
        "openai",
    ),
    ("PS407", tool(':name "x" :type string :optional t'), "openai-strict", "openai"),
    (
        "PS408",
        tool(':name "x" :type string :optional t', head="llm-make-tool"),
        "openai",
        "anthropic",
    ),
    ("PS409", tool(':name "file-path" :type string'), "gemini", "openai"),
    (
        "PS410",
        tool(':name "x" :type object :properties (:a (:description "any"))'),
        "gemini",
        "openai",
    ),
    ("PS411", tool(':name "x" :type array'), "openai", "anthropic"),
]


@pytest.mark.parametrize("code,text,bad,good", CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_target_lint(code: str, text: str, bad: str, good: str) -> None:
    assert code in codes(text, bad)
    assert code not in codes(text, good)


def test_gptel_gemini_strips_additional_properties_but_llm_does_not() -> None:
    args = (
        ':name "x" :type object :properties (:a (:type object :additionalProperties :json-false))'
    )
    assert "PS403" not in codes(tool(args), "gemini")
    assert "PS403" in codes(tool(args, head="llm-make-tool"), "gemini")


def test_gptel_closes_top_level_object_args_for_strict() -> None:
    args = ':name "x" :type object :properties (:a (:type string)) :required ["a"]'
    assert "PS406" not in codes(tool(args), "openai-strict")
    assert "PS406" in codes(tool(args, head="llm-make-tool"), "openai-strict")


def test_target_diagnostic_points_at_the_key() -> None:
    text = tool(':name "x" :type string :const "a"')
    (d,) = [d for d in check_text(text, target="gemini") if d.code == "PS403"]
    assert text[d.start : d.end] == ":const"


def test_unknown_target_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        check_text("", target="nope")


# --- The provider lints judge the real emitter's JSON -------------------------------


def _tool(head: str, args: str) -> str:
    return f'({head} :name "f" :description "F." :function #\'ignore :args \'({args}))'


NESTED_AP = (
    '(:name "p" :type array :description "P." :items (:type object :properties '
    '(:x (:type string :description "X.")) :additionalProperties :json-false))'
)
OBJ_ARG = (
    '(:name "o" :type object :description "O." :properties (:x (:type string)) :required ["x"])'
)


def test_gemini_sees_what_the_filter_leaves() -> None:
    # gptel's Gemini filter strips additionalProperties; llm sends it as written.
    assert "PS403" not in codes(_tool("gptel-make-tool", NESTED_AP), "gemini")
    assert "PS403" in codes(_tool("llm-make-tool", NESTED_AP), "gemini")


def test_strict_sees_what_gptel_adds() -> None:
    # gptel closes top-level object args for the OpenAI family; llm never does.
    assert "PS406" not in codes(_tool("gptel-make-tool", OBJ_ARG), "openai-strict")
    assert "PS406" in codes(_tool("llm-make-tool", OBJ_ARG), "openai-strict")


def test_lints_read_the_emitters_json(monkeypatch: pytest.MonkeyPatch) -> None:
    """A keyword only the emitter adds is reported: the lint has no model of its own."""
    import plistspec.emit_json as providers

    real = providers.emit

    def emit_with_const(tools, fmt):
        value, diags = real(tools, fmt)
        for decl in value[0]["functionDeclarations"]:
            decl["parameters"]["properties"]["x"]["const"] = "injected"
        return value, diags

    text = _tool("gptel-make-tool", '(:name "x" :type string :description "X.")')
    assert "PS403" not in codes(text, "gemini")
    monkeypatch.setattr(providers, "emit", emit_with_const)
    found = [d for d in check_text(text, "t.el", target="gemini") if d.code == "PS403"]
    assert found and '"const"' in found[0].message
    # no datum for it: the finding points at the arg plist's opening parenthesis
    assert text[found[0].start] == "("


# --- fixes for the findings whose lowering is lossless in the source (issue 9) ----------

FIXABLE = [
    # (spec, target, code, expected replacement)
    (tool(':name "x" :type string :const "fast"'), "gemini", "PS403", ':enum ["fast"]'),
    (tool(':name "x" :type string :const "fast"'), "ollama", "PS404", ':enum ["fast"]'),
    (tool(':name "x" :type ["string" "null"]'), "gemini", "PS405", ":type string :nullable t"),
    (tool(':name "x" :type string', name="fs.read"), "openai", "PS401", '"fs_read"'),
    (tool(':name "x" :type string', name="9lives"), "gemini", "PS401", '"_9lives"'),
]


@pytest.mark.parametrize("text,target,code,replacement", FIXABLE)
def test_lossless_rewrite_is_offered_as_a_fix(text, target, code, replacement) -> None:
    diags = [d for d in check_text(text, "t.el", target=target) if d.code == code]
    assert diags and diags[0].fix is not None
    fix = diags[0].fix
    assert fix.replacement == replacement
    fixed = text[: fix.start] + fix.replacement + text[fix.end :]
    assert code not in codes(fixed, target), fixed
    # the fixed spec sends JSON that the target's rules (grammars/providers) accept
    import plistspec
    from plistspec.emit_json import parameters_sent
    from plistspec.lowering.rules import rules
    from plistspec.lowering.validate import schema_violations, tool_violations

    tools, _ = plistspec.read_tools(fixed, "t.el")
    wire = rules(target)["wire"]
    params = parameters_sent(tools[0], wire)
    assert not schema_violations(params, target, wire=True)
    assert not tool_violations(tools[0]["name"], tools[0]["description"], target)


def test_no_fix_where_the_rewrite_would_lose_meaning() -> None:
    # llm drops :nullable, so [T null] has no lossless rewrite for llm-make-tool
    text = tool(':name "x" :type ["string" "null"]', head="llm-make-tool")
    diags = [d for d in check_text(text, "t.el", target="gemini") if d.code == "PS405"]
    assert all(d.fix is None for d in diags)
    # an optional arg under OpenAI strict: making it required changes what is accepted
    text = tool(':name "x" :type string :optional t')
    diags = [d for d in check_text(text, "t.el", target="openai-strict") if d.code == "PS407"]
    assert diags and all(d.fix is None for d in diags)


def test_lint_rules_come_from_the_lowering_table() -> None:
    from plistspec.lint import target_data
    from plistspec.lowering.rules import rules, table

    assert target_data._STRICT_REJECTS == frozenset(table()["strict"]["openai"]["reject"])
    assert rules("gemini").keywords <= target_data._GEMINI_KEYS
    assert target_data.NAME_RULES["openai"][0].pattern in rules("openai")["name"]["pattern"]


@pytest.mark.parametrize(
    "text,target,code",
    [
        (tool(':name "x" :type string :const "a"'), "gemini-jsonschema", "PS403"),
        (tool(':name "x" :type integer :minimum 2'), "anthropic-strict", "PS403"),
        (tool(':name "x" :type string'), "anthropic-strict", "PS405"),  # object not closed
        (tool(':name "x" :type string', name="a b"), "mcp-2025-06-18", "PS401"),
    ],
)
def test_rules_table_targets(text, target, code) -> None:
    """Targets judged by grammars/providers/rules.json alone: the same checks --lower uses."""
    assert code in codes(text, target)
    assert code not in codes(text, "mcp-2026-07-28") or code == "PS401"


def test_rules_table_target_accepts_lowered_specs() -> None:
    assert not [
        c
        for c in codes(tool(':name "x" :type string :description "d"'), "mcp")
        if c.startswith("PS4")
    ]
    assert not [
        c
        for c in codes(tool(':name "x" :type string :description "d"'), "gemini-jsonschema")
        if c.startswith("PS4")
    ]
