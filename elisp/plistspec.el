;;; plistspec.el --- Check and convert LLM tool specs for gptel and llm  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The plistspec authors

;; Author: The plistspec authors
;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1"))
;; URL: https://github.com/plistspec/plistspec
;; Keywords: tools, convenience, languages
;; SPDX-License-Identifier: GPL-3.0-or-later

;; This file is not part of GNU Emacs.

;; This program is free software: you can redistribute it and/or modify it under the
;; terms of the GNU General Public License as published by the Free Software
;; Foundation, either version 3 of the License, or (at your option) any later version.

;;; Commentary:

;; Editor support for LLM tool specs written for gptel (`gptel-make-tool') and llm
;; (`llm-make-tool'), backed by the `plistspec' command-line program.
;;
;; Set-up, one line (after `require', or nothing else when installed as a package):
;;
;;   (add-hook 'emacs-lisp-mode-hook #'plistspec-mode)
;;
;; `plistspec-mode' adds the `plistspec-flymake' backend and turns on `flymake-mode':
;; each finding of "plistspec check" is underlined (unknown keys with a did-you-mean,
;; missing :type, :enum written as a list...), with the project's configuration and
;; suppressions applied, as on the command line.  When plistspec cannot be found or
;; cannot run, the mode line says "plistspec!" and a warning says why, once.
;;
;; Commands:
;; - `plistspec-fix-at-point': apply the fix of the finding at point.
;; - `plistspec-fix-buffer': apply every safe fix to the buffer (with a prefix
;;   argument, the unsafe ones too).
;; - `plistspec-show-json': show the JSON the buffer's tools compile to.
;; - `plistspec-insert-from-json': insert the tool forms made from a JSON file (an
;;   MCP tools/list, OpenAI/Anthropic/Gemini tools...); its warnings go to a
;;   `compilation-mode' buffer.
;;
;; The program is found as `plistspec-command' says: `plistspec-executable' when
;; set, else the project's .venv/bin/plistspec, else plistspec on `exec-path',
;; else "python3 -m plistspec" when that Python can import it.

;;; Code:

(require 'flymake)
(require 'subr-x)
(require 'seq)

(declare-function project-root "project" (project))
(declare-function json-read-from-string "json" (string))
(declare-function json-encode "json" (object))
(defvar json-object-type)
(defvar json-array-type)
(defvar json-key-type)
(defvar json-null)
(defvar json-false)

(defgroup plistspec nil
  "Check and convert LLM tool specs with the plistspec program."
  :group 'tools
  :prefix "plistspec-")

(defcustom plistspec-executable nil
  "How to run plistspec, or nil to find it.
A string names the program; a list is a program and its first
arguments, e.g. (\"python3\" \"-m\" \"plistspec\").  When nil,
`plistspec-command' looks for the project's .venv/bin/plistspec,
then plistspec on variable `exec-path', then runs `plistspec-python' with
\"-m plistspec\" if that Python can import plistspec."
  :type '(choice (const :tag "Find it" nil)
                 (string :tag "Program")
                 (repeat :tag "Program and arguments" string)))

(defcustom plistspec-python "python3"
  "The Python tried last to run \"-m plistspec\" when nothing else is found."
  :type 'string)

(defcustom plistspec-timeout 30
  "Seconds a plistspec command may run before it is stopped."
  :type 'number)

(defcustom plistspec-use-server t
  "Non-nil to check buffers with one long-lived \"plistspec check --server\".
Flymake then starts no new plistspec for each check: one process per
plistspec program answers the checks of every buffer, with the same
findings.  When that process cannot start (e.g. an older plistspec),
each check runs its own \"plistspec check\", as when this is nil."
  :type 'boolean)

(defcustom plistspec-target nil
  "Provider whose rules `plistspec-flymake' also checks, or nil for none.
When nil, the project's configuration decides."
  :type '(choice (const :tag "None" nil)
                 (const "openai") (const "openai-strict") (const "openai-responses")
                 (const "anthropic") (const "gemini") (const "bedrock")
                 (const "ollama") (const "mcp")))

(defcustom plistspec-dialect nil
  "Library whose rules apply to every tool, or nil.
When nil, the project's configuration or each form's own library decides."
  :type '(choice (const :tag "Each form's own" nil) (const "gptel") (const "llm")))

(defconst plistspec-providers
  '("ir" "openai" "openai-responses" "anthropic" "gemini" "vertex" "bedrock" "ollama" "mcp")
  "Formats `plistspec-show-json' can show.")

(define-error 'plistspec-unavailable "Plistspec cannot run" 'user-error)

;;;; Finding the program

(defconst plistspec--venv-programs '(".venv/bin/plistspec" ".venv/Scripts/plistspec.exe")
  "Where a virtual environment at a project's root keeps plistspec.")

(defvar plistspec--python-checked nil
  "Alist of (PYTHON OK . TIME): whether PYTHON could import plistspec, and when.")

(defun plistspec--program (name)
  "The absolute file name of the program NAME, or nil when it cannot run.
A NAME with a directory part is taken relative to `default-directory'."
  (if (file-name-directory name)
      (let ((file (expand-file-name name)))
        (and (file-executable-p file) (not (file-directory-p file)) file))
    (executable-find name)))

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
                                 (list python "-c"
                                       "import importlib.util, sys; sys.exit(importlib.util.find_spec('plistspec') is None)")
                                 nil 10)))
                  (error nil))))
        (setq plistspec--python-checked
              (cons (cons python (cons ok (float-time)))
                    (assoc-delete-all python plistspec--python-checked)))
        ok))))

(defun plistspec-command ()
  "Return the command line (PROGRAM ARG...) running plistspec from this buffer.
Use `plistspec-executable' when set; else the project's
.venv/bin/plistspec; else plistspec on variable `exec-path'; else
`plistspec-python' -m plistspec when it can import plistspec.
Signal `plistspec-unavailable' with the reason when none can run."
  (let ((default-directory (plistspec--directory)))
    (pcase plistspec-executable
      ((or (and (pred stringp) program (let args nil))
           `(,(and (pred stringp) program) . ,args))
       (let ((file (plistspec--program program)))
         (unless file
           (signal 'plistspec-unavailable
                   (list (format "plistspec-executable names %s, which is not an executable \
program (see M-x customize-variable RET plistspec-executable)" program))))
         (cons file args)))
      ('nil
       (let (found python)
         (cond ((setq found (plistspec--find-venv-program default-directory))
                (list found))
               ((setq found (executable-find "plistspec"))
                (list found))
               ((and (setq python (executable-find plistspec-python))
                     (plistspec--python-can-import-p python))
                (list python "-m" "plistspec"))
               (t (signal 'plistspec-unavailable
                          (list (format "plistspec was not found: no .venv/bin/plistspec in \
the project, none on exec-path, and %s; install it (pip install plistspec) or set \
`plistspec-executable'"
                                        (if python
                                            (format "%s cannot import plistspec" python)
                                          (format "no %s" plistspec-python)))))))))
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

(defun plistspec--stdin-name ()
  "The file name plistspec gets for the buffer's text: its file, else its name.
plistspec finds the project's configuration from that file's directory."
  (or buffer-file-name (buffer-name)))

(defun plistspec--run (command input timeout)
  "Run COMMAND (a program and its arguments) with INPUT on its standard input.
INPUT is a string or nil.  Return (EXIT STDOUT STDERR) where EXIT is
the exit status, or a signal's name.  Stop it after TIMEOUT seconds
with a `user-error'."
  (let* ((out (generate-new-buffer " *plistspec-out*"))
         (err (generate-new-buffer " *plistspec-err*"))
         (default-directory (plistspec--directory))
         (stderr-proc (make-pipe-process :name "plistspec-stderr" :buffer err
                                         :noquery t :sentinel #'ignore))
         (proc nil))
    (unwind-protect
        (progn
          (setq proc (condition-case e
                         (make-process :name "plistspec" :buffer out :stderr stderr-proc
                                       :command command :connection-type 'pipe
                                       :coding 'utf-8-unix :noquery t :sentinel #'ignore)
                       (file-error
                        (signal 'plistspec-unavailable
                                (list (format "cannot run %s: %s" (car command)
                                              (error-message-string e)))))))
          ;; A program that exits at once closes the pipe: its status says why.
          (ignore-errors
            (when input (process-send-string proc input))
            (process-send-eof proc))
          (let ((deadline (+ (float-time) timeout)))
            (while (and (process-live-p proc) (< (float-time) deadline))
              (accept-process-output proc 0.05)))
          (when (process-live-p proc)
            (delete-process proc)
            (user-error "Plistspec did not finish within %s seconds (see `plistspec-timeout')"
                        timeout))
          (while (accept-process-output stderr-proc 0 nil t))
          (list (if (eq (process-status proc) 'exit)
                    (process-exit-status proc)
                  (process-status proc))
                (with-current-buffer out (buffer-string))
                (with-current-buffer err (buffer-string))))
      (when (process-live-p proc) (delete-process proc))
      (delete-process stderr-proc)
      (kill-buffer out)
      (kill-buffer err))))

(defun plistspec--call (args &optional input)
  "Run plistspec with ARGS and INPUT (a string or nil).
Return (EXIT STDOUT STDERR).
Signal `plistspec-unavailable' when it cannot run at all."
  (let* ((base (plistspec-command))
         (result (plistspec--run (append base args) input plistspec-timeout)))
    (when (memql (car result) '(127 256))
      (signal 'plistspec-unavailable
              (list (plistspec--failure (append base (list (car args))) result))))
    result))

(defun plistspec--failure (command result)
  "Why COMMAND failed, from its RESULT (EXIT STDOUT STDERR), in one message."
  (let ((exit (nth 0 result))
        (err (string-trim (nth 2 result))))
    (format "%s failed (%s)%s" (mapconcat #'identity command " ")
            (pcase exit
              (127 "exit 127: it could not be started; is its Python interpreter missing?")
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

;;;; Flymake

(defvar-local plistspec--flymake-process nil
  "The check of this buffer in progress, if any.
A plistspec process, or the token of a request to the check server.")

(defun plistspec--position (line column)
  "Buffer position of 1-based LINE and COLUMN (characters), clamped to the line."
  (save-excursion
    (goto-char (point-min))
    (forward-line (max 0 (1- line)))
    (min (+ (point) (max 0 (1- column))) (line-end-position))))

(defun plistspec--diagnostic (buffer item)
  "A Flymake diagnostic in BUFFER for ITEM, one parsed JSON object of `check'."
  (let* ((line (or (alist-get 'line item) 0))
         (column (or (alist-get 'column item) 0))
         (end-line (or (alist-get 'end_line item) 0))
         (end-column (or (alist-get 'end_column item) 0))
         (severity (alist-get 'severity item))
         (type (cond ((equal severity "error") :error)
                     ((equal severity "warning") :warning)
                     (t :note)))
         (text (format "%s [%s]" (alist-get 'message item) (alist-get 'code item)))
         beg end)
    (with-current-buffer buffer
      (save-restriction
        (widen)
        (if (< line 1)
            (setq beg (point-min) end (min (point-max) (1+ (point-min))))
          (setq beg (plistspec--position line column))
          (setq end (if (>= end-line 1) (plistspec--position end-line end-column) beg))
          (when (<= end beg)
            (let ((region (flymake-diag-region buffer line (max column 1))))
              (if region
                  (setq beg (car region) end (cdr region))
                (setq end (min (point-max) (1+ beg)))))))))
    (flymake-make-diagnostic buffer beg end type text
                             (plistspec--fix-data buffer (alist-get 'fix item)))))

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

(defun plistspec--flymake-report (source report-fn base result)
  "Report RESULT, (EXIT STDOUT STDERR) of checking SOURCE, through REPORT-FN.
BASE is the command that ran plistspec, for the message when it failed."
  (pcase-let* ((`(,exit ,output ,err) result)
               (data (plistspec--parse output)))
    (if (and (eql exit 0) (not (eq data 'fail)))
        (progn
          (with-current-buffer source (setq plistspec--problem nil))
          (funcall report-fn
                   (mapcar (lambda (item) (plistspec--diagnostic source item)) data)))
      (let* ((err (string-trim err))
             (reason (plistspec--failure
                      (append base '("check"))
                      (list exit output (if (string-empty-p err) output err)))))
        (flymake-log :error "%s" reason)
        (with-current-buffer source
          ;; once per program and exit status: a crash after a bad configuration is news
          (plistspec--problem
           (list 'failed base (if (memql exit '(127 256)) 'not-started exit)) reason))
        (funcall report-fn :panic :explanation reason)))))

(defun plistspec--flymake-done (proc source report-fn stderr)
  "Report the findings of PROC, which checked SOURCE, through REPORT-FN.
STDERR is the buffer holding the process's standard error."
  (plistspec--flymake-report
   source report-fn (process-get proc 'plistspec-base)
   (list (if (eq (process-status proc) 'exit) (process-exit-status proc)
           (process-status proc))
         (with-current-buffer (process-buffer proc) (buffer-string))
         (if (buffer-live-p stderr) (with-current-buffer stderr (buffer-string)) ""))))

(defun plistspec--flymake-forget ()
  "Forget this buffer's check in progress, ending its process if it has one."
  (let ((old plistspec--flymake-process))
    ;; Forget it first: its sentinel may run inside `delete-process'.
    (setq plistspec--flymake-process nil)
    (when (and (processp old) (process-live-p old))
      (delete-process old))))

;;;###autoload
(defun plistspec-flymake (report-fn &rest _args)
  "Flymake backend: check the buffer with plistspec and call REPORT-FN.
It runs \"plistspec check --format json\" with the buffer's file name
as --stdin-filename, so the project's configuration applies.  With
`plistspec-use-server', one \"plistspec check --server\" kept running
answers instead of a new process for each check."
  (plistspec--flymake-forget)
  (let ((base (condition-case e
                  (plistspec-command)
                (plistspec-unavailable
                 (plistspec--problem 'unavailable (cadr e))
                 nil))))
    (cond
     ;; Not disabled: the next check looks again, e.g. after a pip install.
     ((null base) (funcall report-fn nil))
     ((and plistspec-use-server (plistspec--server-check base report-fn)))
     (t (plistspec--flymake-one-shot base report-fn)))))

(defun plistspec--flymake-one-shot (base report-fn)
  "Check the buffer with a new \"plistspec check\" run by BASE; report to REPORT-FN."
  (condition-case e
      (plistspec--flymake-start base report-fn)
    (file-error
     (let ((reason (format "cannot run %s: %s" (car base) (error-message-string e))))
       (plistspec--problem (cons 'failed base) reason)
       (funcall report-fn :panic :explanation reason)))))

;;;; The check server

(defvar plistspec--servers (make-hash-table :test #'equal)
  "The \"plistspec check --server\" process of each command running plistspec.")

(defvar plistspec--server-failed nil
  "Alist of (COMMAND . TIME): COMMAND's server could not start at TIME.")

(defconst plistspec--server-retry 60
  "Seconds before a command whose server could not start is tried again.")

(defun plistspec--server (base)
  "The live check server of BASE, started now if need be, or nil.
Nil when it cannot start, or could not start recently."
  (let ((proc (gethash base plistspec--servers))
        (failed (assoc base plistspec--server-failed)))
    (cond ((process-live-p proc) proc)
          ((and failed (< (- (float-time) (cdr failed)) plistspec--server-retry)) nil)
          (t (plistspec--server-start base)))))

(defun plistspec--server-start (base)
  "Start \"plistspec check --server\" with BASE; return its process, or nil."
  (let* ((default-directory (plistspec--directory))
         (buffer (generate-new-buffer " *plistspec-server*"))
         (stderr (make-pipe-process :name "plistspec-server-stderr" :buffer nil
                                    :noquery t :filter #'ignore :sentinel #'ignore))
         (proc (condition-case nil
                   (make-process :name "plistspec-server" :buffer buffer
                                 :command (append base '("check" "--server"))
                                 :connection-type 'pipe :coding 'binary :noquery t
                                 :stderr stderr
                                 :filter #'plistspec--server-filter
                                 :sentinel #'plistspec--server-sentinel)
                 (file-error nil))))
    (if (null proc)
        (progn
          (delete-process stderr)
          (kill-buffer buffer)
          (plistspec--server-failed base)
          nil)
      (with-current-buffer buffer (set-buffer-multibyte nil))
      (process-put proc 'plistspec-base base)
      (process-put proc 'plistspec-stderr stderr)
      (puthash base proc plistspec--servers)
      proc)))

(defun plistspec--server-failed (base)
  "Remember that the server of BASE could not start."
  (setq plistspec--server-failed
        (cons (cons base (float-time)) (assoc-delete-all base plistspec--server-failed))))

(defun plistspec--json-encode (value)
  "VALUE as JSON text encoded in UTF-8 (a unibyte string), on one line."
  (require 'json)
  (encode-coding-string (json-encode value) 'utf-8-unix))

(defun plistspec--server-check (base report-fn)
  "Send the buffer to the check server of BASE, to report its reply to REPORT-FN.
Return nil when there is no server to send it to."
  (let ((proc (plistspec--server base)))
    (when proc
      (let* ((token (list 'plistspec-request))
             ;; the server runs elsewhere: configuration is found from an absolute name
             (file (expand-file-name (plistspec--stdin-name) (plistspec--directory)))
             (data (encode-coding-string (plistspec--buffer-text) 'utf-8-unix t))
             (head (plistspec--json-encode
                    `((args . ,(vconcat (plistspec--check-options
                                         file "--format" "json" "--exit-zero")))
                      (length . ,(length data)))))
             (timer (run-at-time plistspec-timeout nil
                                 #'plistspec--server-timeout proc token)))
        (setq plistspec--flymake-process token)
        (process-put proc 'plistspec-queue
                     (append (process-get proc 'plistspec-queue)
                             (list (list token (current-buffer) report-fn timer))))
        ;; A server that died at once: its sentinel checks the request another way.
        (ignore-errors (process-send-string proc (concat head "\n" data)))
        t))))

(defun plistspec--current-request-p (source token)
  "Non-nil when TOKEN is still the check in progress of buffer SOURCE."
  (and (buffer-live-p source)
       (eq token (buffer-local-value 'plistspec--flymake-process source))))

(defun plistspec--server-timeout (proc token)
  "End server PROC when the request TOKEN is still unanswered."
  (when (assq token (process-get proc 'plistspec-queue))
    (flymake-log :warning "plistspec check --server did not answer within %s seconds"
                 plistspec-timeout)
    (delete-process proc)))

(defun plistspec--server-take-reply ()
  "Remove the first complete reply from the current buffer and return it.
The value is (EXIT STDOUT STDERR), nil when no reply is complete yet,
or `bad' when the output is not a reply."
  (goto-char (point-min))
  (when (search-forward "\n" nil t)
    (let* ((head (plistspec--parse (buffer-substring (point-min) (1- (point)))))
           (exit (and (consp head) (alist-get 'exit head)))
           (out (and (consp head) (alist-get 'stdout head)))
           (err (and (consp head) (alist-get 'stderr head)))
           (start (point)))
      (cond ((not (and (integerp exit) (natnump out) (natnump err))) 'bad)
            ((<= (+ start out err) (point-max))
             (prog1 (list exit
                          (decode-coding-string (buffer-substring start (+ start out))
                                                'utf-8-unix)
                          (decode-coding-string (buffer-substring (+ start out)
                                                                  (+ start out err))
                                                'utf-8-unix))
               (delete-region (point-min) (+ start out err))))))))

(defun plistspec--server-filter (proc string)
  "Take STRING, output of server PROC, and answer each request it completes."
  (let ((buffer (process-buffer proc))
        (replies nil) (reply nil))
    (when (buffer-live-p buffer)
      (with-current-buffer buffer
        (goto-char (point-max))
        (insert string)
        (while (consp (setq reply (plistspec--server-take-reply)))
          (push reply replies)))
      (dolist (reply (nreverse replies))
        (plistspec--server-answer proc reply))
      (when (eq reply 'bad)
        (flymake-log :warning "plistspec check --server sent something else than a reply")
        (unless (process-get proc 'plistspec-answered)
          (plistspec--server-failed (process-get proc 'plistspec-base)))
        (delete-process proc)))))

(defun plistspec--server-answer (proc reply)
  "Hand REPLY, (EXIT STDOUT STDERR) from server PROC, to its request."
  (process-put proc 'plistspec-answered t)
  (let* ((queue (process-get proc 'plistspec-queue))
         (request (car queue)))
    (when request
      (process-put proc 'plistspec-queue (cdr queue))
      (pcase-let ((`(,token ,source ,report-fn ,timer) request))
        (cancel-timer timer)
        (if (plistspec--current-request-p source token)
            (progn
              (with-current-buffer source (setq plistspec--flymake-process nil))
              (plistspec--flymake-report source report-fn
                                         (process-get proc 'plistspec-base) reply))
          (flymake-log :debug "Ignoring the reply to an obsolete check"))))))

(defun plistspec--server-sentinel (proc _event)
  "Clean up after server PROC ended; check its unanswered requests another way.
A server that never answered is remembered as one that cannot start."
  (unless (process-live-p proc)
    (let ((base (process-get proc 'plistspec-base))
          (queue (process-get proc 'plistspec-queue))
          (stderr (process-get proc 'plistspec-stderr)))
      (process-put proc 'plistspec-queue nil)
      (when (eq (gethash base plistspec--servers) proc)
        (remhash base plistspec--servers))
      (unless (process-get proc 'plistspec-answered)
        (plistspec--server-failed base))
      (when (process-live-p stderr) (delete-process stderr))
      (when (buffer-live-p (process-buffer proc)) (kill-buffer (process-buffer proc)))
      (dolist (request queue)
        (pcase-let ((`(,token ,source ,report-fn ,timer) request))
          (cancel-timer timer)
          (when (plistspec--current-request-p source token)
            (with-current-buffer source
              (plistspec--flymake-one-shot base report-fn))))))))

(defun plistspec--stop-servers ()
  "End every check server, without checking their unanswered requests again."
  (maphash (lambda (_base proc)
             (process-put proc 'plistspec-queue nil)
             (when (process-live-p proc) (delete-process proc)))
           plistspec--servers)
  (clrhash plistspec--servers))

;;;###autoload
(defun plistspec-restart-server ()
  "End the \"plistspec check --server\" processes (started again when needed).
Use it after upgrading plistspec, so that checks run the new version."
  (interactive)
  (plistspec--stop-servers)
  (setq plistspec--server-failed nil))

(add-hook 'kill-emacs-hook #'plistspec--stop-servers)

(defmacro plistspec--or-clean-up (things &rest body)
  "Run BODY; if it signals, delete the processes and kill the buffers in THINGS."
  (declare (indent 1))
  (let ((done (make-symbol "done")))
    `(let ((,done nil))
       (unwind-protect
           (prog1 (progn ,@body) (setq ,done t))
         (unless ,done
           (dolist (thing ,things)
             (cond ((processp thing) (delete-process thing))
                   ((buffer-live-p thing) (kill-buffer thing)))))))))

(defun plistspec--flymake-start (base report-fn)
  "Start \"check\" with BASE, the command running plistspec, on the buffer's text.
Report its findings through REPORT-FN."
  (let* ((source (current-buffer))
         (stdout (generate-new-buffer " *plistspec-flymake*"))
         (stderr (generate-new-buffer " *plistspec-flymake-stderr*"))
         (default-directory (plistspec--directory))
         (stderr-pipe (make-pipe-process :name "plistspec-flymake-stderr"
                                         :buffer stderr :noquery t
                                         :sentinel #'ignore))
         (proc
          (plistspec--or-clean-up
           (list stderr-pipe stdout stderr)
           (make-process
           :name "plistspec-flymake" :noquery t :connection-type 'pipe
           :buffer stdout :stderr stderr-pipe :coding 'utf-8-unix
           :command (append base (plistspec--check-args "--format" "json" "--exit-zero"))
           :sentinel
           (lambda (proc _event)
             (when (memq (process-status proc) '(exit signal))
               (unwind-protect
                   (if (and (buffer-live-p source)
                            (eq proc (buffer-local-value 'plistspec--flymake-process
                                                         source)))
                       (progn
                         ;; drain what is left of standard error before reading it
                         (while (accept-process-output stderr-pipe 0 nil t))
                         (plistspec--flymake-done proc source report-fn stderr))
                     (flymake-log :warning "Canceling obsolete check %s" proc))
                 (when (process-live-p stderr-pipe) (delete-process stderr-pipe))
                 (kill-buffer stdout)
                 (kill-buffer stderr))))))))
    (process-put proc 'plistspec-base base)
    (setq plistspec--flymake-process proc)
    (save-restriction
      (widen)
      ;; A program that exits at once closes the pipe: its sentinel reports why.
      (ignore-errors
        (process-send-region proc (point-min) (point-max))
        (process-send-eof proc)))))

;;;###autoload
(defun plistspec-flymake-setup ()
  "Add `plistspec-flymake' to this buffer's Flymake backends.
`plistspec-mode' does this and also turns on `flymake-mode'."
  (add-hook 'flymake-diagnostic-functions #'plistspec-flymake nil t))

(defvar-local plistspec--started-flymake nil
  "Non-nil when `plistspec-mode' turned `flymake-mode' on in this buffer.")

;;;###autoload
(define-minor-mode plistspec-mode
  "Check the LLM tool specs of this buffer with plistspec, through Flymake.
Adds `plistspec-flymake' to the buffer's Flymake backends and turns
on `flymake-mode'.  The mode line shows \"plistspec!\" when plistspec
cannot run; \\[plistspec-show-problem] says why.  Set it up for every
Emacs Lisp buffer with:

  (add-hook \\='emacs-lisp-mode-hook #\\='plistspec-mode)"
  :lighter (:eval (plistspec--mode-line))
  (if plistspec-mode
      (progn
        (setq plistspec--problem nil)
        (plistspec-flymake-setup)
        (if (bound-and-true-p flymake-mode)
            (flymake-start nil t)
          (setq plistspec--started-flymake t)
          (flymake-mode 1)))
    (remove-hook 'flymake-diagnostic-functions #'plistspec-flymake t)
    (setq plistspec--problem nil)
    (plistspec--flymake-forget)
    (when (bound-and-true-p flymake-mode)
      (if plistspec--started-flymake
          (flymake-mode -1)
        (flymake-start nil t)))
    (setq plistspec--started-flymake nil)))

;;;; Fixes

(defun plistspec--fix-region (fix)
  "The (BEG . END) buffer positions of FIX, a parsed JSON fix, or nil.
Positions come from its 1-based `line'/`column' and `end_line'/`end_column'
\(characters), or from its 0-based `start'/`end' offsets."
  (let ((line (alist-get 'line fix))
        (start (alist-get 'start fix)))
    (save-restriction
      (widen)
      (cond
       ((and (integerp line) (>= line 1))
        (cons (plistspec--position line (or (alist-get 'column fix) 1))
              (plistspec--position (or (alist-get 'end_line fix) line)
                                   (or (alist-get 'end_column fix) 1))))
       ((and (integerp start) (integerp (alist-get 'end fix)))
        (let ((beg (+ (point-min) start))
              (end (+ (point-min) (alist-get 'end fix))))
          (and (<= end (point-max)) (cons beg end))))))))

(defun plistspec--fix-data (buffer fix)
  "Flymake data for FIX in BUFFER: markers around the text to replace.
The value is a plist (:plistspec-fix (BEG-MARKER END-MARKER OLD NEW)),
or nil when FIX is nil; the markers follow later edits of BUFFER."
  (when (and fix (alist-get 'replacement fix))
    (with-current-buffer buffer
      (let ((region (plistspec--fix-region fix)))
        (when (and region (<= (car region) (cdr region)))
          (list :plistspec-fix
                (list (copy-marker (car region))
                      (copy-marker (cdr region) t)
                      (buffer-substring-no-properties (car region) (cdr region))
                      (alist-get 'replacement fix))))))))

(defun plistspec--apply (beg end old new)
  "Replace the text OLD between BEG and END with NEW.
Signal a `user-error' when the text there is no longer OLD."
  (unless (equal (buffer-substring-no-properties beg end) old)
    (user-error "The text changed since it was checked; check again"))
  (save-excursion
    (goto-char beg)
    (delete-region beg end)
    (insert new)))

(defun plistspec--fixes-at (pos regions)
  "The (TEXT BEG END OLD NEW) fixes of REGIONS around POS, best first.
REGIONS is a list of (DIAGNOSTIC BEG END).  A fix counts when POS is
inside or right after its diagnostic (point after the key it fixes),
or inside or right after the text it replaces.  One with POS inside
comes first, then the one with the smallest region."
  (let (found)
    (dolist (region regions)
      (pcase-let* ((`(,diag ,beg ,end) region)
                   (fix (plist-get (flymake-diagnostic-data diag) :plistspec-fix)))
        (when fix
          (let ((fix-beg (marker-position (nth 0 fix)))
                (fix-end (marker-position (nth 1 fix))))
            (unless (<= beg pos end)
              (setq beg fix-beg end fix-end))
            (when (<= beg pos end)
              (push (list (if (or (< pos end) (= beg end)) 0 1) (- end beg)
                          (cons (flymake-diagnostic-text diag) fix))
                    found))))))
    (mapcar (lambda (item) (nth 2 item))
            (sort found (lambda (a b)
                          (or (< (car a) (car b))
                              (and (= (car a) (car b)) (< (cadr a) (cadr b)))))))))

(defun plistspec--flymake-regions (pos)
  "The (DIAGNOSTIC BEG END) of the Flymake diagnostics at or next to POS.
BEG and END are where the diagnostic's text is now, after any edits."
  (let (found)
    (dolist (ov (overlays-in (max (point-min) (1- pos)) (min (point-max) (1+ pos))))
      (let ((diag (overlay-get ov 'flymake-diagnostic)))
        (when diag
          (push (list diag (overlay-start ov) (overlay-end ov)) found))))
    found))

(defun plistspec--checked-diagnostics ()
  "Run plistspec check on the buffer now; return the (DIAGNOSTIC BEG END) found."
  (let* ((result (plistspec--call (plistspec--check-args "--format" "json" "--exit-zero")
                                  (plistspec--buffer-text)))
         (data (plistspec--parse (nth 1 result))))
    (when (or (not (eql (car result) 0)) (eq data 'fail))
      (user-error "%s" (plistspec--failure '("plistspec" "check") result)))
    (mapcar (lambda (item)
              (let ((diag (plistspec--diagnostic (current-buffer) item)))
                (list diag (flymake-diagnostic-beg diag) (flymake-diagnostic-end diag))))
            data)))

;;;###autoload
(defun plistspec-fix-at-point ()
  "Apply plistspec's suggested fix for the finding at point.
Point may be anywhere in the finding's text or right after it.  Use
the fixes of the `plistspec-flymake' diagnostics when `flymake-mode'
shows them, otherwise check the buffer now.  With several findings
at point, fix the one with the smallest region."
  (interactive "*")
  (let* ((pos (point))
         (fixes (or (and (bound-and-true-p flymake-mode)
                         (plistspec--fixes-at pos (plistspec--flymake-regions pos)))
                    (plistspec--fixes-at pos (plistspec--checked-diagnostics))))
         (fix (car fixes)))
    (unless fix
      (user-error "No plistspec fix at point"))
    (pcase-let ((`(,text ,beg ,end ,old ,new) fix))
      (plistspec--apply beg end old new)
      (message "Fixed: %s" text)
      (when (bound-and-true-p flymake-mode)
        (flymake-start))
      new)))

(defun plistspec--count-findings (stderr)
  "Count the diagnostic lines in STDERR."
  (let ((n 0) (start 0))
    (while (string-match "^[^\n]*?: \\(?:error\\|warning\\|info\\|note\\): "
                         stderr start)
      (setq n (1+ n) start (match-end 0)))
    n))

;;;###autoload
(defun plistspec-fix-buffer (&optional unsafe)
  "Apply every safe fix plistspec has for the buffer.
With a prefix argument (UNSAFE non-nil), also apply the unsafe ones,
which change what gptel or llm send.  It runs \"plistspec check
--fix\" on the buffer's text, the same fix engine as the command line,
and changes only the text that differs: point and markers stay."
  (interactive "*P")
  (barf-if-buffer-read-only)
  (let* ((text (plistspec--buffer-text))
         (result (plistspec--call
                  (apply #'plistspec--check-args "--fix" (and unsafe '("--unsafe-fixes")))
                  text))
         (exit (nth 0 result))
         (fixed (nth 1 result))
         (left (plistspec--count-findings (nth 2 result))))
    (unless (and (memq exit '(0 1))
                 (or (not (string-empty-p fixed)) (string-empty-p text)))
      (user-error "%s" (plistspec--failure (list "plistspec" "check" "--fix") result)))
    (if (equal fixed text)
        (message "plistspec: nothing to fix%s"
                 (if (> left 0) (format " (%d findings without a safe fix)" left) ""))
      (let ((source (generate-new-buffer " *plistspec-fixed*")))
        (unwind-protect
            (progn
              (with-current-buffer source (insert fixed))
              (save-restriction
                (widen)
                (replace-buffer-contents source 2)))
          (kill-buffer source)))
      (message "plistspec: fixed%s" (if (> left 0) (format "; %d findings left" left) ""))
      (when (bound-and-true-p flymake-mode)
        (flymake-start)))
    (> left 0)))

;;;; JSON

(defvar plistspec--format-history nil
  "Formats chosen in `plistspec-show-json'.")

(defun plistspec-json-string (provider &optional dialect)
  "The JSON the current buffer's tools compile to for PROVIDER, as a string.
DIALECT (\"gptel\" or \"llm\") overrides each form's own library.  Signal
an error with plistspec's messages when it fails."
  (let* ((args (append (list "to-json" "--format" provider)
                       (and dialect (list "--dialect" dialect))
                       (list "--stdin-filename" (plistspec--stdin-name) "-")))
         (result (plistspec--call args (plistspec--buffer-text))))
    (unless (eql (nth 0 result) 0)
      (user-error "Plistspec to-json failed:\n%s" (string-trim (nth 2 result))))
    (nth 1 result)))

;;;###autoload
(defun plistspec-show-json (provider &optional dialect)
  "Show the JSON the buffer's tools compile to for PROVIDER.
With a prefix argument, also ask for the DIALECT (gptel or llm)."
  (interactive
   (let ((default (or (car plistspec--format-history) "openai")))
     (list (completing-read (format-prompt "Format" default) plistspec-providers nil t
                            nil 'plistspec--format-history default)
           (and current-prefix-arg
                (completing-read (format-prompt "Dialect" "gptel") '("gptel" "llm")
                                 nil t nil nil "gptel")))))
  (let ((json (plistspec-json-string provider (or dialect plistspec-dialect)))
        (out (get-buffer-create "*plistspec-json*")))
    (with-current-buffer out
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert json)
        (goto-char (point-min)))
      (if (fboundp 'js-json-mode) (funcall #'js-json-mode) (js-mode))
      (setq buffer-read-only t))
    (display-buffer out)
    out))

(defconst plistspec-from-json-buffer "*plistspec-from-json*"
  "The buffer where `plistspec-insert-from-json' shows its diagnostics.")

(defun plistspec--show-diagnostics (stderr directory)
  "Show STDERR in a `compilation-mode' buffer whose file names start at DIRECTORY.
Return the buffer."
  (let ((buffer (get-buffer-create plistspec-from-json-buffer)))
    (with-current-buffer buffer
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert stderr)
        (unless (bolp) (insert "\n")))
      (compilation-mode)
      (setq default-directory directory)
      (goto-char (point-min)))
    (display-buffer buffer)
    buffer))

;;;###autoload
(defun plistspec-insert-from-json (file &optional dialect)
  "Insert at point the tool forms made from the JSON FILE.
Only the forms are inserted (with their comments), not a whole file.
DIALECT is \"gptel\" (the default) or \"llm\"; with a prefix argument,
ask for it.  Warnings are shown in a `compilation-mode' buffer where
each one leads to its place in FILE."
  (interactive
   (progn
     (barf-if-buffer-read-only)
     (list (read-file-name "Tools JSON file: " nil nil t)
         (and current-prefix-arg
              (completing-read (format-prompt "Dialect" "gptel") '("gptel" "llm")
                               nil t nil nil "gptel")))))
  (barf-if-buffer-read-only)
  (let* ((file (expand-file-name file))
         (dialect (or dialect plistspec-dialect))
         (args (append (list "from-json" "--forms-only")
                       (and dialect (list "--dialect" dialect))
                       (list file)))
         (result (plistspec--call args))
         (stderr (nth 2 result))
         (buffer (and (not (string-empty-p (string-trim stderr)))
                      (plistspec--show-diagnostics stderr (file-name-directory file)))))
    (unless (eql (nth 0 result) 0)
      (user-error "Plistspec from-json failed%s"
                  (if buffer (format " (see %s)" plistspec-from-json-buffer)
                    (concat ": " (string-trim stderr)))))
    (when (and (null buffer) (get-buffer plistspec-from-json-buffer))
      (kill-buffer plistspec-from-json-buffer))
    (let ((forms (string-trim-right (nth 1 result))))
      (unless (bolp) (insert "\n"))
      (insert forms "\n")
      (unless (or (eobp) (looking-at-p "\n")) (insert "\n")))
    (when buffer
      (message "plistspec: %d findings, see %s"
               (plistspec--count-findings stderr) plistspec-from-json-buffer))
    buffer))

(provide 'plistspec)
;;; plistspec.el ends here
