;;; plistspec-serve-reply.el --- What crosses the socket back to plistspec  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 plistspec contributors
;; SPDX-License-Identifier: GPL-3.0-or-later

;;; Commentary:

;; The protocol of `plistspec serve' as seen from Emacs: its version
;; (`plistspec-serve-version', which plistspec checks before every request),
;; strings made text that JSON can carry (`plistspec-serve--text'), and the
;; framing of every reply (`plistspec-serve--reply'): a JSON object, UTF-8
;; encoded and base64-encoded so that it crosses the server protocol
;; untouched, or, when long, written to a file in the private folder
;; plistspec named in the request.

;;; Code:

(defconst plistspec-serve-version "2"
  "Version of the protocol between plistspec (Python) and these files.")

(defvar plistspec-serve--reply-dir nil
  "The private folder plistspec named for long replies, or nil.")

(defun plistspec-serve--text (s)
  "String S as text JSON can carry.
A unibyte string holds bytes: decoded as UTF-8; a byte that is not
UTF-8 (a Latin-1 result) becomes the Latin-1 character of that byte,
as does every raw byte of a multibyte string.  Text properties go."
  (let ((s (substring-no-properties s)))
    (unless (multibyte-string-p s)
      (setq s (decode-coding-string s 'utf-8 t)))
    (if (condition-case nil (progn (ignore (json-serialize s)) t) (error nil))
        s
      (apply #'string (mapcar (lambda (c) (if (>= c #x3fff80) (- c #x3fff00) c)) s)))))

(defconst plistspec-serve--inline-limit 4000
  "Longest reply sent inline when plistspec named a folder for replies.
The server protocol's `server-reply-print' splits what it sends into
`server-msg-size' pieces, which costs time quadratic in the length.")

(defun plistspec-serve--reply (value)
  "VALUE (a plist of strings, numbers, t, :json-false) as a reply string.
See `plistspec-serve--reply-text'."
  (plistspec-serve--reply-text
   (condition-case err
       (json-serialize value :null-object :null :false-object :json-false)
     (error
      (json-serialize
       (list :status "error" :kind "signal"
             :text (format "The result cannot be sent as JSON: %s"
                           (plistspec-serve--text (error-message-string err)))))))))

(defun plistspec-serve--reply-text (json)
  "The reply string of JSON (a JSON text).
Short replies are base64 UTF-8 JSON; a long one is written to a new
file in `plistspec-serve--reply-dir' (plistspec's private folder), and
the reply is \"@\" and its name (plistspec reads and deletes it)."
  (let ((bytes (encode-coding-string json 'utf-8 t))
        (dir plistspec-serve--reply-dir))
    (if (or (<= (length bytes) plistspec-serve--inline-limit)
            (not (and (stringp dir) (file-directory-p dir))))
        (base64-encode-string bytes t)
      (let ((file (with-file-modes #o600
                    (make-temp-file (expand-file-name "reply-" dir) nil ".json"))))
        (let ((coding-system-for-write 'binary))
          (write-region bytes nil file nil 'silent))
        (concat "@" file)))))

(provide 'plistspec-serve-reply)
;;; plistspec-serve-reply.el ends here
