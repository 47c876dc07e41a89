;;; plistspec-commands.el --- Commands of plistspec: fixes and explanations  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The plistspec authors

;; Author: The plistspec authors
;; URL: https://github.com/plistspec/plistspec
;; SPDX-License-Identifier: GPL-3.0-or-later

;; This file is not part of GNU Emacs.

;; This program is free software: you can redistribute it and/or modify it under the
;; terms of the GNU General Public License as published by the Free Software
;; Foundation, either version 3 of the License, or (at your option) any later version.

;;; Commentary:

;; The commands a user calls on the findings in a buffer of tool specs:
;; - `plistspec-fix-at-point' and `plistspec-fix-buffer' apply plistspec's
;;   fixes (the Flymake diagnostics' ones, or those of a check run now);
;; - `plistspec-explain' shows what "plistspec explain" says of the
;;   finding at point, in a help buffer.

;;; Code:

(require 'cl-lib)
(require 'flymake)
(require 'help-mode)
(require 'seq)
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
  (let* ((result (plistspec--call (plistspec--check-args "--output-format" "json" "--exit-zero")
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

;;;###autoload
(defun plistspec-fix-buffer (&optional unsafe)
  "Apply every safe fix plistspec has for the buffer.
With a prefix argument (UNSAFE non-nil), also apply the unsafe ones,
which change what gptel or llm send.  It runs \"plistspec check
--fix\" on the buffer's text, the same fix engine as the command line,
and changes only the text that differs: point and markers stay.  The
message says how many findings are left, and how many of them an
unsafe fix would mend.  Return non-nil when findings are left."
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
    (unless (equal fixed text)
      (let ((source (generate-new-buffer " *plistspec-fixed*")))
        (unwind-protect
            (progn
              (with-current-buffer source (insert fixed))
              (save-restriction
                (widen)
                (replace-buffer-contents source 2)))
          (kill-buffer source)))
      (when (bound-and-true-p flymake-mode)
        (flymake-start)))
    (message "%s" (plistspec--fix-summary
                   (and (not (equal fixed text))
                        (plistspec--count-matches "^[^\n]*?: fixed PS[0-9]+: " (nth 2 result)))
                   left
                   (if (and (not unsafe) (> left 0)) (plistspec--unsafe-fixes) 0)))
    (> left 0)))

(defun plistspec--count-matches (regexp string)
  "How many times REGEXP matches in STRING."
  (let ((n 0) (start 0))
    (while (string-match regexp string start)
      (setq n (1+ n) start (max (1+ start) (match-end 0))))
    n))

(defun plistspec--unsafe-fixes ()
  "How many findings in the buffer have an unsafe fix (checked now)."
  (let* ((result (plistspec--call (plistspec--check-args "--output-format" "json" "--exit-zero")
                                  (plistspec--buffer-text)))
         (data (plistspec--parse (nth 1 result))))
    (if (eq data 'fail)
        0
      (seq-count (lambda (item)
                   (equal (alist-get 'applicability (alist-get 'fix item)) "unsafe"))
                 data))))

(defun plistspec--fix-summary (fixed left unsafe-left)
  "The message of `plistspec-fix-buffer'.
FIXED is nil when nothing changed, else how many findings were fixed
\(0 when the program did not say); LEFT how many findings are left,
UNSAFE-LEFT how many of those an unsafe fix would mend."
  (concat "plistspec: "
          (cond ((null fixed) "nothing to fix")
                ((> fixed 0) (format "fixed %d finding%s" fixed (if (= fixed 1) "" "s")))
                (t "fixed"))
          (if (> left 0) (format "; %d finding%s left" left (if (= left 1) "" "s")) "")
          (if (> unsafe-left 0)
              (format ", %d with an unsafe fix (it changes what gptel or llm send): \
%s applies %s"
                      unsafe-left
                      (substitute-command-keys
                       "\\[universal-argument] \\[plistspec-fix-buffer]")
                      (if (= unsafe-left 1) "it" "them"))
            "")))

;;;; Explanations

(defun plistspec--codes-at (pos)
  "The codes of plistspec's findings at POS, the innermost first.
They are those of the `plistspec-flymake' diagnostics when
`flymake-mode' shows them, otherwise those of a check run now."
  (let* ((regions (if (bound-and-true-p flymake-mode)
                      (seq-filter (lambda (region)
                                    (eq (flymake-diagnostic-backend (car region))
                                        'plistspec-flymake))
                                  (plistspec--flymake-regions pos))
                    (plistspec--checked-diagnostics)))
         (here (seq-filter (lambda (region) (<= (nth 1 region) pos (nth 2 region))) regions))
         (codes nil))
    (dolist (region (sort here (lambda (a b) (< (- (nth 2 a) (nth 1 a))
                                                (- (nth 2 b) (nth 1 b))))))
      (let ((text (flymake-diagnostic-text (car region))))
        (when (string-match "\\[\\(PS[0-9]+\\)\\]\\'" text)
          (cl-pushnew (match-string 1 text) codes :test #'equal))))
    (nreverse codes)))

(defun plistspec--read-code ()
  "Ask for a diagnostic code, offering those \"plistspec explain\" lists."
  (let* ((result (plistspec--call '("explain")))
         (lines (and (eql (car result) 0) (split-string (nth 1 result) "\n" t)))
         (choice (completing-read "Explain plistspec code: " lines)))
    (upcase (car (or (split-string choice) (user-error "No code given"))))))

;;;###autoload
(defun plistspec-explain (code)
  "Show plistspec's explanation of its diagnostic CODE, in a help buffer.
Interactively, CODE is that of the finding at point (point in its
text or right after it); with a prefix argument, or when there is no
finding at point, ask for the code."
  (interactive
   (list (or (and (not current-prefix-arg) (car (plistspec--codes-at (point))))
             (plistspec--read-code))))
  (let ((result (plistspec--call (list "explain" code))))
    (unless (eql (car result) 0)
      (user-error "%s" (string-trim (if (string-empty-p (string-trim (nth 2 result)))
                                         (nth 1 result)
                                       (nth 2 result)))))
    (help-setup-xref (list #'plistspec-explain code) (called-interactively-p 'interactive))
    (with-help-window (help-buffer)
      (princ (nth 1 result)))
    code))

(provide 'plistspec-commands)
;;; plistspec-commands.el ends here
