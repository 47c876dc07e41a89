;;; plistspec-gptel.el --- Tools each backend accepts, calls checked, in gptel  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The plistspec authors

;; Author: The plistspec authors
;; URL: https://github.com/plistspec/plistspec
;; SPDX-License-Identifier: GPL-3.0-or-later

;; This file is not part of GNU Emacs.

;; This program is free software: you can redistribute it and/or modify it under the
;; terms of the GNU General Public License as published by the Free Software
;; Foundation, either version 3 of the License, or (at your option) any later version.

;;; Commentary:

;; `plistspec-gptel-mode' is a global minor mode for gptel users.  While it is
;; on, every gptel request (from `gptel-send' or from any package calling
;; `gptel-request'):
;;
;; - sends its tools lowered for the request's backend by the rules of
;;   "plistspec to-json --lower" (Gemini gets no `oneOf' or dangling `$ref',
;;   OpenAI Responses an explicit `strict'...), whatever registered them;
;;   a tool the backend cannot express is left out of that request, with a
;;   message naming it and why;
;; - checks each tool call of the model before the tool's function runs: a
;;   call that does not fit the schema the model was given is not run, and
;;   the model gets a tool result naming every problem; a call made against
;;   a lowered schema is mapped back, so the function receives what gptel
;;   would pass for the original one; an async tool whose function signals
;;   gets an error result instead of leaving the request waiting.
;;
;; The work is done by the "plistspec check --server" process the package
;; keeps (cached by the tools' content).  When it cannot run or does not
;; answer in time, the mode warns once and lets requests through unchanged.
;; `plistspec-gptel-report' shows what it did for the current buffer's
;; backend.
;;
;; gptel has no public hook for the tools of every request, nor one that runs
;; before the tools of `gptel-request' (its `gptel-pre-tool-call-functions'
;; only runs for `gptel-send'), so the mode advises three of gptel's internal
;; functions, all listed in `plistspec-gptel--seams' and checked there before
;; anything is installed: when one is missing or changed, it warns once and
;; leaves gptel alone.

;;; Code:

(require 'cl-lib)
(require 'plistspec-runtime)
(require 'plistspec-gptel-plan)
(require 'plistspec-gptel-calls)

(defvar gptel-tools)
(defvar gptel-backend)
(defvar gptel-use-tools)
(defvar gptel--known-tools)
(declare-function gptel-fsm-info "gptel-request" (cl-x))
(declare-function gptel-tool-name "gptel-request" (cl-x))
(declare-function gptel-tool-async "gptel-request" (cl-x))
(declare-function gptel-tool-function "gptel-request" (cl-x))
(declare-function gptel-backend-name "gptel-request" (cl-x))
(declare-function gptel--process-tool-call "gptel-request" (fsm tool-spec tool-call result))

(defconst plistspec-gptel--seams
  '((gptel--realize-query :around plistspec-gptel--realize-query 1)
    (gptel--parse-tools :around plistspec-gptel--parse-tools 2)
    (gptel--handle-tool-use :around plistspec-gptel--handle-tool-use 1)
    (gptel--process-tool-call nil nil 4)
    (gptel-fsm-info nil nil 1)
    (gptel-tool-name nil nil 1)
    (gptel-tool-async nil nil 1)
    (gptel-tool-description nil nil 1)
    (gptel-tool-args nil nil 1)
    (gptel-tool-function nil nil 1))
  "The gptel functions the mode relies on: (FUNCTION HOW ADVICE ARGS).
FUNCTION must take ARGS arguments.  When HOW is non-nil, ADVICE is
added to FUNCTION that way:
- `gptel--realize-query' builds every request (from `gptel-send' and
  `gptel-request' alike) in a buffer where `gptel-tools' and
  `gptel-backend' are what the request uses: the tools are lowered
  there, and those left out are not sent;
- `gptel--parse-tools' makes the tools' JSON: the lowered JSON is
  returned instead;
- `gptel--handle-tool-use' runs the model's tool calls on every path:
  each call is checked first, a call that does not fit is answered
  with `gptel--process-tool-call' (what gptel's own :block does).")

(defvar plistspec-gptel--installed nil
  "Non-nil when the advice of `plistspec-gptel--seams' is in place.")

(defvar plistspec-gptel--plans (make-hash-table :test #'eq :weakness 'key)
  "The plan of each request: its `gptel-fsm' -> a `plistspec-gptel--plan'.")

(defvar plistspec-gptel--sending nil
  "The plan of the request being built, for `plistspec-gptel--parse-tools'.")

(defvar plistspec-gptel--last (make-hash-table :test #'equal)
  "The last plan made for each backend, by backend name (for the report).")

;;;; The mode

;;;###autoload
(define-minor-mode plistspec-gptel-mode
  "Lower gptel's tools for each request's backend and check every tool call.
While on, the tools of every gptel request are sent as the request's
backend accepts them (by the rules of \"plistspec to-json --lower\"),
a tool it cannot express is left out with a message, and the model's
tool calls are checked before the function runs: a call that does
not fit is answered with what is wrong instead.  When plistspec cannot
run, requests go unchanged.  \\[plistspec-gptel-report] shows what
was done."
  :global t
  :group 'plistspec
  (when plistspec-gptel-mode
    (setq plistspec-gptel--warned nil))
  (plistspec-runtime-switch plistspec-gptel-mode 'gptel-request #'plistspec-gptel--install
                            #'plistspec-gptel--uninstall #'plistspec-gptel--after-load))

(defun plistspec-gptel--after-load (&rest _)
  "Advise gptel once it is loaded, if `plistspec-gptel-mode' is still on."
  (plistspec-runtime-loaded 'gptel-request plistspec-gptel-mode #'plistspec-gptel--install
                            #'plistspec-gptel--after-load))

(defun plistspec-gptel--missing ()
  "Return why gptel cannot be advised (see `plistspec-gptel--seams'), or nil."
  (plistspec-runtime-missing plistspec-gptel--seams))

(defun plistspec-gptel--install ()
  "Advise gptel, or warn once and leave it alone when it has changed."
  (unless plistspec-gptel--installed
    (let ((missing (plistspec-gptel--missing)))
      (if missing
          (plistspec-runtime-changed #'plistspec-gptel--warn "gptel" "plistspec-gptel-mode"
                                     missing)
        (plistspec-runtime-advise plistspec-gptel--seams)
        ;; each registered tool's contract, before a request can change it
        (when (boundp 'gptel--known-tools)
          (cl-loop for (_category . tools) in gptel--known-tools
                   do (cl-loop for (_name . tool) in tools
                               do (ignore-errors (plistspec-gptel--declared-args tool)))))
        (setq plistspec-gptel--installed t)
        ;; Python starts now (it needs no input to get ready); the tools are lowered
        ;; once Emacs is idle
        (plistspec-runtime-start)
        (run-with-idle-timer 0.5 nil #'plistspec-gptel-warm)))))

(defun plistspec-gptel--uninstall ()
  "Remove the advice of `plistspec-gptel--seams'."
  (plistspec-runtime-unadvise plistspec-gptel--seams)
  (setq plistspec-gptel--installed nil))

;;;; Sending a request's tools

(defun plistspec-gptel--left-out-message (plan)
  "Say which tools PLAN left out of its request, and why.
In a warning (the echo area is taken by gptel's own messages at once),
once per backend kind and set of tools left out."
  (when-let ((out (plistspec-gptel--plan-left-out plan)))
    (plistspec-gptel--warn
     (list 'left-out (plistspec-gptel--plan-target plan) out)
     (format "plistspec: left out of this %s request: %s [PS701]"
             (plistspec-gptel--plan-target plan)
             (mapconcat (lambda (x) (format "%s (%s)" (car x) (cdr x))) out "; ")))))

(defun plistspec-gptel--realize-query (orig fsm)
  "Around `gptel--realize-query' (ORIG): send FSM's tools lowered."
  (let* ((info (ignore-errors (gptel-fsm-info fsm)))
         (buffer (plist-get info :data))
         (plan (and plistspec-gptel-mode (bufferp buffer) (buffer-live-p buffer)
                    (with-current-buffer buffer
                      (and gptel-use-tools gptel-tools
                           (plistspec-gptel--failing-open "Lowering gptel's tools"
                             (plistspec-gptel--plan gptel-backend gptel-tools)))))))
    (if (not plan)
        (funcall orig fsm)
      (with-current-buffer buffer
        (setq-local gptel-tools (plistspec-gptel--plan-kept plan))
        ;; no tool left: no tool_choice either (a "required" one without tools is a 400)
        (unless gptel-tools (setq-local gptel-use-tools nil)))
      (puthash fsm plan plistspec-gptel--plans)
      (when (plistspec-gptel--plan-backend plan)
        (puthash (plistspec-gptel--plan-backend plan) plan plistspec-gptel--last))
      (plistspec-gptel--left-out-message plan)
      (let ((plistspec-gptel--sending plan))
        (funcall orig fsm)))))

(defun plistspec-gptel--parse-tools (orig backend tools)
  "Around `gptel--parse-tools' (ORIG): the lowered JSON of the request's TOOLS.
Other calls (BACKEND, TOOLS) go to gptel."
  (let ((plan plistspec-gptel--sending))
    (or (and plan tools (eq tools (plistspec-gptel--plan-kept plan))
             (plistspec-gptel--failing-open "Sending the lowered tools"
               (plistspec-gptel--fresh (plistspec-gptel--plan-json plan))))
        (funcall orig backend tools))))

;;;; Checking the model's calls

(defun plistspec-gptel--handle-tool-use (orig fsm)
  "Around `gptel--handle-tool-use' (ORIG): check FSM's pending tool call first."
  (when plistspec-gptel-mode
    (plistspec-gptel--failing-open "Checking a gptel tool call"
      (plistspec-gptel--check-calls fsm)))
  (funcall orig fsm))

(defun plistspec-gptel--check-calls (fsm)
  "Check each pending tool call of FSM: block, map back, or let it run."
  (let* ((info (gptel-fsm-info fsm))
         (plan (gethash fsm plistspec-gptel--plans)))
    (plistspec-gptel--prepare-tools info plan)
    (when plan
      (dolist (call (cl-remove-if (lambda (c) (plist-get c :result))
                                  (plist-get info :tool-use)))
        (let* ((name (plist-get call :name))
               (entry (gethash name (plistspec-gptel--plan-names plan))))
          (when entry
            (plistspec-gptel--check-call fsm plan call name (car entry) (cdr entry))))))))

(defun plistspec-gptel--check-call (fsm plan call name tool id)
  "Check CALL (named NAME, of TOOL, ID in plistspec) of FSM's request in PLAN."
  (let* ((args (plist-get call :args))
         (data (plistspec-gptel--call-data (gptel-fsm-info fsm) call))
         (head `((kind . "call") (id . ,id) (emacs . t)))
         (answer (plistspec-gptel--ask head data)))
    (when (eq (plist-get answer :unknown) t)
      ;; a new process (the last one ended): the same tools give the same ids
      (plistspec-gptel--lower-ask (plistspec-gptel--plan-kind plan)
                                  (plistspec-gptel--plan-text plan)
                                  (plistspec-gptel--plan-contracts plan))
      (setq answer (plistspec-gptel--ask head data)))
    (cond
     ((null answer) nil)
     ((eq (plist-get answer :unknown) t)
      (plistspec-gptel--warn 'unknown "plistspec no longer knows the tools of a \
request: its calls run unchecked [PS704]"))
     ((eq (plist-get answer :ok) t)
      (let ((edits (plist-get answer :edits)))
        (when (> (length edits) 0)
          (plist-put call :args (plistspec-gptel--apply-edits args edits)))))
     (t
      (let ((text (plist-get answer :message)))
        (plistspec-gptel--remember-block plan name text)
        (plistspec-gptel--count-refusal fsm plan name text)
        (plist-put call :error t)
        (gptel--process-tool-call fsm tool call text))))))

(defun plistspec-gptel--remember-block (plan name text)
  "Remember that the call of NAME was blocked with TEXT (request of PLAN)."
  (plistspec-runtime-block 'plistspec-gptel--blocked plistspec-gptel--blocked-max
                           (plistspec-gptel--plan-backend plan) name text))

(defvar plistspec-gptel--guarded (make-hash-table :test #'eq :weakness 'key)
  "The tool copies whose async function is already guarded.")

(defun plistspec-gptel--prepare-tools (info plan)
  "Give INFO's tools what running each tool call of the request needs (once).
An async tool's function gets a guard that answers with the error it
signals; a tool PLAN renamed is also found under the name the model
saw."
  (unless (and plan (plistspec-gptel--plan-prepared plan))
    (let* ((tools (plist-get info :tools))
           (new (mapcar #'plistspec-gptel--guarded tools))
           (changed (cl-mismatch new tools :test #'eq)))
      (when plan
        (setf (plistspec-gptel--plan-prepared plan) t)
        (maphash (lambda (name entry)
                   (unless (equal name (gptel-tool-name (car entry)))
                     (let ((copy (plistspec-gptel--guarded (car entry) t)))
                       (plistspec-gptel--set-slot copy 'name name)
                       (setq changed t)
                       (push copy new))))
                 (plistspec-gptel--plan-names plan)))
      (when changed
        (plist-put info :tools new)))))

(defun plistspec-gptel--guarded (tool &optional copy)
  "TOOL, or when it is async (or COPY) a copy whose function cannot hang."
  (if (not (or copy (and (gptel-tool-async tool)
                         (not (gethash tool plistspec-gptel--guarded)))))
      tool
    (let ((new (copy-sequence tool)))
      (when (and (gptel-tool-async tool) (not (gethash tool plistspec-gptel--guarded)))
        (plistspec-gptel--set-slot
         new 'function (plistspec-gptel--guard (gptel-tool-function tool)
                                               (gptel-tool-name tool))))
      (puthash new t plistspec-gptel--guarded)
      new)))

;;;; The report

;;;###autoload
(defun plistspec-gptel-report ()
  "Show what `plistspec-gptel-mode' did for this buffer's gptel backend.
Which tools of its last request were lowered (each rewrite), which
were left out and why, and the last blocked calls."
  (interactive)
  (let* ((backend (and (boundp 'gptel-backend) gptel-backend))
         (name (and backend (ignore-errors (gptel-backend-name backend))))
         (plan (and name (gethash name plistspec-gptel--last))))
    (with-current-buffer (get-buffer-create "*plistspec-gptel*")
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (format "plistspec-gptel-mode is %s%s.\n"
                        (if plistspec-gptel-mode "on" "off")
                        (if (and plistspec-gptel-mode (not plistspec-gptel--installed))
                            " but inactive (see *Warnings*)" "")))
        (insert (format "Backend: %s\n\n" (or name "none (no gptel-backend here)")))
        (if (not plan)
            (insert "No request of this backend was lowered yet.\n")
          (plistspec-gptel--insert-plan plan))
        (plistspec-gptel--insert-blocked name))
      (goto-char (point-min))
      (special-mode)
      (display-buffer (current-buffer)))))

(defun plistspec-gptel--rewrites (plan)
  "Every rewrite of PLAN's tools: [INDEX NAME POINTER CODE SEVERITY MESSAGE] each.
Asked of plistspec again (it keeps them), to keep each request's answer small."
  (or (plist-get (plistspec-gptel--lower-ask (plistspec-gptel--plan-kind plan)
                                             (plistspec-gptel--plan-text plan)
                                             (plistspec-gptel--plan-contracts plan)
                                             t)
                 :rewrites)
      []))

(defun plistspec-gptel--insert-plan (plan)
  "Insert what PLAN did."
  (insert (format "Last request: %s, lowered for %s: %d tools, %d sent, %d left out.\n"
                  (format-time-string "%F %T" (plistspec-gptel--plan-time plan))
                  (plistspec-gptel--plan-target plan)
                  (plistspec-gptel--plan-count plan)
                  (length (plistspec-gptel--plan-kept plan))
                  (length (plistspec-gptel--plan-left-out plan))))
  (when-let ((out (plistspec-gptel--plan-left-out plan)))
    (insert "\nLeft out:\n")
    (dolist (x out) (insert (format "  %s: %s\n" (car x) (cdr x)))))
  (let ((by-tool nil))
    (cl-loop for r across (plistspec-gptel--rewrites plan)
             do (push r (alist-get (aref r 1) by-tool nil nil #'equal)))
    (insert (if by-tool "\nLowered:\n" "\nNo tool needed lowering.\n"))
    (dolist (tool (nreverse by-tool))
      (insert (format "  %s\n" (car tool)))
      (dolist (r (nreverse (cdr tool)))
        (insert (format "    %s: %s: %s [%s]\n"
                        (aref r 2) (aref r 4) (aref r 5) (aref r 3)))))))

(defun plistspec-gptel--insert-blocked (backend)
  "Insert each tool call blocked lately in a request to BACKEND."
  (let ((mine (cl-remove-if-not (lambda (b) (equal (nth 1 b) backend))
                                plistspec-gptel--blocked)))
    (insert (if mine "\nLast blocked calls:\n" "\nNo call was blocked.\n"))
    (dolist (b mine)
      (insert (format "  %s %s:\n%s\n" (format-time-string "%T" (nth 0 b)) (nth 2 b)
                      (replace-regexp-in-string "^" "    " (nth 3 b)))))))

(provide 'plistspec-gptel)
;;; plistspec-gptel.el ends here
