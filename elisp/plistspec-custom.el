;;; plistspec-custom.el --- User options of the plistspec package  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The plistspec authors

;; Author: The plistspec authors
;; URL: https://github.com/plistspec/plistspec
;; SPDX-License-Identifier: GPL-3.0-or-later

;; This file is not part of GNU Emacs.

;; This program is free software: you can redistribute it and/or modify it under the
;; terms of the GNU General Public License as published by the Free Software
;; Foundation, either version 3 of the License, or (at your option) any later version.

;;; Commentary:

;; The `plistspec' customization group: how to run the program, how long it
;; may take, whether Flymake uses the long-lived check server, the provider
;; and library rules to check against; and the error signalled when plistspec
;; cannot run.  Everything else in the package requires this file.

;;; Code:

(defgroup plistspec nil
  "Check and convert LLM tool specs with the plistspec program."
  :group 'tools
  :prefix "plistspec-")

(defcustom plistspec-executable nil
  "How to run plistspec, or nil to find it.
A string names the program; a list is a program and its first
arguments, e.g. (\"python3\" \"-m\" \"plistspec\").  When nil,
`plistspec-command' looks for the project's .venv/bin/plistspec (run
only in a project you trust, see `plistspec-trust-project'), then the
one \\[plistspec-install-cli] installed (`plistspec-cli-directory'),
then plistspec on variable `exec-path', then runs `plistspec-python' with
\"-m plistspec\" if that Python can import plistspec.
A relative name with a directory part is taken from the visited
file's directory, so it too runs only in a trusted project."
  :type '(choice (const :tag "Find it" nil)
                 (string :tag "Program")
                 (repeat :tag "Program and arguments" string)))
;; a file or directory-local value would choose the program Emacs runs
(put 'plistspec-executable 'risky-local-variable t)

(defcustom plistspec-python "python3"
  "The Python tried last to run \"-m plistspec\" when nothing else is found.
It runs with -P, so nothing of the visited file's directory is imported."
  :type 'string)
(put 'plistspec-python 'risky-local-variable t)

(defcustom plistspec-cli-directory (locate-user-emacs-file "plistspec/venv")
  "The private virtual environment \\[plistspec-install-cli] installs plistspec in.
When its bin/plistspec exists, Emacs runs it (unless the project's own
program or `plistspec-executable' comes first), and the Python tools
written by \"plistspec from-py\" run its bin/python when no .venv is
found for them."
  :type 'directory)
(put 'plistspec-cli-directory 'risky-local-variable t)

(defcustom plistspec-trusted-projects nil
  "Directories whose own plistspec program (.venv/bin/plistspec) may run.
Visiting a file never runs a program of the file's project unless
you trust that project: here, with \\[plistspec-trust-project] (which
remembers it in `plistspec-trusted-projects-file'), or, where Emacs
has it, in `trusted-content'.  Each element is a directory name; its
sub-directories are trusted too."
  :type '(repeat directory))
(put 'plistspec-trusted-projects 'risky-local-variable t)

(defcustom plistspec-trusted-projects-file
  (locate-user-emacs-file "plistspec-trusted-projects.eld")
  "File where `plistspec-trust-project' remembers the projects you trust.
nil: they are trusted until Emacs exits."
  :type '(choice (file :tag "File") (const :tag "Not remembered" nil)))
(put 'plistspec-trusted-projects-file 'risky-local-variable t)

(defcustom plistspec-timeout 30
  "Seconds a plistspec command may run before it is stopped."
  :type 'number)

(defcustom plistspec-use-server t
  "Non-nil to check buffers with one long-lived \"plistspec check --server\".
Flymake then starts no new plistspec for each check: one process per
plistspec program answers the checks of every buffer, with the same
findings.  When that process cannot start (e.g. an older plistspec),
each check runs its own \"plistspec check\", as when this is nil."
  :type 'boolean)

(defcustom plistspec-target nil
  "Provider whose rules `plistspec-flymake' also checks, or nil for none.
When nil, the project's configuration decides."
  :type '(choice (const :tag "None" nil)
                 (const "openai") (const "openai-strict") (const "openai-responses")
                 (const "anthropic") (const "gemini") (const "bedrock")
                 (const "ollama") (const "mcp")))

(defcustom plistspec-dialect nil
  "Library whose rules apply to every tool, or nil.
When nil, the project's configuration or each form's own library decides."
  :type '(choice (const :tag "Each form's own" nil) (const "gptel") (const "llm")))

(defcustom plistspec-enable-in 'tools
  "Where `global-plistspec-mode' turns `plistspec-mode' on.
`tools': Emacs Lisp buffers that make tools, those where
`plistspec-tool-regexp' matches (checked when the buffer is set up
and again when it is saved); `all': every Emacs Lisp buffer; a
function: called without arguments in each Emacs Lisp buffer, non-nil
to turn the mode on."
  :type '(choice (const :tag "Buffers that make tools" tools)
                 (const :tag "Every Emacs Lisp buffer" all)
                 (function :tag "Predicate")))
(put 'plistspec-enable-in 'risky-local-variable t)

(defcustom plistspec-tool-regexp
  (concat "\\(?:(\\|#?'\\)"
          (regexp-opt '("gptel-make-tool" "llm-make-tool" "make-llm-tool"
                        "llm-tool-collection-deftool")
                      t)
          "\\_>")
  "What a buffer holding tool specs contains, for `plistspec-enable-in'.
By default a call of (or a #\\='reference to) gptel-make-tool,
llm-make-tool, make-llm-tool or llm-tool-collection-deftool."
  :type 'regexp)

(defcustom plistspec-flymake-only t
  "Non-nil: when `plistspec-mode' turns Flymake on, only plistspec's backend runs.
Emacs's own Emacs Lisp backends (checkdoc, byte-compile) then stay
off in that buffer.  When `flymake-mode' is already on (you turned it
on, e.g. in `emacs-lisp-mode-hook'), its backends are left as they are."
  :type 'boolean)

(defconst plistspec-providers
  '("ir" "openai" "openai-responses" "anthropic" "gemini" "vertex" "bedrock" "ollama" "mcp")
  "Formats `plistspec-show-json' can show.")

(define-error 'plistspec-unavailable "Plistspec cannot run" 'user-error)

(provide 'plistspec-custom)
;;; plistspec-custom.el ends here
