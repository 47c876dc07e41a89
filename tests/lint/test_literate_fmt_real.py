"""fmt on Org files changes the layout only, as the real Org of Emacs 28 and 30 tangles it.

Random Org files (indented blocks, tabs, ``-i``, strings spanning lines with escaped
``,*`` / ``,#+`` lines, comments) are formatted by ``plistspec fmt``; the real Org of the
Emacs on PATH (Org 9.5 on 28.2, 9.7 on 30.1) tangles the file before and after, and the
forms read back from each (strings compared exactly) and the comments must be equal.
Org 9.5 re-indents every line with ``indent-line-to`` (blanks before the target column
kept as written), so a block whose common indentation or whose multi-line strings' file
text would change is left alone (PS530): without that, Emacs 28's tangle of about one file
in seven changed a string.
"""

from __future__ import annotations

import random
import subprocess

import pytest
from click.testing import CliRunner

from plistspec.cli import main
from plistspec.elisp.orgtangle import escape_line

_LINES = ["text", "* star", ",* esc", "#+ hash", ",#+x", "", "  ", "\t", "a ; no", "(paren"]
_INDENTS = ["", " ", "  ", "   ", "\t", "    ", " \t", "\t "]


def _string(rng: random.Random) -> str:
    lines = [rng.choice(_INDENTS) + rng.choice(_LINES) for _ in range(rng.randint(1, 4))]
    return "\n".join(lines)


def _form(rng: random.Random, ind: str) -> str:
    parts = [
        ':name "t"',
        ";; c1 ,* x",
        ":function (lambda (x) x)",
        f':description "{_string(rng)}"',
        f':args (list (list :name "x" :type \'string :description "y{_string(rng)}"))',
        ")",
    ]
    seps = ["\n" + ind + " " * rng.randint(0, 4), " ", "\n" + ind + "\t", "\n\n" + ind]
    out = ind + "(gptel-make-tool"
    for p in parts:
        out += rng.choice(seps) + p + ("\n" + ind if p.startswith(";") else "")
    return out


def _org(rng: random.Random) -> str:
    out = ["* H"]
    for _ in range(rng.randint(1, 3)):
        ind = rng.choice(["", "  ", "   ", "\t", "  \t"])
        out.append(
            ind
            + rng.choice(
                ["#+begin_src emacs-lisp", "#+BEGIN_SRC elisp", "#+begin_src emacs-lisp -i"]
            )
        )
        body = _form(rng, ind + rng.choice(["", " ", "  "]))
        out.append("\n".join(escape_line(line) for line in body.split("\n")))
        out.append(ind + rng.choice(["#+end_src", "#+END_SRC"]))
    return "\n".join(out) + rng.choice(["\n", ""])


_COMPARE = r"""
(require 'org)
(require 'ob-tangle)
(defun plistspec-test-tangled (f)
  (with-temp-buffer
    (insert-file-contents f)
    (org-mode)
    (setq buffer-file-name (expand-file-name f))
    (let ((inhibit-message t))
      (org-babel-tangle nil (concat f ".el") "emacs-lisp\\|elisp")))
  (with-temp-buffer
    (insert-file-contents (concat f ".el"))
    (let (forms comments)
      (condition-case nil
          (while t (push (read (current-buffer)) forms))
        (end-of-file nil))
      (emacs-lisp-mode)
      (goto-char (point-min))
      (while (comment-search-forward nil t)
        (push (buffer-substring (point) (line-end-position)) comments)
        (end-of-line))
      (list (nreverse forms) (nreverse comments)))))
(while command-line-args-left
  (let ((a (pop command-line-args-left)) (b (pop command-line-args-left)))
    (unless (equal (plistspec-test-tangled a) (plistspec-test-tangled b))
      (princ (format "CHANGED %s\n" a)))))
"""


@pytest.mark.slow
def test_fmt_never_changes_what_an_org_file_tangles_to(emacs, tmp_path) -> None:
    rng = random.Random(20261128)
    files: list[str] = []
    changed = 0
    for i in range(120):
        text = _org(rng)
        before, after = tmp_path / f"f{i}.org", tmp_path / f"g{i}.org"
        before.write_text(text, encoding="utf-8")
        r = CliRunner().invoke(
            main, ["fmt", "-q", "--stdin-filename", before.name, "-"], input=text
        )
        assert r.exit_code == 0, r.output
        after.write_text(r.stdout, encoding="utf-8")
        changed += r.stdout != text
        files += [str(before), str(after)]
    assert changed > 60  # fmt did lay most of them out (the test compares real changes)
    script = tmp_path / "compare.el"
    script.write_text(_COMPARE, encoding="utf-8")
    r = subprocess.run(
        [emacs.exe, "--batch", "-Q", "-l", str(script), *files],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert "CHANGED" not in r.stdout, r.stdout
