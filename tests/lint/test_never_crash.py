"""check() gives diagnostics, never exceptions, whatever the text or datum tree."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plistspec.checking.checker import check_text

KEYS = [
    ":name",
    ":description",
    ":type",
    ":args",
    ":items",
    ":properties",
    ":required",
    ":optional",
    ":enum",
    ":anyOf",
    ":additionalProperties",
    ":function",
    ":description:",
    ":require",
    ":default",
    ":format",
]
ATOMS = [
    '"x"',
    '""',
    "nil",
    "t",
    "string",
    "object",
    "array",
    ":json-false",
    ":null",
    "1",
    "1.5",
    "'string",
    "#'f",
    "foo",
    '"a b"',
    "[]",
    '["a" "b"]',
    "[a b]",
    "?a",
]

atom = st.sampled_from(ATOMS + KEYS)


def _tree(children):
    return st.one_of(
        st.lists(children, max_size=6).map(lambda xs: "(" + " ".join(xs) + ")"),
        st.lists(children, max_size=4).map(lambda xs: "[" + " ".join(xs) + "]"),
        children.map(lambda x: "'" + x),
        st.lists(st.tuples(st.sampled_from(KEYS), children), max_size=5).map(
            lambda kv: "(" + " ".join(f"{k} {v}" for k, v in kv) + ")"
        ),
    )


datum = st.recursive(atom, _tree, max_leaves=40)
heads = st.sampled_from(["gptel-make-tool", "llm-make-tool", "make-llm-tool", "list"])


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    heads,
    st.lists(st.tuples(st.sampled_from(KEYS), datum), max_size=6),
    st.sampled_from([None, "gemini", "openai-strict", "ollama", "bedrock", "mcp"]),
)
def test_random_tool_forms(head: str, slots, target) -> None:
    text = f"({head} " + " ".join(f"{k} {v}" for k, v in slots) + ")"
    diags = check_text(text, "r.el", target=target)
    for d in diags:
        assert d.code.startswith("PS") and d.code != "PS332", (text, d.message)
        assert d.severity in ("error", "warning", "info")
        if d.start >= 0:
            assert 0 <= d.start <= d.end <= len(text)
            assert d.line >= 1 and d.column >= 1


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list("()[]'\"\\ #?.:;\n`,@abt0é")), max_size=80)
    | st.text(max_size=40)
)
def test_random_text(text: str) -> None:
    diags = check_text(text)
    assert all(d.code != "PS332" for d in diags), [d.message for d in diags]


@pytest.mark.slow
def test_deep_nesting_does_not_recurse() -> None:
    depth = 100_000
    args = (
        '(:name "x" :type array :items ' * 1
        + "(:type array :items " * depth
        + "(:type string)"
        + ")" * depth
        + ")"
    )
    text = f'(gptel-make-tool :name "f" :description "d" :function #\'f :args (list \'{args}))'
    diags = check_text(text, target="gemini")  # returns: no exception escapes
    linting = [d.message for d in diags if d.code == "PS332" and "linting" in d.message]
    assert linting == []


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("()[]'\"\\ #?.:;\n`,@abs-C^")), max_size=60))
def test_skip_form_ends_inside_the_text(text: str) -> None:
    from plistspec.checking.checker import skip_form

    end = skip_form(text, 0)
    assert end == -1 or 0 < end <= len(text)


def test_unsupported_syntax_costs_only_its_form() -> None:
    text = (
        '(defvar x #s(hash-table data (a\n(b c))))\n(defun f () (skip-chars-forward "\\0-\\x3fff7f"))\n'
        '(gptel-make-tool :name "a b" :description "d" :function #\'f)\n'
        '(gptel-make-tool :name "c" :description "d" :function #\'f :args (list \'(:name "x" :type strng)))\n'
    )
    diags = check_text(text, "t.el")
    # PS337: f (defined in the file) takes no argument, the second tool passes it one
    assert [d.code for d in diags if d.severity == "error"] == ["PS307", "PS337", "PS314"]
    # The #s(...) form is skipped; the string with a character beyond Unicode reads.
    assert [d.line for d in diags if d.code == "PS002"] == [1]
    assert all(d.severity == "info" for d in diags if d.code == "PS002")
