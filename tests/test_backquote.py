"""Backquoted specs (issue 8 §5): an unquote is evaluated by Emacs, never read as data.

A valid spec handed to a define-tool helper as a backquoted plist, with one slot (or one
value deep inside :args) replaced by an unquote of a form plistspec cannot evaluate, is
never an error: ``check`` says "needs evaluation" (PS101/PS103, info) at the unquoted
form, and ``to-json`` leaves that tool out without failing.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plistspec.api import to_json
from plistspec.checking.checker import check_text

IDENT = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
WORDS = st.lists(IDENT, min_size=1, max_size=5).map(" ".join)
DYNAMIC = st.sampled_from(
    [
        "(vconcat (mapcar #'car roles))",
        "roles",
        "(my-helper--value)",
        '(format "%s" (car roles))',
        '(if flag "a" "b")',
    ]
)


def q(s: str) -> str:
    return json.dumps(s)


@st.composite
def spec_with_hole(draw):
    """(the spec plist text with one ``HOLE`` marker, the hole's unquote text)."""
    n_args = draw(st.integers(1, 3))
    args = []
    for i in range(n_args):
        kind = draw(st.sampled_from(["string", "integer", "boolean", "enum"]))
        desc = q(draw(WORDS))
        if kind == "enum":
            vals = " ".join(q(v) for v in draw(st.lists(IDENT, min_size=1, max_size=3)))
            args.append(
                [f':name "a{i}"', ":type string", f":description {desc}", f":enum [{vals}]"]
            )
        else:
            args.append([f':name "a{i}"', f":type {kind}", f":description {desc}"])
    top = [
        f":name {q(draw(IDENT))}",
        ":function (lambda (&rest _) nil)",
        f":description {q(draw(WORDS))}",
    ]
    if draw(st.booleans()):
        top.append(f":category {q(draw(IDENT))}")
    # choose a hole: a top-level slot value, a whole arg, or one value inside an arg
    where = draw(st.sampled_from(["top", "arg", "argvalue"]))
    hole = "," + draw(DYNAMIC)
    if where == "top":
        choices = [i for i, s in enumerate(top) if not s.startswith(":function")]
        i = draw(st.sampled_from(choices))
        top[i] = top[i].split(" ", 1)[0] + " " + hole
    elif where == "arg":
        i = draw(st.integers(0, n_args - 1))
        args[i] = None
        hole = draw(st.sampled_from([",", ",@"])) + hole[1:]
    else:
        i = draw(st.integers(0, n_args - 1))
        j = draw(st.integers(0, len(args[i]) - 1))
        args[i][j] = args[i][j].split(" ", 1)[0] + " " + hole
    arg_text = " ".join(hole if a is None else "(" + " ".join(a) + ")" for a in args)
    return " ".join(top) + f" :args ({arg_text})", hole


WRAPPERS = [
    # a helper function that applies the constructor to its spec
    "(defun my-def (spec) (apply #'{ctor} spec))\n(my-def `({spec}))\n",
    # the spec in a list of specs mapped over
    "(defvar my-specs (list `({spec})))\n(mapc (lambda (s) (apply #'{ctor} s)) my-specs)\n",
    # a macro of the user's that receives the plist
    "(defmacro my-deftool (spec) `(apply #'{ctor} ,spec))\n(my-deftool `({spec}))\n",
]


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec_with_hole(), st.sampled_from(WRAPPERS), st.sampled_from(["gptel", "llm"]))
def test_unquote_in_a_backquoted_spec_is_never_an_error(spec_hole, wrapper, lib):
    spec, hole = spec_hole
    ctor = "gptel-make-tool" if lib == "gptel" else "llm-make-tool"
    # ``roles`` is not a constant of the file (a defvar of it would be read statically)
    text = wrapper.format(ctor=ctor, spec=spec)
    diags = check_text(text)
    errors = [d for d in diags if d.severity == "error"]
    assert errors == [], (text, [d.format() if hasattr(d, "format") else d for d in errors])
    # what "needs evaluation" is the unquoted form or a part of it
    inner = hole.lstrip(",@")
    at = text.index(hole) + len(hole) - len(inner)
    needs = [d for d in diags if d.code in ("PS101", "PS103")]
    assert needs, text
    assert any(at <= d.start and d.end <= at + len(inner) for d in needs), (text, needs)
    value, jd = to_json(text, "openai")
    assert value is not None and not any(d.is_error for d in jd), (text, jd)


@settings(max_examples=40, deadline=None)
@given(spec_with_hole())
def test_unquote_in_a_backquoted_args_slot_is_never_an_error(spec_hole):
    spec, hole = spec_hole
    head, _, args = spec.partition(" :args ")
    text = f"(gptel-make-tool {head} :args `{args})\n"
    errors = [d for d in check_text(text) if d.severity == "error"]
    if hole not in args:  # the hole is in a top-level slot, written without a backquote
        return
    assert errors == [], text
    value, jd = to_json(text, "openai")
    assert value is not None, (text, jd)


def test_static_unquote_is_evaluated():
    text = (
        '(defconst my-roles ["a" "b"])\n'
        "(defun my-def (spec) (apply #'gptel-make-tool spec))\n"
        '(my-def `(:name "pick" :function ignore :description ,(concat "Pick" " one")\n'
        '          :args ((:name "role" :type string :description "r" :enum ,my-roles))))\n'
    )
    value, diags = to_json(text, "openai")
    assert [d for d in diags if d.severity != "info"] == []
    fn = value[0]["function"]
    assert fn["description"] == "Pick one"
    assert fn["parameters"]["properties"]["role"]["enum"] == ["a", "b"]


def test_the_issue_example():
    text = (
        '(defvar roles \'(("a" . 1) ("b" . 2)))\n'
        "(defun my-def (spec) (apply #'gptel-make-tool spec))\n"
        '(my-def `(:name "pick" :function (lambda (r) r) :description "Pick a role"\n'
        '          :args ((:name "role" :type string :description "r"\n'
        "                  :enum ,(vconcat (mapcar #'car roles))))))\n"
    )
    diags = check_text(text)
    assert [d.code for d in diags] == ["PS101"]
    d = diags[0]
    assert d.severity == "info"
    assert text[d.start : d.end] == "(vconcat (mapcar #'car roles))"
