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
;; (`llm-make-tool'), backed by the `plistspec' command-line program:
;;
;; - `plistspec-flymake': a Flymake backend that runs
;;   "plistspec check --format json --stdin-filename NAME -" asynchronously on the
;;   buffer and underlines each finding (unknown keys with a did-you-mean, missing
;;   :type, :enum written as a list, what a provider would reject...).
;;   Turn it on in a buffer with `plistspec-flymake-setup' (e.g. from
;;   `emacs-lisp-mode-hook'), then `flymake-mode'.
;; - `plistspec-fix-at-point': apply the fix plistspec suggests for the finding at
;;   point (a did-you-mean key, a vector for a list...).
;; - `plistspec-show-json': show the JSON the buffer's tools compile to for a provider.
;; - `plistspec-insert-from-json': insert tool definitions made from a JSON file
;;   (an MCP tools/list, OpenAI/Anthropic/Gemini tools, plistspec's IR).
;;
;; `plistspec-executable' says how to run plistspec, e.g. ("plistspec") or
;; ("python3" "-m" "plistspec").

;;; Code:

(require 'flymake)
(require 'subr-x)

(defgroup plistspec nil
  "Check and convert LLM tool specs with the plistspec program."
  :group 'tools
  :prefix "plistspec-")

(defcustom plistspec-executable '("plistspec")
  "Command that runs plistspec: a program and its first arguments.
For example (\"plistspec\") or (\"python3\" \"-m\" \"plistspec\")."
  :type '(repeat string))

(defcustom plistspec-target nil
  "Provider whose rules `plistspec-flymake' also checks, or nil for none."
  :type '(choice (const :tag "None" nil)
                 (const "openai") (const "openai-strict") (const "openai-responses")
                 (const "anthropic") (const "gemini") (const "bedrock")
                 (const "ollama") (const "mcp")))

(defcustom plistspec-dialect nil
  "Library whose rules apply to every tool, or nil for each form's own."
  :type '(choice (const :tag "Each form's own" nil) (const "gptel") (const "llm")))

(defconst plistspec-providers
  '("ir" "openai" "openai-responses" "anthropic" "gemini" "vertex" "bedrock" "ollama" "mcp")
  "Formats `plistspec-show-json' can show.")

(defvar-local plistspec--flymake-process nil
  "The plistspec process checking this buffer, if any.")

(defun plistspec--command (&rest args)
  "The command line running plistspec with ARGS."
  (append plistspec-executable args))

(defun plistspec--stdin-name ()
  "The name of the current buffer in plistspec's messages."
  (if buffer-file-name (file-name-nondirectory buffer-file-name) (buffer-name)))

;;;; Flymake

(defun plistspec--position (line column)
  "Buffer position of 1-based LINE and COLUMN (characters), clamped to the line."
  (save-excursion
    (goto-char (point-min))
    (forward-line (max 0 (1- line)))
    (min (+ (point) (max 0 (1- column))) (line-end-position))))

(defun plistspec--diagnostic (buffer item)
  "A Flymake diagnostic in BUFFER for ITEM, one parsed JSON object of `check'."
  (let* ((line (or (alist-get 'line item) 0))
         (column (or (alist-get 'column item) 0))
         (end-line (or (alist-get 'end_line item) 0))
         (end-column (or (alist-get 'end_column item) 0))
         (severity (alist-get 'severity item))
         (type (cond ((equal severity "error") :error)
                     ((equal severity "warning") :warning)
                     (t :note)))
         (text (format "%s [%s]" (alist-get 'message item) (alist-get 'code item)))
         beg end)
    (with-current-buffer buffer
      (save-restriction
        (widen)
        (if (< line 1)
            (setq beg (point-min) end (min (point-max) (1+ (point-min))))
          (setq beg (plistspec--position line column))
          (setq end (if (>= end-line 1) (plistspec--position end-line end-column) beg))
          (when (<= end beg)
            (let ((region (flymake-diag-region buffer line (max column 1))))
              (if region
                  (setq beg (car region) end (cdr region))
                (setq end (min (point-max) (1+ beg)))))))))
    (flymake-make-diagnostic buffer beg end type text
                             (plistspec--fix-data buffer (alist-get 'fix item)))))

;;;; Fixes

(defun plistspec--fix-region (fix)
  "The (BEG . END) buffer positions of FIX, a parsed JSON fix, or nil.
Positions come from its 1-based `line'/`column' and `end_line'/`end_column'
\(characters), or from its 0-based `start'/`end' offsets."
  (let ((line (alist-get 'line fix))
        (start (alist-get 'start fix)))
    (save-restriction
      (widen)
      (cond
       ((and (integerp line) (>= line 1))
        (cons (plistspec--position line (or (alist-get 'column fix) 1))
              (plistspec--position (or (alist-get 'end_line fix) line)
                                   (or (alist-get 'end_column fix) 1))))
       ((and (integerp start) (integerp (alist-get 'end fix)))
        (let ((beg (+ (point-min) start))
              (end (+ (point-min) (alist-get 'end fix))))
          (and (<= end (point-max)) (cons beg end))))))))

(defun plistspec--fix-data (buffer fix)
  "Flymake data for FIX in BUFFER: markers around the text to replace.
The value is a plist (:plistspec-fix (BEG-MARKER END-MARKER OLD NEW)),
or nil when FIX is nil; the markers follow later edits of BUFFER."
  (when (and fix (alist-get 'replacement fix))
    (with-current-buffer buffer
      (let ((region (plistspec--fix-region fix)))
        (when (and region (<= (car region) (cdr region)))
          (list :plistspec-fix
                (list (copy-marker (car region))
                      (copy-marker (cdr region) t)
                      (buffer-substring-no-properties (car region) (cdr region))
                      (alist-get 'replacement fix))))))))

(defun plistspec--apply (beg end old new)
  "Replace the text OLD between BEG and END with NEW.
Signal a `user-error' when the text there is no longer OLD."
  (unless (equal (buffer-substring-no-properties beg end) old)
    (user-error "The text changed since it was checked; check again"))
  (save-excursion
    (goto-char beg)
    (delete-region beg end)
    (insert new)))

(defun plistspec--flymake-fixes-at (pos)
  "The plistspec fixes of the Flymake diagnostics at POS, smallest region first."
  (let (fixes)
    (when (bound-and-true-p flymake-mode)
      (dolist (diag (flymake-diagnostics pos))
        (let ((fix (plist-get (flymake-diagnostic-data diag) :plistspec-fix)))
          (when fix
            (push (cons (- (flymake-diagnostic-end diag) (flymake-diagnostic-beg diag))
                        (cons (flymake-diagnostic-text diag) fix))
                  fixes)))))
    (mapcar #'cdr (sort fixes (lambda (a b) (< (car a) (car b)))))))

(defun plistspec--checked-fixes-at (pos)
  "Run plistspec check on the buffer now; the fixes of its findings at POS."
  (let* ((args (append (list "check" "--format" "json" "--exit-zero"
                             "--stdin-filename" (plistspec--stdin-name))
                       (and plistspec-target (list "--target" plistspec-target))
                       (and plistspec-dialect (list "--dialect" plistspec-dialect))
                       (list "-")))
         (result (plistspec--run-on-buffer args))
         (data (plistspec--parse (nth 1 result)))
         fixes)
    (when (eq data 'fail)
      (user-error "Plistspec check failed: %s" (string-trim (nth 2 result))))
    (dolist (item data)
      (let ((fix (alist-get 'fix item)))
        (when fix
          (let* ((diag (plistspec--diagnostic (current-buffer) item))
                 (beg (flymake-diagnostic-beg diag))
                 (end (flymake-diagnostic-end diag))
                 (data (plist-get (flymake-diagnostic-data diag) :plistspec-fix)))
            (when (and data (<= beg pos) (or (< pos end) (= pos beg)))
              (push (cons (- end beg) (cons (flymake-diagnostic-text diag) data))
                    fixes))))))
    (mapcar #'cdr (sort fixes (lambda (a b) (< (car a) (car b)))))))

;;;###autoload
(defun plistspec-fix-at-point ()
  "Apply plistspec's suggested fix for the finding at point.
Use the fixes of the `plistspec-flymake' diagnostics at point when
`flymake-mode' shows them, otherwise check the buffer now.  With
several findings at point, fix the one with the smallest region."
  (interactive)
  (let* ((fixes (or (plistspec--flymake-fixes-at (point))
                    (plistspec--checked-fixes-at (point))))
         (fix (car fixes)))
    (unless fix
      (user-error "No plistspec fix at point"))
    (pcase-let ((`(,text ,beg ,end ,old ,new) fix))
      (plistspec--apply beg end old new)
      (message "Fixed: %s" text)
      (when (bound-and-true-p flymake-mode)
        (flymake-start))
      new)))

(defun plistspec--parse (output)
  "The list of diagnostic alists in OUTPUT, or the symbol `fail'."
  (condition-case nil
      (let ((data (json-parse-string output :object-type 'alist :array-type 'list
                                     :null-object nil :false-object nil)))
        (if (listp data) data 'fail))
    (error 'fail)))

(defun plistspec--flymake-done (proc source report-fn stderr)
  "Report the findings of PROC, which checked SOURCE, through REPORT-FN.
STDERR is the buffer holding the process's standard error."
  (let* ((output (with-current-buffer (process-buffer proc) (buffer-string)))
         (data (plistspec--parse output))
         (ok (and (eq (process-status proc) 'exit)
                  (zerop (process-exit-status proc))
                  (not (eq data 'fail)))))
    (if ok
        (funcall report-fn
                 (mapcar (lambda (item) (plistspec--diagnostic source item)) data))
      (let ((err (if (buffer-live-p stderr)
                     (with-current-buffer stderr (string-trim (buffer-string)))
                   "")))
        (flymake-log :error "plistspec failed (%s %s): %s"
                     (process-status proc) (process-exit-status proc) err)
        (funcall report-fn :panic
                 :explanation (format "plistspec failed: %s"
                                      (if (string-empty-p err) output err)))))))

;;;###autoload
(defun plistspec-flymake (report-fn &rest _args)
  "Flymake backend: check the buffer with plistspec and call REPORT-FN."
  (let ((old plistspec--flymake-process))
    ;; Forget it first: its sentinel may run inside `delete-process'.
    (setq plistspec--flymake-process nil)
    (when (process-live-p old)
      (delete-process old)))
  (let* ((source (current-buffer))
         (stdout (generate-new-buffer " *plistspec-flymake*"))
         (stderr (generate-new-buffer " *plistspec-flymake-stderr*"))
         (args (append (list "check" "--format" "json" "--exit-zero"
                             "--stdin-filename" (plistspec--stdin-name))
                       (and plistspec-target (list "--target" plistspec-target))
                       (and plistspec-dialect (list "--dialect" plistspec-dialect))
                       (list "-")))
         (stderr-pipe (make-pipe-process :name "plistspec-flymake-stderr"
                                         :buffer stderr :noquery t
                                         :sentinel #'ignore))
         (proc
          (make-process
           :name "plistspec-flymake" :noquery t :connection-type 'pipe
           :buffer stdout :stderr stderr-pipe :coding 'utf-8-unix
           :command (apply #'plistspec--command args)
           :sentinel
           (lambda (proc _event)
             (when (memq (process-status proc) '(exit signal))
               (unwind-protect
                   (if (and (buffer-live-p source)
                            (eq proc (buffer-local-value 'plistspec--flymake-process
                                                         source)))
                       (progn
                         ;; drain what is left of standard error before reading it
                         (while (accept-process-output stderr-pipe 0 nil t))
                         (plistspec--flymake-done proc source report-fn stderr))
                     (flymake-log :warning "Canceling obsolete check %s" proc))
                 (when (process-live-p stderr-pipe) (delete-process stderr-pipe))
                 (kill-buffer stdout)
                 (kill-buffer stderr)))))))
    (setq plistspec--flymake-process proc)
    (save-restriction
      (widen)
      (process-send-region proc (point-min) (point-max))
      (process-send-eof proc))))

;;;###autoload
(defun plistspec-flymake-setup ()
  "Add `plistspec-flymake' to this buffer's Flymake backends."
  (add-hook 'flymake-diagnostic-functions #'plistspec-flymake nil t))

;;;; Commands

(defun plistspec--run-on-buffer (args)
  "Run plistspec with ARGS on the buffer's text; return (EXIT STDOUT STDERR)."
  (let ((text (save-restriction (widen) (buffer-string)))
        (err-file (make-temp-file "plistspec-stderr")))
    (unwind-protect
        (with-temp-buffer
          (insert text)
          (let* ((coding-system-for-write 'utf-8-unix)
                 (coding-system-for-read 'utf-8-unix)
                 (exit (apply #'call-process-region (point-min) (point-max)
                              (car plistspec-executable) t (list t err-file) nil
                              (append (cdr plistspec-executable) args))))
            (list exit (buffer-string)
                  (with-temp-buffer
                    (insert-file-contents err-file)
                    (buffer-string)))))
      (delete-file err-file))))

(defun plistspec-json-string (provider &optional dialect)
  "The JSON the current buffer's tools compile to for PROVIDER, as a string.
DIALECT (\"gptel\" or \"llm\") overrides each form's own library.  Signal
an error with plistspec's messages when it fails."
  (let* ((args (append (list "to-json" "--format" provider)
                       (and dialect (list "--dialect" dialect))
                       (list "--stdin-filename" (plistspec--stdin-name) "-")))
         (result (plistspec--run-on-buffer args)))
    (unless (eql (nth 0 result) 0)
      (user-error "Plistspec to-json failed:\n%s" (string-trim (nth 2 result))))
    (nth 1 result)))

;;;###autoload
(defun plistspec-show-json (provider &optional dialect)
  "Show the JSON the buffer's tools compile to for PROVIDER.
With a prefix argument, also ask for the DIALECT (gptel or llm)."
  (interactive
   (list (completing-read "Provider: " plistspec-providers nil t nil nil "openai")
         (and current-prefix-arg
              (completing-read "Dialect: " '("gptel" "llm") nil t))))
  (let ((json (plistspec-json-string provider (or dialect plistspec-dialect)))
        (out (get-buffer-create "*plistspec-json*")))
    (with-current-buffer out
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert json)
        (goto-char (point-min)))
      (if (fboundp 'js-json-mode) (funcall #'js-json-mode) (js-mode))
      (setq buffer-read-only t))
    (display-buffer out)
    out))

;;;###autoload
(defun plistspec-insert-from-json (file &optional dialect)
  "Insert at point the tool definitions made from the JSON FILE.
DIALECT is \"gptel\" (the default) or \"llm\"; with a prefix argument,
ask for it."
  (interactive
   (list (read-file-name "Tools JSON file: " nil nil t)
         (and current-prefix-arg
              (completing-read "Dialect: " '("gptel" "llm") nil t))))
  (let* ((args (append (list "from-json")
                       (and dialect (list "--dialect" dialect))
                       (list (expand-file-name file))))
         (result (with-temp-buffer (plistspec--run-on-buffer args))))
    (unless (eql (nth 0 result) 0)
      (user-error "Plistspec from-json failed:\n%s" (string-trim (nth 2 result))))
    (insert (nth 1 result))))

(provide 'plistspec)
;;; plistspec.el ends here
