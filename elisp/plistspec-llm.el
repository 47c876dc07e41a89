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
;; copies for the duration of that call only) and
;; `llm-provider-utils-parse-openai-tool-arguments' reads the OpenAI
;; family's argument text (invalid JSON becomes a refused call).

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'plistspec-custom)
(require 'plistspec-exec)
(require 'plistspec-server)

(declare-function llm-chat-prompt-tools "llm" (cl-x))
(declare-function llm-tool-name "llm" (cl-x))
(declare-function llm-tool-description "llm" (cl-x))
(declare-function llm-tool-args "llm" (cl-x))
(declare-function llm-tool-function "llm" (cl-x))
(declare-function llm-tool-async "llm" (cl-x))
(declare-function llm-provider-utils-tool-use-name "llm-provider-utils" (cl-x))
(declare-function llm-provider-utils-tool-use-args "llm-provider-utils" (cl-x))
(declare-function llm-name "llm" (provider))
(declare-function copy-llm-tool "llm" (arg))

(defcustom plistspec-llm-wait 3
  "Seconds an llm request may wait for plistspec before going unchanged.
Lowering a tool set plistspec has not seen before takes a few
milliseconds per tool; a tool set it has seen, or a check of one
tool call, takes a few milliseconds in all."
  :type 'number
  :group 'plistspec)

(defconst plistspec-llm--seams
  '((llm-provider-chat-request :around plistspec-llm--chat-request 3)
    (llm-provider-utils-execute-tool-uses :around plistspec-llm--execute-tool-uses 7)
    (llm-provider-utils-parse-openai-tool-arguments :around plistspec-llm--parse-arguments 1)
    (llm-chat-prompt-tools nil nil 1)
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

(defvar plistspec-llm--warned nil
  "The keys of the warnings already shown, so each is shown once.")

(defvar plistspec-llm--plans (make-hash-table :test #'eq :weakness 'key)
  "The plan of each prompt's last request: `llm-chat-prompt' -> plan.")

(defvar plistspec-llm--last (make-hash-table :test #'equal)
  "The last plan made for each provider, by provider name (for the report).")

(defvar plistspec-llm--blocked nil
  "The last blocked calls, newest first: (TIME PROVIDER TOOL MESSAGE).")

(defconst plistspec-llm--blocked-max 20
  "Blocked calls remembered for the report.")

(cl-defstruct (plistspec-llm--plan (:constructor plistspec-llm--make-plan)
                                   (:copier nil))
  "What the mode did to one request's tools."
  provider kind text target kept placeholders wire names left-out count time)

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
  (if plistspec-llm-mode
      (progn
        (setq plistspec-llm--warned nil)
        (if (featurep 'llm-provider-utils)
            (plistspec-llm--install)
          (add-hook 'after-load-functions #'plistspec-llm--after-load)))
    (remove-hook 'after-load-functions #'plistspec-llm--after-load)
    (plistspec-llm--uninstall)))

(defun plistspec-llm--after-load (&rest _)
  "Advise llm once it is loaded, if `plistspec-llm-mode' is still on."
  (when (featurep 'llm-provider-utils)
    (remove-hook 'after-load-functions #'plistspec-llm--after-load)
    (when plistspec-llm-mode (plistspec-llm--install))))

(defun plistspec-llm--missing ()
  "Return why llm cannot be advised (see `plistspec-llm--seams'), or nil."
  (or (cl-loop for (fn _how _advice n) in plistspec-llm--seams
               for arity = (and (fboundp fn) (func-arity fn))
               unless (and arity (<= (car arity) n)
                           (or (eq (cdr arity) 'many) (>= (cdr arity) n)))
               return (format "%s is %s" fn (if arity
                                                (format "no longer a function of %d arguments" n)
                                              "not defined")))
      (cl-loop for (struct slot) in plistspec-llm--slots
               unless (ignore-errors (cl-struct-slot-offset struct slot))
               return (format "%s has no slot %s" struct slot))))

(defun plistspec-llm--install ()
  "Advise llm, or warn once and leave it alone when it has changed."
  (unless plistspec-llm--installed
    (let ((missing (plistspec-llm--missing)))
      (if missing
          (plistspec-llm--warn
           'llm (format "llm has changed (%s): plistspec-llm-mode leaves it alone \
and requests go unchanged [PS705]" missing))
        (cl-loop for (fn how advice) in plistspec-llm--seams
                 when how do (advice-add fn how advice))
        (setq plistspec-llm--installed t)))))

(defun plistspec-llm--uninstall ()
  "Remove the advice of `plistspec-llm--seams'."
  (cl-loop for (fn how advice) in plistspec-llm--seams
           when (and how (fboundp fn)) do (advice-remove fn advice))
  (setq plistspec-llm--installed nil))

(defun plistspec-llm--warn (key text)
  "Show TEXT in a warning, once per KEY."
  (unless (member key plistspec-llm--warned)
    (push key plistspec-llm--warned)
    (display-warning 'plistspec-llm text :warning)))

(defmacro plistspec-llm--failing-open (what &rest body)
  "Run BODY; on an error, warn once about WHAT and return nil."
  (declare (indent 1) (debug t))
  `(condition-case err
       (progn ,@body)
     (error
      (plistspec-llm--warn
       (list 'error ,what (car err))
       (format "%s failed (%s): llm requests go on unchanged [PS704]"
               ,what (error-message-string err)))
      nil)))

(defun plistspec-llm--set (struct slot object value)
  "Set SLOT of OBJECT, a STRUCT (a copy the mode made, or restoring one), to VALUE."
  (aset object (cl-struct-slot-offset struct slot) value))

;;;; Asking the plistspec process

(defvar plistspec-llm--pending nil
  "The state cell of a question that was not answered in time, or nil.
While it is unanswered, no other question is asked (requests go
unchanged), so a stuck process costs one wait, not one per request.")

(defun plistspec-llm--process ()
  "The live \"plistspec check --server\" process, or nil after warning once."
  (let ((default-directory (expand-file-name "~/")))
    (condition-case err
        (or (plistspec--server (plistspec-command))
            (progn
              (plistspec-llm--warn
               'server "plistspec check --server could not start: llm requests go \
unchanged (M-x plistspec-restart-server tries again) [PS704]")
              nil))
      (plistspec-unavailable
       (plistspec-llm--warn 'unavailable
                            (format "%s: llm requests go unchanged [PS704]"
                                    (error-message-string err)))
       nil))))

(defun plistspec-llm--ask (head data)
  "Send HEAD (an alist) and DATA (a unibyte string) to plistspec; wait for it.
Return the answer (an alist), or nil when there is none in time."
  (let ((proc (and (not (and plistspec-llm--pending (null (car plistspec-llm--pending))))
                   (plistspec-llm--process))))
    (when proc
      (let* ((state (list nil))
             (deadline (+ (float-time) plistspec-llm-wait)))
        (plistspec--server-request proc (make-symbol "llm") head data
                                   (lambda (reply) (setcar state (or reply 'died))))
        (let ((read-process-output-max (max read-process-output-max (* 1024 1024))))
          (while (and (null (car state)) (process-live-p proc) (< (float-time) deadline))
            (accept-process-output proc 0.05 nil 1)))
        (pcase (car state)
          ('nil
           (setq plistspec-llm--pending state)
           (plistspec-llm--warn
            'slow (format "plistspec did not answer within %s seconds: llm requests go \
unchanged until it answers (see `plistspec-llm-wait') [PS704]" plistspec-llm-wait))
           nil)
          ('died
           (plistspec-llm--warn 'died "plistspec check --server ended: llm requests \
go unchanged until it starts again [PS704]")
           nil)
          (`(0 ,out ,_err)
           (json-parse-string out :object-type 'alist :array-type 'array
                              :null-object :null :false-object :false))
          (`(,exit ,_out ,err)
           (plistspec-llm--warn
            (list 'exit exit)
            (format "plistspec could not answer (exit %s): %s [PS704]" exit (string-trim err)))
           nil))))))

(defun plistspec-llm--encode (value)
  "VALUE (plists, alists, vectors, :null, :false) as JSON in UTF-8."
  (encode-coding-string (json-serialize value) 'utf-8 t))

;;;; The tool's declared schema

(defun plistspec-llm--key (key)
  "KEY of a plist or alist as a keyword `json-serialize' writes without colon."
  (cond ((keywordp key) key)
        ((symbolp key) (intern (concat ":" (symbol-name key))))
        (t (intern (format ":%s" key)))))

(defun plistspec-llm--plist-p (value)
  "Non-nil when VALUE is a plist (its first element a keyword)."
  (and (consp value) (keywordp (car value))))

(defun plistspec-llm--value (value)
  "VALUE of a tool's declared schema, as JSON Schema (for `json-serialize').
Keyword keys lose their colon, symbols become their names, t true,
`:json-false' and `:false' false, `:null' null; lists whose first
element is a keyword are objects, other lists arrays."
  (cond ((memq value '(:json-false :false)) :false)
        ((memq value '(t :null)) value)
        ((null value) :null)
        ((symbolp value) (symbol-name value))
        ((vectorp value) (cl-map 'vector #'plistspec-llm--value value))
        ((plistspec-llm--plist-p value) (plistspec-llm--object value nil))
        ((and (consp value) (cl-every (lambda (e) (and (consp e) (symbolp (car e)))) value))
         (plistspec-llm--object (cl-loop for (k . v) in value collect k collect v) nil))
        ((consp value) (vconcat (mapcar #'plistspec-llm--value value)))
        (t value)))

(defun plistspec-llm--object (plist skip)
  "PLIST as a JSON object plist, without the keys in SKIP and nil values.
A key given twice keeps its last value, at its first place."
  (let ((out nil))
    (cl-loop for (k v) on plist by #'cddr
             for key = (plistspec-llm--key k)
             unless (or (memq k skip) (null v))
             do (let ((cell (plist-member out key))
                      (val (plistspec-llm--value v)))
                  (if cell (setcar (cdr cell) val)
                    (setq out (nconc out (list key val))))))
    out))

(defun plistspec-llm--parameters (args)
  "The JSON Schema of the `:args' ARGS of an `llm-tool', as declared.
Every key of each argument is kept (llm itself keeps five); an
argument without `:optional' is required; no other argument is
accepted (llm refuses unknown arguments)."
  (let ((props nil) (required nil))
    (dolist (arg args)
      (when (plistspec-llm--plist-p arg)
        (let* ((name (format "%s" (plist-get arg :name)))
               (key (intern (concat ":" name)))
               (schema (plistspec-llm--object arg '(:name :optional)))
               (cell (plist-member props key)))
          (if cell (setcar (cdr cell) schema)
            (setq props (nconc props (list key schema))))
          (unless (or (plist-get arg :optional) (member name required))
            (push name required)))))
    `(:type "object" :properties ,(or props (make-hash-table))
            ,@(and required `(:required ,(vconcat (nreverse required))))
            :additionalProperties :false)))

(defun plistspec-llm--envelope (kind tool)
  "The JSON of TOOL as a backend of KIND is sent it (for plistspec to lower)."
  (let* ((name (format "%s" (llm-tool-name tool)))
         (desc (llm-tool-description tool))
         (desc (if (stringp desc) desc ""))
         (params (plistspec-llm--parameters (llm-tool-args tool))))
    (pcase kind
      ("openai-responses" `(:type "function" :name ,name :description ,desc :parameters ,params))
      ("anthropic" `(:name ,name :description ,desc :input_schema ,params))
      ("gemini" `(:name ,name :description ,desc :parameters ,params))
      (_ `(:type "function" :function (:name ,name :description ,desc :parameters ,params))))))

(defun plistspec-llm--kind (provider)
  "Return the wire family of llm PROVIDER, or nil to leave it alone."
  (cl-flet ((is (pred) (and (fboundp pred) (funcall pred provider))))
    (cond ((is 'llm-openai-compatible-p) "openai")
          ((is 'llm-openai-p) "openai-responses")
          ((is 'llm-claude-p) "anthropic")
          ((is 'llm-google-p) "gemini")
          ((is 'llm-ollama-p) "ollama"))))

(defun plistspec-llm--for-llm (tool)
  "TOOL, or a copy whose `:args' llm can build a request with.
mcp.el writes `:type' as a string (or a vector of strings) and false
as `:json-false', and `:name' may be a symbol: llm needs a symbol, a
false it can write and a string."
  (let* ((args (llm-tool-args tool))
         (bad (cl-some (lambda (a) (and (plistspec-llm--plist-p a)
                                        (or (not (symbolp (plist-get a :type)))
                                            (not (stringp (plist-get a :name)))
                                            (plistspec-llm--has-json-false a))))
                       args)))
    (if (not bad)
        tool
      (let ((copy (copy-llm-tool tool)))
        (plistspec-llm--set 'llm-tool 'args copy
                            (mapcar (lambda (a)
                                      (plistspec-llm--false
                                       (copy-tree (plistspec-llm--arg-for-llm a) t)))
                                    args))
        copy))))

(defun plistspec-llm--has-json-false (value)
  "Return non-nil if `:json-false' is in VALUE (llm's `json-serialize' refuses it)."
  (cond ((eq value :json-false) t)
        ((consp value) (or (plistspec-llm--has-json-false (car value))
                           (plistspec-llm--has-json-false (cdr value))))
        ((vectorp value) (cl-some #'plistspec-llm--has-json-false value))))

(defun plistspec-llm--arg-for-llm (arg)
  "A copy of ARG (an argument plist) with a `:type' and `:name' llm can read."
  (if (not (plistspec-llm--plist-p arg))
      arg
    (let* ((copy (copy-sequence arg))
           (type (plist-get arg :type))
           (type (if (vectorp type)
                     (or (cl-find-if (lambda (x) (not (equal x "null"))) type) "string")
                   type)))
      (when (stringp type)
        (setq copy (plist-put copy :type (intern type))))
      (unless (stringp (plist-get arg :name))
        (setq copy (plist-put copy :name (format "%s" (plist-get arg :name)))))
      copy)))

;;;; Lowering the tools of a request

(defvar plistspec-llm--recent nil
  "The tool sets planned last, newest first: (KIND TOOLS SNAPSHOT PLAN).
A request whose tools are the same objects, unchanged since SNAPSHOT,
reuses PLAN's answer without making the tools' JSON again.")

(defconst plistspec-llm--recent-max 8
  "Tool sets kept in the variable `plistspec-llm--recent'.")

(defun plistspec-llm--snapshot (tools)
  "Return a copy of the name, description and args of each of TOOLS."
  (mapcar (lambda (tool)
            (list (llm-tool-name tool) (llm-tool-description tool)
                  (copy-tree (llm-tool-args tool) t)))
          tools))

(defun plistspec-llm--unchanged-p (tools old snapshot)
  "Non-nil when TOOLS are the tools OLD, unchanged since their SNAPSHOT."
  (let ((same t))
    (while (and same tools old)
      (let ((tool (car tools)) (s (car snapshot)))
        (setq same (and (eq tool (car old))
                        (equal (llm-tool-name tool) (nth 0 s))
                        (equal (llm-tool-description tool) (nth 1 s))
                        (equal (llm-tool-args tool) (nth 2 s)))
              tools (cdr tools) old (cdr old) snapshot (cdr snapshot))))
    (and same (null tools) (null old))))

(defun plistspec-llm--wire (kind tools)
  "The lowered TOOLS JSON (parsed) as llm writes it for a provider of KIND.
Gemini and Vertex: llm's wrapper is `function_declarations'."
  (if (equal kind "gemini")
      (cl-map 'vector
              (lambda (element)
                (if-let ((decls (alist-get 'functionDeclarations element)))
                    `((function_declarations . ,decls))
                  element))
              tools)
    tools))

(defun plistspec-llm--plan (provider kind tools)
  "The plan for sending TOOLS to PROVIDER (of KIND), or nil to go unchanged."
  (let ((entry (cl-loop for e in plistspec-llm--recent
                        when (and (equal (nth 0 e) kind)
                                  (plistspec-llm--unchanged-p tools (nth 1 e) (nth 2 e)))
                        return e)))
    (if entry
        (let ((plan (nth 3 entry)))
          (setf (plistspec-llm--plan-time plan) (current-time)
                (plistspec-llm--plan-provider plan) (plistspec-llm--provider-name provider))
          plan)
      (let* ((snapshot (plistspec-llm--snapshot tools))
             (plan (plistspec-llm--new-plan provider kind tools)))
        (when plan
          (push (list kind tools snapshot plan) plistspec-llm--recent)
          (when (> (length plistspec-llm--recent) plistspec-llm--recent-max)
            (setcdr (nthcdr (1- plistspec-llm--recent-max) plistspec-llm--recent) nil)))
        plan))))

(defun plistspec-llm--provider-name (provider)
  "A name for PROVIDER in messages and the report."
  (or (ignore-errors (llm-name provider)) (symbol-name (type-of provider))))

(defun plistspec-llm--new-plan (provider kind tools)
  "Ask plistspec to lower TOOLS for a PROVIDER of KIND; return the plan, or nil."
  (let* ((all (vconcat tools))
         (broken nil) (elements nil) (good nil))
    (dotimes (i (length all))
      (condition-case err
          (let ((el (plistspec-llm--envelope kind (aref all i))))
            (plistspec-llm--encode el)
            (push el elements) (push (aref all i) good))
        (error (push (cons (format "%s" (llm-tool-name (aref all i)))
                           (format "it cannot be written as JSON: %s"
                                   (error-message-string err)))
                     broken))))
    (setq elements (vconcat (nreverse elements)) good (vconcat (nreverse good)))
    (let* ((text (plistspec-llm--encode
                  (if (equal kind "gemini") `[(:functionDeclarations ,elements)] elements)))
           (answer (plistspec-llm--ask `((kind . "lower") (backend . ,(concat "llm-" kind)))
                                       text)))
      (when (and answer (stringp (alist-get 'target answer)))
        (let ((names (make-hash-table :test #'equal)) (kept nil) (left-out nil))
          (cl-loop for sent across (alist-get 'sent answer)
                   for tool = (aref good (aref sent 0))
                   do (push tool kept)
                   (puthash (aref sent 1) (cons tool (aref sent 2)) names))
          (cl-loop for out across (alist-get 'left_out answer)
                   do (push (cons (format "%s" (aref out 1)) (aref out 2)) left-out))
          (setq kept (nreverse kept))
          (plistspec-llm--make-plan
           :provider (plistspec-llm--provider-name provider)
           :kind kind :text text :target (alist-get 'target answer)
           :kept kept
           :placeholders (mapcar #'plistspec-llm--placeholder kept)
           :wire (plistspec-llm--wire kind (alist-get 'tools answer))
           :names names
           :left-out (append (nreverse left-out) (nreverse broken))
           :count (length all) :time (current-time)))))))

(defun plistspec-llm--backend (plan)
  "Return the backend named to plistspec for PLAN's tools (see llmwire.py)."
  (concat "llm-" (plistspec-llm--plan-kind plan)))

(defun plistspec-llm--placeholder (tool)
  "A copy of TOOL without arguments: llm builds the request with it.
Its parameters are then replaced by the lowered ones."
  (let ((copy (copy-llm-tool tool)))
    (plistspec-llm--set 'llm-tool 'args copy nil)
    copy))

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
                  (plist-put body :tools (copy-sequence (plistspec-llm--plan-wire plan)))
                ;; no tool left: no tool choice either (one without tools is refused)
                (cl-loop for (k v) on body by #'cddr
                         unless (memq k '(:tool_choice :toolConfig)) collect k and collect v))
            (remhash prompt plistspec-llm--plans)
            (plistspec-llm--warn 'body "llm's request body is not what plistspec-llm-mode \
expects: its tools go unchanged [PS705]")
            (plistspec-llm--with-tools prompt (mapcar #'plistspec-llm--for-llm tools)
              (lambda () (funcall orig provider prompt streaming))))))))))

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
  "Say which tools PLAN left out of its request, and why (a warning that stays)."
  (when-let ((out (plistspec-llm--plan-left-out plan)))
    (let ((text (format "left out of this %s request: %s [PS701]"
                        (plistspec-llm--plan-target plan)
                        (mapconcat (lambda (x) (format "%s (%s)" (car x) (cdr x)))
                                   out "; "))))
      (plistspec-llm--warn (list 'left-out text) text))))

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
          (unless (nth 3 c) (setq temp (append temp (list (nth 1 c))))))
        (cons temp (nreverse swaps))))))

(defun plistspec-llm--kept-args (args)
  "Return a call's ARGS as the conversation is to hold them (false as false)."
  (cond ((plistspec-llm--bad-json-p args) (aref args 1))
        (t (plistspec-llm--false (copy-tree args t)))))

(defun plistspec-llm--false (value)
  "VALUE with every `:json-false' made `:false' (in place)."
  (cond ((eq value :json-false) :false)
        ((consp value)
         (setcar value (plistspec-llm--false (car value)))
         (setcdr value (plistspec-llm--false (cdr value)))
         value)
        ((vectorp value)
         (dotimes (i (length value)) (aset value i (plistspec-llm--false (aref value i))))
         value)
        (t value)))

(defun plistspec-llm--copy (plan name user)
  "Return (NAME TOOL QUEUE USED), TOOL a copy of PLAN's tool NAME for one batch.
TOOL's function takes the verdicts in
QUEUE (a cell) in order.  USER are the prompt's tools; a name that is
none of PLAN's tools gets a tool that only answers."
  (let* ((entry (gethash name (plistspec-llm--plan-names plan)))
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

(defun plistspec-llm--guarded-call (function name callback args)
  "Call FUNCTION, the async tool NAME's, with CALLBACK and ARGS.
When it signals before answering, CALLBACK gets the error."
  (let ((answered nil))
    (condition-case err
        (apply function (lambda (&rest result)
                          (setq answered t)
                          (apply callback result))
               args)
      (error
       (unless answered
         (message "plistspec: the async tool %s signalled: %s [PS703]"
                  name (error-message-string err))
         (funcall callback (format "Error: tool %s failed: %s"
                                   name (error-message-string err))))))))

(defun plistspec-llm--verdict (plan name args user)
  "What to do with a call of NAME with ARGS in PLAN's request (USER: its tools).
\(run . GIVEN): run it, llm reading GIVEN as its arguments;
\(block . MESSAGE): answer MESSAGE instead; (llm): leave it to llm;
\(unchecked): it could not be checked."
  (let ((entry (gethash name (plistspec-llm--plan-names plan))))
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
                (plistspec-llm--block plan name (plistspec-llm--message name local))
              (cons 'run given))))
         (t (plistspec-llm--block plan name (alist-get 'message answer))))))
     ((assoc name (plistspec-llm--plan-left-out plan))
      (plistspec-llm--block
       plan name (format "Error: tool %s is not available in this request (%s)."
                         name (cdr (assoc name (plistspec-llm--plan-left-out plan))))))
     ((cl-find name user :key #'llm-tool-name :test #'equal) '(llm))
     (t
      (plistspec-llm--block
       plan name (format "Error: there is no tool named %s. The tools are: %s."
                         name (string-join (hash-table-keys (plistspec-llm--plan-names plan))
                                           ", ")))))))

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
  "Remember that a call of NAME in PLAN's request was blocked with TEXT.
Return the verdict (block . TEXT)."
  (push (list (current-time) (plistspec-llm--plan-provider plan) name text)
        plistspec-llm--blocked)
  (when (> (length plistspec-llm--blocked) plistspec-llm--blocked-max)
    (setcdr (nthcdr (1- plistspec-llm--blocked-max) plistspec-llm--blocked) nil))
  (message "plistspec: blocked a call of %s: %s [PS702]" name (car (split-string text "\n")))
  (cons 'block text))

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
