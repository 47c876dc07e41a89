"""PS340 and PS341 say what the real gptel 0.9.9.5 / llm 0.31.1 do: each case's text is
both checked and loaded into ``emacs --batch`` with the real libraries, and the test
asserts the library's behaviour the diagnostic's words claim (so they cannot drift).

- PS340, gptel: a later ``gptel-make-tool`` of a name in one category replaces the
  earlier one in ``gptel--known-tools``; in another category, ``gptel-get-tool`` with the
  name returns the newest category's, and both categories' tools send the name twice.
- PS340, llm: ``llm-make-tool`` registers nothing; a prompt with both sends the name
  twice, and a call of the name runs the first.
- PS341: ``gptel-make-tool`` rewrites its args in place, so an ``llm-make-tool`` given the
  same list (before or after, through ``copy-sequence``, a shared spec handed to
  ``apply``, gptel-tool-library's make-both helper) signals ``(wrong-type-argument
  symbolp "string")`` when the request is built; ``copy-tree`` or a list of its own works.
"""

from __future__ import annotations

import json

import pytest

from plistspec.checking.checker import check_text
from plistspec.elisp.printer import print_string
from support import elisp_deps_preamble

pytestmark = [pytest.mark.slow, pytest.mark.emacs]

# gptel-tool-library's helper as its README describes it (the package is not among the
# real libraries here): the same keyword arguments applied to gptel-make-tool, then to
# llm-make-tool, when each is loaded
MAKE_BOTH = """
(defun gptel-tool-library-make-tools (&rest args)
  (let ((tools nil))
    (when (fboundp 'gptel-make-tool) (push (apply #'gptel-make-tool args) tools))
    (when (fboundp 'llm-make-tool) (push (apply #'llm-make-tool args) tools))
    tools))
"""


def _run(emacs, deps, tmp_path, text: str, body: str) -> dict:
    """Load ``text`` (as a file, as Emacs loads a config) with gptel and llm, then print
    the JSON of ``body``'s value."""
    path = tmp_path / "tools.el"
    path.write_text(";;; -*- lexical-binding: t; -*-\n" + text, encoding="utf-8")
    program = (
        elisp_deps_preamble(deps)
        + "(require 'gptel) (require 'llm) (require 'llm-openai) (require 'llm-claude)\n"
        + "(require 'json)\n"
        + MAKE_BOTH
        + f"(load {print_string(str(path))} nil t)\n"
        + f"(princ (json-encode {body}))\n"
    )
    return json.loads(emacs.run(program, timeout=180))


def _found(text: str, code: str) -> list[tuple[int, str]]:
    return [(d.line, d.message) for d in check_text(text, "tools.el") if d.code == code]


GPTEL_DUPLICATES = """\
(gptel-make-tool :name "features" :description "first" :function #'ignore :category "ragmacs")
(gptel-make-tool :name "features" :description "second" :function #'ignore :category "ragmacs")
(gptel-make-tool :name "features" :description "third" :function #'ignore :category "other")
"""


def test_ps340_gptel_registry(emacs, elisp_deps_dir, tmp_path) -> None:
    found = _found(GPTEL_DUPLICATES, "PS340")
    assert [line for line, _ in found] == [2, 3]
    assert "(first on line 1)" in found[0][1]
    assert "gptel's registry keeps this later one and the first is lost" in found[0][1]
    assert 'gptel-get-tool "features" returns only one of them (the newest' in found[1][1]
    assert "sends the name twice" in found[1][1]
    got = _run(
        emacs,
        elisp_deps_dir,
        tmp_path,
        GPTEL_DUPLICATES,
        """(list
  :ragmacs (vconcat (mapcar #'gptel-tool-description (gptel-get-tool "ragmacs")))
  :get (gptel-tool-description (gptel-get-tool "features"))
  :sent (vconcat (mapcar (lambda (s) (plist-get (plist-get s :function) :name))
                         (gptel--parse-tools gptel-backend
                           (append (gptel-get-tool "ragmacs") (gptel-get-tool "other"))))))""",
    )
    assert got == {"ragmacs": ["second"], "get": "third", "sent": ["features", "features"]}


LLM_DUPLICATES = """\
(defvar ps-ran nil)
(defvar ps-a (llm-make-tool :name "features" :description "first"
                            :function (lambda () (push "first" ps-ran) "1")))
(defvar ps-b (llm-make-tool :name "features" :description "second"
                            :function (lambda () (push "second" ps-ran) "2")))
"""


def test_ps340_llm_sends_both_and_runs_the_first(emacs, elisp_deps_dir, tmp_path) -> None:
    found = _found(LLM_DUPLICATES, "PS340")
    assert [line for line, _ in found] == [4]
    assert "llm-make-tool registers nothing" in found[0][1]
    assert "a call runs the first one llm finds" in found[0][1]
    got = _run(
        emacs,
        elisp_deps_dir,
        tmp_path,
        LLM_DUPLICATES,
        """(let* ((prompt (llm-make-chat-prompt "hi" :tools (list ps-a ps-b)))
       (provider (make-llm-claude :key "k")))
  (llm-provider-utils-execute-tool-uses
   provider prompt
   (list (make-llm-provider-utils-tool-use :id "c1" :name "features" :args nil))
   nil nil #'ignore #'ignore)
  (list :sent (vconcat (mapcar (lambda (tl) (plist-get tl :name))
                               (plist-get (llm-provider-chat-request provider prompt nil) :tools)))
        :ran (vconcat ps-ran)))""",
    )
    assert got == {"sent": ["features", "features"], "ran": ["first"]}


ARGS = """'((:name "q" :type string :description "Query")
  (:name "tags" :type array :items (:type string) :description "Tags"))"""
F = ':description "d" :function #\'ignore'
SHARED = {
    "defconst, gptel first": f"""(defconst ps-args {ARGS})
(defvar ps-g (gptel-make-tool :name "s" {F} :args ps-args))
(defvar ps-llm (llm-make-tool :name "s" {F} :args ps-args))
""",
    "defvar, llm first": f"""(defvar ps-args (list (list :name "q" :type 'string :description "Q")))
(defvar ps-llm (llm-make-tool :name "s" {F} :args ps-args))
(defvar ps-g (gptel-make-tool :name "s" {F} :args ps-args))
""",
    "let": f"""(defvar ps-llm nil)
(let ((args {ARGS}))
  (gptel-make-tool :name "s" {F} :args args)
  (setq ps-llm (llm-make-tool :name "s" {F} :args args)))
""",
    "copy-sequence": f"""(defconst ps-args {ARGS})
(defvar ps-g (gptel-make-tool :name "s" {F} :args (copy-sequence ps-args)))
(defvar ps-llm (llm-make-tool :name "s" {F} :args ps-args))
""",
    "one spec applied to both": f"""(defvar ps-llm nil)
(defvar ps-specs (list (list :name "s" {F} :args (list (list :name "q" :type 'string)))))
(dolist (spec ps-specs)
  (apply #'gptel-make-tool spec)
  (setq ps-llm (apply #'llm-make-tool spec)))
""",
    "gptel-tool-library": f"""(defvar ps-llm
  (seq-find #'llm-tool-p
            (gptel-tool-library-make-tools :name "s" {F} :args {ARGS})))
""",
}
SEPARATE = {
    "copy-tree": f"""(defconst ps-args {ARGS})
(defvar ps-g (gptel-make-tool :name "s" {F} :args (copy-tree ps-args)))
(defvar ps-llm (llm-make-tool :name "s" {F} :args ps-args))
""",
    "two lists": f"""(defvar ps-g (gptel-make-tool :name "s" {F} :args {ARGS}))
(defvar ps-llm (llm-make-tool :name "s" {F} :args {ARGS}))
""",
    "two lets": f"""(defvar ps-llm nil)
(let ((args {ARGS})) (gptel-make-tool :name "s" {F} :args args))
(let ((args {ARGS})) (setq ps-llm (llm-make-tool :name "s" {F} :args args)))
""",
}
REQUEST = """(vconcat
 (mapcar (lambda (provider)
           (condition-case e
               (progn (llm-provider-chat-request
                       provider (llm-make-chat-prompt "hi" :tools (list ps-llm)) nil)
                      "built")
             (error (format "%S" e))))
         (list (make-llm-openai :key "k") (make-llm-claude :key "k"))))"""
SIGNAL = '(wrong-type-argument symbolp "string")'


@pytest.mark.parametrize("case", list(SHARED))
def test_ps341_the_llm_tool_fails(emacs, elisp_deps_dir, tmp_path, case) -> None:
    text = SHARED[case]
    found = _found(text, "PS341")
    assert len(found) == 1, found
    assert f"signals {SIGNAL} when a request is built" in found[0][1]
    assert "gptel-make-tool rewrites them in place" in found[0][1]
    got = _run(emacs, elisp_deps_dir, tmp_path, text, REQUEST)
    assert got == [SIGNAL, SIGNAL]


@pytest.mark.parametrize("case", list(SEPARATE))
def test_ps341_separate_lists_work(emacs, elisp_deps_dir, tmp_path, case) -> None:
    text = SEPARATE[case]
    assert _found(text, "PS341") == []
    got = _run(emacs, elisp_deps_dir, tmp_path, text, REQUEST)
    assert got == ["built", "built"]
