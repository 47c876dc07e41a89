"""Regressions found by running plistspec on real-world tool files (dotfiles, tool
collections, packages) and comparing with the real gptel/llm and Emacs's ``read``. Each
case is a minimal form written for the test, modelled on a pattern seen in such files."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from plistspec.checking.run import Settings, findings
from plistspec.cli import main


def _cli(*args: str, stdin: str | None = None):
    return CliRunner().invoke(main, list(args), input=stdin)


def _ir(text: str) -> list[dict]:
    r = _cli("to-json", "-", "--stdin-filename", "t.el", stdin=text)
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def _from_json(ir: list[dict]) -> str:
    r = _cli("from-json", "-", stdin=json.dumps(ir))
    assert r.exit_code == 0, r.output
    return r.stdout


#: a spec handed to apply as data (a quoted plist: :function names the function), the
#: same built with (list ...), and an llm-tool-collection tool, whose macro writes
#: :function llm-tc/NAME into a quoted spec
DATA_FUNCTIONS = """\
(defun my-fn (a) a)
(apply #'gptel-make-tool
       '(:name "quoted" :description "d" :function my-fn :category "c"
         :args ((:name "a" :type string :description "a"))))
(apply #'gptel-make-tool
       (list :name "listed" :description "d" :function #'my-fn
             :args '((:name "a" :type string :description "a"))))
(llm-tool-collection-deftool list-things
  (:category "buffers" :tags (buffers editing))
  nil
  "List things."
  (buffer-list))
"""


def test_a_function_written_as_data_is_written_back_as_the_function() -> None:
    ir = _ir(DATA_FUNCTIONS)
    assert [t["metadata"]["function"] for t in ir] == ["#'my-fn", "#'my-fn", "#'llm-tc/list-things"]
    tags = [s for s in ir[2]["metadata"]["slots"] if s["key"] == ":tags"]
    assert tags[0]["text"] == "'(buffers editing)"  # data, quoted to be an argument
    el = _from_json(ir)
    assert ":function #'my-fn" in el and ":function #'llm-tc/list-things" in el
    assert ":function my-fn" not in el
    # what from-json wrote passes check (no PS338: a void variable) and reads back the same
    assert not [f for f in findings(el, "rt.el", Settings()) if f.severity != "info"]
    again = _ir(el)
    strip = lambda ts: [{k: v for k, v in t.items() if k != "metadata"} for t in ts]  # noqa: E731
    assert strip(again) == strip(ir)


def test_tags_is_a_known_convention_not_a_misspelling() -> None:
    """llm-tool-collection's :tags in a plain gptel-make-tool: ignored by gptel (an
    info), never 'did you mean :args?'."""
    text = '(gptel-make-tool :name "a" :description "d" :function #\'ignore :tags \'(x y))\n'
    got = [(f.code, f.severity) for f in findings(text, "t.el", Settings())]
    assert got == [("PS302", "info")]


@pytest.mark.slow
def test_from_json_output_makes_the_tools_in_the_real_gptel(emacs, elisp_deps_dir, tmp_path):
    """Loading what from-json wrote for data-written functions makes each tool, with the
    function the source named (the void-variable error this regression was)."""
    from support import elisp_deps_preamble

    out = tmp_path / "tools.el"
    out.write_text(_from_json(_ir(DATA_FUNCTIONS)), encoding="utf-8")
    code = (
        elisp_deps_preamble(elisp_deps_dir)
        + "(require 'gptel)\n(defun my-fn (a) a)\n(defun llm-tc/list-things () nil)\n"
        + f'(load "{out.as_posix()}" nil t)\n'
        + '(princ (mapconcat (lambda (n) (format "%S" (gptel-tool-function (gptel-get-tool n))))'
        + ' \'("quoted" "listed" "list_things") " "))'
    )
    assert emacs.run(code).split() == ["my-fn", "my-fn", "llm-tc/list-things"]


#: a literate configuration: prose (with unbalanced parens and quotes) around Emacs Lisp
#: blocks, an indented block, an upper-case block, a block of another language
ORG = """\
#+title: My config
* GPTel
Some prose with (parens and "quotes.
#+begin_src emacs-lisp :tangle yes
  (use-package gptel
    :config
    (gptel-make-tool
     :name "first" :function #'ignore :description "d"
     :args (list '(:name "node" :type string :description "The node"))))
#+end_src

#+BEGIN_SRC elisp
(gptel-make-tool :name "second" :function #'ignore :description "d" :args nil)
#+END_SRC

#+begin_src python
print("not elisp (")
#+end_src
"""


def test_to_json_reads_the_elisp_blocks_of_org_and_markdown(tmp_path) -> None:
    """to-json reads a .org/.md file as check does (its Emacs Lisp blocks, at their own
    lines and columns), never its prose as Lisp (which gave syntax errors)."""
    org = tmp_path / "config.org"
    org.write_text(ORG, encoding="utf-8")
    r = _cli("to-json", str(org))
    assert r.exit_code == 0 and r.stderr == "", r.output
    got = [
        (t["name"], t["metadata"]["source"]["line"], t["metadata"]["source"]["column"])
        for t in json.loads(r.stdout)
    ]
    assert got == [("first", 7, 5), ("second", 13, 1)]
    md = tmp_path / "README.md"
    md.write_text(
        "# T\n\nSee `(x`.\n\n```elisp\n" + ORG.splitlines()[12] + "\n```\n", encoding="utf-8"
    )
    r = _cli("to-json", "-t", "openai", str(md))
    assert r.exit_code == 0 and [t["function"]["name"] for t in json.loads(r.stdout)] == ["second"]
    bare = tmp_path / "notes.md"
    bare.write_text("# nothing (\n", encoding="utf-8")
    r = _cli("to-json", str(bare))
    assert r.exit_code == 0 and json.loads(r.stdout) == []
    assert r.stderr.startswith(f"{bare}:1:1: warning: no Emacs Lisp here: to-json reads")
    py = tmp_path / "tools.py"
    py.write_text("print(1)\n", encoding="utf-8")
    r = _cli("to-json", str(py))
    assert r.exit_code == 1 and r.stdout == "" and "[PS003]" in r.stderr


def test_fmt_lays_out_org_blocks_and_leaves_the_prose(tmp_path) -> None:
    org = tmp_path / "config.org"
    org.write_text(ORG, encoding="utf-8")
    r = _cli("fmt", "--check", str(org))
    assert r.exit_code == 1, r.output
    assert _cli("fmt", "-i", str(org)).exit_code == 0
    new = org.read_text(encoding="utf-8")
    assert '(gptel-make-tool\n :name "second"\n :function' in new
    assert ORG.split("#+begin_src python")[1] in new  # the other block, untouched
    assert new.startswith(ORG.split("#+begin_src emacs-lisp")[0])  # the prose, untouched
    assert _cli("fmt", "--check", str(org)).exit_code == 0  # idempotent
    r = _cli("check", str(org))
    assert r.exit_code == 0 and "2 tool forms found" in r.output, r.output  # not 1: the blocks


def test_a_slot_read_through_a_constant_is_written_as_its_value() -> None:
    """`:category my-cat` after `(defconst my-cat "files")`: the file from-json writes
    has no my-cat, so the IR keeps the value (loading it signalled void-variable)."""
    text = (
        '(defconst my-cat "files")\n(defconst my-flags \'(a b))\n'
        '(gptel-make-tool :name "r" :function #\'ignore :description "d"'
        " :category my-cat :confirm my-flags)\n"
    )
    ir = _ir(text)
    slots = {s["key"]: s["text"] for s in ir[0]["metadata"]["slots"]}
    assert slots == {":function": "#'ignore", ":category": '"files"', ":confirm": "'(a b)"}
    el = _from_json(ir)
    assert ':category "files"' in el and ":confirm '(a b)" in el
    assert not [f for f in findings(el, "rt.el", Settings()) if f.code != "PS302"]


SHEBANG = """#!/usr/bin/env -S emacs --script
;; -*- lexical-binding: t -*-
(gptel-make-tool :name "a" :function #'ignore :description "d" :args nil)
"""


def test_a_script_shebang_line_is_a_comment(tmp_path, emacs) -> None:
    """A config run by `emacs --script` starts with #!: Emacs's reader skips that line
    (Emacs 28 and 30), so check says nothing (it said PS002 "not supported") and fmt
    keeps the line."""
    got = emacs.run(
        "(princ (with-temp-buffer (insert " + json.dumps(SHEBANG) + ") (goto-char 1)"
        " (car (read (current-buffer)))))"
    )
    assert got == "gptel-make-tool"
    f = tmp_path / "init.el"
    f.write_text(SHEBANG, encoding="utf-8")
    assert findings(SHEBANG, str(f), Settings()) == []
    r = _cli("to-json", str(f))
    assert r.exit_code == 0 and r.stderr == "" and json.loads(r.stdout)[0]["name"] == "a"
    r = _cli("fmt", str(f))
    assert r.exit_code == 0 and r.stdout.startswith(SHEBANG.splitlines()[0] + "\n")
    assert '(gptel-make-tool\n :name "a"' in r.stdout
