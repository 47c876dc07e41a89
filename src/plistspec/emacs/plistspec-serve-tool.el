;;; plistspec-serve-tool.el --- One gptel/llm tool as plain data for plistspec serve  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 plistspec contributors
;; SPDX-License-Identifier: GPL-3.0-or-later

;;; Commentary:

;; One tool as `plistspec serve' sees it: its entry (the slots of a
;; `gptel-tool' or `llm-tool' struct, or of a recorded constructor call,
;; as a plist whose strings have no text properties), the constructor
;; call that would make it (the text plistspec reads as it reads a file),
;; and the fingerprint of that text.  The description of each tool object
;; is cached while its slots stay the same objects; a tool that cannot be
;; sent as JSON or read says why it is skipped.

;;; Code:

(require 'cl-lib)

(declare-function gptel-tool-p "gptel-request" (tool))
(declare-function gptel-tool-name "gptel-request" (tool))
(declare-function gptel-tool-description "gptel-request" (tool))
(declare-function gptel-tool-args "gptel-request" (tool))
(declare-function gptel-tool-function "gptel-request" (tool))
(declare-function gptel-tool-async "gptel-request" (tool))
(declare-function gptel-tool-category "gptel-request" (tool))
(declare-function gptel-tool-confirm "gptel-request" (tool))
(declare-function gptel-tool-include "gptel-request" (tool))
(declare-function llm-tool-p "llm" (tool))
(declare-function llm-tool-name "llm" (tool))
(declare-function llm-tool-description "llm" (tool))
(declare-function llm-tool-args "llm" (tool))
(declare-function llm-tool-function "llm" (tool))
(declare-function llm-tool-async "llm" (tool))

;;;; Values as gptel sends them

(defun plistspec-serve--clean (value)
  "A copy of VALUE with the text properties of every string removed.
`json-serialize' ignores text properties, so gptel sends the same JSON."
  (let ((depth 0))
    (cl-labels ((walk (v)
                  (cl-incf depth)
                  (when (> depth 500) (error "Tool spec nested too deeply"))
                  (prog1
                      (cond ((stringp v) (substring-no-properties v))
                            ((vectorp v) (vconcat (mapcar #'walk v)))
                            ((and (consp v) (proper-list-p v)) (mapcar #'walk v))
                            ((consp v) (cons (walk (car v)) (walk (cdr v))))
                            (t v))
                    (cl-decf depth))))
      (walk value))))

(defun plistspec-serve--strings (value)
  "Every string and symbol name in VALUE, as a vector."
  (let ((out nil) (todo (list value)))
    (while todo
      (let ((v (pop todo)))
        (cond ((stringp v) (push v out))
              ((and (symbolp v) v (not (eq v t))) (push (symbol-name v) out))
              ((vectorp v) (setq todo (append v todo)))
              ((consp v) (push (car v) todo) (push (cdr v) todo)))))
    (vconcat out)))

(defun plistspec-serve--unsendable (entry)
  "Why ENTRY cannot be sent as JSON (a raw byte in one of its strings), or nil."
  (condition-case err
      (progn (ignore (json-serialize (plistspec-serve--strings
                              (list (plist-get entry :name)
                                    (plist-get entry :description)
                                    (plist-get entry :args)
                                    (plist-get entry :category)))))
             nil)
    (error (format "it cannot be sent as JSON (%s): a string holds a raw byte"
                   (error-message-string err)))))

;;;; Entries: one tool, as plain data

(defun plistspec-serve--entry (dialect name description args function async
                                       category confirm include)
  "The entry plist of one tool of DIALECT (`gptel' or `llm').
NAME, DESCRIPTION, ARGS, FUNCTION, ASYNC, CATEGORY, CONFIRM and
INCLUDE are its slots; strings lose their text properties."
  (let ((gptel (eq dialect 'gptel)))
    (list :name (if (stringp name) (substring-no-properties name) name)
          :dialect dialect
          :description (plistspec-serve--clean description)
          :args (plistspec-serve--clean args)
          :function function
          :async async
          :category (and gptel (plistspec-serve--clean category))
          :confirm (and gptel confirm)
          :include (and gptel include))))

(defun plistspec-serve--gptel-entry (tool)
  "The entry plist of gptel TOOL (a `gptel-tool' struct)."
  (plistspec-serve--entry 'gptel (gptel-tool-name tool) (gptel-tool-description tool)
                          (gptel-tool-args tool) (gptel-tool-function tool)
                          (gptel-tool-async tool) (gptel-tool-category tool)
                          (gptel-tool-confirm tool) (gptel-tool-include tool)))

(defun plistspec-serve--llm-entry (tool)
  "The entry plist of llm TOOL (an `llm-tool' struct)."
  (plistspec-serve--entry 'llm (llm-tool-name tool) (llm-tool-description tool)
                          (llm-tool-args tool) (llm-tool-function tool)
                          (llm-tool-async tool) nil nil nil))

(defun plistspec-serve--slots (tool)
  "Return TOOL's slot values, as a list: the same objects while it is unchanged."
  (cond ((and (fboundp 'gptel-tool-p) (gptel-tool-p tool))
         (list (gptel-tool-name tool) (gptel-tool-description tool) (gptel-tool-args tool)
               (gptel-tool-function tool) (gptel-tool-async tool) (gptel-tool-category tool)
               (gptel-tool-confirm tool) (gptel-tool-include tool)))
        ((and (fboundp 'llm-tool-p) (llm-tool-p tool))
         (list (llm-tool-name tool) (llm-tool-description tool) (llm-tool-args tool)
               (llm-tool-function tool) (llm-tool-async tool)))
        (t nil)))

(defun plistspec-serve--tool-entry (tool)
  "The entry of TOOL (a gptel or llm struct), or nil."
  (cond ((and (fboundp 'gptel-tool-p) (gptel-tool-p tool)) (plistspec-serve--gptel-entry tool))
        ((and (fboundp 'llm-tool-p) (llm-tool-p tool)) (plistspec-serve--llm-entry tool))))

(defun plistspec-serve--symbol-types (args)
  "A copy of gptel ARGS with each `:type' string that is one word a symbol again.
`gptel-make-tool' turns `:type string' into `:type \"string\"' in place; both
send the same JSON, and the symbol is what a tools file says."
  (cond ((vectorp args) (vconcat (mapcar #'plistspec-serve--symbol-types args)))
        ((and (consp args) (keywordp (car args)) (proper-list-p args))
         (cl-loop for (k v) on args by #'cddr
                  append (list k (if (and (eq k :type) (stringp v)
                                          (string-match-p "\\`[a-z]+\\'" v))
                                     (intern v)
                                   (plistspec-serve--symbol-types v)))))
        ((and (consp args) (proper-list-p args))
         (mapcar #'plistspec-serve--symbol-types args))
        (t args)))

(defun plistspec-serve--form (entry)
  "Return the constructor call that would make ENTRY, as text `read' gives back.
A closure is written as nil: it has no printed form worth reading."
  (let* ((fn (plist-get entry :function))
         (gptel (eq (plist-get entry :dialect) 'gptel))
         (form `(,(if gptel 'gptel-make-tool 'llm-make-tool)
                 :name ,(plist-get entry :name)
                 :description ,(plist-get entry :description)
                 ,@(and (plist-get entry :args)
                        `(:args (quote ,(if gptel
                                            (plistspec-serve--symbol-types
                                             (plist-get entry :args))
                                          (plist-get entry :args)))))
                 :function ,(and fn (symbolp fn) `(function ,fn))
                 ,@(and (plist-get entry :async) '(:async t))
                 ,@(and gptel (plist-get entry :category)
                        `(:category ,(plist-get entry :category)))
                 ,@(and gptel (plist-get entry :confirm) '(:confirm t))
                 ,@(and gptel (plist-get entry :include) '(:include t))))
         (print-length nil) (print-level nil) (print-circle nil)
         (print-escape-newlines nil) (print-quoted t))
    (prin1-to-string form)))

(defun plistspec-serve--function-kind (fn)
  "How the tool function FN can be named: \"symbol\", \"closure\" or \"none\"."
  (cond ((null fn) "none")
        ((symbolp fn) "symbol")
        (t "closure")))

;;;; What one tool looks like to plistspec, cached per tool object

(defvar plistspec-serve--described (make-hash-table :test #'eq :weakness 'key)
  "Tool object -> (SLOTS . INFO): INFO as `plistspec-serve--describe' made it.")

(defun plistspec-serve--info (entry)
  "The description plistspec gets of ENTRY: a plist.
:entry, :form, :fingerprint and :skipped (why it cannot be served)."
  (let* ((skipped (plistspec-serve--unsendable entry))
         (form (and (not skipped)
                    (condition-case err (plistspec-serve--form entry)
                      (error (setq skipped (error-message-string err)) nil)))))
    (list :entry entry :form form :skipped skipped
          :fingerprint (secure-hash 'sha1 (or form (format "skipped %s" skipped))))))

(defun plistspec-serve--describe (tool)
  "The info of TOOL (a gptel or llm struct), cached while its slots stay the same."
  (let ((slots (plistspec-serve--slots tool))
        (cached (gethash tool plistspec-serve--described)))
    (if (and cached (= (length slots) (length (car cached)))
             (cl-every #'eq slots (car cached)))
        (cdr cached)
      (let ((info (condition-case err
                      (plistspec-serve--info (plistspec-serve--tool-entry tool))
                    (error (plistspec-serve--unreadable (car slots) err)))))
        (puthash tool (cons slots info) plistspec-serve--described)
        info))))

(defun plistspec-serve--unreadable (name err)
  "The info of a tool called NAME whose slots cannot be read (ERR)."
  (let ((why (format "it cannot be read: %s" (error-message-string err))))
    (list :entry (list :name (if (stringp name) (substring-no-properties name)
                               (format "%S" name)))
          :skipped why :fingerprint (secure-hash 'sha1 why))))

(provide 'plistspec-serve-tool)
;;; plistspec-serve-tool.el ends here
