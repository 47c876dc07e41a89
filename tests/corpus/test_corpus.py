"""Real-world tool-file patterns (minimized into fixtures/corpus/): same-file constants,
slot values built by pure functions, tools nested in other tools, gptel's internal
constructor. Their JSON must equal what the real gptel/llm send (expected.json, made by
gen_expected.py), and every static value must equal what Emacs computes for the slot.
"""

from __future__ import annotations

import json

import pytest

from plistspec.api import to_provider
from plistspec.core.jsonout import dumps
from plistspec.elisp.datum import List, String, Symbol
from plistspec.elisp.printer import print_datum
from plistspec.elisp.reader import read_all
from plistspec.extract import (
    WRAPPER_HEADS,
    file_constants,
    file_wrappers,
    find_tools,
    static_eval,
)
from plistspec.replay import lower
from support import ROOT

CORPUS = ROOT / "fixtures" / "corpus"
EXPECTED = json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))["cases"]


def forms_of(name: str):
    text = (CORPUS / name).read_text(encoding="utf-8")
    return find_tools(read_all(text), text)


@pytest.mark.parametrize("case", EXPECTED, ids=lambda c: f"{c['file']}#{c['index']}")
def test_json_equals_the_real_libraries(case):
    forms, _ = forms_of(case["file"])
    form = forms[case["index"]]
    for dialect, families in (("gptel", ("openai", "anthropic")), ("llm", ("llm",))):
        tool, diags = lower(form, dialect)
        for fam in families:
            real = case[fam]
            if "error" in real:
                assert tool is None and diags, (fam, real["error"])
                continue
            assert tool is not None, (fam, [d.message for d in diags])
            value, ediags = to_provider([tool], "openai" if fam == "llm" else fam)
            assert not ediags
            assert dumps(value) == dumps(real["json"]), fam


def test_every_statically_readable_tool_is_covered():
    seen = {(c["file"], c["index"]) for c in EXPECTED}
    names = []
    for path in sorted(CORPUS.glob("*.el")):
        forms, _ = forms_of(path.name)
        for i, f in enumerate(forms):
            if all(s.value is not None for s in f.slots if s.key.name != ":function"):
                assert (path.name, i) in seen
                names.append(f.slot(":name").value.value)
    assert {"read_lines", "write_text", "stat_file", "echo", "finish", "lookup"} <= set(names)
    assert {"set_mode", "shadowed"}.isdisjoint(names)


def test_constants_read_and_refused():
    forms, diags = forms_of("constants.el")
    by_name = {f.slot(":name").value.value: f for f in forms}
    assert by_name["read_lines"].slot(":args").via == ("my-tools-read-args",)
    assert by_name["read_lines"].slot(":description").via == ("my-tools-preamble",)
    assert by_name["stat_file"].slot(":args").via == ("my-tools-path-arg",)
    assert by_name["set_mode"].slot(":args").value is None
    assert by_name["shadowed"].slot(":args").value is None
    assert by_name["echo"].head == "spec"  # found once, where the spec is written
    assert [f.slot(":name").value.value for f in forms].count("echo") == 1
    msgs = [d.message for d in diags if d.code == "PS101"]
    assert any("my-tools-mode-args" in m and "setq" in m for m in msgs)
    assert any("my-tools-shadowed" in m and "bound" in m for m in msgs)


@pytest.mark.parametrize(
    "text, name, known",
    [
        ("(defconst c '(1))", "c", True),
        ('(defvar c "x" "doc")', "c", True),
        ("(defvar c)", "c", False),
        ("(defconst c '(1)) (defconst c '(2))", "c", False),
        ("(defconst c '(1)) (push 2 c)", "c", False),
        ("(defconst c '(:a 1)) (plist-put c :a 2)", "c", False),
        ("(defconst c '(1)) (defun f (c) c)", "c", False),
        ("(defconst c '(1)) (dolist (c '(2)) (message \"%s\" c))", "c", False),
        ("(defconst c '(1)) (setq x `(,@c))", "c", True),
        ("(defconst c '(1)) (setq x '(setq c 2))", "c", True),  # quoted data
        ("(defconst c (my-fn))", "c", False),
        ("(defconst b '(1)) (defconst c (append b '(2)))", "c", True),
        ("(defconst c (append b '(2))) (defconst b '(1))", "c", False),  # b not yet defined
    ],
)
def test_file_constants_rules(text, name, known):
    assert (name in file_constants(read_all(text))) is known


def test_constants_can_be_turned_off():
    text = '(defconst a \'((:name "x" :type string)))\n(gptel-make-tool :name "t" :args a)'
    forms, diags = find_tools(read_all(text), text, constants=False)
    assert forms[0].slot(":args").value is None and diags[0].code == "PS101"


def test_mapconcat_and_symbol_name_folds():
    v = static_eval(read_all('(mapconcat #\'identity \'("a" "b") ", ")')[0])
    assert isinstance(v, String) and v.value == "a, b"
    v = static_eval(read_all('(mapconcat \'identity ["a" "b"])')[0])
    assert isinstance(v, String) and v.value == "ab"
    v = static_eval(read_all('(mapconcat #\'upcase \'("a") "")')[0])
    assert not isinstance(v, String)
    v = static_eval(read_all("(symbol-name :key)")[0])
    assert isinstance(v, String) and v.value == ":key"


def test_nested_tool_in_function_slot_is_found():
    forms, _ = forms_of("nested.el")
    assert [(f.head, f.slot(":name").value.value) for f in forms] == [
        ("llm-make-tool", "run_subtask"),
        ("llm-make-tool", "finish"),
        ("gptel--make-tool", "lookup"),
    ]


def _pure_slot_cases():
    cases = []
    for path in sorted(CORPUS.glob("*.el")):
        forms, _ = forms_of(path.name)
        for f in forms:
            if f.head in ("spec",) or f.head.startswith("apply"):
                continue
            for s in f.slots:
                if s.key.name != ":function" and s.value is not None:
                    cases.append((path.name, f.source(s.form), print_datum(s.value)))
    return cases


def test_static_values_equal_emacs_eval(emacs):
    """Each fixture is loaded with stub constructors (the fixtures are ours), then every
    slot's source is evaluated and compared with plistspec's static value (``equal``)."""
    cases = _pure_slot_cases()
    assert len(cases) > 30
    files = sorted({c[0] for c in cases})

    def q(s: str) -> str:
        return print_datum(String(s))

    prog = [
        "(require (quote subr-x))",
        "(defun gptel-make-tool (&rest _) nil)",
        "(defun gptel--make-tool (&rest _) nil)",
        "(defun llm-make-tool (&rest _) nil)",
        "(defun make-llm-tool (&rest _) nil)",
    ]
    prog += [f"(defun {head} (&rest _) nil)" for head in WRAPPER_HEADS]
    prog += [f"(load {q(str(CORPUS / name))} nil t)" for name in files]
    items = " ".join(f"({q(src)} {q(val)})" for _, src, val in cases)
    prog.append(
        f"(dolist (c '({items})) (princ (if (equal (eval (car (read-from-string (car c))) t) "
        '(car (read-from-string (cadr c)))) "same\\n" (format "DIFF %s\\n" (car c)))))'
    )
    out = emacs.run("\n".join(prog)).split("\n")
    out = [line for line in out if line]
    assert len(out) == len(cases)
    assert [line for line in out if line != "same"] == []


def test_unrelated_symbol_is_not_a_constant():
    env = file_constants(read_all("(defconst c 1)"))
    v = static_eval(Symbol("d"), env)
    assert not isinstance(v, (String, List))


def test_public_wrappers_are_tool_forms():
    forms, _ = forms_of("wrappers.el")
    got = [(f.head, f.dialect, f.slot(":name").value.value) for f in forms]
    assert got == [
        ("gptel-tool-library-make-tools-and-register", "gptel", "buffer_size"),
        ("eai-tool-library-make-tools-and-register", "gptel", "now"),
        ("gptelt-make-tool", "gptel", "grep"),
    ]
    # the list variable before the plist is not a slot
    assert [s.key.name for s in forms[0].slots][:2] == [":function", ":name"]
    assert forms[2].slot(":description").value.value == "Search files.\nRegexps are Rust's."


def test_same_file_wrappers_are_tool_forms():
    forms, _ = forms_of("samefile.el")
    got = [(f.head, f.dialect, f.slot(":name").value.value) for f in forms]
    assert got == [
        ("my-tool", "gptel", "list_buffers"),
        ("my-fs-tool", "gptel", "read_file"),
        ("my-deftool", "llm", "fetch"),
        ("my-deftool", "llm", "first_wins"),
        ("my-web-tool", "gptel", "search"),
    ]
    by_name = {f.slot(":name").value.value: f for f in forms}
    # the wrapper's leading pairs come first, so they win (as in Emacs: expected.json)
    assert by_name["read_file"].slot(":category").value.value == "filesystem"
    assert by_name["first_wins"].slot(":description").value.value == "Default description."
    assert by_name["search"].slot(":category").value.value == "web"
    # a constant handed to a wrapper is still a constant
    assert by_name["read_file"].slot(":args").via == ("my-path-arg",)


@pytest.mark.parametrize(
    "definition, wrapper",
    [
        ("(defun w (&rest a) (apply #'gptel-make-tool a))", ("gptel", [])),
        ('(defun w (&rest a) "Doc." (apply \'llm-make-tool a))', ("llm", [])),
        ("(defsubst w (&rest a) (apply #'gptel-make-tool :confirm t a))", ("gptel", [":confirm"])),
        ("(cl-defmacro w (&body a) `(make-llm-tool :async nil ,@a))", ("llm", [":async"])),
        ("(defun w (&rest a) (apply #'gptelt-make-tool a))", ("gptel", [])),
        # not a pure pass-through
        ('(defun w (&rest a) (message "x") (apply #\'gptel-make-tool a))', None),
        ("(defun w (n &rest a) (apply #'gptel-make-tool :name n a))", None),
        ("(defun w (&rest a) (apply #'gptel-make-tool (cdr a)))", None),
        ("(defun w (&rest a) (apply #'gptel-make-tool :category c a))", None),
        ("(defun w (&rest a) (apply #'gptel-make-tool :category a))", None),
        ('(defun w (&rest a) (apply #\'gptel-make-tool :category "x" b))', None),
        ("(defun w (&rest a) (apply #'gptel-tool-library-make-tools-and-register a))", None),
        ("(defmacro w (&rest a) `(gptel-make-tool :category ,c ,@a))", None),
        ('(defmacro w (&rest a) `(gptel-make-tool ,@a :category "x"))', None),
        ("(defun w (&rest a) (apply #'w2 a)) (defun w2 (&rest a) (apply #'w a))", None),
        ("(defun w (&rest a) (apply #'gptel-make-tool a)) (defun w (&rest a) a)", None),
        ("'(defun w (&rest a) (apply #'gptel-make-tool a))", None),
    ],
)
def test_file_wrappers_rules(definition, wrapper):
    found = file_wrappers(read_all(definition))
    if wrapper is None:
        assert "w" not in found
    else:
        dialect, keys = found["w"]
        assert (dialect, [k.name for k, _ in keys]) == wrapper
    text = definition + ' (w :name "t" :function #\'ignore)'
    forms, _ = find_tools(read_all(text), text)
    assert ("w" in [f.head for f in forms]) is (wrapper is not None)
