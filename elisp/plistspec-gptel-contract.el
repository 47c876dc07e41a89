;;; plistspec-gptel-contract.el --- The contract of each gptel tool  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The plistspec authors

;; Author: The plistspec authors
;; URL: https://github.com/plistspec/plistspec
;; SPDX-License-Identifier: GPL-3.0-or-later

;; This file is not part of GNU Emacs.

;; This program is free software: you can redistribute it and/or modify it under the
;; terms of the GNU General Public License as published by the Free Software
;; Foundation, either version 3 of the License, or (at your option) any later version.

;;; Commentary:

;; For `plistspec-gptel-mode' (plistspec-gptel.el): each tool's contract is
;; its arguments as its author declared them, copied the first time the mode
;; sees the tool, before gptel changes them (gptel's Gemini path removes
;; `:additionalProperties' from nested objects of the tool's own arguments,
;; in place).  gptel's JSON is made from copies of the tools with those
;; arguments, so the mode itself changes no tool.  The contract, as a JSON
;; schema, carries the `$defs' of an mcp.el tool read from mcp.el's
;; connection (mcp.el keeps only the `properties' of a tool's schema), and
;; the `required' the server declared (mcp.el marks arguments optional by
;; their place, not their name).

;;; Code:

(require 'cl-lib)
(require 'subr-x)

(declare-function gptel-tool-name "gptel-request" (cl-x))
(declare-function gptel-tool-args "gptel-request" (cl-x))
(declare-function gptel-tool-category "gptel-request" (cl-x))
(declare-function mcp--tools "mcp" (connection))
(defvar mcp-server-connections)

;;;; Each tool's contract

(defvar plistspec-gptel--declared (make-hash-table :test #'equal)
  "The arguments of each tool as declared: (NAME . CATEGORY) -> (ARGS . SEEN).
ARGS is a copy made when the mode first saw the tool, SEEN a copy of
the arguments as last seen.  See `plistspec-gptel--declared-args'.")

(defun plistspec-gptel--without-closing (value)
  "Return a copy of VALUE without any `:additionalProperties'.
That is what gptel's Gemini path takes out of a tool's arguments."
  (cond ((vectorp value) (cl-map 'vector #'plistspec-gptel--without-closing value))
        ((and (consp value) (keywordp (car value)))
         (cl-loop for (k v) on value by #'cddr
                  unless (eq k :additionalProperties)
                  collect k and collect (plistspec-gptel--without-closing v)))
        ((consp value) (mapcar #'plistspec-gptel--without-closing value))
        (t value)))

(defun plistspec-gptel--declared-args (tool)
  "The arguments of TOOL as its author declared them (a copy not to change).
The first copy is kept while the tool's arguments differ from it only
by what gptel's Gemini path removes in place (`:additionalProperties');
any other change is the author's: it is copied anew."
  (let* ((key (cons (gptel-tool-name tool) (gptel-tool-category tool)))
         (args (gptel-tool-args tool))
         (entry (gethash key plistspec-gptel--declared)))
    (cond
     ((and entry (equal args (cdr entry))) (car entry))
     ((and entry (equal (plistspec-gptel--without-closing args)
                        (plistspec-gptel--without-closing (car entry))))
      (setcdr entry (copy-tree args t))
      (car entry))
     (t
      (let ((copy (copy-tree args t)))
        (puthash key (cons copy (copy-tree args t)) plistspec-gptel--declared)
        copy)))))

(defun plistspec-gptel--set-slot (tool slot value)
  "Set SLOT of the `gptel-tool' TOOL (a copy of the user's) to VALUE."
  (aset tool (cl-struct-slot-offset 'gptel-tool slot) value))

(defun plistspec-gptel--as-declared (tool)
  "A copy of TOOL whose arguments are a fresh copy of its declared ones."
  (let ((copy (copy-sequence tool)))
    (plistspec-gptel--set-slot copy 'args
                               (copy-tree (plistspec-gptel--declared-args tool) t))
    copy))

(defun plistspec-gptel--mcp-schema (tool)
  "TOOL's input schema in mcp.el's connection, when mcp.el made TOOL, or nil.
The connection is the one the tool's category names (mcp-hub's
\"mcp-NAME\", or NAME)."
  (when (and (boundp 'mcp-server-connections) (fboundp 'mcp--tools)
             (hash-table-p mcp-server-connections))
    (ignore-errors
      (let* ((category (gptel-tool-category tool))
             (conn (and (stringp category)
                        (or (gethash category mcp-server-connections)
                            (and (string-prefix-p "mcp-" category)
                                 (gethash (substring category 4)
                                          mcp-server-connections)))))
             (name (gptel-tool-name tool))
             (spec (and conn (cl-find name (mcp--tools conn) :test #'equal
                                      :key (lambda (x) (plist-get x :name))))))
        (plist-get spec :inputSchema)))))

(defun plistspec-gptel--mcp-defs (schema)
  "The `$defs' of the mcp.el SCHEMA: (:$defs DEFS), (:definitions DEFS) or nil."
  (cl-loop for key in '(:$defs :definitions)
           when (plist-get schema key)
           return (list key (plist-get schema key))))

(defun plistspec-gptel--mcp-required (schema names)
  "The `required' the mcp.el SCHEMA declares, when its properties are NAMES.
mcp.el marks an argument optional by its place, not its name (the first
as many arguments as `required' has are taken as required), so a server
that lists its properties in another order (alphabetically, as Go servers
do) gets the wrong arguments required.  Nil when SCHEMA is not the
tool's (its properties are not NAMES, in order): the arguments say it."
  (let ((props (plist-get schema :properties))
        (required (plist-get schema :required)))
    (when (and (or (vectorp required) (listp required))
               (cl-every #'stringp required)
               (equal names (cl-loop for (k _v) on props by #'cddr
                                     collect (and (keywordp k)
                                                  (substring (symbol-name k) 1)))))
      (list (vconcat required)))))

(defun plistspec-gptel--contract (tool)
  "TOOL's declared parameters as a JSON schema (a plist), for plistspec.
gptel's own JSON without what gptel adds (`additionalProperties' false
where the author did not say it) or removes; for a tool mcp.el made, with
the `$defs' mcp.el dropped and the `required' the server declared
\(`plistspec-gptel--mcp-required')."
  (let ((props nil) (required nil) (names nil)
        (schema (plistspec-gptel--mcp-schema tool)))
    (dolist (arg (plistspec-gptel--declared-args tool))
      (let ((spec (copy-sequence arg))
            (name (plist-get arg :name)))
        (cl-remf spec :name)
        (cl-remf spec :optional)
        (push name names)
        (setq props (nconc props (list (make-symbol (concat ":" name)) spec)))
        (unless (plist-get arg :optional) (push name required))))
    (let ((declared (and schema (plistspec-gptel--mcp-required schema (nreverse names)))))
      (append (list :type "object" :properties props
                    :required (if declared (car declared) (vconcat (nreverse required))))
              (plistspec-gptel--mcp-defs schema)))))

(provide 'plistspec-gptel-contract)
;;; plistspec-gptel-contract.el ends here
