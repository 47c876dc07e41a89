"""The Emacs Lisp blocks of Org and Markdown files, read as Emacs gets them.

Each block is read on its own (a syntax error in one hides no later block), and an Org
block is the text ``org-babel-tangle`` makes of it (commas unescaped, common indentation
removed), compared here with the real Org of the Emacs on PATH (run on 28.2 and 30.1),
while every position stays the file's own. ``fmt`` writes an Org block back so that it
tangles to the new layout.
"""

from __future__ import annotations

import json
import subprocess

import pytest
from click.testing import CliRunner

from plistspec.cli import main
from plistspec.elisp.embedded import elisp_view

# name -> Org file with one block; what Org 9.7 (Emacs 30) tangles it to
CASES = {
    "indented": (
        '#+begin_src emacs-lisp\n  (gptel-make-tool\n   :name "a"\n   :description "One.\n'
        '   Two,\n   ,* star\n    ,#+ hash\n   ,,* two commas"\n   :args nil)\n#+end_src\n',
        '(gptel-make-tool\n :name "a"\n :description "One.\n Two,\n * star\n  #+ hash\n'
        ' ,* two commas"\n :args nil)',
    ),
    "skipped-beside": (
        "* COMMENT Old\n#+begin_src emacs-lisp\n(setq old 1)\n#+end_src\n"
        "* Live\n#+begin_src emacs-lisp\n  (setq live 2)\n#+end_src\n"
        "#+begin_src emacs-lisp :tangle no\n(setq draft 3)\n#+end_src\n",
        "(setq live 2)",
    ),
    "switch-i": ('#+begin_src emacs-lisp -n -i\n  (setq x "a\n    b")\n#+end_src\n', None),
    "col0": ('#+begin_src elisp\n  (setq x "a\nb")\n#+end_src\n', None),
    "blank": (
        '#+begin_src emacs-lisp\n  (setq x "a\n     \n  b")\n#+end_src\n',
        '(setq x "a\n   \nb")',
    ),
    "deep": (
        '#+begin_src emacs-lisp\n  (setq x "a\n                 b")\n#+end_src\n',
        '(setq x "a\n               b")',
    ),
    "tab": ('#+begin_src emacs-lisp\n\t(setq x "a\n\t  b")\n#+end_src\n', '(setq x "a\n  b")'),
    # a tab across the column where the common indentation ends is kept whole
    "tab-across": (
        '#+begin_src emacs-lisp\n   (setq x "a\n\tb")\n#+end_src\n',
        '(setq x "a\n\tb")',
    ),
    "tab-blank": (
        '#+begin_src emacs-lisp\n  (setq x "a\n\t\n  b")\n#+end_src\n',
        '(setq x "a\n\t\nb")',
    ),
    "upper-in-list": (
        '- item\n  #+BEGIN_SRC emacs-lisp\n    (setq x "a\n    b")\n  #+END_SRC\n- next\n',
        '(setq x "a\nb")',
    ),
    "empty": ("#+begin_src emacs-lisp\n#+end_src\n", None),
    "no-final-newline": (
        '#+begin_src emacs-lisp\n  (setq x "a\n   b")\n#+end_src',
        '(setq x "a\n b")',
    ),
    "preserve": (
        '# -*- org-src-preserve-indentation: t -*-\n#+begin_src emacs-lisp\n  (setq x "a\n'
        '    b")\n#+end_src\n',
        None,
    ),
}
# where Org 9.5 (Emacs 28) tangles differently: it ignores -i when tangling and empties
# every blank line (the view follows Org 9.7)
ORG_95 = {
    "switch-i": '(setq x "a\n  b")',
    "blank": '(setq x "a\n\nb")',
    "tab-across": '(setq x "a\n     b")',
    "tab-blank": '(setq x "a\n\nb")',
}
# no source block for Org: a #+begin_src line without its #+end_src is a paragraph line
NOT_BLOCKS = {
    "unterminated": '* Notes\n#+begin_src emacs-lisp\n(gptel-make-tool :name "a" ...\n\nprose (\n',
    # blocks org-babel-load-file does not tangle: :tangle no, a COMMENT heading (at any
    # level above), an ARCHIVE-tagged one
    "tangle-no": "* Old\n#+begin_src emacs-lisp :results none :tangle no\n(setq a (\n#+end_src\n",
    "commented": "* COMMENT Old\n** Deeper\n#+begin_src emacs-lisp\n(setq a (\n#+end_src\n",
    "todo-commented": "* TODO [#A] COMMENT Old\n#+begin_src elisp\n(setq a (\n#+end_src\n",
    "archived": "* Old   :tools:ARCHIVE:\n#+begin_src emacs-lisp\n(setq a (\n#+end_src\n",
}


def _view_blocks(name: str, text: str) -> str:
    view = elisp_view(name + ".org", text).text
    return "\n\n".join(view[s:e] for s, e in view.blocks)


def _as_file(text: str) -> str:
    """The block body as the file has it (a case whose tangled text is the body)."""
    start = text.index("\n", text.index("#+begin_src")) + 1
    return text[start : text.index("#+end_src")]


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_view_of_an_org_block_is_what_tangling_gives(name) -> None:
    text, want = CASES[name]
    if want is None:
        want = _as_file(text).strip()
    assert _view_blocks(name, text).strip() == want


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_character_of_the_view_maps_to_the_same_character_of_the_file(name) -> None:
    text = CASES[name][0]
    view = elisp_view(name + ".org", text).text
    for i, ch in enumerate(view):
        if not ch.isspace():
            assert text[view.to_file(i)] == ch, (i, ch)


_TANGLE = r"""
(require 'org)
(require 'ob-tangle)
(princ (org-version))
(dolist (f command-line-args-left)
  (with-temp-buffer
    (let ((enable-local-variables :all))
      (insert-file-contents f)
      (org-mode)
      (hack-local-variables)
      (setq buffer-file-name (expand-file-name f))
      (org-babel-tangle nil (concat f ".el") "emacs-lisp\\|elisp"))))
(setq command-line-args-left nil)
"""


@pytest.mark.slow
def test_real_org_tangles_each_case_to_the_view(emacs, tmp_path) -> None:
    """The real Org of this Emacs (9.5 on 28.2, 9.7 on 30.1) tangles every case to
    plistspec's view, but for Org 9.5's two known differences (ORG_95)."""
    script = tmp_path / "tangle.el"
    script.write_text(_TANGLE, encoding="utf-8")
    files = []
    for name, text in [*((n, t) for n, (t, _) in CASES.items()), *NOT_BLOCKS.items()]:
        f = tmp_path / f"{name}.org"
        f.write_text(text, encoding="utf-8")
        files.append(str(f))
    r = subprocess.run(
        [emacs.exe, "--batch", "-Q", "-l", str(script), *files],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    old_org = r.stdout.startswith("9.5")
    for name in NOT_BLOCKS:
        assert not (tmp_path / f"{name}.org.el").exists(), name
    for name, (text, _) in CASES.items():
        tangled = (tmp_path / f"{name}.org.el").read_text(encoding="utf-8").strip()
        view = _view_blocks(name, text).strip()
        if old_org and name in ORG_95:
            assert tangled == ORG_95[name] != view, name
        else:
            assert tangled == view, name


@pytest.mark.parametrize("name", sorted(NOT_BLOCKS))
def test_an_org_block_that_never_ends_is_no_block(name, tmp_path) -> None:
    """Org tangles no block there (the real Org tangles nothing, above): a block that
    never ends is prose, a skipped block (``:tangle no``, a COMMENT or ARCHIVE heading)
    is not loaded; neither is a syntax error, and check says the file has no Emacs Lisp
    block."""
    assert elisp_view(name + ".org", NOT_BLOCKS[name]).text is None
    f = tmp_path / f"{name}.org"
    f.write_text(NOT_BLOCKS[name], encoding="utf-8")
    r = _cli("check", str(f))
    assert "PS001" not in r.output
    assert "[PS003]" in r.output and r.exit_code == 0, r.output


BROKEN_THEN_GOOD = """\
* A broken example
#+begin_src emacs-lisp
  (setq broken (list 1 2
#+end_src

* The tool
#+begin_src emacs-lisp
  (gptel-make-tool :name "get_weather" :function (lambda (city) city)
   :description "Get the weather.
   Second line.
   ,* a starred line" :args (list '(:name "city" :type string :description "The city")))
#+end_src
"""


def _cli(*args: str):
    return CliRunner().invoke(main, list(args))


def test_check_reports_the_broken_block_and_reads_the_next(tmp_path) -> None:
    f = tmp_path / "config.org"
    f.write_text(BROKEN_THEN_GOOD.replace('"city" :type string', '"city" :type strin'), "utf-8")
    r = _cli("check", str(f))
    out = r.output
    # an error in Org: tangled, the blocks after it would not load either
    assert f"{f}:3:16: error: unterminated list starting at 3:16" in out, out
    assert "the blocks after this one do not load either" in out
    # the tool of the later block is checked: its bad type found at the file's column (the
    # line lost a comma and two columns of indentation to tangling)
    line = f.read_text("utf-8").splitlines()[10]
    col = line.index("strin") + 1
    assert f"{f}:11:{col}: error: :type `strin` is not a JSON Schema type" in out, out
    assert r.exit_code == 1


def test_to_json_reads_an_org_block_as_tangled(tmp_path) -> None:
    """The tool's block as tangling gives it; a broken block before it is an error in Org
    (tangled into one file, nothing after it would load), so nothing is written then."""
    f = tmp_path / "config.org"
    f.write_text(BROKEN_THEN_GOOD, encoding="utf-8")
    r = _cli("to-json", str(f), "-t", "openai")
    assert r.exit_code == 1 and r.stdout == "", r.output
    assert "3:16: error: unterminated list" in r.stderr
    f.write_text(BROKEN_THEN_GOOD.replace("(list 1 2\n", "(list 1 2))\n"), encoding="utf-8")
    r = _cli("to-json", str(f), "-t", "openai")
    assert r.exit_code == 0, r.output
    (tool,) = json.loads(r.stdout)
    # the description as tangled: two columns of indentation and the comma gone
    assert tool["function"]["description"] == "Get the weather.\n Second line.\n * a starred line"
    r = _cli("to-json", str(f))
    src = json.loads(r.stdout)[0]["metadata"]["source"]
    assert (src["line"], src["column"]) == (8, 3)  # the file's column, not the tangled one


def test_fmt_formats_the_good_block_so_that_it_tangles_to_the_layout(tmp_path) -> None:
    f = tmp_path / "config.org"
    f.write_text(BROKEN_THEN_GOOD, encoding="utf-8")
    r = _cli("fmt", str(f))  # a broken Org block is an error: the file is left as it is
    assert r.exit_code == 1 and "3:16: error: unterminated list" in r.output, r.output
    good = BROKEN_THEN_GOOD.replace("(list 1 2\n", "(list 1 2))\n")
    f.write_text(good, encoding="utf-8")
    r = _cli("fmt", str(f))
    assert r.exit_code == 0, r.output
    new = r.stdout
    assert new.startswith(good[: good.index("* The tool")])
    assert '  (gptel-make-tool\n   :name "get_weather"\n' in new
    assert '   ,* a starred line"\n   :args' in new  # the string as it was, still escaped
    # the formatted block tangles to what fmt laid out, and sends the same
    g = tmp_path / "new.org"
    g.write_text(new, encoding="utf-8")
    assert _cli("fmt", str(g)).stdout == new
    sent = [json.loads(_cli("to-json", str(p), "-t", "openai").stdout) for p in (f, g)]
    assert sent[0] == sent[1]


def test_fmt_leaves_a_block_whose_indentation_the_layout_would_change(tmp_path) -> None:
    f = tmp_path / "config.org"
    text = (
        "#+begin_src emacs-lisp\n"
        '    (gptel-make-tool :name "a" :function #\'ignore :description "d"\n'
        "  :args nil)\n#+end_src\n"
    )
    f.write_text(text, encoding="utf-8")
    r = _cli("fmt", str(f))
    assert r.exit_code == 0 and r.stdout == text, r.output
    assert f"{f}:2:5: info: tool form left unchanged: in this Org block" in r.stderr


def test_a_broken_markdown_block_hides_no_later_block(tmp_path) -> None:
    f = tmp_path / "README.md"
    f.write_text(
        "# T\n```elisp\n(setq a (b\n```\n\n```elisp\n"
        '(gptel-make-tool :name "a" :function #\'ignore :description "d" :args nil)\n```\n',
        encoding="utf-8",
    )
    r = _cli("to-json", str(f))
    assert r.exit_code == 0, r.output
    assert [t["name"] for t in json.loads(r.stdout)] == ["a"]
    assert f"{f}:3:9: warning: unterminated list" in r.stderr


def test_the_real_llm_readme_yields_its_tool_after_its_broken_examples(elisp_deps_dir) -> None:
    """llm 0.31.1's README.org has example blocks that do not read (line 157): errors in
    Org (tangled, nothing after them would load), and the tool example at line 312 is
    still read and checked."""
    from plistspec.elisp.embedded import elisp_view
    from plistspec.elisp.recover import read_recovering
    from plistspec.extract import find_tools

    readme = elisp_deps_dir / "llm" / "README.org"
    r = _cli("check", str(readme))
    assert r.exit_code == 1 and f"{readme}:157:1: error: unterminated list" in r.output
    text = readme.read_text(encoding="utf-8")
    view = elisp_view(str(readme), text).text
    datums, _ = read_recovering(view)
    (tool,) = find_tools(datums, view)[0]
    assert text.count("\n", 0, view.to_file(tool.start)) + 1 == 312


def test_a_quoted_name_in_a_message_is_not_taken_for_a_position(tmp_path) -> None:
    """Positions in messages ("starting at 3:9") are mapped to the file's columns; a tool
    name quoted in a message is the file's text, even when it reads "at 2:3"."""
    f = tmp_path / "at.org"
    f.write_text(
        "#+begin_src emacs-lisp\n"
        '  (gptel-make-tool :name "meet at 2:3" :function #\'ignore :description "d")\n'
        "  (setq a (b\n#+end_src\n",
        encoding="utf-8",
    )
    r = _cli("check", str(f))
    assert f'{f}:2:26: error: tool name "meet at 2:3" is rejected' in r.output, r.output
    assert f"{f}:3:11: error: unterminated list starting at 3:11;" in r.output, r.output


def test_a_markdown_block_inside_a_list_item_is_read(tmp_path) -> None:
    """A README's "1. Add this to your config:" with the fenced block indented under the
    item (four spaces and more: the item's content, then the fence): the tool is read,
    at the file's own line and column."""
    f = tmp_path / "README.md"
    f.write_text(
        "# Tools\n\n1. Add this to your config:\n\n"
        "    ```emacs-lisp\n"
        '    (gptel-make-tool :name "a" :function #\'ignore :description "d" :args nil)\n'
        "    ```\n\n2. Done.\n",
        encoding="utf-8",
    )
    r = _cli("to-json", str(f))
    assert r.exit_code == 0, r.output
    (tool,) = json.loads(r.stdout)
    assert tool["name"] == "a"
    src = tool["metadata"]["source"]
    assert (src["line"], src["column"]) == (6, 5)
