"""fmt keeps comments inside tool forms: each moves with the slot, arg, key or element it
belongs to; a comment with no place leaves the form unchanged with a PS530 info at it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plistspec.api import read_tools
from plistspec.elisp.reader import read_all
from plistspec.emit_elisp.comments import comments_in
from plistspec.emit_json import emit
from plistspec.fmt.rewrite import BACKENDS, format_text

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "elisp"

COMMENTED = """\
(gptel-make-tool ; the weather tool
 ;; Name first
 :name "get_weather"
 :function (lambda (loc &optional unit) ; body
             ;; fetch it
             (my-fetch loc unit))
 :description "Get the weather" ; short
 :args (list '(:name "location" :type string ; where
               ;; a description for it
               :description "City")
             ;; the unit arg
             '(:name "unit"
               :type string
               :enum ["celsius" ; metric
                      "fahrenheit"]
               :optional t)
             ;; '(:name "days" :type integer)
             )
 :category "weather" ; cat
 ;; :confirm t
 )
"""


def _all_json(text: str) -> dict[str, str]:
    tools, diags = read_tools(text)
    assert not any(d.is_error for d in diags)
    return {f: json.dumps(emit(tools, f)[0], ensure_ascii=False) for f in BACKENDS}


def _words(text: str) -> list[str]:
    datums = read_all(text)
    out: list[str] = []
    for p in comments_in(text, datums, 0, len(text)):
        out.extend(text[p:].split("\n", 1)[0].split())
    return sorted(out)


def _line_of(text: str, needle: str) -> str:
    return next(line for line in text.split("\n") if needle in line)


def test_comments_move_with_what_they_describe() -> None:
    new, diags = format_text(COMMENTED)
    assert not [d for d in diags if d.code == "PS530"]
    assert new != COMMENTED
    assert _words(new) == _words(COMMENTED)
    assert _all_json(new) == _all_json(COMMENTED)
    assert new.startswith("(gptel-make-tool ; the weather tool\n ;; Name first\n :name ")
    # trailing comments stay at the end of their slot's / key's / element's line
    assert _line_of(new, "; short").strip() == ':description "Get the weather" ; short'
    assert _line_of(new, "; where").strip() == ":type string ; where"
    assert _line_of(new, "; metric").strip() == ':enum ["celsius" ; metric'
    assert _line_of(new, "; cat").strip() == ':category "weather" ; cat'
    # own-line comments stay right before their key / arg, at its column
    lines = new.split("\n")
    i = lines.index(next(x for x in lines if x.strip() == ";; a description for it"))
    assert lines[i + 1].strip() == ':description "City")'
    assert lines[i].index(";") == lines[i + 1].index(":")
    i = lines.index(next(x for x in lines if x.strip() == ";; the unit arg"))
    assert lines[i + 1].strip() == """'( :name "unit\""""
    # commented-out slots and args at the end of a list stay there
    assert re.search(r"\n +;; '\(:name \"days\" :type integer\)\n +\)\n", new)
    assert new.endswith(" ;; :confirm t\n )\n")
    assert format_text(new)[0] == new


def test_trailing_comment_never_swallows_following_code() -> None:
    text = (
        '(setq y (gptel-make-tool :name "a" :description "b" :function #\'ignore\n'
        '  :args (list \'(:name "x" :type string)) ; x\n  )) (foo)\n'
    )
    new, _ = format_text(text)
    assert new != text and new.endswith(")) (foo)\n")
    assert _words(new) == _words(text)
    # the last slot's comment ends its line; the form's paren goes below it
    assert re.search(r":type string\)\) ; x\n +\)\) \(foo\)", new)
    assert [f["name"] for f in read_tools(new)[0]] == ["a"]
    assert format_text(new)[0] == new


def test_llm_and_nested_comments() -> None:
    text = """(llm-make-tool :name "l" :description "d" :function #'ignore ; fn
  :args '(;; first
          (:name "q" :type string ; q
           :description "Q") (:name "r" :type object
           :properties (:a (:type string) ; a
                        ;; b next
                        :b (:type number))
           :optional t)))
"""
    new, diags = format_text(text)
    assert new != text and not [d for d in diags if d.code == "PS530"]
    assert _words(new) == _words(text)
    assert _all_json(new) == _all_json(text)
    assert _line_of(new, "; a").strip() == ":properties ( :a ( :type string) ; a"
    lines = new.split("\n")
    i = lines.index(next(x for x in lines if x.strip() == ";; b next"))
    assert lines[i + 1].strip().startswith(":b ( :type number)")
    assert format_text(new)[0] == new


def test_comments_with_no_place_leave_the_form_and_say_where() -> None:
    text = (
        '(gptel-make-tool :name "a" :description (concat "x" ;; part\n'
        '  "y") :function #\'ignore)\n'
        '(gptel-make-tool :name ; odd\n  "b" :description "d" :function #\'ignore)\n'
    )
    new, diags = format_text(text, "t.el")
    # a comment inside a value is part of its text, kept as written (the call stays a call)
    first, second = new.split("\n(gptel-make-tool :name ; odd", 1)
    assert first == (
        '(gptel-make-tool\n :name "a"\n :description (concat "x" ;; part\n'
        '               "y")\n :function #\'ignore)'
    )
    # between a key and its value a comment has no place: that form is left as it was
    assert "(gptel-make-tool :name ; odd" + second == text[text.index("(gptel-make-tool :name ;") :]
    infos = [d for d in diags if d.code == "PS530"]
    assert [d.start for d in infos] == [text.index("; odd")]
    assert all("comment" in d.message for d in infos)


_GAP = re.compile(r"[ \t]*\n")


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(sorted(FIXTURES.glob("*.el"))),
    st.lists(st.tuples(st.integers(0, 10**6), st.booleans()), min_size=1, max_size=6),
)
def test_inserted_comments_are_kept_or_reported(path: Path, inserts) -> None:
    """Comments put at random line ends / on own lines inside the fixtures' tool forms:
    fmt keeps every one of them and what the libraries send, or leaves the form and
    points at a comment; and formatting is idempotent."""
    text = path.read_text(encoding="utf-8")
    datums = read_all(text)
    atoms = []
    todo = list(datums)
    while todo:
        d = todo.pop()
        items = getattr(d, "items", None)
        if items is not None:
            todo.extend(items)
        else:
            atoms.append((d.start, d.end))
    spots = [
        m.start()
        for m in _GAP.finditer(text)
        if not any(a < m.start() < b for a, b in atoms)
        and text.rfind(";", text.rfind("\n", 0, m.start()), m.start()) < 0
    ]
    chosen = sorted({spots[i % len(spots)]: own for i, own in inserts}.items(), reverse=True)
    for n, (pos, own) in enumerate(chosen):
        comment = f"\n;; own{n} note\n" if own else f" ; trail{n} note"
        text = text[:pos] + comment + text[pos:]
    new, diags = format_text(text)
    assert _words(new) == _words(text)
    assert _all_json(new) == _all_json(text)
    assert format_text(new)[0] == new
    for d in diags:
        if d.code == "PS530" and "comment" in d.message:
            assert text[d.start] == ";"
