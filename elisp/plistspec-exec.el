;;; plistspec-exec.el --- Finding and running the plistspec program  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The plistspec authors

;; Author: The plistspec authors
;; URL: https://github.com/plistspec/plistspec
;; SPDX-License-Identifier: GPL-3.0-or-later

;; This file is not part of GNU Emacs.

;; This program is free software: you can redistribute it and/or modify it under the
;; terms of the GNU General Public License as published by the Free Software
;; Foundation, either version 3 of the License, or (at your option) any later version.

;;; Commentary:

;; Finding the plistspec program (`plistspec-command': the option, the
;; project's .venv when the user trusts the project, exec-path, then
;; "python3 -P -m plistspec"), running it synchronously with a time limit
;; (`plistspec--call'), reading its JSON output, and telling the user once
;; when it cannot run (the mode line's "plistspec!" and a warning).
;;
;; Nothing that came with the visited file runs: a project's own program
;; only when the project is trusted (plistspec-trust.el), `exec-path' only
;; through its absolute directories, and every process gets
;; PYTHONSAFEPATH=1 so that a Python never imports the directory it runs
;; in (the visited file's).

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'seq)
(require 'plistspec-custom)
(require 'plistspec-trust)

(declare-function project-root "project" (project))
(declare-function json-read-from-string "json" (string))
(defvar json-object-type)
(defvar json-array-type)
(defvar json-key-type)
(defvar json-null)
(defvar json-false)

;;;; Finding the program

(defconst plistspec--venv-programs '(".venv/bin/plistspec" ".venv/Scripts/plistspec.exe")
  "Where a virtual environment at a project's root keeps plistspec.")

(defvar plistspec--python-checked nil
  "Alist of (PYTHON OK . TIME): whether PYTHON could import plistspec, and when.")

(defvar plistspec--untrusted-said nil
  "The untrusted projects' programs the user was told about, each once.")

(defun plistspec--executable-find (name)
  "The absolute file name of the program NAME on variable `exec-path', or nil.
Only its absolute directories count: a relative one (\".\") would
be the visited file's directory."
  (let ((exec-path (seq-filter (lambda (dir) (and (stringp dir) (file-name-absolute-p dir)))
                               exec-path)))
    ;; with no directory at all, `locate-file' would look in `default-directory'
    (and exec-path (executable-find name))))

(defun plistspec--program (name)
  "The absolute file name of the program NAME, or nil when it cannot run.
A NAME with a directory part is taken relative to `default-directory'."
  (if (file-name-directory name)
      (let ((file (expand-file-name name)))
        (and (file-executable-p file) (not (file-directory-p file)) file))
    (plistspec--executable-find name)))

(defun plistspec--untrusted-message (program why)
  "Why PROGRAM, a project's own program, is not run: WHY, and what to do."
  (format "not running %s, %s%s" (abbreviate-file-name program) why
          (if (eq why plistspec--not-trusted)
              (substitute-command-keys " (\\[plistspec-trust-project] trusts it)")
            "")))

(defun plistspec--untrusted (program why)
  "Say once that PROGRAM, a project's own program, is not run, and WHY."
  (unless (member program plistspec--untrusted-said)
    (push program plistspec--untrusted-said)
    (message "plistspec: %s" (plistspec--untrusted-message program why))))

(defun plistspec--venv-program (dir)
  "The plistspec program of the .venv in DIR, or nil."
  (seq-some (lambda (rel)
              (let ((file (expand-file-name rel dir)))
                (and (file-executable-p file) (not (file-directory-p file)) file)))
            plistspec--venv-programs))

(defun plistspec--project-root (dir)
  "The root of DIR's project according to project.el, or nil."
  (let ((project (ignore-errors (project-current nil dir))))
    (and project (expand-file-name (project-root project)))))

(defun plistspec--find-venv-program (dir)
  "The plistspec of the virtual environment nearest to DIR in its project, or nil.
The nearest directory above DIR that has one counts when it is inside
DIR's project (or there is no project); else the project root's."
  (let ((root (plistspec--project-root dir))
        (near (locate-dominating-file dir #'plistspec--venv-program)))
    (or (and near
             (or (null root) (file-in-directory-p near root))
             (plistspec--venv-program near))
        (and root (plistspec--venv-program root)))))

(defun plistspec--python-can-import-p (python)
  "Non-nil when PYTHON imports plistspec (remembered, failures for 30 s)."
  (let ((known (assoc python plistspec--python-checked)))
    (if (and known (or (cadr known) (< (- (float-time) (cddr known)) 30)))
        (cadr known)
      (let ((ok (condition-case nil
                    (eql 0 (car (plistspec--run
                                 (list python "-P" "-c"
                                       "import importlib.util, sys; sys.exit(importlib.util.find_spec('plistspec') is None)")
                                 nil 10)))
                  (error nil))))
        (setq plistspec--python-checked
              (cons (cons python (cons ok (float-time)))
                    (assoc-delete-all python plistspec--python-checked)))
        ok))))

(defun plistspec--local-program-p (name)
  "Non-nil when NAME is a relative file name with a directory part.
Such a name is taken from the visited file's directory."
  (and (file-name-directory name) (not (file-name-absolute-p name))))

(defun plistspec--installed-program ()
  "The plistspec that \\[plistspec-install-cli] installed, or nil."
  (plistspec--program (expand-file-name "bin/plistspec" plistspec-cli-directory)))

(defun plistspec--not-found (venv why python)
  "The message saying plistspec was found nowhere.
VENV is the project's program not run (or nil), WHY the reason, and
PYTHON the `plistspec-python' found (or nil)."
  (format "plistspec was not found: %s, none installed by M-x plistspec-install-cli, none \
on exec-path, and %s.  M-x plistspec-install-cli installs it for Emacs (in %s); or \
install it where Emacs finds it (pip install plistspec, then make sure Emacs's exec-path has \
its bin directory), or set `plistspec-executable'"
          (if venv
              (plistspec--untrusted-message venv why)
            "no .venv/bin/plistspec in the project")
          (if python
              (format "%s cannot import plistspec" python)
            (format "no %s" plistspec-python))
          (abbreviate-file-name plistspec-cli-directory)))

(defun plistspec-command ()
  "Return the command line (PROGRAM ARG...) running plistspec from this buffer.
Use `plistspec-executable' when set; else the project's
.venv/bin/plistspec when you trust the project (see
`plistspec-trust-project'); else the plistspec that
\\[plistspec-install-cli] installed; else plistspec on variable
`exec-path'; else `plistspec-python' -P -m plistspec when it can
import plistspec.  Signal `plistspec-unavailable' with the reason
when none can run."
  (let ((default-directory (plistspec--directory)))
    (pcase plistspec-executable
      ((or (and (pred stringp) program (let args nil))
           `(,(and (pred stringp) program) . ,args))
       (let ((file (plistspec--program program))
             why)
         (unless file
           (signal 'plistspec-unavailable
                   (list (format "plistspec-executable names %s, which is not an executable \
program (see M-x customize-variable RET plistspec-executable)" program))))
         (when (and (plistspec--local-program-p program)
                    (setq why (plistspec-untrusted-reason file)))
           (signal 'plistspec-unavailable
                   (list (format "plistspec-executable names %s, a program of this \
project: %s" file (plistspec--untrusted-message file why)))))
         (cons file args)))
      ('nil
       (let* ((venv (plistspec--find-venv-program default-directory))
              (why (and venv (plistspec-untrusted-reason venv)))
              found python)
         (cond ((and venv (not why))
                (list venv))
               ((progn (when venv (plistspec--untrusted venv why))
                       (setq found (or (plistspec--installed-program)
                                       (plistspec--executable-find "plistspec"))))
                (list found))
               ((and (setq python (plistspec--executable-find plistspec-python))
                     (plistspec--python-can-import-p python))
                (list python "-P" "-m" "plistspec"))
               (t (signal 'plistspec-unavailable
                          (list (plistspec--not-found venv why python)))))))
      (_ (signal 'plistspec-unavailable
                 (list (format "plistspec-executable is %S, neither nil, a string nor a list \
of strings" plistspec-executable)))))))

;;;; Running it

(defun plistspec--directory ()
  "A local directory to run plistspec in and to look for it from.
That is `default-directory', or the nearest directory above it that
exists (for a new file in a new directory); the home directory for a
remote one."
  (let ((dir (and (not (file-remote-p default-directory))
                  (file-name-as-directory (expand-file-name default-directory)))))
    (while (and dir (not (file-accessible-directory-p dir)))
      (let ((parent (file-name-directory (directory-file-name dir))))
        (setq dir (and (not (equal parent dir)) parent))))
    (or dir (expand-file-name "~/"))))

(defun plistspec--process-environment ()
  "The environment of plistspec's processes: the user's, with PYTHONSAFEPATH=1.
A Python then never imports from the directory it runs in, which is
the visited file's (`python -m' and `-c' would put it first on its path)."
  (cons "PYTHONSAFEPATH=1" process-environment))

(defun plistspec--stdin-name ()
  "The file name plistspec gets for the buffer's text: its file, else its name.
plistspec finds the project's configuration from that file's directory."
  (or buffer-file-name (buffer-name)))

(defun plistspec--run-all (commands input timeout)
  "Run COMMANDS (each a program and its arguments) at once, each reading INPUT.
INPUT is a string or nil.  Return the list of their (EXIT STDOUT
STDERR), in order, where EXIT is the exit status, or a signal's name.
Stop them after TIMEOUT seconds with a `user-error'."
  (let ((default-directory (plistspec--directory))
        (process-environment (plistspec--process-environment))
        (runs nil))                     ; each (PROCESS STDOUT STDERR STDERR-PIPE)
    (unwind-protect
        (progn
          (dolist (command commands)
            (let ((run (list nil (generate-new-buffer " *plistspec-out*")
                             (generate-new-buffer " *plistspec-err*"))))
              (push run runs)
              (setcdr (cddr run) (list (make-pipe-process
                                        :name "plistspec-stderr" :buffer (nth 2 run)
                                        :noquery t :sentinel #'ignore)))
              (setcar run (condition-case nil
                              (make-process :name "plistspec" :buffer (nth 1 run)
                                            :stderr (nth 3 run) :command command
                                            :connection-type 'pipe :coding 'utf-8-unix
                                            :noquery t :sentinel #'ignore)
                            ;; Emacs 30 says so here ("Doing vfork"), 28 with exit 127:
                            ;; the user reads the same explanation from both
                            (file-error
                             (signal 'plistspec-unavailable
                                     (list (plistspec--failure (list (car command))
                                                               '(127 "" "")))))))
              ;; A program that exits at once closes the pipe: its status says why.
              (ignore-errors
                (when input (process-send-string (car run) input))
                (process-send-eof (car run)))))
          (setq runs (nreverse runs))
          (let ((deadline (+ (float-time) timeout))
                (live (lambda () (seq-some (lambda (run) (process-live-p (car run))) runs))))
            (while (and (funcall live) (< (float-time) deadline))
              (accept-process-output nil 0.05))
            (when (funcall live)
              (user-error "Plistspec did not finish within %s seconds (see `plistspec-timeout')"
                          timeout)))
          (mapcar (lambda (run)
                    (while (accept-process-output (nth 3 run) 0 nil t))
                    (list (if (eq (process-status (car run)) 'exit)
                              (process-exit-status (car run))
                            (process-status (car run)))
                          (with-current-buffer (nth 1 run) (buffer-string))
                          (with-current-buffer (nth 2 run) (buffer-string))))
                  runs))
      (dolist (run runs)
        (when (process-live-p (nth 0 run)) (delete-process (nth 0 run)))
        (when (nth 3 run) (delete-process (nth 3 run)))
        (kill-buffer (nth 1 run))
        (kill-buffer (nth 2 run))))))

(defun plistspec--run (command input timeout)
  "Run COMMAND (a program and its arguments) with INPUT on its standard input.
INPUT is a string or nil.  Return (EXIT STDOUT STDERR) where EXIT is
the exit status, or a signal's name.  Stop it after TIMEOUT seconds
with a `user-error'."
  (car (plistspec--run-all (list command) input timeout)))

(defun plistspec--call-all (arg-lists &optional input)
  "Run plistspec once for each list of arguments of ARG-LISTS, at once.
Each reads INPUT (a string or nil).  Return their (EXIT STDOUT
STDERR), in order.  Signal `plistspec-unavailable' when it cannot run
at all."
  (let* ((base (plistspec-command))
         (results (plistspec--run-all (mapcar (lambda (args) (append base args)) arg-lists)
                                      input plistspec-timeout)))
    (cl-loop for result in results
             for args in arg-lists
             when (memql (car result) '(127 256))
             do (signal 'plistspec-unavailable
                        (list (plistspec--failure (append base (list (car args))) result))))
    results))

(defun plistspec--call (args &optional input)
  "Run plistspec with ARGS and INPUT (a string or nil).
Return (EXIT STDOUT STDERR).
Signal `plistspec-unavailable' when it cannot run at all."
  (car (plistspec--call-all (list args) input)))

(defconst plistspec--cannot-start
  "it could not be started: is the program, or the interpreter its first line names, missing?"
  "Why a program failed that never started (exit 127, or Emacs could not start it).")

(defun plistspec--failure (command result)
  "Why COMMAND failed, from its RESULT (EXIT STDOUT STDERR), in one message."
  (let ((exit (nth 0 result))
        (err (string-trim (nth 2 result))))
    (format "%s failed (%s)%s" (mapconcat #'identity command " ")
            (pcase exit
              (127 plistspec--cannot-start)
              ;; what Emacs says when the program closed its input at once
              (256 "it could not be started, or closed its input at once")
              (_ (format "exit %s" exit)))
            (if (string-empty-p err) "" (concat ": " err)))))

(defun plistspec--check-options (file &rest args)
  "The options of \"plistspec check\" with ARGS, reading FILE's text from stdin."
  (append args
          (and plistspec-target (list "--target" plistspec-target))
          (and plistspec-dialect (list "--dialect" plistspec-dialect))
          (list "--stdin-filename" file "-")))

(defun plistspec--check-args (&rest args)
  "The arguments of \"plistspec check\" with ARGS, reading the buffer from stdin."
  (cons "check" (apply #'plistspec--check-options (plistspec--stdin-name) args)))

(defun plistspec--buffer-text ()
  "The whole text of the buffer, without properties, ignoring any narrowing."
  (save-restriction
    (widen)
    (buffer-substring-no-properties (point-min) (point-max))))

(defun plistspec--count-findings (stderr)
  "Count the diagnostic lines in STDERR."
  (let ((n 0) (start 0))
    (while (string-match "^[^\n]*?: \\(?:error\\|warning\\|info\\|note\\): "
                         stderr start)
      (setq n (1+ n) start (match-end 0)))
    n))

;;;; Telling the user

(defvar plistspec--warned nil
  "The problems already shown with `display-warning', so each is shown once.")

(defvar-local plistspec--problem nil
  "Why plistspec could not check this buffer the last time, or nil.")

(defun plistspec--problem (key reason)
  "Show REASON in the mode line, and in a warning once per KEY."
  (setq plistspec--problem reason)
  (force-mode-line-update)
  (unless (member key plistspec--warned)
    (push key plistspec--warned)
    (display-warning 'plistspec
                     (concat reason "\nAfter fixing it, M-x plistspec-mode twice checks again.")
                     :warning)))

;;;###autoload
(defun plistspec-show-problem ()
  "Show why plistspec could not check this buffer."
  (interactive)
  (message "%s" (or plistspec--problem "plistspec: no problem")))

(defvar plistspec--mode-line-map
  (let ((map (make-sparse-keymap)))
    (define-key map [mode-line mouse-1] #'plistspec-show-problem)
    map)
  "Keymap of the mode line indicator of `plistspec-mode'.")

(defun plistspec--mode-line ()
  "The mode line indicator of `plistspec-mode'."
  (if plistspec--problem
      (propertize " plistspec!" 'face 'warning 'mouse-face 'mode-line-highlight
                  'local-map plistspec--mode-line-map
                  'help-echo (concat plistspec--problem "\nmouse-1: show this"))
    " plistspec"))

;;;; Reading its JSON

(defun plistspec--parse (output)
  "The list of diagnostic alists in OUTPUT, or the symbol `fail'.
Use the native JSON parser, or json.el in an Emacs built without it."
  (condition-case nil
      (let ((data (if (and (fboundp 'json-available-p) (json-available-p))
                      (json-parse-string output :object-type 'alist :array-type 'list
                                         :null-object nil :false-object nil)
                    (require 'json)
                    (let ((json-object-type 'alist) (json-array-type 'list)
                          (json-key-type 'symbol) (json-null nil) (json-false nil))
                      (json-read-from-string output)))))
        (if (listp data) data 'fail))
    (error 'fail)))

(provide 'plistspec-exec)
;;; plistspec-exec.el ends here
