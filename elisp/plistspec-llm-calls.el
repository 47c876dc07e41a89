;;; plistspec-llm-calls.el --- Tool calls checked for plistspec-llm-mode  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The plistspec authors

;; Author: The plistspec authors
;; URL: https://github.com/plistspec/plistspec
;; SPDX-License-Identifier: GPL-3.0-or-later

;; This file is not part of GNU Emacs.

;; This program is free software: you can redistribute it and/or modify it under the
;; terms of the GNU General Public License as published by the Free Software
;; Foundation, either version 3 of the License, or (at your option) any later version.

;;; Commentary:

;; How `plistspec-llm-mode' (plistspec-llm.el) runs the model's tool calls
;; of a request it lowered: each call is checked by the "plistspec check
;; --server" process against the tool's declared schema first; during llm's
;; `llm-provider-utils-execute-tool-uses' the prompt's tools are wrapped
;; copies whose function runs a call that fits (with exactly what llm
;; passes) and answers one that does not with its problems, in order.  The
;; user's tools are put back before llm's callback runs.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'plistspec-runtime)
(require 'plistspec-llm-plan)

(declare-function llm-chat-prompt-tools "llm" (cl-x))
(declare-function llm-tool-name "llm" (cl-x))
(declare-function llm-tool-args "llm" (cl-x))
(declare-function llm-tool-function "llm" (cl-x))
(declare-function llm-tool-async "llm" (cl-x))
(declare-function llm-provider-utils-tool-use-name "llm-provider-utils" (cl-x))
(declare-function llm-provider-utils-tool-use-args "llm-provider-utils" (cl-x))
(declare-function copy-llm-tool "llm" (arg))
(declare-function llm-provider-utils-parse-openai-tool-arguments "llm-provider-utils"
                  (arguments))
(declare-function eieio-oref "eieio-core" (obj slot))
(declare-function eieio-oset "eieio-core" (obj slot value))
(declare-function slot-exists-p "eieio" (object-or-class slot))
(declare-function eieio-object-p "eieio-core" (obj))

(defvar plistspec-llm-mode)

(defvar plistspec-llm--blocked nil
  "The last blocked calls, newest first: (TIME PROVIDER TOOL MESSAGE).")

(defconst plistspec-llm--blocked-max 20
  "Blocked calls remembered for the report.")

;;;; Checking the model's calls

(defun plistspec-llm--parse-arguments (orig arguments)
  "Around `llm-provider-utils-parse-openai-tool-arguments' (ORIG): ARGUMENTS read.
While the mode is on, text that is not JSON is kept, marked, so that
its call is refused with why instead of failing the whole request."
  (if (not plistspec-llm-mode)
      (funcall orig arguments)
    (condition-case err
        (funcall orig arguments)
      (llm-tool-call-error
       (record 'plistspec-llm--bad-json arguments (format "%s" (cadr err)))))))

(defconst plistspec-llm--unparsed 'plistspec-unparsed-arguments
  "The key under which a streamed call's text that is not JSON is carried.
See `plistspec-llm--streaming-handler'.")

(defun plistspec-llm--streaming-handler (orig provider receiver err-receiver)
  "Around `llm-provider-streaming-media-handler' (ORIG): PROVIDER's stream reader.
RECEIVER and ERR-RECEIVER are llm's.  On the Responses API (`llm-openai'),
llm's reader parses a call's arguments itself, outside
`llm-provider-utils-parse-openai-tool-arguments', and text that is not
JSON stops it.  While the mode is on, such text is carried to RECEIVER
as valid JSON under `plistspec-llm--unparsed', and read there by
`llm-provider-utils-parse-openai-tool-arguments' as on the other
paths: its call is refused with why instead of being lost."
  (if (not (and plistspec-llm-mode (equal (plistspec-llm--kind provider) "openai-responses")))
      (funcall orig provider receiver err-receiver)
    (let* ((texts (list nil))
           (handler (funcall orig provider (plistspec-llm--stream-receiver receiver texts)
                             err-receiver)))
      (plistspec-llm--failing-open "Reading llm's streamed tool calls"
        (plistspec-llm--stream-events handler texts))
      handler)))

(defun plistspec-llm--stream-events (handler texts)
  "Make HANDLER's reader of a finished output item keep text that is not JSON.
HANDLER is llm's (MEDIA-TYPE . READER); each such text is pushed on
the car of TEXTS.  When the reader is not what the mode expects, warn
once and leave it alone."
  (let* ((reader (cdr-safe handler))
         (events (and (eieio-object-p reader) (slot-exists-p reader 'events)
                      (eieio-oref reader 'events)))
         (done (cdr (assq 'response.output_item.done events))))
    (if (not (functionp done))
        (plistspec-llm--warn 'responses-stream "llm's Responses streaming is not what \
plistspec-llm-mode expects: a streamed call whose arguments are not JSON is lost there, \
as in llm alone [PS705]")
      (eieio-oset reader 'events
                  (mapcar (lambda (cell)
                            (if (not (eq (car cell) 'response.output_item.done))
                                cell
                              (cons (car cell)
                                    (lambda (event)
                                      (plistspec-llm--failing-open "Reading llm's streamed \
tool calls"
                                        (plistspec-llm--keep-unparsed event texts))
                                      (funcall done event)))))
                          events)))))

(defun plistspec-llm--keep-unparsed (event texts)
  "Carry the arguments of EVENT's function call as JSON if they are not JSON.
EVENT is a server-sent event of llm's Responses stream; the text is
pushed on the car of TEXTS."
  (let* ((data (and (eieio-object-p event) (slot-exists-p event 'data)
                    (eieio-oref event 'data)))
         (parsed (and (stringp data) (string-search "function_call" data)
                      (ignore-errors (json-parse-string data :object-type 'alist))))
         (item (and (consp parsed) (alist-get 'item parsed)))
         (args (and (consp item) (equal (alist-get 'type item) "function_call")
                    (alist-get 'arguments item))))
    (when (and (stringp args)
               ;; valid JSON never reads as nil (null is :null)
               (not (ignore-errors (json-parse-string args))))
      (push args (car texts))
      (setf (alist-get 'arguments item)
            (json-serialize (list (cons plistspec-llm--unparsed args))))
      (eieio-oset event 'data (json-serialize parsed)))))

(defun plistspec-llm--stream-receiver (receiver texts)
  "RECEIVER, reading each call's arguments the Responses reader kept as text.
TEXTS (a cell) holds the texts `plistspec-llm--keep-unparsed' kept;
they are read by `llm-provider-utils-parse-openai-tool-arguments'."
  (lambda (output)
    (when (car texts)
      (dolist (use (and (consp output) (plist-get output :tool-uses)))
        (let* ((args (llm-provider-utils-tool-use-args use))
               (text (and (consp args) (null (cdr args))
                          (eq (car-safe (car args)) plistspec-llm--unparsed)
                          (cdr (car args)))))
          (when (member text (car texts))
            (plistspec-llm--set 'llm-provider-utils-tool-use 'args use
                                (llm-provider-utils-parse-openai-tool-arguments text))))))
    (funcall receiver output)))

(defun plistspec-llm--bad-json-p (args)
  "Non-nil when ARGS are text that is not JSON (`plistspec-llm--parse-arguments')."
  (and (recordp args) (eq (aref args 0) 'plistspec-llm--bad-json)))

(defun plistspec-llm--execute-tool-uses (orig provider prompt tool-uses multi-output
                                              partial success error)
  "Around `llm-provider-utils-execute-tool-uses' (ORIG): check each call first.
PROVIDER, PROMPT, TOOL-USES, MULTI-OUTPUT, PARTIAL, SUCCESS and ERROR
are llm's.  For the duration of the call, PROMPT's tools are copies
whose function runs a call that fits and answers a call that does not
with its problems; the user's tools are never changed."
  (let* ((plan (and plistspec-llm-mode (gethash prompt plistspec-llm--plans)))
         (batch (and plan (plistspec-llm--failing-open "Checking llm tool calls"
                            (plistspec-llm--batch plan prompt tool-uses)))))
    (if batch
        (plistspec-llm--run-batch orig batch provider prompt tool-uses multi-output
                                  partial success error)
      (dolist (use tool-uses)
        (let ((args (llm-provider-utils-tool-use-args use)))
          (when (plistspec-llm--bad-json-p args)
            (signal 'llm-tool-call-error
                    (list (format "Invalid JSON in tool call arguments: %s" (aref args 2)))))))
      (funcall orig provider prompt tool-uses multi-output partial success error))))

(defun plistspec-llm--run-batch (orig batch provider prompt tool-uses multi-output
                                      partial success error)
  "Run ORIG (llm's) on BATCH, from `plistspec-llm--batch'; put everything back.
PROVIDER, PROMPT, TOOL-USES, MULTI-OUTPUT, PARTIAL, SUCCESS and ERROR
are llm's.  The tools and arguments are put back before SUCCESS runs
\(it may send the next request of the conversation) or when ORIG
returns."
  (let* ((temp (car batch))
         (swaps (cdr batch))
         (saved (llm-chat-prompt-tools prompt))
         (done nil)
         (restore (lambda ()
                    (unless done
                      (setq done t)
                      (dolist (s swaps)
                        (plistspec-llm--set 'llm-provider-utils-tool-use 'args (nth 0 s) (nth 2 s)))
                      (when (eq (llm-chat-prompt-tools prompt) temp)
                        (plistspec-llm--set 'llm-chat-prompt 'tools prompt saved))))))
    (dolist (s swaps)
      (plistspec-llm--set 'llm-provider-utils-tool-use 'args (nth 0 s) (nth 1 s)))
    (plistspec-llm--set 'llm-chat-prompt 'tools prompt temp)
    (unwind-protect
        (funcall orig provider prompt tool-uses multi-output partial
                 (and success (lambda (&rest result) (funcall restore) (apply success result)))
                 error)
      (funcall restore))))

(defun plistspec-llm--batch (plan prompt tool-uses)
  "Check TOOL-USES of PROMPT's request (of PLAN); return (TOOLS . SWAPS), or nil.
TOOLS are PROMPT's tools for llm to run them with, SWAPS a list of
\(TOOL-USE GIVEN KEPT): llm reads GIVEN as the call's arguments, and
KEPT is put back in the conversation after.  Nil when a call could
not be checked: llm then runs them all as it would alone."
  (let ((user (llm-chat-prompt-tools prompt))
        (copies nil) (swaps nil))
    (catch 'unchecked
      (dolist (use tool-uses)
        (let* ((name (llm-provider-utils-tool-use-name use))
               (args (llm-provider-utils-tool-use-args use))
               (verdict (plistspec-llm--verdict plan name args user)))
          (pcase (car verdict)
            ('unchecked (throw 'unchecked nil))
            ('llm nil)
            (_
             (let ((copy (or (assoc name copies)
                             (car (push (plistspec-llm--copy plan name user) copies)))))
               (setcar (nth 2 copy) (append (car (nth 2 copy)) (list verdict)))
               (push (list use (if (eq (car verdict) 'run) (cdr verdict) nil)
                           (plistspec-llm--kept-args args))
                     swaps))))))
      (let ((temp (mapcar (lambda (tool)
                            (let ((c (assoc (llm-tool-name tool) copies)))
                              (if (and c (not (nth 3 c)))
                                  (progn (setf (nth 3 c) t) (nth 1 c))
                                tool)))
                          user)))
        (dolist (c copies)
          (unless (nth 3 c) (setq temp (append temp (list (nth 1 c)))))
          (dolist (verdict (car (nth 2 c)))
            (when (eq (car verdict) 'block)
              (plistspec-llm--block plan (car c) (cdr verdict)))))
        (cons temp (nreverse swaps))))))

(defun plistspec-llm--kept-args (args)
  "Return a call's ARGS as the conversation is to hold them (false as false).
Text that is not JSON stays text (the OpenAI family sends arguments as
text); other arguments that are not an object become {} (Anthropic,
Gemini and Ollama take only an object)."
  (cond ((plistspec-llm--bad-json-p args) (aref args 1))
        ((listp args) (plistspec-llm--false (copy-tree args t)))))

(defun plistspec-llm--copy (plan name user)
  "Return (NAME TOOL QUEUE USED), TOOL a copy of PLAN's tool NAME for one batch.
TOOL's function takes the verdicts in
QUEUE (a cell) in order.  USER are the prompt's tools; a name that is
none of PLAN's tools gets a tool that only answers."
  (let* ((entry (plistspec-llm--entry plan name))
         (tool (or (car entry) (car user)))
         (copy (copy-llm-tool tool))
         (queue (list nil)))
    (plistspec-llm--set 'llm-tool 'name copy name)
    (plistspec-llm--set 'llm-tool 'args copy
                        (and entry
                             (mapcar (lambda (a)
                                       (if (plistspec-llm--plist-p a)
                                           (plist-put (plistspec-llm--arg-for-llm a) :optional t)
                                         a))
                                     (llm-tool-args tool))))
    (plistspec-llm--set 'llm-tool 'async copy (and entry (llm-tool-async tool)))
    (plistspec-llm--set 'llm-tool 'function copy
                        (plistspec-llm--wrapper (and entry (llm-tool-function tool))
                                                name (and entry (llm-tool-async tool)) queue))
    (list name copy queue nil)))

(defun plistspec-llm--wrapper (function name async queue)
  "FUNCTION (the tool NAME's, ASYNC or not) run by the verdicts in QUEUE."
  (if async
      (lambda (callback &rest args)
        (let ((verdict (pop (car queue))))
          (if (eq (car verdict) 'block)
              (funcall callback (cdr verdict))
            (plistspec-llm--guarded-call function name callback args))))
    (lambda (&rest args)
      (let ((verdict (pop (car queue))))
        (if (eq (car verdict) 'block)
            (cdr verdict)
          (apply function args))))))

(defcustom plistspec-llm-tool-timeout nil
  "Seconds an async llm tool may take to answer, or nil for no limit.
With `plistspec-llm-mode' on, an async tool that has not called back
after that long answers the model with an error instead (a late
answer is then dropped): a tool whose function fails later, from a
timer or a process, no longer leaves the request waiting for ever."
  :type '(choice (const :tag "No limit" nil) number)
  :group 'plistspec)

(defun plistspec-llm--guarded-call (function name callback args)
  "Call FUNCTION, the async tool NAME's, with CALLBACK and ARGS.
When it signals before answering, or does not answer within
`plistspec-llm-tool-timeout', CALLBACK gets the error; once only."
  (plistspec-runtime-guarded-call function name callback args
                                  plistspec-llm-tool-timeout))

(defun plistspec-llm--verdict (plan name args user)
  "What to do with a call of NAME with ARGS in PLAN's request (USER: its tools).
\(run . GIVEN): run it, llm reading GIVEN as its arguments;
\(block . MESSAGE): answer MESSAGE instead; (llm): leave it to llm;
\(unchecked): it could not be checked."
  (let ((entry (plistspec-llm--entry plan name)))
    (cond
     (entry
      (let ((answer (plistspec-llm--check plan (cdr entry) args)))
        (cond
         ((null answer) '(unchecked))
         ((eq (alist-get 'unknown answer) t)
          (plistspec-llm--warn 'unknown "plistspec no longer knows the tools of a \
request: its calls run unchecked [PS704]")
          '(unchecked))
         ((eq (alist-get 'ok answer) t)
          (let* ((given (plistspec-llm--apply-edits (copy-tree args t)
                                                    (alist-get 'edits answer)))
                 (local (plistspec-llm--top-level-problems (car entry) given)))
            (if local
                (cons 'block (plistspec-llm--message name local))
              (cons 'run given))))
         (t (cons 'block (alist-get 'message answer))))))
     ((assoc name (plistspec-llm--plan-left-out plan))
      (cons 'block (format "Error: tool %s is not available in this request (%s)."
                           name (cdr (assoc name (plistspec-llm--plan-left-out plan))))))
     ((cl-find name user :key #'llm-tool-name :test #'equal) '(llm))
     (t
      (cons 'block (format "Error: there is no tool named %s. The tools are: %s."
                           name (string-join (hash-table-keys (plistspec-llm--plan-names plan))
                                             ", ")))))))

(defun plistspec-llm--entry (plan name)
  "Return the (TOOL . ID) of PLAN's tool called NAME.
NAME is the name the tool was sent under, else its own name."
  (or (gethash name (plistspec-llm--plan-names plan))
      (catch 'found
        (maphash (lambda (_sent entry)
                   (when (equal (llm-tool-name (car entry)) name) (throw 'found entry)))
                 (plistspec-llm--plan-names plan))
        nil)))

(defun plistspec-llm--check (plan id args)
  "Plistspec's answer for a call with ARGS of the tool ID of PLAN, or nil."
  (let* ((data (if (plistspec-llm--bad-json-p args)
                   (encode-coding-string (aref args 1) 'utf-8 t)
                 (plistspec-llm--encode (plistspec-llm--false (copy-tree args t)))))
         ;; the OpenAI family's arguments are read with null and {} apart
         (emacs (not (member (plistspec-llm--plan-kind plan) '("openai" "openai-responses"))))
         (head `((kind . "call") (id . ,id) (emacs . ,(if emacs t :json-false))))
         (answer (plistspec-llm--ask head data)))
    (if (not (eq (alist-get 'unknown answer) t))
        answer
      ;; a new process (the last one ended): the same tools give the same ids
      (plistspec-llm--ask `((kind . "lower") (backend . ,(plistspec-llm--backend plan)))
                          (plistspec-llm--plan-text plan))
      (plistspec-llm--ask head data))))

(defun plistspec-llm--top-level-problems (tool args)
  "What llm itself would refuse in ARGS of TOOL: unknown and missing arguments.
A list of (POINTER . TEXT)."
  (let ((names (mapcar (lambda (a) (format "%s" (plist-get a :name))) (llm-tool-args tool)))
        (keys (and (consp args) (mapcar (lambda (c) (symbol-name (car c))) args))))
    (append
     (cl-loop for k in keys unless (member k names)
              collect (cons (concat "/" k) (format "unexpected (allowed: %s)"
                                                   (string-join names ", "))))
     (cl-loop for a in (llm-tool-args tool)
              for n = (format "%s" (plist-get a :name))
              unless (or (plist-get a :optional) (member n keys))
              collect (cons (concat "/" n) "missing (required)")))))

(defun plistspec-llm--message (name problems)
  "The tool result telling the model why NAME was not run: PROBLEMS listed."
  (let ((n (length problems)))
    (format "Error: tool %s was not run: its arguments do not match its schema \
\(%d problem%s).\n%s\nCall %s again with arguments that fix %s."
            name n (if (= n 1) "" "s")
            (mapconcat (lambda (p) (format "- %s: %s" (car p) (cdr p))) problems "\n")
            name (if (= n 1) "it" "every one"))))

(defun plistspec-llm--block (plan name text)
  "Remember that a call of NAME in PLAN's request was blocked with TEXT."
  (plistspec-runtime-block 'plistspec-llm--blocked plistspec-llm--blocked-max
                           (plistspec-llm--plan-provider plan) name text))

(defun plistspec-llm--apply-edits (args edits)
  "ARGS (an alist, changed in place) with plistspec's EDITS applied.
Each edit is [\"remove\" PATH] or [\"set\" PATH VALUE], PATH a vector
of property names and indexes."
  (cl-loop for edit across (or edits [])
           do (setq args (plistspec-llm--edit args (append (aref edit 1) nil)
                                              (equal (aref edit 0) "remove")
                                              (and (> (length edit) 2) (aref edit 2)))))
  args)

(defun plistspec-llm--edit (value path remove new)
  "VALUE with the element at PATH removed (REMOVE) or set to NEW."
  (let ((step (car path)))
    (cond
     ((null path) (if remove value new))
     ((vectorp value)
      (aset value step (plistspec-llm--edit (aref value step) (cdr path) remove new))
      value)
     (t
      (let* ((key (intern step)) (cell (assq key value)))
        (cond ((null cell) value)
              ((and remove (null (cdr path))) (delq cell value))
              (t (setcdr cell (plistspec-llm--edit (cdr cell) (cdr path) remove new))
                 value)))))))

(provide 'plistspec-llm-calls)
;;; plistspec-llm-calls.el ends here
