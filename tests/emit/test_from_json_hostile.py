"""from-json on hostile JSON: whatever the input holds, loading (and byte-compiling, and
visiting) the generated file in real Emacs runs nothing the user did not write.

Every attempt tries to create a marker file and print INJECTED: code in
``metadata.function`` and slot texts (progn, funcall, backquote with unquotes, macros that
evaluate at expansion time inside a lambda, ``(:documentation FORM)``, text that closes the
form, a CR that Emacs reads as a line break), keys, tool names and MCP titles/annotations
with newlines, ``-*-`` and ``Local Variables:`` in names and in the ``-o`` file name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from plistspec.elisp.reader import read_all

MARK = "@MARK@"  # replaced by the marker file's path

FUNCTIONS = [
    '(progn (with-temp-file "@MARK@") #\'ignore)',
    '(funcall (lambda () (with-temp-file "@MARK@") #\'ignore))',
    '`(lambda () ,(with-temp-file "@MARK@"))',
    '(lambda () (eval-when-compile (with-temp-file "@MARK@")))',
    '#\'(lambda () (eval-and-compile (with-temp-file "@MARK@")))',
    '(lambda () (:documentation (progn (with-temp-file "@MARK@") "d")) nil)',
    '(lambda () "doc" (:documentation (progn (with-temp-file "@MARK@") "d")) nil)',
    '(lambda () (cl-macrolet ((m () (with-temp-file "@MARK@") nil)) (m)))',
    '#\'(lambda () (rx (eval (progn (with-temp-file "@MARK@") "a"))))',
    '(lambda () (load-time-value (with-temp-file "@MARK@")))',
    '(lambda (a) (let-when-compile ((x (with-temp-file "@MARK@"))) a))',
    '(lambda (a) (define-ccl-program x (progn (with-temp-file "@MARK@") [1 [0]])) a)',
    '(lambda (a) (funcall \'eval-when-compile (with-temp-file "@MARK@")) a)',
    '(lambda (a) (funcall #\'eval-and-compile (with-temp-file "@MARK@")) a)',
    '(lambda (a) (macroexp--funcall-if-compiled (lambda () (with-temp-file "@MARK@"))) a)',
    '(lambda (a) (static-if (with-temp-file "@MARK@") a a))',
    '#\'ignore) (with-temp-file "@MARK@") (list',
    '#\'ignore\n(with-temp-file "@MARK@")',
    '#\'ignore ;; c\r(with-temp-file "@MARK@")',
    '(let ((x (with-temp-file "@MARK@"))) #\'ignore)',
    "(if (with-temp-file \"@MARK@\") #'ignore #'ignore)",
    '(lambda ((with-temp-file "@MARK@")) nil)',
    '(quote ignore) (with-temp-file "@MARK@")',
    "#s(hash-table data (a 1))",
    '"unterminated',
]
SLOT_TEXTS = [
    (":confirm", '(with-temp-file "@MARK@")'),
    (":include", '(progn (with-temp-file "@MARK@") t)'),
    (":category", '(concat (with-temp-file "@MARK@") "x")'),
    (":confirm", 't) (with-temp-file "@MARK@") (list'),
    (":async", '`(,(with-temp-file "@MARK@"))'),
    (":whatever", '#\'(lambda () (with-temp-file "@MARK@"))'),
]
KEYS = [
    ':confirm t) (with-temp-file "@MARK@") (list :x',
    '(with-temp-file "@MARK@")',
    ':x\n(with-temp-file "@MARK@")',
    ":name",
    "confirm",
]
NAMES = [
    'a\n(with-temp-file "@MARK@")\n',
    'x -*- eval: (with-temp-file "@MARK@") -*-',
    '") (with-temp-file "@MARK@") ("',
    "%s %S \\",
]
OUT_NAMES = [
    'x\n(with-temp-file "@MARK@")\n.el',
    'x -*- eval: (with-temp-file "@MARK@") -*-.el',
    'Local Variables:\neval: (with-temp-file "@MARK@")\nEnd:\n.el',
    "1.5.el",
    "a'b.el",
    "tools.el",
    "my.tools.el",
]


def _ir(name: str, function: str | None = None, slots: list | None = None, **meta) -> dict:
    m: dict = {"dialect": "gptel", **{k.rstrip("_"): v for k, v in meta.items()}}
    if function is not None:
        m["function"] = function
    if slots is not None:
        m["slots"] = slots
    return {
        "type": "function",
        "name": name,
        "description": "d",
        "parameters": {"type": "object", "properties": {"x": {"type": "string"}}},
        "metadata": m,
    }


def _cases(mark: str) -> list[tuple[str, object, str]]:
    """``(label, JSON value, -o file name)``."""

    def sub(s: str) -> str:
        return s.replace(MARK, mark)

    cases: list[tuple[str, object, str]] = []
    for i, f in enumerate(FUNCTIONS):
        cases.append((f"function{i}", [_ir("t", sub(f))], "f.el"))
        slots = [{"key": ":function", "text": sub(f), "column": 11}]
        cases.append((f"slot-function{i}", [_ir("t", slots=slots)], "f.el"))
    for i, (k, t) in enumerate(SLOT_TEXTS):
        slots = [{"key": ":function", "text": "#'ignore"}, {"key": k, "text": sub(t)}]
        cases.append((f"slot{i}", [_ir("t", slots=slots)], "f.el"))
    for i, k in enumerate(KEYS):
        slots = [{"key": ":function", "text": "#'ignore"}, {"key": sub(k), "text": "t"}]
        cases.append((f"key{i}", [_ir("t", slots=slots)], "f.el"))
    for i, n in enumerate(NAMES):
        mcp = {
            "name": sub(n),
            "description": sub(n),
            "title": sub(n),
            "annotations": {sub(n): sub(n), "destructiveHint": False},
            "inputSchema": {"type": "object", "properties": {sub(n): {"type": "string"}}},
        }
        cases.append((f"name{i}", [mcp], "f.el"))
        cases.append((f"ir-name{i}", [_ir(sub(n), "#'ignore", title=sub(n))], "f.el"))
    # property names that are globals, constants, keywords or not symbols at all: the
    # stub's parameters must not bind them (byte-compile warnings, shadowed globals)
    props = ["load-path", "obarray", "nil", "t", ":key", "a b", "x", "_x", "x", "", "1", "-"]
    props += [
        "callback",
        "_callback",
        "default-directory",
        "case-fold-search",
        "most-positive-fixnum",
    ]
    params = {"type": "object", "properties": {p: {"type": "string"} for p in props}}
    mcp = {"name": "p", "description": "d", "inputSchema": params}
    cases.append(("params", [mcp], "p.el"))
    cases.append(("params-async", [{**_ir("p", async_=True), "parameters": params}], "p.el"))
    for i, o in enumerate(OUT_NAMES):
        cases.append((f"out{i}", [_ir("t", "#'ignore")], sub(o)))
    return cases


def _cli(*args: str, stdin: str | None = None):
    from click.testing import CliRunner

    from plistspec.cli import main

    return CliRunner().invoke(main, list(args), input=stdin)


def _write_all(tmp: Path, mark: str, dialect: str) -> list[Path]:
    files = []
    for i, (label, value, out) in enumerate(_cases(mark)):
        d = tmp / f"{dialect}{i}"
        d.mkdir()
        src = d / "in.json"
        src.write_text(json.dumps(value), encoding="utf-8")
        r = _cli("from-json", "-d", dialect, str(src), "-o", str(d / out))
        assert r.exit_code in (0, 1), (label, r.output)
        assert "Traceback" not in r.output, (label, r.output)
        if r.exit_code == 0:
            files.append(d / out)
            text = (d / out).read_text(encoding="utf-8")
            first = text.split("\n", 1)[0]
            assert first.count("-*-") == 2 and first.endswith("-*-"), label  # one -*- line
            assert "local variables:" not in text.lower(), label
            # the file reads as exactly the forms plistspec means: header comments, require,
            # the tools (or their defvar), provide
            heads = [f.items[0].name for f in read_all(text)]
            assert heads[0] == "require" and heads[-1] == "provide", (label, heads)
            assert set(heads) <= {"require", "provide", "gptel-make-tool", "defvar"}, label
    return files


LOAD = r"""
(setq enable-local-variables :all enable-local-eval t byte-compile-error-on-warn t)
(dolist (f command-line-args-left)
  (condition-case err
      (progn (load f nil t)
             (with-current-buffer (find-file-noselect f) (hack-local-variables))
             (unless (byte-compile-file f) (princ (format "ERR compile %S\n" f)))
             (load (concat f "c") nil t)
             (princ "OK\n"))
    (error (princ (format "ERR %S %S\n" f err)))))
"""


@pytest.mark.slow
@pytest.mark.parametrize("dialect", ["gptel", "llm"])
def test_loading_what_from_json_wrote_runs_nothing_from_the_input(
    emacs, tmp_path: Path, dialect: str
) -> None:
    from support import elisp_deps, elisp_deps_preamble

    mark = tmp_path / "MARKER"
    files = _write_all(tmp_path, str(mark), dialect)
    assert len(files) > 40
    deps = elisp_deps()
    if deps is not None:  # the real gptel / llm
        script = elisp_deps_preamble(deps) + f"(require '{dialect})\n"
    else:  # without them the security check still runs: only the constructor is needed
        head = {"gptel": "gptel-make-tool", "llm": "llm-make-tool"}[dialect]
        script = f"(defun {head} (&rest spec) spec)\n(provide '{dialect})\n"
    script += LOAD.replace(
        "command-line-args-left", "(list " + " ".join(json.dumps(str(f)) for f in files) + ")"
    )
    out = emacs.run(script, timeout=300)
    assert not mark.exists()
    assert "INJECTED" not in out
    assert "ERR" not in out, out
    assert out == "OK\n" * len(files)  # nothing else printed: no INJECTED, no message


def test_unsafe_code_is_dropped_with_a_warning_and_trusted_on_request(tmp_path: Path) -> None:
    src = tmp_path / "in.json"
    fn = '(progn (message "hi") #\'ignore)'
    src.write_text(json.dumps([_ir("t", fn)]), encoding="utf-8")
    r = _cli("from-json", str(src))
    assert r.exit_code == 0
    assert "PS516" in r.stderr and "(progn" in r.stderr and "--trust-functions" in r.stderr
    assert "not implemented yet" in r.stdout and "message" not in r.stdout
    r = _cli("from-json", "--trust-functions", str(src))
    assert r.exit_code == 0 and "PS516" not in r.stderr
    assert ':function (progn (message "hi") #\'ignore)' in r.stdout
    # a lambda, #'symbol and literals are written without being asked, reprinted
    ok = "(lambda (x)\n             ;; hello\n             (upcase x))"
    src.write_text(
        json.dumps([_ir("t", slots=[{"key": ":function", "text": ok, "column": 11}])]),
        encoding="utf-8",
    )
    r = _cli("from-json", str(src))
    assert r.exit_code == 0 and "PS516" not in r.stderr
    assert ":function (lambda (x)\n             (upcase x))" in r.stdout  # line break kept
    assert "PS517" in r.stderr  # the comment was not


def test_malformed_metadata_slots_are_errors_not_tracebacks(tmp_path: Path) -> None:
    for slots in ([1], [{"key": 1, "text": "t"}], [{"key": ":a", "text": ["x"]}], "x", [None]):
        src = tmp_path / "in.json"
        src.write_text(json.dumps([_ir("t", "#'ignore", slots=slots)]), encoding="utf-8")
        r = _cli("from-json", str(src))
        assert r.exit_code == 1, slots
        assert "PS514" in r.stderr and "Traceback" not in r.output
        assert r.stderr.startswith(f"{src}:1:"), r.stderr
    src.write_text(json.dumps([_ir("t", 3)]), encoding="utf-8")
    r = _cli("from-json", str(src))
    assert r.exit_code == 1 and "PS514" in r.stderr


@pytest.mark.parametrize("fn", ["nil", "t", ":kw", "'nil", "#':x", '"fn"', "12", "[f]"])
def test_a_function_that_names_no_function_is_refused(tmp_path: Path, fn: str) -> None:
    src = tmp_path / "in.json"
    for ir in (_ir("t", fn), _ir("t", slots=[{"key": ":function", "text": fn, "column": 1}])):
        src.write_text(json.dumps([ir]), encoding="utf-8")
        for trust in ([], ["--trust-functions"]):
            r = _cli("from-json", *trust, str(src))
            assert r.exit_code == 1 and "PS525" in r.stderr
            assert "is not a function" in r.stderr and not r.stdout


# --- bidirectional controls ("Trojan Source"): a reader of the file sees what is there --
BIDI = "\u202e\u2066\u2069\u200e\u200f\u061c\u202a\u2028"


@pytest.mark.parametrize("dialect", ["gptel", "llm"])
def test_bidi_controls_are_escaped_and_read_back_exactly(emacs, tmp_path, dialect) -> None:
    from plistspec.elisp.printer import BIDI as BIDI_RE

    name = f"admin{BIDI[0]}nimda"
    desc = f"Safe {BIDI} tool"
    tool = {
        "name": name,
        "description": desc,
        "title": f"T{BIDI[0]}",
        "annotations": {"readOnlyHint": True, "note": BIDI},
        "inputSchema": {
            "type": "object",
            "properties": {"x": {"type": "string", "enum": [f"a{BIDI[1]}b"], "description": BIDI}},
        },
    }
    src = tmp_path / "in.json"
    src.write_text(json.dumps({"tools": [tool]}), encoding="utf-8")
    out = tmp_path / "bidi.el"
    r = _cli("from-json", "-d", dialect, str(src), "-o", str(out))
    assert r.exit_code == 0, r.output
    text = out.read_text(encoding="utf-8")
    assert BIDI_RE.search(text) is None and "\u2028" not in text
    assert "\\u202E" in text
    head = {"gptel": "gptel-make-tool", "llm": "llm-make-tool"}[dialect]
    got = emacs.run(
        f"(defvar seen nil)\n(defun {head} (&rest spec) (push spec seen) spec)\n"
        f"(provide '{dialect})\n"
        f"(load {json.dumps(str(out))} nil t)\n"
        '(dolist (s seen) (princ (concat (plist-get s :name) "\\n" (plist-get s :description)'
        ' "\\n")))'
    )
    assert got == f"{name}\n{desc}\n"


def test_a_key_holding_a_bidi_control_is_refused(tmp_path) -> None:
    src = tmp_path / "in.json"
    props = {"o": {"type": "object", "properties": {f"a{BIDI[0]}b": {"type": "string"}}}}
    tool = {"name": "t", "description": "d", "parameters": {"type": "object", "properties": props}}
    src.write_text(json.dumps([{"type": "function", "function": tool}]), encoding="utf-8")
    r = _cli("from-json", str(src))
    assert r.exit_code == 1 and "PS526" in r.stderr and not r.stdout
    assert BIDI[0] not in r.stderr and "\\u202e" in r.stderr  # the message shows it too


def test_a_symbol_holding_a_bidi_control_in_a_slot_text_is_dropped(tmp_path) -> None:
    src = tmp_path / "in.json"
    fn = f"(lambda (a) (ignore 'x{BIDI[0]}y) a)"
    src.write_text(json.dumps([_ir("t", fn)]), encoding="utf-8")
    r = _cli("from-json", str(src))
    assert r.exit_code == 0 and "PS515" in r.stderr and "bidirectional" in r.stderr
    assert BIDI[0] not in r.stdout and "not implemented yet" in r.stdout
