;;; plistspec-server.el --- Client of the long-lived plistspec check server  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The plistspec authors

;; Author: The plistspec authors
;; URL: https://github.com/plistspec/plistspec
;; SPDX-License-Identifier: GPL-3.0-or-later

;; This file is not part of GNU Emacs.

;; This program is free software: you can redistribute it and/or modify it under the
;; terms of the GNU General Public License as published by the Free Software
;; Foundation, either version 3 of the License, or (at your option) any later version.

;;; Commentary:

;; One "plistspec check --server" process per command running plistspec,
;; started when first needed, ended with Emacs, started again if it dies (or
;; not for `plistspec--server-retry' seconds when it could not start).  A
;; request is a JSON header line and the text to check; each reply is handed
;; to its request's callback, in order.  `plistspec-restart-server' ends them
;; all, e.g. after upgrading plistspec.  Data over `plistspec--server-pipe-max'
;; bytes can go through a private file instead of the pipe
;; (`plistspec--server-request''s VIA-FILE), so that a process that does not
;; read cannot block Emacs on a full pipe.  A process that did not answer in
;; time can be marked late (`plistspec--server-late-p'); its next reply clears
;; the mark.  What it wrote on its standard error is kept
;; (`plistspec--server-stderr'), to say why it ended.

;;; Code:

(require 'flymake)
(require 'subr-x)
(require 'plistspec-exec)

(declare-function json-encode "json" (object))

(defvar plistspec--servers (make-hash-table :test #'equal)
  "The \"plistspec check --server\" process of each command running plistspec.")

(defvar plistspec--server-failed nil
  "Alist of (COMMAND . TIME): COMMAND's server could not start at TIME.")

(defvar plistspec--server-why nil
  "Alist of (COMMAND . WHY): how COMMAND's last server ended before answering.")

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

(defconst plistspec--server-pipe-max 16384
  "Bytes of data sent on the pipe by a request that may use a file.
Emacs waits while a pipe is full (64 KB): data longer than this goes
through a file when the request allows it.")

(defconst plistspec--server-stderr-max 4000
  "Characters of a server's standard error kept.")

(defun plistspec--server-stderr-filter (proc string)
  "Keep the last characters of STRING, standard error of a server, on PROC."
  (let ((text (concat (process-get proc 'plistspec-text) string)))
    (process-put proc 'plistspec-text
                 (if (> (length text) plistspec--server-stderr-max)
                     (substring text (- plistspec--server-stderr-max))
                   text))))

(defun plistspec--server-stderr (proc &optional wait)
  "What server PROC wrote on its standard error (the last of it).
WAIT is the seconds to wait, at most, for the rest of it to arrive."
  (let ((stderr (process-get proc 'plistspec-stderr)))
    (if (not (processp stderr))
        ""
      (when (and wait (process-live-p stderr))
        (accept-process-output stderr wait nil 1))
      (string-trim (decode-coding-string (or (process-get stderr 'plistspec-text) "")
                                         'utf-8-unix)))))

(defun plistspec--server-ended (proc)
  "How server PROC ended: its status, exit code and standard error, in a line."
  (let ((err (plistspec--server-stderr proc)))
    (format "%s%s%s" (process-status proc)
            (if (memq (process-status proc) '(exit signal))
                (format " %s" (process-exit-status proc))
              "")
            (if (string-empty-p err) ""
              (concat ": " (truncate-string-to-width
                            (replace-regexp-in-string "\n" " | " err) 600))))))

(defun plistspec--server-why (base)
  "How the last server of BASE ended before answering, or nil."
  (alist-get base plistspec--server-why nil nil #'equal))

(defun plistspec--server-late-p (proc)
  "Non-nil when server PROC was marked late and has not answered since."
  (process-get proc 'plistspec-late))

(defun plistspec--server-mark-late (proc)
  "Mark server PROC late: a request of it was not answered in time."
  (process-put proc 'plistspec-late t))

(defun plistspec--server-start (base)
  "Start \"plistspec check --server\" with BASE; return its process, or nil."
  (let* ((default-directory (plistspec--directory))
         (process-environment (plistspec--process-environment))
         (buffer (generate-new-buffer " *plistspec-server*"))
         (stderr (make-pipe-process :name "plistspec-server-stderr" :buffer nil
                                    :noquery t :coding 'binary
                                    :filter #'plistspec--server-stderr-filter
                                    :sentinel #'ignore))
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

(defun plistspec--server-send (proc token args text callback)
  "Ask server PROC to check TEXT with the options ARGS, as request TOKEN.
ARGS are the options of \"plistspec check\", TEXT the text it reads
from its standard input.  CALLBACK is called once, with the reply
\(EXIT STDOUT STDERR), or with nil when the server ended without
answering (it died, or did not answer within `plistspec-timeout')."
  (plistspec--server-request proc token `((args . ,(vconcat args)))
                             (encode-coding-string text 'utf-8-unix t) callback))

(defun plistspec--server-request (proc token head data callback &optional via-file)
  "Send server PROC the request HEAD followed by DATA, as request TOKEN.
HEAD is an alist (its kind, arguments...), to which the length of DATA,
a unibyte string, is added.  CALLBACK is called once, as for
`plistspec--server-send'.  When VIA-FILE is non-nil and DATA is longer
than `plistspec--server-pipe-max', DATA is written to a private file
the request names (removed once the request is answered or dropped):
the request then never blocks Emacs, whatever the process does."
  (let* ((file (and via-file (> (length data) plistspec--server-pipe-max)
                    (plistspec--server-data-file data)))
         (line (plistspec--json-encode
                (append head (if file
                                 `((file . ,file) (length . 0))
                               `((length . ,(length data)))))))
         (timer (run-at-time plistspec-timeout nil
                             #'plistspec--server-timeout proc token)))
    (process-put proc 'plistspec-queue
                 (append (process-get proc 'plistspec-queue)
                         (list (list token callback timer file))))
    ;; A server that died at once: its sentinel hands the request back with nil.
    (ignore-errors (process-send-string proc (if file
                                                 (concat line "\n")
                                               (concat line "\n" data))))))

(defun plistspec--server-data-file (data)
  "A new private file holding DATA (a unibyte string); its name, or nil."
  (ignore-errors
    (let ((coding-system-for-write 'binary))
      (make-temp-file "plistspec-request" nil ".json" data))))

(defun plistspec--server-done (request)
  "Cancel the timer of REQUEST, an entry of a server's queue; remove its file."
  (pcase-let ((`(,_token ,_callback ,timer ,file) request))
    (cancel-timer timer)
    (when file (ignore-errors (delete-file file)))))

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
  (process-put proc 'plistspec-late nil)
  (let* ((queue (process-get proc 'plistspec-queue))
         (request (car queue)))
    (when request
      (process-put proc 'plistspec-queue (cdr queue))
      (plistspec--server-done request)
      (funcall (nth 1 request) reply))))

(defun plistspec--server-sentinel (proc _event)
  "Clean up after server PROC ended; hand its unanswered requests back with nil.
A server that never answered is remembered as one that cannot start."
  (unless (process-live-p proc)
    (let ((base (process-get proc 'plistspec-base))
          (queue (process-get proc 'plistspec-queue))
          (stderr (process-get proc 'plistspec-stderr)))
      (process-put proc 'plistspec-queue nil)
      (when (eq (gethash base plistspec--servers) proc)
        (remhash base plistspec--servers))
      ;; what it wrote last, for `plistspec--server-stderr'
      (when (process-live-p stderr)
        (accept-process-output stderr 0 nil 1)
        (delete-process stderr))
      (unless (process-get proc 'plistspec-answered)
        (plistspec--server-failed base)
        (setf (alist-get base plistspec--server-why nil nil #'equal)
              (plistspec--server-ended proc)))
      (when (buffer-live-p (process-buffer proc)) (kill-buffer (process-buffer proc)))
      (dolist (request queue)
        (plistspec--server-done request)
        (funcall (nth 1 request) nil)))))

(defun plistspec--stop-servers ()
  "End every check server, without checking their unanswered requests again."
  (maphash (lambda (_base proc)
             (mapc #'plistspec--server-done (process-get proc 'plistspec-queue))
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
  (setq plistspec--server-failed nil plistspec--server-why nil))

(add-hook 'kill-emacs-hook #'plistspec--stop-servers)
;; a server may run a program no longer trusted, or another program is now
(add-hook 'plistspec-trust-change-hook #'plistspec-restart-server -50)

(provide 'plistspec-server)
;;; plistspec-server.el ends here
