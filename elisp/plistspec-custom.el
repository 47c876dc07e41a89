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
`plistspec-command' looks for the project's .venv/bin/plistspec,
then plistspec on variable `exec-path', then runs `plistspec-python' with
\"-m plistspec\" if that Python can import plistspec."
  :type '(choice (const :tag "Find it" nil)
                 (string :tag "Program")
                 (repeat :tag "Program and arguments" string)))

(defcustom plistspec-python "python3"
  "The Python tried last to run \"-m plistspec\" when nothing else is found."
  :type 'string)

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

(defconst plistspec-providers
  '("ir" "openai" "openai-responses" "anthropic" "gemini" "vertex" "bedrock" "ollama" "mcp")
  "Formats `plistspec-show-json' can show.")

(define-error 'plistspec-unavailable "Plistspec cannot run" 'user-error)

(provide 'plistspec-custom)
;;; plistspec-custom.el ends here
