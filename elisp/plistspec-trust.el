;;; plistspec-trust.el --- Which projects' own programs plistspec may run  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The plistspec authors

;; Author: The plistspec authors
;; URL: https://github.com/plistspec/plistspec
;; SPDX-License-Identifier: GPL-3.0-or-later

;; This file is not part of GNU Emacs.

;; This program is free software: you can redistribute it and/or modify it under the
;; terms of the GNU General Public License as published by the Free Software
;; Foundation, either version 3 of the License, or (at your option) any later version.

;;; Commentary:

;; Visiting a file must never run a program that came with the file.  A
;; project's .venv/bin/plistspec is the project's code: plistspec runs it
;; only when the user trusts the project, by `plistspec-trust-project'
;; (remembered in `plistspec-trusted-projects-file'), by the option
;; `plistspec-trusted-projects', or by Emacs's own `trusted-content' where
;; Emacs has it (`trusted-content-p': Emacs 30, and Emacs 28/29 builds with
;; the fix for CVE-2024-53920).  Never by default.
;;
;; Trust is decided on the place the program was found: the project that
;; holds the .venv (its directory's true name), never on where a link leads.
;; A program that is a link leading out of its own project never runs: an
;; untrusted repository's .venv/bin/plistspec linking to a trusted
;; project's program would otherwise run that program in the untrusted
;; repository's directory.  `plistspec-trust-change-hook' runs
;; after the user trusts or distrusts a project.

;;; Code:

(require 'seq)
(require 'subr-x)
(require 'plistspec-custom)

(declare-function project-root "project" (project))
(defvar trusted-content)

(defvar plistspec-trust-change-hook nil
  "Hook run after `plistspec-trust-project' or `plistspec-distrust-project'.")

(defvar plistspec--remembered nil
  "(FILE MTIME . DIRECTORIES): the last reading of `plistspec-trusted-projects-file'.")

(defvar plistspec--session-trusted nil
  "Directories trusted with `plistspec-trust-project', not remembered in a file.")

(defun plistspec--read-trust-file (file)
  "The directory names listed in FILE, or nil when it does not hold a list of them."
  (condition-case nil
      (with-temp-buffer
        (insert-file-contents file)
        (let ((data (read (current-buffer))))
          (and (listp data) (seq-every-p #'stringp data) data)))
    (error nil)))

(defun plistspec--remembered-projects ()
  "The directories `plistspec-trust-project' remembered in its file."
  (let* ((file (and plistspec-trusted-projects-file
                    (expand-file-name plistspec-trusted-projects-file)))
         (mtime (and file (file-attribute-modification-time (file-attributes file)))))
    (cond ((null mtime) nil)
          ((and (equal (car plistspec--remembered) file)
                (equal (cadr plistspec--remembered) mtime))
           (cddr plistspec--remembered))
          (t (let ((dirs (plistspec--read-trust-file file)))
               (setq plistspec--remembered (cons file (cons mtime dirs)))
               dirs)))))

(defun plistspec--true-directory (dir)
  "DIR's true name (symbolic links resolved), as a directory name."
  (file-name-as-directory (file-truename (expand-file-name dir))))

(defun plistspec--emacs-trusts-p (file)
  "Non-nil when Emacs's `trusted-content' trusts FILE (an absolute file name).
Asks `trusted-content-p' where Emacs has it, as for a buffer visiting FILE."
  (and (fboundp 'trusted-content-p)
       (with-temp-buffer
         (setq buffer-file-truename (abbreviate-file-name file))
         (funcall #'trusted-content-p))))

(defun plistspec--program-project (file)
  "The project FILE, a program, was found in, as a directory name.
That is the directory holding the .venv FILE is in (.venv/bin/NAME or
.venv/Scripts/NAME), else FILE's own directory.  Its name is taken as
found: no link in it is resolved."
  (let ((file (expand-file-name file)))
    (file-name-as-directory
     (if (string-match "/\\.venv/\\(?:bin\\|Scripts\\)/[^/]+\\'" file)
         (substring file 0 (match-beginning 0))
       (file-name-directory file)))))

(defun plistspec--inside-p (file dir)
  "Non-nil when the absolute FILE is DIR (a directory name) or inside it."
  (string-prefix-p dir (file-name-as-directory file)))

(defconst plistspec--not-trusted "the project is not trusted"
  "What `plistspec-untrusted-reason' says of a program trusting can run.")

(defun plistspec-untrusted-reason (file &optional project)
  "Why FILE, a program found in PROJECT, may not run; nil when it may.
PROJECT is the directory FILE was found in (by default, the one
holding its .venv, see `plistspec--program-project').  Trust is
decided on PROJECT, the place the program was found: it runs when
PROJECT is inside a directory of `plistspec-trusted-projects' or of
those `plistspec-trust-project' remembered, or when `trusted-content-p'
trusts it.  A program that is a link leading out of PROJECT never
runs, whatever PROJECT is: the link would borrow another project's
trust to run with PROJECT's files."
  (let* ((file (expand-file-name file))
         (place (file-name-as-directory
                 (expand-file-name (or project (plistspec--program-project file)))))
         (project (plistspec--true-directory place))
         (true (file-truename file))
         ;; the program's name as found, below PROJECT's true name
         (found (concat project (file-relative-name file place))))
    (cond ((not (plistspec--inside-p true project))
           (format "it is a link leading out of its project %s (to %s)"
                   (abbreviate-file-name project) (abbreviate-file-name true)))
          ((or (seq-some (lambda (dir)
                           (and (stringp dir)
                                (plistspec--inside-p project (plistspec--true-directory dir))))
                         (append plistspec-trusted-projects plistspec--session-trusted
                                 (plistspec--remembered-projects)))
               (plistspec--emacs-trusts-p found))
           nil)
          (t plistspec--not-trusted))))

(defun plistspec-trusted-p (file &optional project)
  "Non-nil when the user trusts FILE, a program found in PROJECT, to run.
See `plistspec-untrusted-reason', which says why not."
  (not (plistspec-untrusted-reason file project)))

(defun plistspec--write-trust-file (dirs)
  "Remember DIRS in `plistspec-trusted-projects-file'."
  (let ((file (expand-file-name plistspec-trusted-projects-file)))
    (make-directory (file-name-directory file) t)
    (with-temp-file file
      (insert ";; Projects whose own plistspec program Emacs may run"
              " (M-x plistspec-trust-project).\n")
      (let ((print-length nil) (print-level nil))
        (prin1 dirs (current-buffer)))
      (insert "\n"))
    ;; a second change within the file system's clock tick keeps the same time
    (setq plistspec--remembered
          (cons file (cons (file-attribute-modification-time (file-attributes file)) dirs)))))

(defun plistspec--default-project (dir)
  "The project to offer trusting from DIR: its project.el root, else DIR."
  (let ((project (ignore-errors (project-current nil dir))))
    (file-name-as-directory
     (abbreviate-file-name (if project (project-root project) dir)))))

;;;###autoload
(defun plistspec-trust-project (dir &optional ask)
  "Trust the project in DIR: plistspec may run its .venv/bin/plistspec.
Interactively, ask for DIR (default: the current project's root) and
ASK for confirmation; the choice is remembered in
`plistspec-trusted-projects-file'.  Trust only a project whose code
you would run yourself: its program runs whenever you visit its files."
  (interactive
   (list (read-directory-name "Trust the plistspec program of project: "
                              (plistspec--default-project default-directory) nil t)
         t))
  (let ((dir (file-name-as-directory (abbreviate-file-name (expand-file-name dir)))))
    (when (or (not ask)
              (yes-or-no-p (format "Let plistspec run programs of %s (its .venv/bin/plistspec)? "
                                   dir)))
      (if (not plistspec-trusted-projects-file)
          (add-to-list 'plistspec--session-trusted dir)
        (let ((known (plistspec--remembered-projects)))
          (unless (member dir known)
            (plistspec--write-trust-file (append known (list dir))))))
      (run-hooks 'plistspec-trust-change-hook)
      (when ask (message "plistspec: %s is trusted" dir))
      dir)))

;;;###autoload
(defun plistspec-distrust-project (dir)
  "Stop trusting DIR, a project trusted with `plistspec-trust-project'."
  (interactive
   (list (completing-read "Stop trusting project: "
                          (append plistspec--session-trusted (plistspec--remembered-projects))
                          nil t)))
  (let* ((true (plistspec--true-directory dir))
         (same (lambda (d) (equal (plistspec--true-directory d) true))))
    (setq plistspec--session-trusted (seq-remove same plistspec--session-trusted))
    (let ((known (plistspec--remembered-projects)))
      (when (seq-some same known)
        (plistspec--write-trust-file (seq-remove same known))))
    (run-hooks 'plistspec-trust-change-hook)
    (when (seq-some same plistspec-trusted-projects)
      (message "plistspec: %s is still in `plistspec-trusted-projects'" dir))))

(provide 'plistspec-trust)
;;; plistspec-trust.el ends here
