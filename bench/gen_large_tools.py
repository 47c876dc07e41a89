"""Write ``fixtures/elisp/large_tools.el``: a realistic ~200 KB tools package for timing Flymake.

Owns: the Flymake benchmark input. Modelled on real tool packages such as ellama's
``ellama-tools.el``: a package header and Commentary, ``defgroup``/``defcustom``/
``defvar``s, helper ``defun``s with docstrings and real bodies (``with-temp-buffer``,
``let*``, ``when``, ``condition-case``, ``format``), comments everywhere, and tools
defined three ways: a package helper handing a quoted spec plist to ``(apply
'llm-make-tool ...)`` (ellama's way), ``gptel-make-tool`` calls with ``(list '(...))``
args, and ``llm-make-tool`` calls. Deterministic (seeded).

    python bench/gen_large_tools.py [OUT] [--size 200K]
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VERBS = "read write list search find open show count replace insert delete move copy".split()
NOUNS = (
    "file buffer directory project line region symbol definition commit branch issue note "
    "entry heading tag url page term word date calendar"
).split()
WORDS = (
    "the a of to in for with from when this that each all any matching current given "
    "optional path name value result content text limit number first last before after"
).split()


def sentence(rng: random.Random, lo: int = 6, hi: int = 16) -> str:
    s = " ".join(rng.choice(WORDS + NOUNS) for _ in range(rng.randint(lo, hi)))
    return s[0].upper() + s[1:] + "."


def docstring(rng: random.Random, args: list[str]) -> str:
    first = f"{rng.choice(VERBS).capitalize()} {rng.choice(NOUNS)} {sentence(rng, 3, 8)}"
    body = " ".join(sentence(rng) for _ in range(rng.randint(1, 3)))
    if args:
        body += " " + " ".join(f"{a.upper()} is {sentence(rng, 3, 7).lower()}" for a in args)
    lines, line = [], ""
    for w in body.split():
        if len(line) + len(w) > 68:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    lines.append(line)
    text = first + "\n" + "\n".join(lines)
    return text.replace("\\", "\\\\").replace('"', '\\"')


def helper(rng: random.Random, name: str, args: list[str]) -> str:
    a = " ".join(args)
    doc = docstring(rng, args)
    first = args[0] if args else "default-directory"
    body = rng.choice(
        [
            f"""  (with-temp-buffer
    (insert-file-contents (expand-file-name {first}))
    ;; keep the result small enough for the model
    (buffer-substring-no-properties (point-min) (min (point-max) 4000)))""",
            f"""  (let* ((dir (file-name-as-directory (expand-file-name {first})))
         (files (directory-files dir nil "^[^.]")))
    (when (null files)
      (error "No files in %s" dir))
    (mapconcat #'identity files "\\n"))""",
            f"""  (condition-case err
      (let ((buf (get-buffer-create "*{name}*")))
        (with-current-buffer buf
          (erase-buffer)
          (insert (format "%s" {first}))
          (buffer-string)))
    (error (format "Error: %s" (error-message-string err))))""",
            f"""  (save-excursion
    (goto-char (point-min))
    (let ((count 0))
      (while (search-forward (format "%s" {first}) nil t)
        (setq count (1+ count)))
      (format "%d matches" count)))""",
        ]
    )
    return f'(defun {name} ({a})\n  "{doc}"\n{body})\n'


def arg_plist(rng: random.Random, name: str, indent: str) -> str:
    t = rng.choice(["string", "string", "string", "integer", "boolean", "array"])
    desc = sentence(rng, 4, 12).replace('"', "")
    extra = ""
    if t == "array":
        extra = f"\n{indent} :items (:type string)"
    elif t == "string" and rng.random() < 0.15:
        vals = " ".join(f'"{rng.choice(NOUNS)}{i}"' for i in range(rng.randint(2, 4)))
        extra = f" :enum [{vals}]"
    opt = " :optional t" if rng.random() < 0.3 else ""
    return f'(:name "{name}"\n{indent} :type {t}{extra}\n{indent} :description "{desc}"{opt})'


def tool(rng: random.Random, i: int) -> tuple[str, str]:
    verb, noun = rng.choice(VERBS), rng.choice(NOUNS)
    tname = f"{verb}_{noun}_{i}"
    fname = f"my-tools-{verb}-{noun}-{i}"
    args = [f"{rng.choice(NOUNS)}{k}" for k in range(rng.randint(0, 4))]
    defun = helper(rng, fname, args)
    desc = sentence(rng, 8, 30).replace('"', "")
    style = rng.random()
    if style < 0.5:  # ellama's way
        inner = "\n          ".join(arg_plist(rng, a, "          ") for a in args)
        form = (
            f'(my-tools-define-tool\n \'(:function {fname}\n   :name "{tname}"\n'
            f'   :args ({inner})\n   :description "{desc}"))\n'
        )
    elif style < 0.8:
        inner = "\n             ".join("'" + arg_plist(rng, a, "              ") for a in args)
        confirm = "\n :confirm t" if rng.random() < 0.3 else ""
        form = (
            f'(gptel-make-tool\n :name "{tname}"\n :function #\'{fname}\n'
            f' :description "{desc}"\n :args (list {inner})\n :category "my-tools"{confirm})\n'
        )
    else:
        inner = "\n          ".join(arg_plist(rng, a, "           ") for a in args)
        form = (
            f'(llm-make-tool\n :function #\'{fname}\n :name "{tname}"\n'
            f' :description "{desc}"\n :args \'({inner}))\n'
        )
    comment = f";; {sentence(rng, 4, 10)}\n"
    return defun + "\n" + comment + form + "\n", tname


HEADER = """;;; large-tools.el --- Tools for LLM agents  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 Example Author

;; Author: Example Author <author@example.org>
;; Version: 1.0.0
;; Package-Requires: ((emacs "28.1") (llm "0.24.0") (gptel "0.9.8"))
;; Keywords: tools, convenience

;; This file is not part of GNU Emacs.

;;; Commentary:
;;
;; A collection of tools for LLM agents: reading and writing files, searching projects,
;; working with buffers and the calendar. Each tool is a plain function with a
;; docstring, registered with `my-tools-define-tool' (llm) or `gptel-make-tool'.

;;; Code:

(require 'cl-lib)
(require 'llm)

(defgroup my-tools nil
  "Tools for LLM agents."
  :group 'tools)

(defcustom my-tools-allow-all nil
  "Allow all tools without confirmation."
  :type 'boolean
  :group 'my-tools)

(defcustom my-tools-max-output 4000
  "Maximum characters a tool returns."
  :type 'integer
  :group 'my-tools)

(defvar my-tools-available nil
  "Tools available for use.")

(defun my-tools-define-tool (tool-plist)
  "Define a tool from TOOL-PLIST and make it available."
  (add-to-list 'my-tools-available (apply 'llm-make-tool tool-plist)))

"""


def generate(size: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    parts = [HEADER]
    total = len(HEADER)
    i = 0
    while total < size:
        text, _ = tool(rng, i)
        parts.append(text)
        total += len(text.encode("utf-8"))
        i += 1
    parts.append("(provide 'large-tools)\n;;; large-tools.el ends here\n")
    return "".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", default=str(ROOT / "fixtures" / "elisp" / "large_tools.el"))
    ap.add_argument("--size", default="200K")
    a = ap.parse_args()
    size = int(float(a.size.rstrip("KkMm")) * (1000 if a.size[-1] in "Kk" else 1))
    Path(a.out).write_text(generate(size), encoding="utf-8")


if __name__ == "__main__":
    main()
