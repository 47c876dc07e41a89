;;; plistspec-install.el --- Installing the plistspec program for Emacs  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The plistspec authors

;; Author: The plistspec authors
;; URL: https://github.com/plistspec/plistspec
;; SPDX-License-Identifier: GPL-3.0-or-later

;; This file is not part of GNU Emacs.

;; This program is free software: you can redistribute it and/or modify it under the
;; terms of the GNU General Public License as published by the Free Software
;; Foundation, either version 3 of the License, or (at your option) any later version.

;;; Commentary:

;; `plistspec-install-cli' makes a private virtual environment
;; (`plistspec-cli-directory') and installs the plistspec program in it, as
;; lsp-mode and pdf-tools install their servers: from the package's own
;; directory when the package is a whole clone of the repository
;; (package-vc-install: the Emacs files are in its elisp/ directory, the
;; Python project above it), else from the Python package index.  It runs
;; asynchronously, shows pip's output in the buffer *plistspec-install* and
;; stops after `plistspec-install-timeout' seconds.  Afterwards
;; `plistspec-command' finds that program, and the Python tools written by
;; "plistspec from-py" run that Python, by themselves.

;;; Code:

(require 'subr-x)
(require 'plistspec-custom)
(require 'plistspec-trust)
(require 'plistspec-exec)

(defcustom plistspec-install-timeout 900
  "Seconds `plistspec-install-cli' may take before it is stopped."
  :type 'number
  :group 'plistspec)

(defconst plistspec--package-directory
  (file-name-directory (or load-file-name buffer-file-name default-directory))
  "The directory this package's files were loaded from.")

(defvar plistspec-install-result nil
  "How the last `plistspec-install-cli' ended: nil while it runs (or before).
Then `done', or a string saying why it failed.")

(defun plistspec-install-source ()
  "Return the source of `plistspec-install-cli': a directory, or \"plistspec\".
\"plistspec\" is the name on the Python package index.
The directory is the repository holding this package when the
package is a whole clone of it (its pyproject.toml and src/plistspec
beside the package's directory), as package-vc-install makes."
  (let ((root (file-name-as-directory
               (expand-file-name ".." plistspec--package-directory))))
    (if (and (file-readable-p (expand-file-name "pyproject.toml" root))
             (file-directory-p (expand-file-name "src/plistspec" root)))
        root
      "plistspec")))

(defun plistspec--install-next (buffer commands timeout-at)
  "Run COMMANDS (each a program and its arguments) in BUFFER, one after another.
Stop with a failure at TIMEOUT-AT (a `float-time')."
  (if (null commands)
      (plistspec--install-finish buffer 'done)
    (let ((command (car commands)))
      (with-current-buffer buffer
        (let ((inhibit-read-only t))
          (goto-char (point-max))
          (insert "$ " (mapconcat #'shell-quote-argument command " ") "\n")))
      (condition-case err
          (let* ((process-environment (cons "PIP_DISABLE_PIP_VERSION_CHECK=1"
                                            (plistspec--process-environment)))
                 (proc (make-process
                        :name "plistspec-install" :buffer buffer :command command
                        :connection-type 'pipe :noquery t
                        :sentinel
                        (lambda (p _event)
                          (unless (process-live-p p)
                            (cancel-timer (process-get p 'plistspec-timer))
                            (if (and (eq (process-status p) 'exit)
                                     (eql (process-exit-status p) 0))
                                (plistspec--install-next buffer (cdr commands) timeout-at)
                              (plistspec--install-finish
                               buffer (format "%s ended with %s %s"
                                              (car command) (process-status p)
                                              (process-exit-status p)))))))))
            (process-put proc 'plistspec-timer
                         (run-at-time
                          (max 0 (- timeout-at (float-time))) nil
                          (lambda ()
                            (when (process-live-p proc)
                              (set-process-sentinel proc #'ignore)
                              (delete-process proc)
                              (plistspec--install-finish
                               buffer (format "it took more than %s seconds (see \
`plistspec-install-timeout')" plistspec-install-timeout)))))))
        (error (plistspec--install-finish
                buffer (format "cannot run %s: %s" (car command)
                               (error-message-string err))))))))

(defun plistspec--install-finish (buffer result)
  "End the installation whose output is in BUFFER with RESULT (`done' or why not)."
  (setq plistspec-install-result result)
  (when (buffer-live-p buffer)
    (with-current-buffer buffer
      (let ((inhibit-read-only t))
        (goto-char (point-max))
        (insert "\n" (if (eq result 'done) "plistspec is installed" (concat "failed: " result))
                "\n"))))
  (if (not (eq result 'done))
      (message "plistspec-install-cli failed: %s (see the buffer %s)" result (buffer-name buffer))
    ;; the program to run changed: forget what was found, check the buffers again
    (setq plistspec--python-checked nil plistspec--warned nil)
    (run-hooks 'plistspec-trust-change-hook)
    (message "plistspec: installed %s" (plistspec--installed-program))))

;;;###autoload
(defun plistspec-install-cli ()
  "Install the plistspec program for Emacs, in a virtual environment of its own.
It goes into `plistspec-cli-directory' (made with `plistspec-python'
-m venv), from this package's own repository when the package is a
whole clone of it (package-vc-install), else from the Python package
index (pip install plistspec).  It runs in the background; pip's
output is in the buffer *plistspec-install*.  Afterwards Emacs runs
that plistspec, and the tools \"plistspec from-py\" writes run its
Python, with nothing else to set.  Return the buffer."
  (interactive)
  (let* ((python (or (plistspec--executable-find plistspec-python)
                     (user-error "No %s on exec-path: install Python 3.11 or newer, or set \
`plistspec-python'" plistspec-python)))
         (venv (directory-file-name (expand-file-name plistspec-cli-directory)))
         (source (plistspec-install-source))
         (buffer (get-buffer-create "*plistspec-install*"))
         (default-directory (expand-file-name "~/")))
    (when (process-live-p (get-buffer-process buffer))
      (user-error "Plistspec-install-cli is already running (see the buffer %s)"
                  (buffer-name buffer)))
    (setq plistspec-install-result nil)
    (with-current-buffer buffer
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (format "Installing plistspec from %s into %s\n\n"
                        (if (equal source "plistspec") "the Python package index" source)
                        venv)))
      (special-mode))
    (make-directory (file-name-directory venv) t)
    (plistspec--install-next
     buffer
     (list (list python "-m" "venv" venv)
           (list (expand-file-name "bin/python" venv) "-m" "pip" "install" "--upgrade"
                 (if (equal source "plistspec") source (directory-file-name source))))
     (+ (float-time) plistspec-install-timeout))
    (when (called-interactively-p 'interactive)
      (display-buffer buffer))
    buffer))

(provide 'plistspec-install)
;;; plistspec-install.el ends here
