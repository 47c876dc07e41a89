;;; plistspec-gptel-calls.el --- Running the model's tool calls, for plistspec-gptel-mode  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The plistspec authors

;; Author: The plistspec authors
;; URL: https://github.com/plistspec/plistspec
;; SPDX-License-Identifier: GPL-3.0-or-later

;; This file is not part of GNU Emacs.

;; This program is free software: you can redistribute it and/or modify it under the
;; terms of the GNU General Public License as published by the Free Software
;; Foundation, either version 3 of the License, or (at your option) any later version.

;;; Commentary:

;; What `plistspec-gptel-mode' (plistspec-gptel.el) needs around one tool
;; call: the arguments as the model sent them (text gptel could not read as
;; JSON included), the edits that map a call back to the tool's own shape,
;; the end of a request whose model repeats the same invalid call
;; (`plistspec-gptel-repeat-limit'), and the guard that makes an async tool
;; answer when it signals or never calls back (`plistspec-gptel-tool-timeout').

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'plistspec-runtime)
(require 'plistspec-gptel-plan)

(declare-function gptel-fsm-info "gptel-request" (cl-x))

(defvar plistspec-gptel--blocked nil
  "The last blocked calls, newest first: (TIME BACKEND TOOL MESSAGE).")

(defconst plistspec-gptel--blocked-max 20
  "Blocked calls remembered for the report.")

(defcustom plistspec-gptel-repeat-limit 2
  "Refusals of the same call after which a gptel request ends.
When the model calls the same tool with the same problems this many
times in one request, the tool loop ends in gptel's error state,
naming the tool and the problem, instead of feeding the model the same
message again.  nil: never."
  :type '(choice (const :tag "Never" nil) natnum)
  :group 'plistspec)

(defcustom plistspec-gptel-tool-timeout 300
  "Seconds an async tool may take to call back before the model gets an error.
An async tool whose function signals at once, or later (from a timer or
a process sentinel: gptel never hears of it), would leave the request
waiting forever; past this time the model gets an error result and the
request goes on.  nil: wait forever, as gptel does."
  :type '(choice (const :tag "Wait forever" nil) number)
  :group 'plistspec)

(defun plistspec-gptel--raw-arguments (info call)
  "The JSON text of CALL's arguments as the model sent them, when gptel has it.
gptel keeps the model's message in INFO's request data: OpenAI's
`tool_calls' and Responses' `function_call' items hold the text."
  (let* ((data (plist-get info :data))
         (id (plist-get call :id))
         (items (or (plist-get data :messages) (plist-get data :input))))
    (when (and id (vectorp items))
      (cl-loop for i from (1- (length items)) downto (max 0 (- (length items) 4))
               for item = (aref items i)
               thereis
               (and (listp item)
                    (or (and (equal (plist-get item :call_id) id)
                             (stringp (plist-get item :arguments))
                             (plist-get item :arguments))
                        (let ((calls (plist-get item :tool_calls)))
                          (and (vectorp calls)
                               (cl-loop for c across calls
                                        for f = (plist-get c :function)
                                        when (and (equal (plist-get c :id) id)
                                                  (stringp (plist-get f :arguments)))
                                        return (plist-get f :arguments))))))))))

(defun plistspec-gptel--call-data (info call)
  "The JSON arguments of CALL to check, a unibyte string.
Arguments gptel read as nil may have been text that is not JSON
\(gptel drops it; INFO's request data holds it): that text is
checked, so the model is told so."
  (let* ((args (plist-get call :args))
         (raw (and (null args) (plistspec-gptel--raw-arguments info call))))
    (if (and raw (not (string-blank-p raw))
             ;; valid JSON is never nil with the default :null and :false objects
             (not (ignore-errors (json-parse-string raw))))
        (encode-coding-string raw 'utf-8 t)
      (plistspec-gptel--encode args))))

(defun plistspec-gptel--count-refusal (fsm plan name text)
  "Count the refusal of NAME with TEXT in FSM's request (of PLAN).
At `plistspec-gptel-repeat-limit' refusals of the same, the request
is put in gptel's error state: it ends once this turn's calls are done."
  (let* ((key (cons name text))
         (n (1+ (or (cdr (assoc key (plistspec-gptel--plan-refusals plan))) 0))))
    (setf (alist-get key (plistspec-gptel--plan-refusals plan) nil nil #'equal) n)
    (when (and plistspec-gptel-repeat-limit (>= n plistspec-gptel-repeat-limit))
      (let* ((info (gptel-fsm-info fsm))
             (problem (or (cadr (split-string text "\n" t)) text))
             (why (format "plistspec ended the tool loop: the model called %s with \
the same invalid arguments %d times (%s) [PS707]"
                          name n (string-trim (string-remove-prefix "- " problem)))))
        (unless (plist-get info :error)
          (plist-put info :error why)
          (plist-put info :status "plistspec: repeated invalid tool call")
          ;; gptel's error state runs :post; a `gptel-request' callback hears of it there
          (plist-put info :post
                     (append (plist-get info :post)
                             (list (lambda (info)
                                     (when (equal (plist-get info :error) why)
                                       (funcall (plist-get info :callback) nil info))))))
          (push (list (current-time) (plistspec-gptel--plan-backend plan) name why)
                plistspec-gptel--blocked)
          (message "%s" why))))))

(defun plistspec-gptel--apply-edits (args edits)
  "A copy of the call arguments ARGS with plistspec's EDITS applied.
Each edit is [\"remove\" PATH] or [\"set\" PATH VALUE], PATH a vector
of property names and indexes."
  (let ((value (copy-tree args t)))
    (cl-loop for edit across edits
             do (setq value (plistspec-gptel--edit
                             value (append (aref edit 1) nil)
                             (equal (aref edit 0) "remove")
                             (and (> (length edit) 2) (aref edit 2)))))
    value))

(defun plistspec-gptel--edit (value path remove new)
  "VALUE with the element at PATH removed (REMOVE) or set to NEW."
  (let ((step (car path)))
    (cond
     ((null path) (if remove value new))
     ((vectorp value)
      (if (cdr path)
          (aset value step (plistspec-gptel--edit (aref value step) (cdr path) remove new))
        (aset value step new))
      value)
     (t
      (let ((key (intern (concat ":" step))))
        (cond ((cdr path)
               (plist-put value key (plistspec-gptel--edit (plist-get value key)
                                                           (cdr path) remove new)))
              (remove
               (cl-loop for (k v) on value by #'cddr
                        unless (eq k key) collect k and collect v))
              (t (plist-put value key new))))))))

(defun plistspec-gptel--guard (function name)
  "FUNCTION, an async tool's, made to answer its callback when it cannot.
When it signals, the callback gets the error; when it has not called
back within `plistspec-gptel-tool-timeout' seconds (it signalled later,
from a timer or a sentinel, or hangs), the callback gets a timeout
error, and a late answer is dropped.  NAME is the tool's name."
  (lambda (callback &rest args)
    (plistspec-runtime-guarded-call function name callback args
                                    plistspec-gptel-tool-timeout)))

(provide 'plistspec-gptel-calls)
;;; plistspec-gptel-calls.el ends here
