"""The allow-list that decides whether a ``:function`` from untrusted JSON is written
(:mod:`plistspec.elisp.loadsafe`): what it accepts and refuses, and that its data agree
with this machine's Emacs. ``test_load_safety_sweep.py`` proves the rule against every
macro and special form of Emacs in real ``load`` and ``byte-compile-file``."""

from __future__ import annotations

import json

import pytest

from plistspec.elisp.loadsafe import _rules, function_problem, value_problem
from plistspec.elisp.reader import read_all
from support import GRAMMARS

ACCEPTED = [
    "#'my-tool",
    "'my-tool",
    "my-tool-variable",
    # gptel's README
    "(lambda (&optional search_result) (json-serialize `(:search_result ,search_result)))",
    '(lambda (buffer) (unless (buffer-live-p (get-buffer buffer)) (error "not live %s" buffer))'
    " (with-current-buffer buffer (buffer-substring-no-properties (point-min) (point-max))))",
    "(lambda (path filename content) (let ((full-path (expand-file-name filename path)))"
    " (with-temp-buffer (insert content) (write-file full-path))"
    ' (format "Created file %s in %s" filename path)))',
    "(lambda (callback url) (url-retrieve url (lambda (_status) (funcall callback"
    " (buffer-string)))))",
    "#'(lambda (x) (mapcar #'upcase x))",
    "(lambda (x) `(a ,@(list `(b ,x)) . ,x))",
    '(lambda (x) (if-let ((a (get-buffer x))) (buffer-name a) "none"))',
    "(lambda (x) (when-let (a (get-buffer x)) (buffer-name a)))",
    "(lambda (x) (condition-case err (string-to-number x) (error (error-message-string err))))",
    "(lambda (x) (setf (alist-get 'a x) 1) (cl-incf (car x)) (push 1 x) (pop x))",
    '(lambda (x) (dolist (y x) (message "%s" y)) (dotimes (i 3) i))',
    "(lambda (x) (cl-case x ((a b) 1) (t 2)) (cond ((null x) 1) (t 2)))",
    '(lambda () "Doc." (interactive) (setq-local fill-column 70))',
    "(lambda (x) ((lambda (y) y) x))",
    "(lambda (x) (funcall #'identity x) (apply 'max x '(1)))",
]

REFUSED = {
    # the audit's reproducers: macros that evaluate when expanded at load
    '(lambda (a) (let-when-compile ((x (with-temp-file "PWNED"))) a))': "let-when-compile",
    '(lambda (a) (define-ccl-program x (with-temp-file "PWNED")) a)': "define-ccl-program",
    '(lambda (a) (eval-when-compile (with-temp-file "PWNED")) a)': "eval-when-compile",
    '(lambda (a) (cl-macrolet ((m () (with-temp-file "P"))) (m)))': "cl-macrolet",
    '(lambda (a) (rx (eval (with-temp-file "P"))))': "rx",
    '(lambda (a) (static-if (with-temp-file "P") 1 2))': "static-if",
    # a macro name handed on as data becomes a call when expanded or compiled
    '(lambda (a) (funcall \'eval-when-compile (with-temp-file "P")))': "eval-when-compile",
    '(lambda (a) (funcall #\'eval-and-compile (with-temp-file "P")))': "eval-and-compile",
    "(lambda (a) (apply 'cl-eval-when '(compile) nil))": "cl-eval-when",
    # found by the sweep: its byte-compile handler funcalls its argument
    '(lambda (a) (macroexp--funcall-if-compiled (with-temp-file "P")))': "evaluates",
    # unknown heads could be a macro in the Emacs that loads the file
    "(lambda (a) (my-run a))": "my-run",
    "(lambda (a) (mapcar #'my-helper a))": "my-helper",
    "(lambda (a) (funcall 'my-helper a))": "my-helper",
    # not vetted (yet): their own sublanguages
    '(lambda (a) (pcase a ((rx (eval (with-temp-file "P"))) 1)))': "pcase",
    "(lambda (a) (cl-loop for x in a collect x))": "cl-loop",
    "(lambda (a) (thread-last a (eval-when-compile)))": "thread-last",
    "(lambda (a) (declare (debug t)) a)": "declare",
    # evaluated when the closure is made
    '(lambda (a) (:documentation (with-temp-file "P")) a)': ":documentation",
    # shapes
    "(lambda (a) `(a `(b ,,a)))": "nested backquote",
    "(lambda (a) (let ((x 1 2)) a))": "binding",
    "(lambda (a) (when))": "too few",
    "(lambda (a) (foo . bar))": "dotted",
    '(lambda ((x (with-temp-file "P"))) x)': "argument list",
    '(progn (with-temp-file "P") #\'ignore)': "progn",
    "(funcall (lambda () #'ignore))": "funcall",
}


@pytest.mark.parametrize("text", ACCEPTED)
def test_known_forms_are_written(text: str) -> None:
    assert function_problem(read_all(text)[0]) is None


@pytest.mark.parametrize("text", sorted(REFUSED))
def test_anything_else_is_refused_and_named(text: str) -> None:
    why = function_problem(read_all(text)[0])
    assert why is not None and REFUSED[text] in why, why


def test_other_slots_take_only_inert_values() -> None:
    for ok in ["t", ":json-false", '"web"', "12", "'(a b)", "#'ignore", "[1 2]", "my-var"]:
        assert value_problem(read_all(ok)[0]) is None, ok
    for bad in ["(progn t)", '(concat "a" "b")', "`(,(x))", "#'(lambda () 1)"]:
        assert value_problem(read_all(bad)[0]) is not None, bad


def test_the_grammar_data_is_consistent() -> None:
    data = json.loads((GRAMMARS / "elisp-load-safety.json").read_text(encoding="utf-8"))
    rules = _rules()
    macros = {
        n
        for n in (GRAMMARS / "elisp-macros.txt").read_text(encoding="utf-8").splitlines()
        if n and not n.startswith("#")
    }
    # every vetted macro is one (its shape is what Emacs expands), none is refused
    assert set(data["macros"]) <= macros
    assert not set(data["macros"]) & rules.refused
    assert not rules.functions & (macros | rules.refused)
    assert set(data["extra_unsafe_macros"]) <= rules.refused
    kinds = {
        "form", "body", "symbol", "data", "bindings", "if-let-spec", "if-let*-spec",
        "loop-spec", "forms-list", "place", "clauses", "handlers", "case-clauses", "pairs",
        "place-pairs",
    }  # fmt: skip
    for shape in [*data["special_forms"].values(), *data["macros"].values()]:
        assert {k.rstrip("?") for k in shape} <= kinds, shape


@pytest.mark.emacs
def test_the_stored_lists_agree_with_this_emacs(emacs, elisp_deps_dir) -> None:
    """The stored lists are the union over Emacs 28 and 30 (gen_load_safety.py): every
    macro of this Emacs (gptel, llm loaded) is vetted or refused, never taken for a
    function; every special form has a shape; every function of it is in the stored
    lists, and the lists say they were made from this Emacs's version."""
    from gen_load_safety import _plain, collect

    found = collect()
    rules = _rules()
    assert found["macro"] - set(rules.shapes) <= rules.refused
    assert not found["macro"] & rules.functions
    assert not found["special"] & rules.functions
    assert found["special"] - {"quote", "function"} <= set(rules.shapes)
    known = rules.functions | rules.refused | set(rules.shapes)
    assert {n for n in found["function"] if _plain(n)} - known == set()
    version = emacs.run("(princ emacs-version)")
    head = (GRAMMARS / "elisp-functions.txt").read_text(encoding="utf-8").split("\n", 1)[0]
    versions = head.partition("from Emacs ")[2].partition(" with")[0].split(" and ")
    assert version in versions, (version, head)
