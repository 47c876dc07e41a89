;;; plistspec-llm.el --- Tools each provider accepts, calls checked, in llm  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The plistspec authors

;; Author: The plistspec authors
;; URL: https://github.com/plistspec/plistspec
;; SPDX-License-Identifier: GPL-3.0-or-later

;; This file is not part of GNU Emacs.

;; This program is free software: you can redistribute it and/or modify it under the
;; terms of the GNU General Public License as published by the Free Software
;; Foundation, either version 3 of the License, or (at your option) any later version.

;;; Commentary:

;; `plistspec-llm-mode' is a global minor mode for users of ahyatt's llm
;; library (ellama, ekg, magit-gptcommit, anything calling `llm-chat',
;; `llm-chat-async' or `llm-chat-streaming' with `llm-make-tool' tools).
;; While it is on, every llm chat request with tools:
;;
;; - sends each tool as its author declared it (the `:args' plists read as
;;   JSON Schema, every key kept), lowered for the request's provider by the
;;   rules of "plistspec to-json --lower"; a tool the provider cannot carry is
;;   left out of that request with a warning naming it and why;
;; - checks each tool call of the model before the tool's function runs,
;;   against that declared schema: a call that does not fit is not run and
;;   the model gets, as the tool's result, every problem; a call that fits
;;   runs with exactly what llm alone passes; an async tool whose function
;;   signals answers with the error instead of leaving the request waiting;
;; - makes mcp.el's tools usable: mcp.el writes `:type' as a string, which
;;   llm cannot build a request with (`wrong-type-argument symbolp').
;;
;; The work is done by the "plistspec check --server" process the package
;; keeps.  When it cannot run or does not answer in time, or when llm's
;; internals are not what the mode expects, the mode warns once and requests
;; go as llm makes them.  `plistspec-llm-report' shows what it did.
;;
;; Seams (all in `plistspec-llm--seams', checked before anything is
;; installed): the generic `llm-provider-chat-request' builds every
;; provider's request body (the mode advises the generic function, so it
;; sees every provider's finished body), `llm-provider-utils-execute-tool-uses'
;; runs every tool call (the prompt's `llm-tool's are replaced by wrapped
;; copies for the duration of that call only),
;; `llm-provider-utils-parse-openai-tool-arguments' reads the OpenAI
;; family's argument text (invalid JSON becomes a refused call) and the
;; generic `llm-provider-streaming-media-handler' makes each stream's
;; reader (the Responses API's, which parses arguments itself, hands text
;; that is not JSON to the former).  A forced tool (llm's `tool-options')
;; is named in the body as lowering sent it.
;;
;; Files: plistspec-llm-plan.el (what a request sends: the declared schemas,
;; lowered), plistspec-llm-calls.el (the calls checked), this one (the mode,
;; its seams, the report).

;;; Code:

(require 'cl-lib)
(require 'plistspec-runtime)
(require 'plistspec-llm-plan)
(require 'plistspec-llm-calls)

(declare-function plistspec-gptel-report "plistspec-gptel" ())

(declare-function llm-chat-prompt-tools "llm" (cl-x))
(declare-function llm-chat-prompt-tool-options "llm" (cl-x))
(declare-function llm-tool-options-tool-choice "llm" (cl-x))
(declare-function llm-tool-name "llm" (cl-x))

(defconst plistspec-llm--seams
  '((llm-provider-chat-request :around plistspec-llm--chat-request 3)
    (llm-provider-utils-execute-tool-uses :around plistspec-llm--execute-tool-uses 7)
    (llm-provider-utils-parse-openai-tool-arguments :around plistspec-llm--parse-arguments 1)
    (llm-provider-streaming-media-handler :around plistspec-llm--streaming-handler 3)
    (llm-chat-prompt-tools nil nil 1)
    (llm-chat-prompt-tool-options nil nil 1)
    (llm-tool-options-tool-choice nil nil 1)
    (llm-tool-name nil nil 1)
    (llm-tool-description nil nil 1)
    (llm-tool-args nil nil 1)
    (llm-tool-function nil nil 1)
    (llm-tool-async nil nil 1)
    (copy-llm-tool nil nil 1)
    (llm-provider-utils-tool-use-name nil nil 1)
    (llm-provider-utils-tool-use-args nil nil 1))
  "The llm functions the mode relies on: (FUNCTION HOW ADVICE ARGS).
FUNCTION must take ARGS arguments.  When HOW is non-nil, ADVICE is
added to FUNCTION that way.")

(defconst plistspec-llm--slots
  '((llm-chat-prompt tools) (llm-tool function) (llm-tool name) (llm-tool args)
    (llm-tool async) (llm-provider-utils-tool-use args))
  "The struct slots the mode sets: (STRUCT SLOT).")

(defvar plistspec-llm--installed nil
  "Non-nil when the advice of `plistspec-llm--seams' is in place.")

(defvar plistspec-llm--last (make-hash-table :test #'equal)
  "The last plan made for each provider, by provider name (for the report).")

;;;; The mode

;;;###autoload
(define-minor-mode plistspec-llm-mode
  "Lower the tools of every llm request and check every tool call.
This covers ahyatt's llm library (ellama, ekg, and any package
calling `llm-chat', `llm-chat-async' or `llm-chat-streaming');
`plistspec-gptel-mode' covers gptel.  While on, each request's
tools are sent as the provider accepts them (by the rules of
\"plistspec to-json --lower\"), a tool it cannot carry is left out
with a warning, mcp.el's tools (whose string `:type's llm cannot
read) work, and the model's tool calls are checked before the
function runs: a call that does not fit is answered with what is
wrong instead.  When plistspec cannot run, requests go unchanged.
\\[plistspec-llm-report] shows what was done."
  :global t
  :group 'plistspec
  (when plistspec-llm-mode
    (setq plistspec-llm--warned nil))
  (plistspec-runtime-switch plistspec-llm-mode 'llm-provider-utils #'plistspec-llm--install
                            #'plistspec-llm--uninstall #'plistspec-llm--after-load))

(defun plistspec-llm--after-load (&rest _)
  "Advise llm once it is loaded, if `plistspec-llm-mode' is still on."
  (plistspec-runtime-loaded 'llm-provider-utils plistspec-llm-mode #'plistspec-llm--install
                            #'plistspec-llm--after-load))

(defun plistspec-llm--missing ()
  "Return why llm cannot be advised (see `plistspec-llm--seams'), or nil."
  (or (plistspec-runtime-missing plistspec-llm--seams)
      (cl-loop for (struct slot) in plistspec-llm--slots
               unless (ignore-errors (cl-struct-slot-offset struct slot))
               return (format "%s has no slot %s" struct slot))))

(defun plistspec-llm--install ()
  "Advise llm, or warn once and leave it alone when it has changed."
  (unless plistspec-llm--installed
    (let ((missing (plistspec-llm--missing)))
      (if missing
          (plistspec-runtime-changed #'plistspec-llm--warn "llm" "plistspec-llm-mode"
                                     missing)
        (plistspec-runtime-advise plistspec-llm--seams)
        (setq plistspec-llm--installed t)
        ;; Python starts now: it gets ready while no request waits
        (plistspec-runtime-start)))))

(defun plistspec-llm--uninstall ()
  "Remove the advice of `plistspec-llm--seams'."
  (plistspec-runtime-unadvise plistspec-llm--seams)
  (setq plistspec-llm--installed nil))

(defun plistspec-llm--tools-of (body kind)
  "The tool entries of request BODY (a plist) llm made for KIND, or `none'."
  (let ((tools (plist-get body :tools)))
    (cond ((not (vectorp tools)) 'none)
          ((equal kind "gemini")
           (if (and (= (length tools) 1) (plist-member (aref tools 0) :function_declarations))
               (plist-get (aref tools 0) :function_declarations)
             'none))
          (t tools))))

(defun plistspec-llm--chat-request (orig provider prompt streaming)
  "Around `llm-provider-chat-request' (ORIG): PROVIDER's body for PROMPT.
Its tools are the lowered ones.  STREAMING is passed on."
  (let* ((tools (and plistspec-llm-mode (llm-chat-prompt-tools prompt)))
         (kind (and tools (plistspec-llm--kind provider)))
         (plan (and kind (plistspec-llm--failing-open "Lowering llm's tools"
                           (plistspec-llm--plan provider kind tools)))))
    (cond
     ((not tools) (funcall orig provider prompt streaming))
     ((not plan)
      (plistspec-llm--with-tools prompt (mapcar #'plistspec-llm--for-llm tools)
        (lambda () (funcall orig provider prompt streaming))))
     (t
      (let ((body (plistspec-llm--with-tools prompt (plistspec-llm--plan-placeholders plan)
                    (lambda () (funcall orig provider prompt streaming))))
            (n (length (plistspec-llm--plan-kept plan))))
        (puthash prompt plan plistspec-llm--plans)
        (puthash (plistspec-llm--plan-provider plan) plan plistspec-llm--last)
        (plistspec-llm--left-out-warning plan)
        (let ((sent (plistspec-llm--tools-of body kind)))
          (if (or (and (= n 0) (eq sent 'none))
                  (and (vectorp sent) (= (length sent) n)))
              (if (> n 0)
                  (plistspec-llm--forced-tool
                   plan prompt
                   (plist-put body :tools (copy-sequence (plistspec-llm--plan-wire plan))))
                ;; no tool left: no tool choice either (one without tools is refused)
                (plistspec-llm--without-choice body))
            (remhash prompt plistspec-llm--plans)
            (plistspec-llm--warn 'body "llm's request body is not what plistspec-llm-mode \
expects: its tools go unchanged [PS705]")
            (plistspec-llm--with-tools prompt (mapcar #'plistspec-llm--for-llm tools)
              (lambda () (funcall orig provider prompt streaming))))))))))

(defun plistspec-llm--without-choice (body)
  "Request BODY (a plist) without its tool choice."
  (cl-loop for (k v) on body by #'cddr
           unless (memq k '(:tool_choice :toolConfig)) collect k and collect v))

(defun plistspec-llm--choice (prompt)
  "The name of the tool forced by PROMPT (its `llm-tool-options'), or nil."
  (let* ((options (llm-chat-prompt-tool-options prompt))
         (choice (and options (llm-tool-options-tool-choice options))))
    (and (stringp choice) choice)))

(defun plistspec-llm--sent-name (plan name)
  "The name PLAN sent the user's tool NAME under, or nil if it sent none."
  (when-let ((tool (cl-find name (plistspec-llm--plan-kept plan)
                            :key #'llm-tool-name :test #'equal)))
    (catch 'found
      (maphash (lambda (sent entry) (when (eq (car entry) tool) (throw 'found sent)))
               (plistspec-llm--plan-names plan))
      nil)))

(defun plistspec-llm--forced-tool (plan prompt body)
  "BODY, PLAN's request for PROMPT, naming its forced tool as it was sent.
llm names the forced tool by the user's name; lowering may have
renamed it (a name the provider refuses), and it is then named as
sent.  The Responses API's form is written for it (llm writes Chat
Completions' form there).  A forced tool left out of the request
leaves it without a tool choice (one naming no tool is refused)."
  (let* ((name (ignore-errors (plistspec-llm--choice prompt)))
         (sent (and name (plistspec-llm--sent-name plan name))))
    (cond
     ((null name) body)
     (sent
      (or (plistspec-llm--failing-open "Naming llm's forced tool"
            (plistspec-llm--name-choice (plistspec-llm--plan-kind plan) body sent))
          body))
     ((assoc name (plistspec-llm--plan-left-out plan))
      (plistspec-llm--warn (list 'forced name)
                           (format "the tool choice of this %s request names %s, left out \
of it: the request goes without a tool choice [PS701]"
                                   (plistspec-llm--plan-target plan) name))
      (plistspec-llm--without-choice body))
     (t body))))

(defun plistspec-llm--name-choice (kind body sent)
  "BODY, a request of KIND with a forced tool, forcing the tool SENT.
BODY is returned as it is when llm sent no tool choice of its own."
  (let ((choice (plist-get body :tool_choice))
        (config (plist-get (plist-get body :toolConfig) :functionCallingConfig)))
    (pcase kind
      ((guard (and (member kind '("openai" "openai-responses" "anthropic"))
                   (not (consp choice))))
       body)
      ("openai" (plist-put body :tool_choice `(:type "function" :function (:name ,sent))))
      ("openai-responses" (plist-put body :tool_choice `(:type "function" :name ,sent)))
      ("anthropic" (plist-put body :tool_choice `(:type "tool" :name ,sent)))
      ((and "gemini" (guard (plist-member config :allowedFunctionNames)))
       (plist-put body :toolConfig
                  `(:functionCallingConfig
                    ,(plist-put (copy-sequence config) :allowedFunctionNames (vector sent)))))
      (_ body))))

(defun plistspec-llm--with-tools (prompt tools fn)
  "Call FN with the tools of PROMPT set to TOOLS; put them back after."
  (declare (indent 2))
  (let ((saved (llm-chat-prompt-tools prompt)))
    (if (eq saved tools)
        (funcall fn)
      (plistspec-llm--set 'llm-chat-prompt 'tools prompt tools)
      (unwind-protect (funcall fn)
        (plistspec-llm--set 'llm-chat-prompt 'tools prompt saved)))))

(defun plistspec-llm--left-out-warning (plan)
  "Say which tools PLAN left out of its request, and why.
In the echo area for each request, and once in a warning, which stays."
  (when-let ((out (plistspec-llm--plan-left-out plan)))
    (let ((text (format "left out of this %s request: %s [PS701]"
                        (plistspec-llm--plan-target plan)
                        (mapconcat (lambda (x) (format "%s (%s)" (car x) (cdr x)))
                                   out "; "))))
      (message "plistspec: %s" text)
      (plistspec-llm--warn (list 'left-out text) text))))

;;;; The report

;;;###autoload
(defun plistspec-llm-report ()
  "Show what `plistspec-llm-mode' did for each llm provider.
For the last request of each: which tools were lowered (each
rewrite), which were left out and why; then the last blocked calls."
  (interactive)
  (with-current-buffer (get-buffer-create "*plistspec-llm*")
    (let ((inhibit-read-only t))
      (erase-buffer)
      (insert (format "plistspec-llm-mode is %s%s.\n"
                      (if plistspec-llm-mode "on" "off")
                      (if (and plistspec-llm-mode (not plistspec-llm--installed))
                          " but inactive (see *Warnings*)" "")))
      (if (= (hash-table-count plistspec-llm--last) 0)
          (insert "\nNo llm request was lowered yet.\n")
        (maphash (lambda (_name plan) (plistspec-llm--insert-plan plan)) plistspec-llm--last))
      (insert (if plistspec-llm--blocked "\nLast blocked calls:\n" "\nNo call was blocked.\n"))
      (dolist (b plistspec-llm--blocked)
        (insert (format "  %s %s (%s):\n%s\n" (format-time-string "%T" (nth 0 b))
                        (nth 2 b) (nth 1 b)
                        (replace-regexp-in-string "^" "    " (nth 3 b))))))
    (goto-char (point-min))
    (special-mode)
    (display-buffer (current-buffer))))

;;;###autoload
(defun plistspec-report ()
  "Show what `plistspec-gptel-mode' and `plistspec-llm-mode' did, in one buffer.
The gptel part is `plistspec-gptel-report' (for this buffer's gptel
backend), the llm part `plistspec-llm-report' (for every provider)."
  (interactive)
  (let ((parts (save-window-excursion
                 (mapcar (lambda (cmd)
                           (funcall cmd)
                           (with-current-buffer (if (eq cmd 'plistspec-llm-report)
                                                    "*plistspec-llm*" "*plistspec-gptel*")
                             (buffer-string)))
                         '(plistspec-gptel-report plistspec-llm-report)))))
    (with-current-buffer (get-buffer-create "*plistspec-report*")
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert "gptel\n\n" (car parts) "\n\nllm\n\n" (cadr parts)))
      (goto-char (point-min))
      (special-mode)
      (display-buffer (current-buffer)))))

(defun plistspec-llm--insert-plan (plan)
  "Insert what PLAN did."
  (insert (format "\n%s, last request %s, lowered for %s: %d tools, %d sent, %d left out.\n"
                  (plistspec-llm--plan-provider plan)
                  (format-time-string "%F %T" (plistspec-llm--plan-time plan))
                  (plistspec-llm--plan-target plan)
                  (plistspec-llm--plan-count plan)
                  (length (plistspec-llm--plan-kept plan))
                  (length (plistspec-llm--plan-left-out plan))))
  (dolist (x (plistspec-llm--plan-left-out plan))
    (insert (format "  left out: %s: %s\n" (car x) (cdr x))))
  (let ((rewrites (alist-get 'rewrites
                             (plistspec-llm--ask `((kind . "lower")
                                                   (backend . ,(plistspec-llm--backend plan))
                                                   (rewrites . t))
                                                 (plistspec-llm--plan-text plan)))))
    (if (= (length rewrites) 0)
        (insert "  No tool needed lowering.\n")
      (cl-loop for r across rewrites
               do (insert (format "  %s %s: %s: %s [%s]\n"
                                  (aref r 1) (aref r 2) (aref r 4) (aref r 5) (aref r 3)))))))

(provide 'plistspec-llm)
;;; plistspec-llm.el ends here
