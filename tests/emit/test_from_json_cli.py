"""from-json's file options: --forms-only (what an editor inserts), --variable/--feature
and the provide/defvar frame, checked through the command line."""

from __future__ import annotations

import json

import pytest

from plistspec.elisp.datum import List, Symbol
from plistspec.elisp.reader import read_all

TWO = json.dumps(
    [
        {
            "type": "function",
            "function": {
                "name": "a",
                "description": "A.",
                "parameters": {"type": "object", "properties": {"x": {"type": "string"}}},
            },
        },
        {"name": "b", "description": "B.", "inputSchema": {"type": "object"}, "title": "Bee"},
    ]
)


def _cli(*args: str, stdin: str | None = None):
    from click.testing import CliRunner

    from plistspec.cli import main

    return CliRunner().invoke(main, list(args), input=stdin)


def test_forms_only_writes_just_the_tool_forms() -> None:
    for dialect in ("gptel", "llm"):
        r = _cli("from-json", "--forms-only", "-d", dialect, "-", stdin=TWO)
        assert r.exit_code == 0, r.stderr
        text = r.stdout
        forms = read_all(text)
        head = {"gptel": "gptel-make-tool", "llm": "llm-make-tool"}[dialect]
        assert [f.items[0] for f in forms] == [Symbol(head), Symbol(head)]
        assert all(isinstance(f, List) for f in forms)
        for banned in ("lexical-binding", "Commentary", "(require", "(provide", "ends here"):
            assert banned not in text
        assert ';; MCP title: "Bee"' in text  # the comments of a form stay with it
        assert "\n\n" in text and not text.startswith("\n") and text.endswith(")\n")
    # warnings still go to stderr, never into the forms
    r = _cli("from-json", "--forms-only", "-", stdin=TWO.replace('"A."', '"A.", "strict": 1'))
    assert "PS503" in r.stderr and "PS503" not in r.stdout


REQUIRE_LLM = r"""
(require 'json)
(push DIR load-path)
(require 'my-tools)
(princ (json-encode
        (list (cons "feature" (featurep 'my-tools))
              (cons "tools" (vconcat (mapcar (lambda (tool)
                                      (vector (llm-tool-p tool) (llm-tool-name tool)
                                            (vconcat (mapcar (lambda (a) (plist-get a :name))
                                                             (llm-tool-args tool)))
                                            (condition-case err (apply (llm-tool-function tool)
                                                                        (make-list (length (llm-tool-args tool)) "v"))
                                              (user-error (cadr err)))))
                                    VAR))))))
"""


@pytest.mark.slow
def test_an_llm_file_is_required_and_holds_the_tools(emacs, elisp_deps_dir, tmp_path) -> None:
    """(require 'my-tools) with the real llm: the variable holds llm-tool structs."""
    from support import elisp_deps_preamble

    src = tmp_path / "in.json"
    src.write_text(TWO, encoding="utf-8")
    runs = [
        (["-o", str(tmp_path / "my-tools.el")], "my-tools"),
        (["-o", str(tmp_path / "my-tools.el"), "--variable", "my-llm-tools"], "my-llm-tools"),
    ]
    for extra, var in runs:
        r = _cli("from-json", "-d", "llm", str(src), *extra)
        assert r.exit_code == 0, r.output
        script = elisp_deps_preamble(elisp_deps_dir) + REQUIRE_LLM.replace(
            "DIR", json.dumps(str(tmp_path))
        ).replace("VAR", var)
        got = json.loads(emacs.run(script))
        assert got["feature"] is True
        assert got["tools"] == [
            [True, "a", ["x"], "Tool a is not implemented yet: write its :function"],
            [True, "b", [], "Tool b is not implemented yet: write its :function"],
        ]
    # on stdout the feature comes from --feature (else tools), the variable from it
    r = _cli("from-json", "-d", "llm", "--feature", "my-tools", str(src))
    assert "(provide 'my-tools)" in r.stdout and "(defvar my-tools\n" in r.stdout
    r = _cli("from-json", "-d", "llm", str(src))
    assert "(provide 'tools)" in r.stdout and "(defvar tools-tools\n" in r.stdout
    r = _cli("from-json", "-d", "llm", "--feature", "x", str(src))
    assert "(provide 'x)" in r.stdout and "(defvar x-tools\n" in r.stdout
    for bad in ("bad name", "tools", "(x)"):
        r = _cli("from-json", "-d", "llm", "--variable", bad, str(src))
        assert r.exit_code == 2 and "--variable" in r.output


REQUIRE_GPTEL = r"""
(require 'json)
(push DIR load-path)
(require 'gptel)
(require 'gptel-tools)
SNIPPET
(princ (json-encode
        (vector (featurep 'gptel-tools)
              (vconcat (mapcar #'gptel-tool-name gptel-tools))
              (vconcat (mapcar (lambda (n) (let ((tool (gptel-get-tool n)))
                                    (vector (gptel-tool-name tool)
                                          (vconcat (mapcar (lambda (a) (plist-get a :name))
                                                           (gptel-tool-args tool))))))
                      '("a" "b")))
              (and (boundp 'VAR) (vconcat (mapcar #'gptel-tool-name VAR))))))
"""


@pytest.mark.slow
def test_a_gptel_file_registers_the_tools(emacs, elisp_deps_dir, tmp_path) -> None:
    from support import elisp_deps_preamble

    src = tmp_path / "in.json"
    src.write_text(TWO, encoding="utf-8")
    out = tmp_path / "gptel-tools.el"
    for extra, var in (([], "nope"), (["--variable", "my-gptel-tools"], "my-gptel-tools")):
        r = _cli("from-json", str(src), "-o", str(out), *extra)
        assert r.exit_code == 0, r.output
        text = out.read_text(encoding="utf-8")
        assert "gptel-menu" in text  # how to turn them on, and the snippet that does it:
        (snippet,) = [ln[3:] for ln in text.splitlines() if ln.startswith(";;   (setq gptel-tools")]
        script = elisp_deps_preamble(elisp_deps_dir) + REQUIRE_GPTEL.replace(
            "DIR", json.dumps(str(tmp_path))
        ).replace("VAR", var).replace("SNIPPET", snippet)
        got = json.loads(emacs.run(script))
        assert got[0] is True
        assert got[1] == ["a", "b"]  # the Commentary's snippet turned them on
        assert got[2] == [["a", ["x"]], ["b", []]]
        assert got[3] == (["a", "b"] if extra else None)


def test_a_from_py_llm_file_is_required_and_calls_python(emacs, elisp_deps_dir, tmp_path) -> None:
    from support import elisp_deps_preamble

    mod = tmp_path / "greeter.py"
    mod.write_text('def greet(name: str) -> str:\n    """Greet."""\n    return "hi " + name\n')
    r = _cli("from-py", "-d", "llm", f"{mod}:greet", "-o", str(tmp_path / "py-tools.el"))
    assert r.exit_code == 0, r.output
    script = (
        elisp_deps_preamble(elisp_deps_dir)
        + f"""
(push {json.dumps(str(tmp_path))} load-path)
(require 'py-tools)
(let* ((tool (car py-tools)) (result nil)
       (ret (if (llm-tool-async tool)
                (funcall (llm-tool-function tool) (lambda (r) (setq result r)) "bob")
              (funcall (llm-tool-function tool) "bob"))))
  (let ((deadline (+ (float-time) 60)))
    (while (and (llm-tool-async tool) (not result) (< (float-time) deadline))
      (accept-process-output nil 0.05)))
  (princ (format "%s|%S|%s" (llm-tool-name tool)
                 (mapcar (lambda (a) (plist-get a :name)) (llm-tool-args tool))
                 (if (llm-tool-async tool) result ret))))
"""
    )
    assert emacs.run(script) == 'greet|("name")|hi bob'
