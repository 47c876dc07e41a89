"""PS340 (two tools of one name) and PS341 (one args list given to gptel and llm): where
``check`` reports them, in what words, and where it must not (the library behaviour the
words claim is asserted against the real gptel/llm in test_across_forms_real.py).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from plistspec.checking.checker import check_text
from plistspec.checking.stream import check_streamed

F = ':description "d" :function #\'ignore'


def _codes(text: str, codes=("PS340", "PS341")) -> list[tuple[str, int, int, str]]:
    return [
        (d.code, d.line, d.column, d.message) for d in check_text(text, "t.el") if d.code in codes
    ]


def _plistspec(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "plistspec", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


# --- PS340 ------------------------------------------------------------------------------------


def test_the_same_name_in_one_gptel_category() -> None:
    text = (
        f'(gptel-make-tool :name "features" {F} :category "ragmacs")\n'
        f'(gptel-make-tool :name "other" {F} :category "ragmacs")\n'
        f'  (gptel-make-tool :name "features" {F} :category "ragmacs")\n'
    )
    assert _codes(text) == [
        (
            "PS340",
            3,
            3,
            'tool "features" is defined twice in category "ragmacs" (first on line 1): '
            "gptel's registry keeps this later one and the first is lost",
        )
    ]
    d = next(d for d in check_text(text, "t.el") if d.code == "PS340")
    assert d.severity == "warning" and d.fix is None
    assert text[d.start : d.end].startswith('(gptel-make-tool :name "features"')


def test_no_category_is_misc_and_two_categories_are_ambiguous() -> None:
    text = f'(gptel-make-tool :name "s" {F})\n(gptel-make-tool :name "s" {F} :category "web")\n'
    [(code, line, _, message)] = _codes(text)
    assert (code, line) == ("PS340", 2)
    assert message.startswith('tool "s" is also defined in category "misc" (first on line 1): ')
    assert 'gptel-get-tool "s" returns only one of them' in message
    assert "providers refuse (Anthropic: tool names must be unique)" in message


@pytest.mark.parametrize("head", ["llm-make-tool", "make-llm-tool", "gptel--make-tool"])
def test_constructors_that_register_nothing(head) -> None:
    text = f'({head} :name "s" {F})\n({head} :name "s" {F})\n'
    [(code, line, _, message)] = _codes(text)
    assert (code, line) == ("PS340", 2)
    assert f"{head} registers nothing, so a request carrying both sends the name twice" in message


@pytest.mark.parametrize(
    "text",
    [
        # one gptel and one llm tool: separate libraries, never one request
        f'(gptel-make-tool :name "s" {F})\n(llm-make-tool :name "s" {F})\n',
        # a registered tool and an unregistered one
        f'(gptel-make-tool :name "s" {F})\n(gptel--make-tool :name "s" {F})\n',
        # presets and other forms are not tools
        '(gptel-make-preset \'features :description "a")\n'
        '(gptel-make-preset \'features :description "b")\n'
        f'(gptel-make-tool :name "features" {F})\n',
        # one branch or the other runs
        f'(if (featurep \'x)\n    (gptel-make-tool :name "s" {F})\n  (gptel-make-tool :name "s" {F}))\n',
        f'(cond (a (llm-make-tool :name "s" {F}))\n      (t (llm-make-tool :name "s" {F})))\n',
        # unregistered tools made in two functions/tests: each builds its own request
        # (llm's own llm-provider-utils-test.el makes "tool-a" in several ert tests)
        f'(ert-deftest a () (llm-make-tool :name "s" {F}))\n'
        f'(ert-deftest b () (should (llm-make-tool :name "s" {F})))\n',
        f'(defun a () (list (gptel--make-tool :name "s" {F})))\n'
        f'(cl-defun b () (list (gptel--make-tool :name "s" {F})))\n',
        # names plistspec cannot read are not compared
        f'(gptel-make-tool :name (concat "a" "b") {F})\n(gptel-make-tool :name my-name {F})\n'
        f"(gptel-make-tool :name my-name {F})\n",
    ],
)
def test_not_reported(text) -> None:
    assert _codes(text) == []


@pytest.mark.parametrize(
    "text",
    [
        # gptel-make-tool registers globally: two functions that run replace each other
        f'(defun a () (gptel-make-tool :name "s" {F}))\n(defun b () (gptel-make-tool :name "s" {F}))\n',
        # one function making both (one request), or one at top level and one in a function
        f'(defun a () (list (llm-make-tool :name "s" {F}) (llm-make-tool :name "s" {F})))\n',
        f'(defvar a (llm-make-tool :name "s" {F}))\n(defun b () (llm-make-tool :name "s" {F}))\n',
    ],
)
def test_reported_across_definitions(text) -> None:
    assert [c[:2] for c in _codes(text)] == [("PS340", 2 if text.count("\n") == 2 else 1)]


def test_the_streamed_path_says_the_same(tmp_path) -> None:
    """A big file is checked a batch of forms at a time: a name met batches apart is
    still found, with the same diagnostics as the whole-file path."""
    long = "x" * 2000
    filler = "".join(
        f'(gptel-make-tool :name "t{i}" :description "{long}" :function #\'ignore)\n'
        for i in range(600)
    )
    text = f'(gptel-make-tool :name "s" {F})\n' + filler + f'(gptel-make-tool :name "s" {F})\n'
    streamed = check_streamed(text, "t.el", None, None)
    assert streamed is not None, "the file is streamed"
    from plistspec.checking.checker import _check

    whole = _check(text, "t.el", None, None, None)
    got = [(d.code, d.line, d.message) for d in streamed if d.code == "PS340"]
    assert got == [(d.code, d.line, d.message) for d in whole if d.code == "PS340"]
    assert got == [
        (
            "PS340",
            602,
            'tool "s" is defined twice in category "misc" (first on line 1): '
            "gptel's registry keeps this later one and the first is lost",
        )
    ]


# --- PS340 across files -----------------------------------------------------------------------


@pytest.mark.slow
def test_files_loaded_together(tmp_path) -> None:
    (tmp_path / "a.el").write_text(f'(gptel-make-tool :name "s" {F})\n', encoding="utf-8")
    (tmp_path / "b.el").write_text(f';; b\n(gptel-make-tool :name "s" {F})\n', encoding="utf-8")
    # not said to be one configuration: two files may well be two separate examples
    p = _plistspec("check", "a.el", "b.el", cwd=tmp_path)
    assert p.returncode == 0 and "PS340" not in p.stdout, p.stdout
    p = _plistspec("check", "--loaded-together", "a.el", "b.el", cwd=tmp_path)
    assert p.stdout.splitlines()[0] == (
        'b.el:2:1: warning: tool "s" is defined twice in category "misc" (first in a.el on '
        "line 1): gptel's registry keeps this later one and the first is lost [PS340]"
    )
    # the order given is the order loaded
    p = _plistspec("check", "--loaded-together", "b.el", "a.el", cwd=tmp_path)
    assert p.stdout.splitlines()[0].startswith('a.el:1:1: warning: tool "s" is defined twice')
    assert "(first in b.el on line 2)" in p.stdout
    # a comment silences it at the later form, as any finding
    (tmp_path / "b.el").write_text(
        f';; b\n(gptel-make-tool :name "s" {F})  ; plistspec: ignore[PS340]\n', encoding="utf-8"
    )
    p = _plistspec("check", "--loaded-together", "a.el", "b.el", cwd=tmp_path)
    assert "PS340" not in p.stdout and "PS920" not in p.stdout, p.stdout


def test_fix_leaves_it_and_to_json_keeps_both(tmp_path) -> None:
    text = f'(gptel-make-tool :name "s" {F})\n(gptel-make-tool :name "s" {F})\n'
    f = tmp_path / "t.el"
    f.write_text(text, encoding="utf-8")
    p = _plistspec("check", "--fix", "--unsafe-fixes", "--output-format", "json", str(f))
    assert f.read_text(encoding="utf-8") == text
    assert [d["code"] for d in json.loads(p.stdout)] == ["PS340"]
    p = _plistspec("to-json", str(f))
    assert p.returncode == 0, p.stderr
    assert [t["name"] for t in json.loads(p.stdout)] == ["s", "s"]


# --- PS341 ------------------------------------------------------------------------------------

ARGS = '\'((:name "q" :type string :description "Q"))'


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        (
            f'(defvar my-args {ARGS})\n(gptel-make-tool :name "s" {F} :args my-args)\n'
            f'(llm-make-tool :name "s" {F} :args my-args)\n',
            3,
            68,
        ),
        (
            f'(let ((args {ARGS}))\n  (llm-make-tool :name "s" {F} :args args)\n'
            f'  (gptel-make-tool :name "s" {F} :args args))\n',
            3,
            72,
        ),
        (
            f'(defun my-make (args)\n  (gptel--make-tool :name "s" {F} :args args)\n'
            f'  (make-llm-tool :name "s" {F} :args (append args nil)))\n',
            3,
            70,
        ),
    ],
)
def test_one_list_given_to_both(text, line, column) -> None:
    [(code, got_line, got_column, message)] = _codes(text, ("PS341",))
    at = text.splitlines()[line - 1].index(":args ") + len(":args ") + 1  # the later :args
    assert (code, got_line, got_column) == ("PS341", line, at)
    assert column == at
    assert message.startswith("these args are also given to ")
    assert message.endswith(
        'gptel-make-tool rewrites them in place (:type string becomes "string"), so the llm '
        'tool signals (wrong-type-argument symbolp "string") when a request is built, '
        "whichever is made first; give one of them (copy-tree ARGS) or a list of its own"
    )


def test_one_spec_applied_to_both() -> None:
    text = "(dolist (s my-specs)\n  (apply #'gptel-make-tool s)\n  (apply #'llm-make-tool s))\n"
    [(code, line, column, message)] = _codes(text, ("PS341",))
    assert (code, line, column) == ("PS341", 3, 26)
    assert message.startswith(
        "this spec (its :args) is also handed to (apply #'gptel-make-tool ...) (line 2): "
    )
    assert "(copy-tree SPEC)" in message


def test_a_make_both_helper_itself() -> None:
    """gptel-tool-library's own shape: one &rest list applied to both constructors."""
    text = (
        "(defun my-make-tools (&rest args)\n"
        "  (let ((tools nil))\n"
        "    (when (fboundp 'gptel-make-tool) (push (apply #'gptel-make-tool args) tools))\n"
        "    (when (fboundp 'llm-make-tool) (push (apply #'llm-make-tool args) tools))))\n"
    )
    assert [(c, line) for c, line, _, _ in _codes(text, ("PS341",))] == [("PS341", 4)]


def test_the_make_both_helpers() -> None:
    text = (
        f'(gptel-tool-library-make-tools-and-register \'my-tools :name "s" {F}\n'
        f'  :args (list \'(:name "q" :type string :description "Q")))\n'
        f'(eai-tool-library-make-tools :name "n" {F})\n'  # no args: nothing to rewrite
        f'(gptel-tool-library-make-tools :name "m" {F} :args nil)\n'
    )
    [(code, line, column, message)] = _codes(text, ("PS341",))
    assert (code, line, column) == ("PS341", 2, 9)
    assert message.startswith(
        "gptel-tool-library-make-tools-and-register gives these args to gptel-make-tool and "
        "then to llm-make-tool (when both are loaded): "
    )


@pytest.mark.parametrize(
    "text",
    [
        # copy-tree copies the arg plists gptel rewrites
        f'(defvar my-args {ARGS})\n(gptel-make-tool :name "s" {F} :args (copy-tree my-args))\n'
        f'(llm-make-tool :name "s" {F} :args my-args)\n',
        # two bindings of one name are two lists
        f'(let ((args {ARGS})) (gptel-make-tool :name "s" {F} :args args))\n'
        f'(let ((args {ARGS})) (llm-make-tool :name "s" {F} :args args))\n',
        f'(defun g (args) (gptel-make-tool :name "s" {F} :args args))\n'
        f'(defun l (args) (llm-make-tool :name "s" {F} :args args))\n',
        # a let inside shadows the file's variable
        f'(defvar args {ARGS})\n(gptel-make-tool :name "s" {F} :args args)\n'
        f'(let ((args (copy-tree args))) (llm-make-tool :name "s" {F} :args args))\n',
        # one branch or the other runs
        f'(if (featurep \'gptel)\n    (gptel-make-tool :name "s" {F} :args my-args)\n'
        f'  (llm-make-tool :name "s" {F} :args my-args))\n',
        # one library only
        f'(gptel-make-tool :name "s" {F} :args my-args)\n'
        f'(gptel-make-tool :name "t" {F} :args my-args)\n',
        # the gptel-only wrapper
        f'(gptelt-make-tool :name "s" {F} :args {ARGS})\n',
    ],
)
def test_not_shared(text) -> None:
    assert _codes(text, ("PS341",)) == []
