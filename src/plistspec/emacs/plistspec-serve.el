;;; plistspec-serve.el --- Run gptel/llm tools for `plistspec serve'  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 plistspec contributors
;; SPDX-License-Identifier: GPL-3.0-or-later

;;; Commentary:

;; The Emacs half of `plistspec serve' and `plistspec to-json --from-emacs'.
;;
;; plistspec (Python) loads these files into an Emacs it started itself, or
;; into the user's running Emacs, and talks to it through the Emacs server
;; socket.  Every request is one call of `plistspec-serve-request' whose
;; argument is a JSON object printed by plistspec's Emacs-exact printer; its
;; "op" chooses what answers it.  This file owns that entry point, and what
;; plistspec's own Emacs needs besides: loading a file
;; (`plistspec-serve-load'), ending when plistspec ends
;; (`plistspec-serve-watch-parent'), and compiling the helper loaded from
;; source (`plistspec-serve--compile').
;;
;; The parts, each requiring only those before it (plistspec loads them in
;; this order, in the round trip of a request):
;; - plistspec-serve-reply.el: the protocol version and a reply's framing;
;; - plistspec-serve-tool.el: one tool as plain data, its form and fingerprint;
;; - plistspec-serve-record.el: the shims and the recorder of new tools;
;; - plistspec-serve-index.el: the tool table of a source and its generations;
;; - plistspec-serve-call.el: calling a tool and collecting its result;
;; - plistspec-serve-export.el: `plistspec-serve-export-tools';
;; - plistspec-serve.el: the entry point (this file).

;;; Code:

(require 'subr-x)
(require 'plistspec-serve-reply)
(require 'plistspec-serve-index)
(require 'plistspec-serve-record)
(require 'plistspec-serve-call)
(require 'plistspec-serve-export)

(defvar byte-compile-warnings)
(defvar byte-compile-verbose)

;;;; The one entry point

(defun plistspec-serve--source (request)
  "The tool source named by REQUEST's \"source\" member."
  (let ((src (plist-get request :source)))
    (if (or (null src) (equal src "recorded"))
        'recorded
      (let ((var (plist-get src :llm_variable)))
        (list :llm-variable (and (stringp var) (not (string-empty-p var)) (intern var))
              :categories (append (plist-get src :categories) nil)
              :tools (append (plist-get src :tools) nil))))))

(defun plistspec-serve-request (json-text)
  "Answer the request JSON-TEXT (a JSON object) from plistspec; return a reply.
Its \"op\" is \"hello\", \"registry\", \"call\", \"poll\", \"forget\" or
\"load\".  Every string (tool names included) travels inside the JSON, so
that only ASCII crosses the server socket.  \"reply_dir\" names the
private folder for long replies."
  (let* ((request (json-parse-string json-text :object-type 'plist
                                     :null-object nil :false-object nil))
         (op (plist-get request :op))
         (plistspec-serve--reply-dir (plist-get request :reply_dir)))
    (pcase op
      ("hello"
       (plistspec-serve--reply
        (list :version plistspec-serve-version :emacs emacs-version :pid (emacs-pid)
              :gptel (if (featurep 'gptel-request) t :json-false)
              :llm (if (featurep 'llm) t :json-false))))
      ("registry" (plistspec-serve-registry (plistspec-serve--source request)
                                            (plist-get request :known)
                                            (plist-get request :rebuild)))
      ("call" (plistspec-serve-call (plistspec-serve--source request)
                                    (plist-get request :name)
                                    (plist-get request :arguments)
                                    (plist-get request :id)
                                    (or (plist-get request :timeout) 60)
                                    (plist-get request :expect)))
      ("poll" (plistspec-serve-poll (plist-get request :id)))
      ("forget" (plistspec-serve-forget (plist-get request :id))
       (plistspec-serve--reply (list :status "ok")))
      ("load" (plistspec-serve-load (plist-get request :file)))
      (_ (plistspec-serve--reply (list :status "error" :kind "protocol"
                                       :text (format "Unknown op %S" op)))))))

;;;; Loading files in plistspec's own Emacs

(defun plistspec-serve-load (file)
  "Load FILE; return a reply saying whether it loaded, with the error if not."
  (plistspec-serve--reply
   (condition-case err
       (progn (load file nil t t)
              (list :status "ok" :kind "text" :text file))
     ((debug t) (plistspec-serve--error err)))))

(defun plistspec-serve-watch-parent (pid &optional dir)
  "Kill this Emacs when process PID (the plistspec that started it) ends.
DIR, the private directory plistspec made for this Emacs, is deleted first."
  (run-at-time 1 1 (lambda ()
                     (unless (ignore-errors (zerop (signal-process pid 0)))
                       (when dir (ignore-errors (delete-directory dir t)))
                       (kill-emacs 0)))))

;;;; Compiled when loaded from source

(defun plistspec-serve--compile (file)
  "Byte-compile the functions FILE defined, where they were loaded as source.
plistspec loads the .el files into a running Emacs, then calls this on
each; compiled, a request over a registry of hundreds of tools costs a
fraction of a millisecond."
  (require 'bytecomp)
  (let ((byte-compile-warnings nil) (byte-compile-verbose nil))
    (dolist (f (cdr (assoc file load-history)))
      (when (and (consp f) (eq (car f) 'defun)
                 (string-prefix-p "plistspec-serve" (symbol-name (cdr f)))
                 (not (byte-code-function-p (symbol-function (cdr f)))))
        (ignore-errors (byte-compile (cdr f)))))))

(provide 'plistspec-serve)
;;; plistspec-serve.el ends here
