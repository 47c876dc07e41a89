;;; plistspec-serve-record.el --- Record the tools a file creates, for plistspec serve  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 plistspec contributors
;; SPDX-License-Identifier: GPL-3.0-or-later

;;; Commentary:

;; plistspec's own Emacs (`plistspec serve FILE.el'): the tools the files
;; it loads create, recorded as they are made.  The real `gptel-make-tool',
;; `llm-make-tool' and `make-llm-tool' are advised to record each tool;
;; where gptel or llm is not installed, `plistspec-serve-install-shims'
;; defines stand-ins with the same calling convention, so that a tools
;; file still loads and its functions run.

;;; Code:

(require 'cl-lib)
(require 'plistspec-serve-tool)

(defvar plistspec-serve--recorded nil
  "Every tool definition recorded since the shims were installed, newest first.
Each is a plist: the entry (see `plistspec-serve--entry') plus :object,
what the constructor returned.")

(defvar plistspec-serve--recorded-tick 0
  "Incremented at every recorded definition.")

;;;; Recording the tools a file creates

(defun plistspec-serve--record (dialect slots object)
  "Remember the tool OBJECT made by DIALECT's constructor from keyword list SLOTS."
  (let ((name (plist-get slots :name)))
    (when (stringp name)
      (cl-incf plistspec-serve--recorded-tick)
      (push (append (plistspec-serve--entry
                     dialect name (plist-get slots :description) (plist-get slots :args)
                     (plist-get slots :function) (plist-get slots :async)
                     (plist-get slots :category) (plist-get slots :confirm)
                     (plist-get slots :include))
                    (list :object object))
            plistspec-serve--recorded))))

(defun plistspec-serve--record-gptel (orig &rest slots)
  "Around advice for `gptel-make-tool': call ORIG with SLOTS and record the tool.
Recording never makes the constructor fail."
  (let ((tool (apply orig slots)))
    (ignore-errors (plistspec-serve--record 'gptel slots tool))
    tool))

(defun plistspec-serve--record-llm (orig &rest slots)
  "Around advice for `llm-make-tool': call ORIG with SLOTS and record the tool.
Recording never makes the constructor fail."
  (let ((tool (apply orig slots)))
    (ignore-errors (plistspec-serve--record 'llm slots tool))
    tool))

(defun plistspec-serve--gptel-stand-in (&rest slots)
  "Stand in for `gptel-make-tool' (gptel is not installed), made of SLOTS."
  (cons 'plistspec-gptel-tool slots))

(defun plistspec-serve--llm-stand-in (&rest slots)
  "Stand in for `llm-make-tool' (llm is not installed), made of SLOTS."
  (cons 'plistspec-llm-tool slots))

(defun plistspec-serve-install-shims ()
  "Load gptel and llm where they can be loaded, else define stand-ins.
A stand-in constructor returns the tool's slots; the real constructors
are advised to record each tool too.  Either way the tools a file
creates can be called by name."
  (unless (or (fboundp 'gptel-make-tool)
              (and (locate-library "gptel") (ignore-errors (require 'gptel) t)))
    (fset 'gptel-make-tool #'plistspec-serve--gptel-stand-in)
    (provide 'gptel-request)
    (provide 'gptel))
  (unless (or (fboundp 'llm-make-tool)
              (and (locate-library "llm")
                   (ignore-errors (require 'llm) (require 'llm-provider-utils nil t) t)))
    (fset 'llm-make-tool #'plistspec-serve--llm-stand-in)
    (fset 'make-llm-tool #'plistspec-serve--llm-stand-in)
    (provide 'llm))
  (advice-add 'gptel-make-tool :around #'plistspec-serve--record-gptel)
  (advice-add 'llm-make-tool :around #'plistspec-serve--record-llm)
  (when (fboundp 'make-llm-tool)
    (advice-add 'make-llm-tool :around #'plistspec-serve--record-llm)))

(provide 'plistspec-serve-record)
;;; plistspec-serve-record.el ends here
