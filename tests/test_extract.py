"""extract: finding tool forms anywhere in a file and reading their slots statically."""

from __future__ import annotations

import pytest

from plistspec.elisp.datum import Integer, List, String, Symbol, Vector
from plistspec.extract import NotStatic, find_tools, static_eval

read_all = pytest.importorskip("plistspec.elisp.reader").read_all


def tools_of(text: str):
    forms, diags = find_tools(read_all(text), text)
    return forms, diags


def plain(d):
    """A datum as plain Python data, for comparisons (iterative enough for test sizes)."""
    if isinstance(d, Symbol):
        return d.name
    if isinstance(d, (String, Integer)):
        return d.value
    if isinstance(d, Vector):
        return ("vec", [plain(x) for x in d.items])
    if isinstance(d, List):
        out = [plain(x) for x in d.items]
        if d.tail is not None:
            out += [".", plain(d.tail)]
        return out
    return d


def test_finds_tools_at_any_depth_in_source_order():
    text = """
(setq gptel-tools (list (gptel-make-tool :name "a" :args nil)))
(use-package gptel
  :config
  (push (llm-make-tool :name "b") my-tools)
  (let ((x 1)) (add-to-list 'gptel-tools (gptel-make-tool :name "c"))))
(defvar my-tool (make-llm-tool :name "d"))
(defcustom t2 (gptel-make-tool :name "e") "doc")
"""
    forms, diags = tools_of(text)
    assert [plain(f.slot(":name").value) for f in forms] == ["a", "b", "c", "d", "e"]
    assert [f.dialect for f in forms] == ["gptel", "llm", "gptel", "llm", "gptel"]
    assert [f.head for f in forms] == [
        "gptel-make-tool",
        "llm-make-tool",
        "gptel-make-tool",
        "make-llm-tool",
        "gptel-make-tool",
    ]
    assert diags == []
    a = forms[0]
    assert text[a.start : a.end].startswith('(gptel-make-tool :name "a"')
    assert text[a.start : a.end].endswith(":args nil)")


@pytest.mark.parametrize(
    "args_src",
    [
        '(list \'(:name "x" :type string) \'(:name "y" :type integer :optional t))',
        '\'((:name "x" :type string) (:name "y" :type integer :optional t))',
        '(list (list :name "x" :type \'string) (list :name "y" :type \'integer :optional t))',
        '`((:name "x" :type string) (:name "y" :type integer :optional t))',
        '`((:name ,(concat "" "x") :type string) ,@(list \'(:name "y" :type integer :optional t)))',
        '(cons \'(:name "x" :type string) (list \'(:name "y" :type integer :optional t)))',
        '(append \'((:name "x" :type string)) (list \'(:name "y" :type integer :optional t)))',
    ],
)
def test_args_written_every_static_way_give_the_same_value(args_src):
    text = f'(gptel-make-tool :name "t" :function #\'ignore :args {args_src})'
    (form,), diags = tools_of(text)
    assert diags == []
    assert plain(form.slot(":args").value) == [
        [":name", "x", ":type", "string"],
        [":name", "y", ":type", "integer", ":optional", "t"],
    ]


def test_vector_args_and_vector_call():
    (form,), _ = tools_of('(gptel-make-tool :name "t" :args (vector \'(:name "x")) :x [a b])')
    assert plain(form.slot(":args").value) == ("vec", [[":name", "x"]])
    assert plain(form.slot(":x").value) == ("vec", ["a", "b"])


def test_quoted_symbol_inside_quoted_data_stays_a_quote_form():
    # gptel #1059: '(:type 'string) is (:type (quote string)), which both libraries reject.
    (form,), _ = tools_of('(gptel-make-tool :name "t" :args (list \'(:name "x" :type \'string)))')
    assert plain(form.slot(":args").value) == [[":name", "x", ":type", ["quote", "string"]]]


def test_concat_and_format_are_folded():
    text = (
        '(gptel-make-tool :name (format "get_%s_%d" "weather" 2) :description (concat "a" "b" nil))'
    )
    (form,), diags = tools_of(text)
    assert diags == []
    assert plain(form.slot(":name").value) == "get_weather_2"
    assert plain(form.slot(":description").value) == "ab"


def test_function_is_never_evaluated_and_keeps_its_source():
    text = '(gptel-make-tool :name "t" :function (lambda (x) (delete-file x)))'
    (form,), diags = tools_of(text)
    s = form.slot(":function")
    assert s.value is None
    assert form.source(s.form) == "(lambda (x) (delete-file x))"
    assert diags == []


def test_variables_and_calls_are_reported_not_evaluated():
    text = '(gptel-make-tool :name "t" :args my-args)\n(gptel-make-tool :name "u" :description (my-desc))'
    forms, diags = tools_of(text)
    assert len(forms) == 2
    assert forms[0].slot(":args").value is None
    assert forms[1].slot(":description").value is None
    assert [d.code for d in diags] == ["PS101", "PS101"]
    assert "my-args" in diags[0].message
    assert text[diags[0].start : diags[0].end] == "my-args"
    assert "my-desc" in diags[1].message
    assert text[diags[1].start : diags[1].end] == "(my-desc)"


def test_runtime_only_slot_that_needs_evaluation_is_info():
    (form,), diags = tools_of('(gptel-make-tool :name "t" :confirm (my-pred))')
    assert [(d.code, d.severity) for d in diags] == [("PS103", "info")]


def test_non_keyword_in_key_position_stops_reading():
    (form,), diags = tools_of('(gptel-make-tool "t" :name "x")')
    assert form.slots == []
    assert [d.code for d in diags] == ["PS102"]


def test_dangling_keyword_is_recorded():
    (form,), _ = tools_of('(gptel-make-tool :name "t" :async)')
    assert form.dangling is not None and form.dangling.name == ":async"


def test_apply_with_literal_spec():
    text = (
        '(apply #\'gptel-make-tool \'(:name "t" :function ignore :args ((:name "x" :type string))))'
    )
    (form,), diags = tools_of(text)
    assert diags == []
    assert form.head == "apply gptel-make-tool"
    assert plain(form.slot(":name").value) == "t"
    assert plain(form.slot(":args").value) == [[":name", "x", ":type", "string"]]


def test_spec_plists_handed_to_apply_are_found_in_data():
    text = """
(defvar my-specs
  '((:name "one" :function ignore :description "1")
    (:name "two" :function ignore :description "2" :args ((:name "x" :type string)))))
(mapc (lambda (s) (apply #'llm-make-tool s)) my-specs)
"""
    forms, diags = tools_of(text)
    assert [plain(f.slot(":name").value) for f in forms] == ["one", "two"]
    assert {f.dialect for f in forms} == {"llm"}
    assert diags == []


def test_spec_plists_are_not_tools_without_an_apply():
    text = '(defvar my-specs \'((:name "one" :function ignore)))'
    forms, _ = tools_of(text)
    assert forms == []


def test_llm_tool_collection_deftool():
    text = """
(llm-tool-collection-deftool view-buffer
    (:category "buffers" :tags (buffers editing) :confirm t)
    ((buffer-name "Name of the buffer to view." :type string)
     &optional
     (offset "Line number to start from." :type integer))
    "View contents of BUFFER-NAME."
  (with-current-buffer buffer-name (buffer-string)))
"""
    (form,), diags = tools_of(text)
    assert diags == []
    assert plain(form.slot(":name").value) == "view_buffer"
    assert plain(form.slot(":description").value) == "View contents of BUFFER-NAME."
    assert plain(form.slot(":category").value) == "buffers"
    assert plain(form.slot(":args").value) == [
        [":name", "buffer_name", ":description", "Name of the buffer to view.", ":type", "string"],
        [
            ":name",
            "offset",
            ":description",
            "Line number to start from.",
            ":optional",
            "t",
            ":type",
            "integer",
        ],
    ]
    assert form.source(form.slot(":function").form) == "view-buffer"


@pytest.mark.slow
def test_static_eval_is_iterative_on_deep_nesting():
    depth = 50_000
    form = String("leaf")
    for _ in range(depth):
        form = List([Symbol("list"), form])
    value = static_eval(form)
    n = 0
    while isinstance(value, List):
        value = value.items[0]
        n += 1
    assert n == depth and value == String("leaf")


@pytest.mark.slow
def test_static_eval_of_deep_backquote_template():
    depth = 50_000
    tmpl = List([Symbol(","), List([Symbol("concat"), String("a"), String("b")])])
    for _ in range(depth):
        tmpl = List([tmpl])
    value = static_eval(List([Symbol("`"), tmpl]))
    n = 0
    while isinstance(value, List):
        value = value.items[0]
        n += 1
    assert n == depth and value == String("ab")


def test_static_eval_reports_the_innermost_culprit():
    form = List([Symbol("list"), String("a"), List([Symbol("concat"), Symbol("var")])])
    value = static_eval(form)
    assert isinstance(value, NotStatic)
    assert "var" in value.reason
