;;; plistspec-commands.el --- Commands of plistspec: fixes and JSON  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The plistspec authors

;; Author: The plistspec authors
;; URL: https://github.com/plistspec/plistspec
;; SPDX-License-Identifier: GPL-3.0-or-later

;; This file is not part of GNU Emacs.

;; This program is free software: you can redistribute it and/or modify it under the
;; terms of the GNU General Public License as published by the Free Software
;; Foundation, either version 3 of the License, or (at your option) any later version.

;;; Commentary:

;; The commands a user calls on a buffer of tool specs:
;; - `plistspec-fix-at-point' and `plistspec-fix-buffer' apply plistspec's
;;   fixes (the Flymake diagnostics' ones, or those of a check run now);
;; - `plistspec-show-json' shows the JSON the buffer's tools compile to;
;; - `plistspec-insert-from-json' inserts the tool forms made from a JSON
;;   file, its warnings in a `compilation-mode' buffer.

;;; Code:

(require 'flymake)
(require 'subr-x)
(require 'plistspec-exec)
(require 'plistspec-flymake)

;;;; Fixes

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

(provide 'plistspec-commands)
;;; plistspec-commands.el ends here
