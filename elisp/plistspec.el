;;; plistspec.el --- Check and convert LLM tool specs for gptel and llm  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The plistspec authors

;; Author: The plistspec authors
;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1"))
;; URL: https://github.com/plistspec/plistspec
;; Keywords: tools, convenience, languages
;; SPDX-License-Identifier: GPL-3.0-or-later

;; This file is not part of GNU Emacs.

;; This program is free software: you can redistribute it and/or modify it under the
;; terms of the GNU General Public License as published by the Free Software
;; Foundation, either version 3 of the License, or (at your option) any later version.

;;; Commentary:

;; Editor support for LLM tool specs written for gptel (`gptel-make-tool') and llm
;; (`llm-make-tool'), backed by the `plistspec' command-line program.
;;
;; Set-up, one line (after `require', or nothing else when installed as a package):
;;
;;   (add-hook 'emacs-lisp-mode-hook #'plistspec-mode)
;;
;; `plistspec-mode' adds the `plistspec-flymake' backend and turns on `flymake-mode':
;; each finding of "plistspec check" is underlined (unknown keys with a did-you-mean,
;; missing :type, :enum written as a list...), with the project's configuration and
;; suppressions applied, as on the command line.  When plistspec cannot be found or
;; cannot run, the mode line says "plistspec!" and a warning says why, once.
;;
;; Commands:
;; - `plistspec-fix-at-point': apply the fix of the finding at point.
;; - `plistspec-fix-buffer': apply every safe fix to the buffer (with a prefix
;;   argument, the unsafe ones too).
;; - `plistspec-show-json': show the JSON the buffer's tools compile to.
;; - `plistspec-insert-from-json': insert the tool forms made from a JSON file (an
;;   MCP tools/list, OpenAI/Anthropic/Gemini tools...); its warnings go to a
;;   `compilation-mode' buffer.
;;
;; The program is found as `plistspec-command' says: `plistspec-executable' when
;; set, else the project's .venv/bin/plistspec, else plistspec on `exec-path',
;; else "python3 -m plistspec" when that Python can import it.
;;
;; The package is in these files, each requiring only those above it:
;; - plistspec-custom.el: the customization group and user options;
;; - plistspec-exec.el: finding and running the program, telling the user
;;   when it cannot run;
;; - plistspec-server.el: the client of "plistspec check --server";
;; - plistspec-flymake.el: the Flymake backend;
;; - plistspec-commands.el: fixes, show-json, insert-from-json;
;; - plistspec-gptel-plan.el, plistspec-gptel.el: `plistspec-gptel-mode' (tools
;;   lowered for each gptel request's backend, tool calls checked) and
;;   `plistspec-gptel-report';
;; - plistspec.el (this file): `plistspec-mode', loading all of them.

;;; Code:

(require 'flymake)
(require 'plistspec-custom)
(require 'plistspec-exec)
(require 'plistspec-server)
(require 'plistspec-flymake)
(require 'plistspec-commands)
(require 'plistspec-gptel-plan)
(require 'plistspec-gptel)

(defvar-local plistspec--started-flymake nil
  "Non-nil when `plistspec-mode' turned `flymake-mode' on in this buffer.")

;;;###autoload
(define-minor-mode plistspec-mode
  "Check the LLM tool specs of this buffer with plistspec, through Flymake.
Adds `plistspec-flymake' to the buffer's Flymake backends and turns
on `flymake-mode'.  The mode line shows \"plistspec!\" when plistspec
cannot run; \\[plistspec-show-problem] says why.  Set it up for every
Emacs Lisp buffer with:

  (add-hook \\='emacs-lisp-mode-hook #\\='plistspec-mode)"
  :lighter (:eval (plistspec--mode-line))
  (if plistspec-mode
      (progn
        (setq plistspec--problem nil)
        (plistspec-flymake-setup)
        (if (bound-and-true-p flymake-mode)
            (flymake-start nil t)
          (setq plistspec--started-flymake t)
          (flymake-mode 1)))
    (remove-hook 'flymake-diagnostic-functions #'plistspec-flymake t)
    (setq plistspec--problem nil)
    (plistspec--flymake-forget)
    (when (bound-and-true-p flymake-mode)
      (if plistspec--started-flymake
          (flymake-mode -1)
        (flymake-start nil t)))
    (setq plistspec--started-flymake nil)))

(provide 'plistspec)
;;; plistspec.el ends here
