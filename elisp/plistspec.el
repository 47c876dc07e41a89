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
;;   (global-plistspec-mode)
;;
;; It turns `plistspec-mode' on in the Emacs Lisp buffers that make tools
;; (calls of gptel-make-tool, llm-make-tool...; `plistspec-enable-in' and
;; `plistspec-tool-regexp' widen it, e.g. to every Emacs Lisp buffer).
;; `plistspec-mode' adds the `plistspec-flymake' backend and turns on
;; `flymake-mode' (with only that backend when it is the one turning it
;; on, see `plistspec-flymake-only'): each finding of "plistspec check" is
;; underlined (unknown keys with a did-you-mean, missing :type, :enum
;; written as a list...), with the project's configuration and
;; suppressions applied, as on the command line.  When plistspec cannot be
;; found or cannot run, the mode line says "plistspec!" and a warning says
;; why, once.
;;
;; Commands, under the prefix C-c , in `plistspec-mode':
;; - C-c , f  `plistspec-fix-at-point': apply the fix of the finding at point.
;; - C-c , F  `plistspec-fix-buffer': apply every safe fix to the buffer (with
;;   a prefix argument, the unsafe ones too).
;; - C-c , e  `plistspec-explain': what plistspec says of the finding at point.
;; - C-c , j  `plistspec-show-tool-json': the JSON of the tool at point, by
;;   default in the format of the current gptel backend.
;; - C-c , J  `plistspec-show-json': the JSON of all the buffer's tools.
;; - C-c , i  `plistspec-insert-from-json': insert the tool forms made from a
;;   JSON file (an MCP tools/list, OpenAI/Anthropic/Gemini tools...); its
;;   warnings go to a `compilation-mode' buffer.
;;
;; The program is found as `plistspec-command' says: `plistspec-executable' when
;; set, else the project's .venv/bin/plistspec when you trust the project
;; (`plistspec-trust-project'; visiting a file never runs a program of an
;; untrusted project), else the one M-x plistspec-install-cli installed,
;; else plistspec on `exec-path', else "python3 -P -m plistspec" when that
;; Python can import it.  Without plistspec installed anywhere, M-x
;; plistspec-install-cli installs it for Emacs.
;;
;; The package is in these files, each requiring only those above it:
;; - plistspec-custom.el: the customization group and user options;
;; - plistspec-trust.el: which projects' own programs may run;
;; - plistspec-exec.el: finding and running the program, telling the user
;;   when it cannot run;
;; - plistspec-install.el: `plistspec-install-cli', the program installed
;;   for Emacs in a virtual environment of its own;
;; - plistspec-server.el: the client of "plistspec check --server";
;; - plistspec-flymake.el: the Flymake backend;
;; - plistspec-commands.el: fixes and explanations;
;; - plistspec-json.el: the JSON of tools, tools from JSON;
;; - plistspec-runtime.el: what both run-time modes share (warnings
;;   shown once, failing open, waiting for the server, seams advised);
;; - plistspec-gptel-contract.el, plistspec-gptel-plan.el,
;;   plistspec-gptel-calls.el, plistspec-gptel.el: `plistspec-gptel-mode'
;;   (tools lowered for each gptel request's backend, tool calls checked
;;   against each tool's own contract) and `plistspec-gptel-report';
;; - plistspec-llm-plan.el, plistspec-llm-calls.el, plistspec-llm.el:
;;   `plistspec-llm-mode' (the same for ahyatt's llm: ellama, ekg...) and
;;   `plistspec-llm-report';
;; - plistspec.el (this file): `plistspec-mode', its keys and
;;   `global-plistspec-mode', loading all of them.

;;; Code:

(require 'flymake)
(require 'plistspec-custom)
(require 'plistspec-trust)
(require 'plistspec-exec)
(require 'plistspec-install)
(require 'plistspec-server)
(require 'plistspec-flymake)
(require 'plistspec-commands)
(require 'plistspec-json)
(require 'plistspec-runtime)
(require 'plistspec-gptel-contract)
(require 'plistspec-gptel-plan)
(require 'plistspec-gptel-calls)
(require 'plistspec-gptel)
(require 'plistspec-llm-plan)
(require 'plistspec-llm-calls)
(require 'plistspec-llm)

;;;; Keys

(defvar plistspec-command-map
  (let ((map (make-sparse-keymap)))
    (define-key map "f" #'plistspec-fix-at-point)
    (define-key map "F" #'plistspec-fix-buffer)
    (define-key map "e" #'plistspec-explain)
    (define-key map "j" #'plistspec-show-tool-json)
    (define-key map "J" #'plistspec-show-json)
    (define-key map "i" #'plistspec-insert-from-json)
    map)
  "The commands of plistspec.
`plistspec-mode' binds them under \\<plistspec-mode-map>\\[plistspec-command-map].")
(fset 'plistspec-command-map plistspec-command-map)

(defvar plistspec-mode-map
  (let ((map (make-sparse-keymap)))
    ;; C-c and a punctuation character: the keys Emacs leaves to minor modes
    (define-key map (kbd "C-c ,") 'plistspec-command-map)
    map)
  "Keymap of `plistspec-mode'.
It binds the variable `plistspec-command-map' under a prefix key.")

;;;; The mode

(defvar-local plistspec--started-flymake nil
  "Non-nil when `plistspec-mode' turned `flymake-mode' on in this buffer.
Its value is then (BACKENDS), the buffer's own Flymake backends before.")

;;;###autoload
(define-minor-mode plistspec-mode
  "Check the LLM tool specs of this buffer with plistspec, through Flymake.
Adds `plistspec-flymake' to the buffer's Flymake backends and turns
on `flymake-mode' (when the mode turns it on, only plistspec's backend
runs, see `plistspec-flymake-only').  The mode line shows
\"plistspec!\" when plistspec cannot run; \\[plistspec-show-problem] says why.

`global-plistspec-mode' turns it on in the Emacs Lisp buffers that make
tools; set it up with (global-plistspec-mode) in your init file.

A project's own .venv/bin/plistspec runs only once you trust the
project (\\[plistspec-trust-project]).

\\{plistspec-mode-map}"
  :lighter (:eval (plistspec--mode-line))
  :keymap plistspec-mode-map
  (if plistspec-mode
      (progn
        (setq plistspec--problem nil)
        (if (bound-and-true-p flymake-mode)
            (progn
              (plistspec-flymake-setup)
              (flymake-start nil t))
          (setq plistspec--started-flymake
                (list (and (local-variable-p 'flymake-diagnostic-functions)
                           flymake-diagnostic-functions)))
          (if plistspec-flymake-only
              (setq-local flymake-diagnostic-functions (list #'plistspec-flymake))
            (plistspec-flymake-setup))
          (flymake-mode 1)))
    (remove-hook 'flymake-diagnostic-functions #'plistspec-flymake t)
    (setq plistspec--problem nil)
    (plistspec--flymake-forget)
    (if plistspec--started-flymake
        (progn
          (when (bound-and-true-p flymake-mode) (flymake-mode -1))
          (if (car plistspec--started-flymake)
              (setq-local flymake-diagnostic-functions (car plistspec--started-flymake))
            (kill-local-variable 'flymake-diagnostic-functions)))
      (when (bound-and-true-p flymake-mode)
        (flymake-start nil t)))
    (setq plistspec--started-flymake nil)))

;;;; Where it is on

(defun plistspec-buffer-has-tools-p ()
  "Return non-nil when there are tool specs in the buffer.
That is when `plistspec-tool-regexp' matches in it."
  (save-excursion
    (save-restriction
      (widen)
      (goto-char (point-min))
      (let ((case-fold-search nil))
        (re-search-forward plistspec-tool-regexp nil t)))))

(defun plistspec--wanted-p ()
  "Return non-nil when `plistspec-enable-in' wants the mode in this buffer."
  (pcase plistspec-enable-in
    ('all t)
    ('tools (plistspec-buffer-has-tools-p))
    ((pred functionp) (funcall plistspec-enable-in))))

(defun plistspec-turn-on-in-tool-buffers ()
  "Turn `plistspec-mode' on in this Emacs Lisp buffer if tool specs are in it.
Which buffers count is for `plistspec-enable-in' to say: by default, those
where `plistspec-tool-regexp' matches.  In a buffer without them yet, look
again each time it is saved.  `global-plistspec-mode' calls this."
  (when (and (derived-mode-p 'emacs-lisp-mode) (not plistspec-mode))
    (if (plistspec--wanted-p)
        (plistspec-mode 1)
      (add-hook 'after-save-hook #'plistspec--turn-on-after-save nil t))))

(defun plistspec--turn-on-after-save ()
  "Turn `plistspec-mode' on after saving, if there are tool specs now."
  (when (bound-and-true-p global-plistspec-mode)
    (plistspec-turn-on-in-tool-buffers))
  (when plistspec-mode
    (remove-hook 'after-save-hook #'plistspec--turn-on-after-save t)))

;;;###autoload
(define-globalized-minor-mode global-plistspec-mode plistspec-mode
  plistspec-turn-on-in-tool-buffers
  :group 'plistspec)

;;;; After the user trusts or distrusts a project

(defun plistspec--check-again ()
  "Check again every buffer of `plistspec-mode', e.g. with another program."
  (dolist (buffer (buffer-list))
    (with-current-buffer buffer
      (when plistspec-mode
        (setq plistspec--problem nil)
        (when (bound-and-true-p flymake-mode)
          (flymake-start nil t))))))

(add-hook 'plistspec-trust-change-hook #'plistspec--check-again 50)

(provide 'plistspec)
;;; plistspec.el ends here
