;;; plistspec-runtime.el --- What both run-time modes share  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The plistspec authors

;; Author: The plistspec authors
;; URL: https://github.com/plistspec/plistspec
;; SPDX-License-Identifier: GPL-3.0-or-later

;; This file is not part of GNU Emacs.

;; This program is free software: you can redistribute it and/or modify it under the
;; terms of the GNU General Public License as published by the Free Software
;; Foundation, either version 3 of the License, or (at your option) any later version.

;;; Commentary:

;; What `plistspec-gptel-mode' (plistspec-gptel.el) and `plistspec-llm-mode'
;; (plistspec-llm.el) share: warnings shown once, errors that let requests go
;; on unchanged (fail open), finding and waiting for the "plistspec check
;; --server" process, the tool sets kept while the same tool objects are
;; unchanged, short lists of the newest entries, and the library functions
;; each mode advises (its seams), checked before any advice is installed.
;; Each mode keeps its own state, messages and keys; these functions take
;; them as arguments.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'plistspec-custom)
(require 'plistspec-exec)
(require 'plistspec-server)

;;;; Warnings and failing open

(defun plistspec-runtime-warn (type warned key text)
  "Show TEXT in a warning of TYPE, once per KEY.
WARNED is the symbol of the list of the keys already shown."
  (unless (member key (symbol-value warned))
    (set warned (cons key (symbol-value warned)))
    (display-warning type text :warning)))

(defmacro plistspec-runtime-failing-open (warn what requests &rest body)
  "Run BODY; on an error, warn once with WARN about WHAT and return nil.
WARN is a function of a key and a text; REQUESTS (a string) names the
requests that then go on unchanged."
  (declare (indent 3) (debug t))
  `(condition-case err
       (progn ,@body)
     (error
      (,warn
       (list 'error ,what (car err))
       (format "%s failed (%s): %s go on unchanged [PS704]"
               ,what (error-message-string err) ,requests))
      nil)))

;;;; Asking the plistspec process

(defun plistspec-runtime-start ()
  "Start the plistspec process now if it is not running; never wait or warn.
A mode calls it when it is turned on, so that Python has started and
made its lowering ready (it needs no request for that) by the mode's
first request.  What goes wrong is said by that request."
  (let ((default-directory (expand-file-name "~/")))
    (ignore-errors (plistspec--server (plistspec-command)))
    nil))

(defun plistspec-runtime-process (warn requests down)
  "The live \"plistspec check --server\" process, or nil after warning.
WARN is a function of a key and a text, REQUESTS (a string) names the
requests that go unchanged when plistspec cannot run; DOWN is called
with the command when the process could not start or ended."
  (let ((default-directory (expand-file-name "~/")))
    (condition-case err
        (let ((base (plistspec-command)))
          (or (plistspec--server base)
              (progn (funcall down base) nil)))
      (plistspec-unavailable
       (funcall warn 'unavailable
                (format "%s: %s go unchanged [PS704]" (error-message-string err) requests))
       nil))))

(defun plistspec-runtime-wait (proc token head data deadline &optional via-file)
  "Send server PROC the request HEAD and DATA as TOKEN; wait until DEADLINE.
DEADLINE is a `float-time'; VIA-FILE is passed on to
`plistspec--server-request'.  Return the cell whose car is the reply
\(EXIT OUT ERR), `died' when PROC ended without one, or nil when none
came in time (the cell is set when it comes later)."
  (let ((state (list nil)))
    (plistspec--server-request proc token head data
                               (lambda (reply) (setcar state (or reply 'died)))
                               via-file)
    (let ((read-process-output-max (max read-process-output-max (* 1024 1024))))
      (while (and (null (car state)) (process-live-p proc) (< (float-time) deadline))
        ;; only this process's output: no timer or other filter runs meanwhile
        (accept-process-output proc 0.05 nil 1)))
    (when (and (null (car state)) (not (process-live-p proc)))
      (setcar state 'died))              ; its sentinel has not run yet
    state))

(defun plistspec-runtime-slow (warn library wait)
  "Warn with WARN that plistspec did not answer LIBRARY's request in time.
WAIT is the symbol of the mode's user option of the seconds to wait."
  (funcall warn 'slow (format "plistspec did not answer within %s seconds: %s requests go \
unchanged until it answers (see `%s') [PS704]" (symbol-value wait) library wait)))

(defun plistspec-runtime-failed (warn exit err)
  "Warn with WARN that plistspec could not answer: it exited EXIT, saying ERR."
  (funcall warn (list 'exit exit)
           (format "plistspec could not answer (exit %s): %s [PS704]" exit (string-trim err))))

;;;; Tool sets kept while the same tools are unchanged

(defun plistspec-runtime-snapshot (tools parts)
  "A copy of what PARTS gives of each of TOOLS.
PARTS is a function of a tool returning what is sent of it: its name,
description and arguments."
  (mapcar (lambda (tool) (copy-tree (funcall parts tool) t)) tools))

(defun plistspec-runtime-unchanged-p (tools old snapshot parts)
  "Non-nil when TOOLS are the tools OLD, unchanged since their SNAPSHOT.
PARTS made the SNAPSHOT (`plistspec-runtime-snapshot')."
  (let ((same t))
    (while (and same tools old)
      (setq same (and (eq (car tools) (car old))
                      (equal (funcall parts (car tools)) (car snapshot)))
            tools (cdr tools) old (cdr old) snapshot (cdr snapshot)))
    (and same (null tools) (null old))))

(defun plistspec-runtime-push (entry place max)
  "Push ENTRY on the list in the symbol PLACE, keeping its MAX newest."
  (set place (cons entry (symbol-value place)))
  (when (> (length (symbol-value place)) max)
    (setcdr (nthcdr (1- max) (symbol-value place)) nil)))

(defun plistspec-runtime-sent (sent good)
  "The tools plistspec's answer sends, and where each went: (KEPT . NAMES).
SENT is the answer's vector of [INDEX NAME ID], INDEX into the vector
GOOD of the tools that were sent to it; KEPT lists the tools in order,
NAMES maps each sent NAME to (TOOL . ID)."
  (let ((names (make-hash-table :test #'equal)) (kept nil))
    (cl-loop for s across sent
             for tool = (aref good (aref s 0))
             do (push tool kept)
             (puthash (aref s 1) (cons tool (aref s 2)) names))
    (cons (nreverse kept) names)))

(defun plistspec-runtime-block (place max who name text)
  "Remember on PLACE (keeping MAX) that a call of NAME for WHO was blocked.
TEXT is what the model was told; its first line is shown in the echo area."
  (plistspec-runtime-push (list (current-time) who name text) place max)
  (message "plistspec: blocked a call of %s: %s [PS702]" name (car (split-string text "\n"))))

;;;; The library functions a mode advises

(defun plistspec-runtime-switch (on feature install uninstall after-load)
  "Turn a mode's advice ON (non-nil) or off.
On: call INSTALL now when FEATURE is loaded, else add AFTER-LOAD to
`after-load-functions' to call it once FEATURE is.  Off: remove
AFTER-LOAD and call UNINSTALL."
  (if on
      (if (featurep feature)
          (funcall install)
        (add-hook 'after-load-functions after-load))
    (remove-hook 'after-load-functions after-load)
    (funcall uninstall)))

(defun plistspec-runtime-loaded (feature on install after-load)
  "Once FEATURE is loaded, remove AFTER-LOAD and call INSTALL if ON.
AFTER-LOAD is the mode's function in `after-load-functions'."
  (when (featurep feature)
    (remove-hook 'after-load-functions after-load)
    (when on (funcall install))))

(defun plistspec-runtime-missing (seams)
  "Return why SEAMS cannot be advised, or nil.
Each seam is (FUNCTION HOW ADVICE N): FUNCTION must accept N arguments."
  (cl-loop for (fn _how _advice n) in seams
           for arity = (and (fboundp fn) (func-arity fn))
           unless (and arity (<= (car arity) n)
                       (or (eq (cdr arity) 'many) (>= (cdr arity) n)))
           return (format "%s is %s" fn (if arity
                                            (format "no longer a function of %d arguments" n)
                                          "not defined"))))

(defun plistspec-runtime-changed (warn library mode missing)
  "Warn with WARN that LIBRARY changed: MODE is to leave it alone.
MISSING is what changed."
  (funcall warn (intern library)
           (format "%s has changed (%s): %s leaves it alone and requests go \
unchanged [PS705]" library missing mode)))

(defun plistspec-runtime-advise (seams)
  "Add the advice of each of SEAMS, (FUNCTION HOW ADVICE N), with one HOW."
  (cl-loop for (fn how advice) in seams
           when how do (advice-add fn how advice)))

(defun plistspec-runtime-unadvise (seams)
  "Remove the advice of each of SEAMS, (FUNCTION HOW ADVICE N)."
  (cl-loop for (fn how advice) in seams
           when (and how (fboundp fn)) do (advice-remove fn advice)))

;;;; Async tools

(defun plistspec-runtime-guarded-call (function name callback args timeout)
  "Call FUNCTION, the async tool NAME's, with CALLBACK and ARGS.
CALLBACK is called once only: with FUNCTION's answer, or with an
error when FUNCTION signals before answering or has not answered
within TIMEOUT seconds (nil: no limit; a later answer is dropped)."
  (let* ((answered nil)
         (timer nil)
         (answer (lambda (&rest result)
                   (unless answered
                     (setq answered t)
                     (when timer (cancel-timer timer))
                     (apply callback result)))))
    (when timeout
      (setq timer
            (run-at-time timeout nil
                         (lambda ()
                           (unless answered
                             (message "plistspec: the async tool %s did not answer within %s \
seconds [PS703]" name timeout)
                             (funcall answer (format "Error: tool %s did not answer within \
%s seconds" name timeout)))))))
    (condition-case err
        (apply function answer args)
      (error
       (unless answered
         (message "plistspec: the async tool %s signalled: %s [PS703]"
                  name (error-message-string err))
         (funcall answer (format "Error: tool %s failed: %s"
                                 name (error-message-string err))))))))

(provide 'plistspec-runtime)
;;; plistspec-runtime.el ends here
