"""fmt lays out forms and nothing else (issue 29 §1): on every fixture file with tool
forms, every string literal keeps its source text (line breaks, escapes, ``\\``-newline
continuations) and every comment is still there, in the same order; formatting a
formatted file changes nothing; and real Emacs reads the formatted file as the same
forms. The tokenizer here is written apart from fmt's own (:mod:`plistspec.fmt.proof`)."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest

from plistspec.fmt.rewrite import format_text

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
FILES = sorted(
    p
    for d in ("elisp", "corpus", "broken")
    for p in (ROOT / "fixtures" / d).glob("*.el")
    if "-make-tool" in p.read_text(encoding="utf-8", errors="surrogateescape")
) + [DATA / "fmt_strings.el"]


def _strings_and_comments(t: str) -> tuple[list[str], list[str]]:
    """Each string literal's source text and each comment (trailing blanks dropped), in
    order. Character literals (``?\\"``, ``?;``) and escaped characters are skipped."""
    strings, comments = [], []
    i, n = 0, len(t)
    while i < n:
        c = t[i]
        if c == "?":
            i += 3 if i + 1 < n and t[i + 1] == "\\" else 2
        elif c == "\\":
            i += 2
        elif c == ";":
            j = t.find("\n", i)
            j = n if j < 0 else j
            comments.append(t[i:j].rstrip())
            i = j
        elif c == '"':
            j = i + 1
            while j < n and t[j] != '"':
                j += 2 if t[j] == "\\" else 1
            strings.append(t[i : j + 1])
            i = j + 1
        else:
            i += 1
    return strings, comments


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="surrogateescape")


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_strings_and_comments_kept_and_idempotent(path: Path) -> None:
    before = _read(path)
    after, _ = format_text(before, path.name)
    s0, c0 = _strings_and_comments(before)
    s1, c1 = _strings_and_comments(after)
    lost = collections.Counter(s0) - collections.Counter(s1)
    added = collections.Counter(s1) - collections.Counter(s0)
    assert not lost and not added, (lost, added)
    assert s1 == s0  # and in the same order: no slot moved
    assert c1 == c0
    assert format_text(after, path.name)[0] == after


def test_the_strings_fixture_is_laid_out() -> None:
    """The fixture's forms really are rewritten (the test above is not vacuous there), its
    multi-line strings and concat call stay as written."""
    before = _read(DATA / "fmt_strings.el")
    after, diags = format_text(before, "fmt_strings.el")
    assert not [d for d in diags if d.code == "PS530"], diags
    assert after != before and after.count("(gptel-make-tool\n") == 3
    assert "(llm-make-tool\n :function (lambda" in after
    assert '"Read lines from a file.\n\nUse this' in after
    assert "a path \\\nrelative to the project root" in after
    assert '(concat "Search files with a regular expression.\\n"\n' in after
    assert ':type "string"' in after
    assert '\'( :name "start"\n                   :type integer' in after


_READ_ALL = r"""
(defun ps-forms (file)
  (with-temp-buffer
    (insert-file-contents file)
    (goto-char (point-min))
    (let (out)
      (condition-case nil
          (while t (push (read (current-buffer)) out))
        (end-of-file nil))
      (nreverse out))))
(let ((a (ps-forms (nth 0 command-line-args-left)))
      (b (ps-forms (nth 1 command-line-args-left))))
  (princ (format "%d %s" (length a) (if (equal a b) "same" "differ"))))
"""


@pytest.mark.slow
def test_emacs_reads_the_same_forms(emacs, tmp_path: Path) -> None:
    """Real Emacs reads each file fmt changes as exactly the forms of the original."""
    changed = 0
    for path in FILES:
        before = _read(path)
        after, _ = format_text(before, path.name)
        if after == before:
            continue
        changed += 1
        a, b = tmp_path / "a.el", tmp_path / "b.el"
        a.write_text(before, encoding="utf-8", errors="surrogateescape")
        b.write_text(after, encoding="utf-8", errors="surrogateescape")
        code = _READ_ALL.replace("(nth 0 command-line-args-left)", '"' + str(a) + '"').replace(
            "(nth 1 command-line-args-left)", '"' + str(b) + '"'
        )
        out = emacs.run(code)
        count, verdict = out.split()
        assert verdict == "same" and int(count) > 0, (path.name, out)
    assert changed >= 20, changed
