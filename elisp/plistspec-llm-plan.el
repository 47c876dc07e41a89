;;; plistspec-llm-plan.el --- What plistspec-llm-mode sends for an llm request  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The plistspec authors

;; Author: The plistspec authors
;; URL: https://github.com/plistspec/plistspec
;; SPDX-License-Identifier: GPL-3.0-or-later

;; This file is not part of GNU Emacs.

;; This program is free software: you can redistribute it and/or modify it under the
;; terms of the GNU General Public License as published by the Free Software
;; Foundation, either version 3 of the License, or (at your option) any later version.

;;; Commentary:

;; The plan of one llm request for `plistspec-llm-mode' (plistspec-llm.el):
;; each tool as its author declared it (the `:args' plists read as JSON
;; Schema), in the envelope of the provider's wire family, is sent to the
;; "plistspec check --server" process (as an `llm-' backend, see
;; calls/llmwire.py), which answers with the tools lowered for that
;; provider, those left out and why, and an id per tool to check its calls
;; by.  A request whose tools are the same objects, unchanged, reuses the
;; answer.  Every question waits at most `plistspec-llm-wait' seconds; when
;; there is no answer, requests go unchanged and a warning says why, once.
;; Also: the copies of mcp.el's tools llm can read, when there is no plan.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'plistspec-custom)
(require 'plistspec-exec)
(require 'plistspec-server)
(require 'plistspec-runtime)

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

(defvar plistspec-llm--warned nil
  "The keys of the warnings already shown, so each is shown once.")

(defvar plistspec-llm--plans (make-hash-table :test #'eq :weakness 'key)
  "The plan of each prompt's last request: `llm-chat-prompt' -> plan.")

(cl-defstruct (plistspec-llm--plan (:constructor plistspec-llm--make-plan)
                                   (:copier nil))
  "What the mode did to one request's tools."
  provider kind text target kept placeholders wire names left-out count time)

(defun plistspec-llm--warn (key text)
  "Show TEXT in a warning, once per KEY."
  (plistspec-runtime-warn 'plistspec-llm 'plistspec-llm--warned key text))

(defmacro plistspec-llm--failing-open (what &rest body)
  "Run BODY; on an error, warn once about WHAT and return nil."
  (declare (indent 1) (debug t))
  `(plistspec-runtime-failing-open plistspec-llm--warn ,what "llm requests" ,@body))

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
  (plistspec-runtime-process
   #'plistspec-llm--warn "llm requests"
   (lambda (_base)
     (plistspec-llm--warn
      'server "plistspec check --server could not start: llm requests go \
unchanged (M-x plistspec-restart-server tries again) [PS704]"))))

(defun plistspec-llm--ask (head data)
  "Send HEAD (an alist) and DATA (a unibyte string) to plistspec; wait for it.
Return the answer (an alist), or nil when there is none in time."
  (let ((proc (and (not (and plistspec-llm--pending (null (car plistspec-llm--pending))))
                   (plistspec-llm--process))))
    (when proc
      (let ((state (plistspec-runtime-wait proc (make-symbol "llm") head data
                                           (+ (float-time) plistspec-llm-wait))))
        (pcase (car state)
          ('nil
           (setq plistspec-llm--pending state)
           (plistspec-runtime-slow #'plistspec-llm--warn "llm" 'plistspec-llm-wait)
           nil)
          ('died
           (plistspec-llm--warn 'died "plistspec check --server ended: llm requests \
go unchanged until it starts again [PS704]")
           nil)
          (`(0 ,out ,_err)
           (json-parse-string out :object-type 'alist :array-type 'array
                              :null-object :null :false-object :false))
          (`(,exit ,_out ,err)
           (plistspec-runtime-failed #'plistspec-llm--warn exit err)
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

;;;; Lowering the tools of a request

(defvar plistspec-llm--recent nil
  "The tool sets planned last, newest first: (KIND TOOLS SNAPSHOT PLAN).
A request whose tools are the same objects, unchanged since SNAPSHOT,
reuses PLAN's answer without making the tools' JSON again.")

(defconst plistspec-llm--recent-max 8
  "Tool sets kept in the variable `plistspec-llm--recent'.")

(defun plistspec-llm--snapshot (tools)
  "Return a copy of the name, description and args of each of TOOLS."
  (plistspec-runtime-snapshot tools #'plistspec-llm--parts))

(defun plistspec-llm--parts (tool)
  "What llm sends of TOOL: its name, description and args."
  (list (llm-tool-name tool) (llm-tool-description tool) (llm-tool-args tool)))

(defun plistspec-llm--unchanged-p (tools old snapshot)
  "Non-nil when TOOLS are the tools OLD, unchanged since their SNAPSHOT."
  (plistspec-runtime-unchanged-p tools old snapshot #'plistspec-llm--parts))

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
      ;; a process that is not running starts now, while the tools' JSON is made
      (plistspec-llm--process)
      (let* ((snapshot (plistspec-llm--snapshot tools))
             (plan (plistspec-llm--new-plan provider kind tools)))
        (when plan
          (plistspec-runtime-push (list kind tools snapshot plan)
                                  'plistspec-llm--recent plistspec-llm--recent-max))
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
        (let* ((sent (plistspec-runtime-sent (alist-get 'sent answer) good))
               (kept (car sent)) (names (cdr sent)) (left-out nil))
          (cl-loop for out across (alist-get 'left_out answer)
                   do (push (cons (format "%s" (aref out 1)) (aref out 2)) left-out))
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

(provide 'plistspec-llm-plan)
;;; plistspec-llm-plan.el ends here
