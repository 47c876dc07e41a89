;;; plistspec-flymake.el --- Flymake backend for plistspec  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The plistspec authors

;; Author: The plistspec authors
;; URL: https://github.com/plistspec/plistspec
;; SPDX-License-Identifier: GPL-3.0-or-later

;; This file is not part of GNU Emacs.

;; This program is free software: you can redistribute it and/or modify it under the
;; terms of the GNU General Public License as published by the Free Software
;; Foundation, either version 3 of the License, or (at your option) any later version.

;;; Commentary:

;; `plistspec-flymake', the Flymake backend: it checks the buffer with
;; "plistspec check --output-format json", through the check server (see
;; plistspec-server.el) when `plistspec-use-server' allows, else with a new
;; process, and turns each finding into a Flymake diagnostic whose data
;; carries its fix (markers around the text to replace).
;; `plistspec-flymake-setup' adds the backend to a buffer.

;;; Code:

(require 'flymake)
(require 'subr-x)
(require 'plistspec-exec)
(require 'plistspec-server)

(defvar-local plistspec--flymake-process nil
  "The check of this buffer in progress, if any.
A plistspec process, or the token of a request to the check server.")

;;;; Findings as diagnostics

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

;;;; Checking

(defun plistspec--flymake-report (source report-fn base result)
  "Report RESULT, (EXIT STDOUT STDERR) of checking SOURCE, through REPORT-FN.
BASE is the command that ran plistspec, for the message when it failed."
  (pcase-let* ((`(,exit ,output ,err) result)
               (data (plistspec--parse output)))
    (if (and (eql exit 0) (not (eq data 'fail)))
        (progn
          (with-current-buffer source (setq plistspec--problem nil))
          (funcall report-fn
                   (mapcar (lambda (item) (plistspec--diagnostic source item)) data)))
      (let* ((err (string-trim err))
             (reason (plistspec--failure
                      (append base '("check"))
                      (list exit output (if (string-empty-p err) output err)))))
        (flymake-log :error "%s" reason)
        (with-current-buffer source
          ;; once per program and exit status: a crash after a bad configuration is news
          (plistspec--problem
           (list 'failed base (if (memql exit '(127 256)) 'not-started exit)) reason))
        (funcall report-fn :panic :explanation reason)))))

(defun plistspec--flymake-done (proc source report-fn stderr)
  "Report the findings of PROC, which checked SOURCE, through REPORT-FN.
STDERR is the buffer holding the process's standard error."
  (plistspec--flymake-report
   source report-fn (process-get proc 'plistspec-base)
   (list (if (eq (process-status proc) 'exit) (process-exit-status proc)
           (process-status proc))
         (with-current-buffer (process-buffer proc) (buffer-string))
         (if (buffer-live-p stderr) (with-current-buffer stderr (buffer-string)) ""))))

(defun plistspec--flymake-forget ()
  "Forget this buffer's check in progress, ending its process if it has one."
  (let ((old plistspec--flymake-process))
    ;; Forget it first: its sentinel may run inside `delete-process'.
    (setq plistspec--flymake-process nil)
    (when (and (processp old) (process-live-p old))
      (delete-process old))))

;;;###autoload
(defun plistspec-flymake (report-fn &rest _args)
  "Flymake backend: check the buffer with plistspec and call REPORT-FN.
It runs \"plistspec check --output-format json\" with the buffer's file name
as --stdin-filename, so the project's configuration applies.  With
`plistspec-use-server', one \"plistspec check --server\" kept running
answers instead of a new process for each check."
  (plistspec--flymake-forget)
  (let ((base (condition-case e
                  (plistspec-command)
                (plistspec-unavailable
                 (plistspec--problem 'unavailable (cadr e))
                 nil))))
    (cond
     ;; Not disabled: the next check looks again, e.g. after a pip install.
     ((null base) (funcall report-fn nil))
     ((and plistspec-use-server (plistspec--flymake-server-check base report-fn)))
     (t (plistspec--flymake-one-shot base report-fn)))))

(defun plistspec--flymake-one-shot (base report-fn)
  "Check the buffer with a new \"plistspec check\" run by BASE; report to REPORT-FN."
  (condition-case nil
      (plistspec--flymake-start base report-fn)
    ;; Emacs 30 signals here ("Doing vfork") where 28 reports exit 127: one explanation
    (file-error
     (let ((reason (plistspec--failure (list (car base)) '(127 "" ""))))
       (plistspec--problem (cons 'failed base) reason)
       (funcall report-fn :panic :explanation reason)))))

(defun plistspec--current-request-p (source token)
  "Non-nil when TOKEN is still the check in progress of buffer SOURCE."
  (and (buffer-live-p source)
       (eq token (buffer-local-value 'plistspec--flymake-process source))))

(defun plistspec--flymake-server-check (base report-fn)
  "Send the buffer to the check server of BASE, to report its reply to REPORT-FN.
Return nil when there is no server to send it to.  When the server
ends without answering, check the buffer with a new process instead."
  (let ((proc (plistspec--server base)))
    (when proc
      (let ((token (list 'plistspec-request))
            (source (current-buffer))
            ;; the server runs elsewhere: configuration is found from an absolute name
            (file (expand-file-name (plistspec--stdin-name) (plistspec--directory))))
        (setq plistspec--flymake-process token)
        (plistspec--server-send
         proc token
         (plistspec--check-options file "--output-format" "json" "--exit-zero")
         (plistspec--buffer-text)
         (lambda (reply)
           (cond ((not (plistspec--current-request-p source token))
                  (when reply
                    (flymake-log :debug "Ignoring the reply to an obsolete check")))
                 (reply
                  (with-current-buffer source (setq plistspec--flymake-process nil))
                  (plistspec--flymake-report source report-fn base reply))
                 (t
                  (with-current-buffer source
                    (plistspec--flymake-one-shot base report-fn))))))
        t))))

;;;; A new process for each check

(defmacro plistspec--or-clean-up (things &rest body)
  "Run BODY; if it signals, delete the processes and kill the buffers in THINGS."
  (declare (indent 1))
  (let ((done (make-symbol "done")))
    `(let ((,done nil))
       (unwind-protect
           (prog1 (progn ,@body) (setq ,done t))
         (unless ,done
           (dolist (thing ,things)
             (cond ((processp thing) (delete-process thing))
                   ((buffer-live-p thing) (kill-buffer thing)))))))))

(defun plistspec--flymake-start (base report-fn)
  "Start \"check\" with BASE, the command running plistspec, on the buffer's text.
Report its findings through REPORT-FN."
  (let* ((source (current-buffer))
         (stdout (generate-new-buffer " *plistspec-flymake*"))
         (stderr (generate-new-buffer " *plistspec-flymake-stderr*"))
         (default-directory (plistspec--directory))
         (process-environment (plistspec--process-environment))
         (stderr-pipe (make-pipe-process :name "plistspec-flymake-stderr"
                                         :buffer stderr :noquery t
                                         :sentinel #'ignore))
         (proc
          (plistspec--or-clean-up
           (list stderr-pipe stdout stderr)
           (make-process
           :name "plistspec-flymake" :noquery t :connection-type 'pipe
           :buffer stdout :stderr stderr-pipe :coding 'utf-8-unix
           :command (append base (plistspec--check-args "--output-format" "json" "--exit-zero"))
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
                 (kill-buffer stderr))))))))
    (process-put proc 'plistspec-base base)
    (setq plistspec--flymake-process proc)
    (save-restriction
      (widen)
      ;; A program that exits at once closes the pipe: its sentinel reports why.
      (ignore-errors
        (process-send-region proc (point-min) (point-max))
        (process-send-eof proc)))))

;;;; Setting up

;;;###autoload
(defun plistspec-flymake-setup ()
  "Add `plistspec-flymake' to this buffer's Flymake backends.
`plistspec-mode' does this and also turns on `flymake-mode'."
  (add-hook 'flymake-diagnostic-functions #'plistspec-flymake nil t))

(provide 'plistspec-flymake)
;;; plistspec-flymake.el ends here
