;;; plistspec-bridge.el --- Calling the Python tools plistspec from-py writes  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The plistspec authors

;; Author: The plistspec authors
;; URL: https://github.com/plistspec/plistspec
;; SPDX-License-Identifier: GPL-3.0-or-later

;; This file is not part of GNU Emacs.

;; This program is free software: you can redistribute it and/or modify it under the
;; terms of the GNU General Public License as published by the Free Software
;; Foundation, either version 3 of the License, or (at your option) any later version.

;;; Commentary:

;; The runtime of the files "plistspec from-py" writes: each tool's :function
;; hands its arguments to `plistspec-bridge-call' with a SPEC, a plist:
;;
;;   :root         where Python imports the module from: a directory, or a
;;                 variable holding one (the generated file's
;;                 FEATURE-python-directory, set from the file's own place
;;                 when it is loaded, so the file and its modules can move)
;;   :module-file  the module's file, relative to the root (nil: not watched)
;;   :target       "module:qualname" (or "path/file.py:qualname")
;;   :dialect      "gptel" or "llm": whose nil the arguments carry
;;   :bridge       `worker' (default) or `process'
;;   :timeout      seconds (default `plistspec-bridge-timeout')
;;   :python       the interpreter (default `plistspec-bridge-python', else
;;                 the nearest .venv above the root within its project or
;;                 home, else the one M-x plistspec-install-cli made, else
;;                 python3)
;;
;; `worker' keeps one "python -P -m plistspec worker" per module (started on
;; first use, restarted when the module's file changes or the worker dies,
;; ended with Emacs); `process' runs one "python -P -m plistspec call" per
;; call.  A call that takes longer than its timeout is stopped and the tool
;; returns an "Error:" line, as it does whenever anything else fails: the
;; model always gets one line it can act on, never a Lisp error.  An error
;; of the Python itself says which Python ran and why that one.
;;
;; A .venv is looked for from the root up to the root's project (project.el),
;; else up to the home directory, else in the root alone; a .venv whose
;; folders are writable by others, or owned by another user than you or
;; root, is passed over (another user could have planted it).

;;; Code:

(require 'seq)
(require 'subr-x)
(require 'plistspec-custom)

(declare-function project-root "project" (project))

(defgroup plistspec-bridge nil
  "Running the Python tools written by plistspec from-py."
  :group 'tools
  :prefix "plistspec-bridge-")

(defcustom plistspec-bridge-timeout 60
  "Seconds a Python tool may run before it is stopped with an error.
nil: no limit.  A tool written with \"from-py --timeout\" has its own."
  :type '(choice (const :tag "No limit" nil) number))

(defcustom plistspec-bridge-python nil
  "The Python that runs the tools written by plistspec from-py.
It needs plistspec installed.  nil: the nearest .venv/bin/python
above the tools' root directory within its project (or the home
directory), else the Python of \\[plistspec-install-cli], else python3
on variable `exec-path'.  A tool written with \"from-py --python PY\"
runs PY."
  :type '(choice (const :tag "Find it" nil) (string :tag "Program")))

(defconst plistspec-bridge--venv-pythons '(".venv/bin/python" ".venv/Scripts/python.exe")
  "Where a virtual environment keeps its Python, relative to its parent.")

(defvar plistspec-bridge--workers (make-hash-table :test 'equal)
  "The worker process (and its module file's time when it started) per module.")

(defvar plistspec-bridge--last-id 0
  "The id of the last request sent to a worker.")

(defun plistspec-bridge--error (target &rest parts)
  "One \"Error:\" line about TARGET, made of PARTS (strings, never a format string)."
  (replace-regexp-in-string
   "[\n\r]+" " " (apply #'concat "Error: the Python tool " target " " parts) t t))

(defun plistspec-bridge--root (spec)
  "The directory Python imports SPEC's module from, as a directory name."
  (let ((root (plist-get spec :root)))
    (when (and root (symbolp root))
      (setq root (and (boundp root) (symbol-value root))))
    (unless (stringp root)
      (error "No directory for the module (the :root of its spec is %S)"
             (plist-get spec :root)))
    (file-name-as-directory (expand-file-name root))))

(defun plistspec-bridge--unsafe (file)
  "Why FILE may not be trusted to hold a Python, or nil when it may.
It may not when another user than you or root owns it, or others
may write it (group write counts only for a group not your own)."
  (let* ((attrs (file-attributes file 'integer))
         (uid (file-attribute-user-id attrs))
         (modes (or (file-attribute-modes attrs) "")))
    (cond ((null attrs) "it is gone")
          ((not (memql uid (list 0 (user-uid))))
           (format "%s is owned by another user (uid %s)" file uid))
          ((eq (aref modes 0) ?l) nil)  ; a link's own modes mean nothing
          ((or (eq (aref modes 8) ?w)
               (and (eq (aref modes 5) ?w)
                    (not (eql (file-attribute-group-id attrs) (group-gid)))))
           (format "%s is writable by others (%s)" file modes)))))

(defun plistspec-bridge--search-top (root)
  "Return the last directory to look for a .venv in from ROOT, or nil.
ROOT's project root (project.el), else the home directory when ROOT
is inside it, else nil: no such bound, the search then stops below
the first directory others may write (e.g. the temporary folder)."
  (let ((project (ignore-errors (project-current nil root)))
        (home (file-name-as-directory (expand-file-name "~"))))
    (cond (project (file-name-as-directory (expand-file-name (project-root project))))
          ((string-prefix-p home root) home))))

(defun plistspec-bridge--venv-python (root)
  "(PYTHON . WHY) of the nearest safe .venv from ROOT up to its project, or nil.
WHY says where it was found, and which .venv was passed over and why;
PYTHON is nil when a .venv was found but passed over."
  (let ((top (plistspec-bridge--search-top root))
        (dir (file-name-as-directory root))
        (notes nil)
        found)
    (while dir
      (let ((bad (plistspec-bridge--unsafe (directory-file-name dir))))
        (if bad
            (setq notes (cons (concat "the search stopped: " bad) notes)
                  dir nil)
          (dolist (rel plistspec-bridge--venv-pythons)
            (let ((python (expand-file-name rel dir)))
              (when (and (not found) (file-executable-p python))
                (let ((bad (seq-some #'plistspec-bridge--unsafe
                                     (list (expand-file-name ".venv" dir)
                                           (directory-file-name (file-name-directory python))
                                           python))))
                  (if bad
                      (push (concat "passed over " python ": " bad) notes)
                    (setq found python))))))
          (setq dir (and (not found) (not (equal dir top))
                         (let ((up (file-name-directory (directory-file-name dir))))
                           (and (not (equal up dir)) up)))))))
    (cond (found
           (cons found (concat "the nearest .venv above the module folder"
                               (if top (concat ", up to " (abbreviate-file-name top)) "")
                               (if notes (concat "; " (string-join (nreverse notes) "; ")) ""))))
          (notes (cons nil (string-join (nreverse notes) "; "))))))

(defun plistspec-bridge--python (spec root)
  "Return (PYTHON . WHY): the Python to run SPEC's tool, its module in ROOT.
WHY says why that Python was taken, for error messages."
  (let ((installed (expand-file-name "bin/python" plistspec-cli-directory))
        (venv nil))
    (cond ((plist-get spec :python)
           (cons (plist-get spec :python) "the tool's own (from-py --python)"))
          (plistspec-bridge-python
           (cons plistspec-bridge-python "the option plistspec-bridge-python"))
          ((car (setq venv (plistspec-bridge--venv-python root))) venv)
          ((file-executable-p installed)
           (cons installed (concat "the Python M-x plistspec-install-cli made (no .venv above "
                                   "the module folder"
                                   (if venv (concat "; " (cdr venv)) "") ")")))
          (t (cons (or (executable-find "python3") "python3")
                   (concat "python3 on exec-path (no .venv above the module folder, "
                           "no M-x plistspec-install-cli"
                           (if venv (concat "; " (cdr venv)) "") ")"))))))

(defun plistspec-bridge--why-not (err)
  "Why a process could not be started, from ERR, in the same words on every Emacs.
Emacs 30 signals a file error (\"Doing vfork\") where 28 starts the
process and reports exit 127."
  (if (memq 'file-error (get (car err) 'error-conditions))
      "the program, or the interpreter its first line names, is missing"
    (error-message-string err)))

(defun plistspec-bridge--which (run)
  "The words saying which Python RUN used and why, for an error line."
  (concat " [Python: " (nth 0 run) ", " (nth 5 run) "]"))

(defun plistspec-bridge--hint (text)
  "Return what to do if TEXT, what a Python said, means it lacks plistspec.
Else return \"\"."
  (if (string-match-p "No module named '?plistspec\\_>" text)
      (concat " -- that Python has no plistspec: set plistspec-bridge-python to a Python "
              "that has it (M-x plistspec-install-cli makes one), install plistspec into it, "
              "or write the file again with from-py --python PYTHON")
    ""))

(defun plistspec-bridge--objects (value)
  "Return VALUE with each plist in it (a JSON object to gptel) a hash table.
Its keys are the keywords' names without the colon: `json-serialize'
writes the keyword `:' (gptel's reading of the key \"\") as \":\"."
  (cond ((and (consp value) (keywordp (car value)))
         (let ((table (make-hash-table :test #'equal)))
           (while value
             (puthash (substring (symbol-name (car value)) 1)
                      (plistspec-bridge--objects (cadr value)) table)
             (setq value (cddr value)))
           table))
        ((vectorp value) (vconcat (mapcar #'plistspec-bridge--objects value)))
        (t value)))

(defun plistspec-bridge--json (spec args)
  "ARGS (an alist, nil values included) as JSON text for SPEC's library."
  (decode-coding-string
   (if (equal (plist-get spec :dialect) "llm")
       (json-serialize args :null-object :null :false-object :false)
     (json-serialize (mapcar (lambda (arg)
                               (cons (car arg) (plistspec-bridge--objects (cdr arg))))
                             args)
                     :null-object :null :false-object :json-false))
   'utf-8))

(defun plistspec-bridge--result (run status output)
  "The tool's text from OUTPUT of a \"plistspec call\" for RUN.
STATUS is the exit status of that call."
  (if (or (eql status 0) (and (memql status '(1 2 3)) (string-prefix-p "Error:" output)))
      output
    (let* ((lines (split-string (string-trim output) "\n" t))
           (last (if lines (car (last lines)) "no output")))
      (plistspec-bridge--error
       (nth 3 run) "failed (exit " (format "%s" status) "): " last
       (plistspec-bridge--hint last) (plistspec-bridge--which run)))))

(defun plistspec-bridge--spawn (run json callback)
  "Run one \"plistspec call\" for RUN with JSON on its input.
RUN is (PYTHON ROOT MODULE-FILE TARGET DIALECT WHY).  CALLBACK gets the
tool's text.  Return (STOP . PROCESS): STOP, a function of one
argument (why), stops the call."
  (let* ((target (nth 3 run))
         (default-directory (nth 1 run))
         (buf (generate-new-buffer " *plistspec-call*"))
         (done nil)
         (proc nil)
         (finish (lambda (text)
                   (unless done
                     (setq done t)
                     (when (buffer-live-p buf) (kill-buffer buf))
                     (funcall callback text)))))
    (condition-case err
        (progn
          (setq proc
                (make-process
                 :name "plistspec-call" :buffer buf
                 :command (list (nth 0 run) "-P" "-m" "plistspec" "call"
                                "--from" (nth 4 run) target)
                 :coding 'utf-8-unix :connection-type 'pipe :noquery t
                 :sentinel
                 (lambda (p _event)
                   (unless (process-live-p p)
                     (funcall finish
                              (condition-case err
                                  (plistspec-bridge--result
                                   run (process-exit-status p)
                                   (with-current-buffer buf (buffer-string)))
                                (error (plistspec-bridge--error
                                        target "failed: " (error-message-string err)))))))))
          (process-send-string proc json)
          (process-send-eof proc))
      (error
       ;; A Python that ended at once (no plistspec in it) makes the send fail: its
       ;; sentinel, still to run, says why (its exit status and what it printed).
       (unless (and proc (not (process-live-p proc)))
         (when (and proc (process-live-p proc)) (delete-process proc))
         (funcall finish (plistspec-bridge--error
                          target "could not be started: " (plistspec-bridge--why-not err)
                          (plistspec-bridge--which run))))))
    (cons (lambda (why)
            (unless done
              (funcall finish (plistspec-bridge--error target why))
              (when (and proc (process-live-p proc)) (delete-process proc))))
          proc)))

(defun plistspec-bridge--filter (proc output)
  "Hand each complete answer line in OUTPUT of worker PROC to its caller.
An unfinished line is kept in pieces (joined once complete: linear in its size)."
  (let ((start 0) end)
    (while (setq end (save-match-data (string-match "\n" output start)))
      (let ((line (apply #'concat
                         (nreverse (cons (substring output start end)
                                         (process-get proc 'plistspec-partial))))))
        (process-put proc 'plistspec-partial nil)
        (setq start (1+ end))
        (plistspec-bridge--answer proc line)))
    (when (< start (length output))
      (process-put proc 'plistspec-partial
                   (cons (substring output start) (process-get proc 'plistspec-partial))))))

(defun plistspec-bridge--answer (proc line)
  "Call the caller waiting on worker PROC for the answer LINE."
  (let* ((msg (and (string-prefix-p "{" line)
                   (ignore-errors (json-parse-string line :object-type 'plist))))
         (id (plist-get msg :id)))
    (if (not id)
        (process-put proc 'plistspec-noise line) ; e.g. Python could not start
      (let* ((pending (process-get proc 'plistspec-pending))
             (entry (gethash id pending)))
        (remhash id pending)
        (when entry
          (with-demoted-errors "plistspec bridge: %S"
            (funcall (cdr entry) (plist-get msg :text))))))))

(defun plistspec-bridge--sentinel (proc event)
  "When worker PROC has ended (EVENT), each call waiting on it gets an error."
  (unless (process-live-p proc)
    (let ((pending (process-get proc 'plistspec-pending))
          (noise (process-get proc 'plistspec-noise))
          (run (process-get proc 'plistspec-run)))
      (process-put proc 'plistspec-pending (make-hash-table))
      (maphash (lambda (_id entry)
                 (with-demoted-errors "plistspec bridge: %S"
                   (funcall (cdr entry)
                            (plistspec-bridge--error
                             (car entry) "stopped: its worker ended (" (string-trim event) ")"
                             (if noise (concat ": " noise (plistspec-bridge--hint noise)) "")
                             (if run (plistspec-bridge--which run) "")))))
               pending))))

(defun plistspec-bridge--worker (run)
  "The live worker of RUN's module.
RUN is (PYTHON ROOT MODULE-FILE TARGET DIALECT WHY).  Started on first
use, restarted when it died or its module's file changed."
  (let* ((key (list (nth 0 run) (nth 1 run) (nth 2 run)))
         (file (nth 2 run))
         (mtime (and file (file-attribute-modification-time (file-attributes file))))
         (old (gethash key plistspec-bridge--workers)))
    (when (and old (or (not (process-live-p (car old)))
                       (and (not (equal (cdr old) mtime))
                            (= 0 (hash-table-count
                                  (process-get (car old) 'plistspec-pending))))))
      (when (process-live-p (car old)) (delete-process (car old)))
      (setq old nil))
    (if old
        (car old)
      (let* ((default-directory (nth 1 run))
             ;; no read delay for small answers (adaptive buffering waits up to ~30 ms)
             (process-adaptive-read-buffering nil)
             (proc (make-process
                    :name "plistspec-worker" :buffer nil
                    :command (list (nth 0 run) "-P" "-m" "plistspec" "worker")
                    :coding 'utf-8-unix :connection-type 'pipe :noquery t
                    :filter #'plistspec-bridge--filter
                    :sentinel #'plistspec-bridge--sentinel)))
        (process-put proc 'plistspec-pending (make-hash-table))
        (process-put proc 'plistspec-partial nil)
        (process-put proc 'plistspec-run run)
        (puthash key (cons proc mtime) plistspec-bridge--workers)
        proc))))

(defun plistspec-bridge--ask (run json callback)
  "Send one call for RUN (JSON arguments) to its module's worker.
CALLBACK gets the tool's text.  Return (STOP . PROCESS): STOP, a
function of one argument (why), stops the call (and the busy worker)."
  (let* ((target (nth 3 run))
         (done nil)
         (proc nil)
         (id (setq plistspec-bridge--last-id (1+ plistspec-bridge--last-id)))
         (finish (lambda (text) (unless done (setq done t) (funcall callback text)))))
    (condition-case err
        (progn
          (setq proc (plistspec-bridge--worker run))
          (puthash id (cons target finish) (process-get proc 'plistspec-pending))
          (process-send-string
           proc (concat (decode-coding-string
                         (json-serialize (vector id target (nth 4 run))) 'utf-8)
                        "\t" json "\n")))
      (error
       ;; A worker that ended at once (no plistspec in its Python) makes the send fail:
       ;; its sentinel, still to run, answers this call with why (what it printed).
       (unless (and proc (not (process-live-p proc))
                    (gethash id (process-get proc 'plistspec-pending)))
         (funcall finish (plistspec-bridge--error
                          target "could not be started: " (plistspec-bridge--why-not err)
                          (plistspec-bridge--which run))))))
    (cons (lambda (why)
            (unless done
              (when proc (remhash id (process-get proc 'plistspec-pending)))
              (funcall finish (plistspec-bridge--error target why))
              ;; the worker is still busy with this call: end it, the next call starts anew
              (when (and proc (process-live-p proc)) (delete-process proc))))
          proc)))

(defun plistspec-bridge--runnable (python why)
  "PYTHON, when it names a program that can be run; else signal an error saying so.
WHY says why that Python was taken."
  (if (if (file-name-directory python)
          (file-executable-p python)
        (executable-find python))
      python
    (error "No Python program %s (%s): set plistspec-bridge-python, or M-x \
plistspec-install-cli makes one" python why)))

(defun plistspec-bridge--run (spec)
  "(PYTHON ROOT MODULE-FILE TARGET DIALECT WHY) of SPEC, every path resolved now.
WHY says why that Python was taken."
  (let* ((root (plistspec-bridge--root spec))
         (file (plist-get spec :module-file))
         (python (plistspec-bridge--python spec root)))
    (list (plistspec-bridge--runnable (car python) (cdr python))
          root
          (and file (expand-file-name file root))
          (plist-get spec :target)
          (or (plist-get spec :dialect) "gptel")
          (cdr python))))

(defun plistspec-bridge-call (spec args &optional callback)
  "Call the Python tool of SPEC with ARGS (an alist of every argument, nil too).
SPEC is the plist the generated :function passes (see the Commentary).
With CALLBACK, return at once and call it with the tool's text later;
else wait for the text and return it.  Whatever fails, the text is an
\"Error:\" line."
  (let* ((target (or (plist-get spec :target) "(no target)"))
         (timeout (or (plist-get spec :timeout) plistspec-bridge-timeout))
         (why (concat "timed out after " (format "%s" timeout) " s"))
         (start (if (eq (plist-get spec :bridge) 'process)
                    #'plistspec-bridge--spawn
                  #'plistspec-bridge--ask))
         (run nil)
         (json (condition-case err
                   (progn
                     (setq run (plistspec-bridge--run spec))
                     (condition-case err
                         (plistspec-bridge--json spec args)
                       (error (plistspec-bridge--error
                               target "got arguments that are not JSON: "
                               (error-message-string err)))))
                 (error (plistspec-bridge--error
                         target "could not be started: " (error-message-string err)))))
         (bad (and (string-prefix-p "Error:" json) json)))
    (if callback
        (if bad
            (funcall callback bad)
          (let* ((timer nil)
                 (stop (car (funcall start run json
                                     (lambda (text)
                                       (when timer (cancel-timer timer))
                                       (funcall callback text))))))
            (when timeout (setq timer (run-at-time timeout nil stop why)))
            nil))
      (or bad
          (let* ((result nil)
                 (got nil)
                 (started (funcall start run json (lambda (text) (setq result text got t))))
                 (stop (car started))
                 (proc (cdr started))
                 (deadline (and timeout (+ (float-time) timeout))))
            (unwind-protect
                (while (not got)
                  (if (and deadline (> (float-time) deadline))
                      (funcall stop why)
                    ;; waiting on the process itself answers at once (nil: ~10 ms later)
                    (accept-process-output (and proc (process-live-p proc) proc) 0.05)))
              (unless got (funcall stop "was interrupted")))
            result)))))

(provide 'plistspec-bridge)
;;; plistspec-bridge.el ends here
