;;; plistspec-json.el --- Commands of plistspec: tools to and from JSON  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The plistspec authors

;; Author: The plistspec authors
;; URL: https://github.com/plistspec/plistspec
;; SPDX-License-Identifier: GPL-3.0-or-later

;; This file is not part of GNU Emacs.

;; This program is free software: you can redistribute it and/or modify it under the
;; terms of the GNU General Public License as published by the Free Software
;; Foundation, either version 3 of the License, or (at your option) any later version.

;;; Commentary:

;; The commands between a buffer's tools and JSON:
;; - `plistspec-show-tool-json' shows the JSON of the tool at point, and
;;   `plistspec-show-json' that of all the buffer's tools, exactly as
;;   "plistspec to-json" prints it, by default in the format of the current
;;   gptel backend (`plistspec-backend-format');
;; - `plistspec-insert-from-json' inserts the tool forms made from a JSON
;;   file, its warnings in a `compilation-mode' buffer.

;;; Code:

(require 'cl-lib)
(require 'compile)
(require 'seq)
(require 'subr-x)
(require 'plistspec-exec)
(require 'plistspec-flymake)

(defvar gptel-backend)
(defvar gptel-model)
(defvar gptel--known-backends)
(declare-function gptel--model-capable-p "gptel-request" (cap &optional model))

;;;; The format of the current gptel backend

(defun plistspec--struct-p (object type)
  "Non-nil when OBJECT is a struct of TYPE or of a type including it.
Nil when TYPE is not defined (its library is not loaded)."
  (and (cl-find-class type) (cl-typep object type)))

(defun plistspec-backend-format (&optional backend)
  "The format of the tools JSON that gptel sends to BACKEND, or nil.
BACKEND defaults to the backend gptel uses now: `gptel-backend', else
the backend gptel 0.9.9.5 would choose (the last one defined, else its
\"ChatGPT\").  Nil when gptel is not loaded.  `gptel-make-openai' with
the host api.openai.com (gptel's default \"ChatGPT\") makes a Responses
API backend: \"openai-responses\"; with any other host (OpenAI-compatible
servers), and every backend that has no tools format of its own:
\"openai\"."
  (let ((backend (or backend
                     (and (boundp 'gptel-backend) gptel-backend)
                     (and (boundp 'gptel--known-backends) (cdar gptel--known-backends)))))
    (cond
     ((null backend) (and (boundp 'gptel-backend) "openai-responses"))
     ;; GitHub Copilot: the Responses API for the models that have it
     ((plistspec--struct-p backend 'gptel--gh)
      (if (and (boundp 'gptel-model) (fboundp 'gptel--model-capable-p)
               (ignore-errors (gptel--model-capable-p 'responses-api gptel-model)))
          "openai-responses"
        "openai"))
     ((plistspec--struct-p backend 'gptel-openai-responses) "openai-responses")
     ((plistspec--struct-p backend 'gptel-anthropic) "anthropic")
     ((plistspec--struct-p backend 'gptel-gemini) "gemini")
     ((plistspec--struct-p backend 'gptel-ollama) "ollama")
     ((plistspec--struct-p backend 'gptel-bedrock) "bedrock")
     ;; gptel-openai and the others share gptel's default tools format
     (t "openai"))))

(defvar plistspec--format-history nil
  "Formats chosen in `plistspec-show-json' and `plistspec-show-tool-json'.")

(defun plistspec--default-format ()
  "The format offered first: the current gptel backend's, else the last one chosen."
  (or (plistspec-backend-format) (car plistspec--format-history) "openai"))

(defun plistspec--read-format-and-dialect ()
  "Ask for a format and, with a prefix argument, a dialect.
The format offered first is `plistspec--default-format'."
  (let ((default (plistspec--default-format)))
    (list (completing-read (format-prompt "Format" default) plistspec-providers nil t
                           nil 'plistspec--format-history default)
          (and current-prefix-arg
               (completing-read (format-prompt "Dialect" "gptel") '("gptel" "llm")
                                nil t nil nil "gptel")))))

;;;; Showing JSON

(defun plistspec--to-json-args (provider dialect)
  "The arguments of \"plistspec to-json\" for PROVIDER and DIALECT, on the buffer."
  (append (list "to-json" "-t" provider)
          (and dialect (list "--dialect" dialect))
          (list "--stdin-filename" (plistspec--stdin-name) "-")))

(defun plistspec--to-json-output (result)
  "The JSON printed by \"plistspec to-json\", from its RESULT (EXIT STDOUT STDERR).
Signal an error with plistspec's messages when it failed."
  (unless (eql (nth 0 result) 0)
    (user-error "Plistspec to-json failed:\n%s" (string-trim (nth 2 result))))
  (nth 1 result))

(defun plistspec-json-string (provider &optional dialect)
  "The JSON the current buffer's tools compile to for PROVIDER, as a string.
DIALECT (\"gptel\" or \"llm\") overrides each form's own library.  Signal
an error with plistspec's messages when it fails."
  (plistspec--to-json-output
   (plistspec--call (plistspec--to-json-args provider dialect) (plistspec--buffer-text))))

(defun plistspec--show-json-buffer (json header)
  "Show JSON in the buffer *plistspec-json*, HEADER in its header line."
  (let ((out (get-buffer-create "*plistspec-json*")))
    (with-current-buffer out
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert json)
        (goto-char (point-min)))
      (if (fboundp 'js-json-mode) (funcall #'js-json-mode) (js-mode))
      (setq header-line-format header)
      (setq buffer-read-only t))
    (display-buffer out)
    out))

;;;###autoload
(defun plistspec-show-json (provider &optional dialect)
  "Show the JSON the buffer's tools compile to for PROVIDER.
Interactively, ask for PROVIDER, by default the format of the current
gptel backend (see `plistspec-backend-format'); with a prefix
argument, also ask for the DIALECT (gptel or llm)."
  (interactive (plistspec--read-format-and-dialect))
  (plistspec--show-json-buffer
   (plistspec-json-string provider (or dialect plistspec-dialect))
   (format "The tools of %s: %s" (buffer-name) provider)))

;;;; The tool at point

(defconst plistspec--json-syntax-table
  (let ((table (make-syntax-table)))
    (modify-syntax-entry ?\" "\"" table)
    (modify-syntax-entry ?\\ "\\" table)
    (modify-syntax-entry ?\[ "(]" table)
    (modify-syntax-entry ?\] ")[" table)
    (modify-syntax-entry ?{ "(}" table)
    (modify-syntax-entry ?} "){" table)
    (modify-syntax-entry ?, "." table)
    (modify-syntax-entry ?: "." table)
    (dolist (c '(?- ?+ ?.)) (modify-syntax-entry c "_" table))
    table)
  "Syntax of JSON text, to move over its values with `forward-sexp'.")

(defun plistspec--json-array-items (open)
  "The (BEG . END) of each value of the JSON array whose `[' is at OPEN."
  (save-excursion
    (goto-char (1+ open))
    (let (items)
      (while (progn (skip-chars-forward " \t\n\r,") (not (memq (char-after) '(?\] nil))))
        (let ((beg (point)))
          (forward-sexp 1)
          (push (cons beg (point)) items)))
      (nreverse items))))

(defun plistspec--parse-region (region)
  "The JSON value between the positions of REGION, a (BEG . END), parsed."
  (plistspec--parse (buffer-substring-no-properties (car region) (cdr region))))

(defun plistspec--tool-name (entry)
  "The name of the tool ENTRY, one parsed tool of a provider's JSON."
  (and (consp entry)
       (or (alist-get 'name entry)
           (seq-some (lambda (key)
                       (let ((inner (alist-get key entry)))
                         (and (consp inner) (alist-get 'name inner))))
                     '(function toolSpec)))))

(defun plistspec--wrapped-array (item)
  "The position of the `[' of ITEM when ITEM is {\"KEY\": [...]}, else nil.
ITEM is the (BEG . END) of a JSON value in the current buffer."
  (save-excursion
    (goto-char (car item))
    (when (eq (char-after) ?{)
      (forward-char 1)
      (skip-chars-forward " \t\n\r")
      (when (eq (char-after) ?\")
        (forward-sexp 1)
        (skip-chars-forward " \t\n\r:")
        (when (eq (char-after) ?\[)
          (let ((open (point)))
            (forward-sexp 1)
            (skip-chars-forward " \t\n\r")
            (and (eq (char-after) ?}) open)))))))

(defun plistspec--tool-entries ()
  "The (BEG END NAME) of each tool in the provider JSON of the current buffer.
An object whose one key holds an array (Gemini's functionDeclarations)
counts as the tools of that array."
  (with-syntax-table plistspec--json-syntax-table
    (goto-char (point-min))
    (skip-chars-forward " \t\n\r")
    (unless (eq (char-after) ?\[)
      (user-error "Plistspec printed no JSON array"))
    (let (entries)
      (dolist (item (plistspec--json-array-items (point)))
        (let ((open (plistspec--wrapped-array item)))
          (dolist (tool (if open (plistspec--json-array-items open) (list item)))
            (push (list (car tool) (cdr tool)
                        (plistspec--tool-name (plistspec--parse-region tool)))
                  entries))))
      (nreverse entries))))

(defun plistspec--outdented (beg end)
  "The text between BEG and END, outdented by BEG's column.
Its lines after the first lose as many leading spaces."
  (let ((column (save-excursion (goto-char beg) (current-column))))
    (replace-regexp-in-string
     (concat "\n" (make-string column ?\s)) "\n"
     (buffer-substring-no-properties beg end) t t)))

(defun plistspec--line-column (pos)
  "The (LINE . COLUMN) of POS: 1-based, counted in characters, ignoring narrowing."
  (save-excursion
    (save-restriction
      (widen)
      (goto-char pos)
      (cons (line-number-at-pos pos t) (1+ (- pos (line-beginning-position)))))))

(defun plistspec--before-p (a b)
  "Non-nil when the (LINE . COLUMN) A is not after B."
  (or (< (car a) (car b)) (and (= (car a) (car b)) (<= (cdr a) (cdr b)))))

(defun plistspec--tool-spans (ir)
  "The ((LINE . COLUMN) . (END-LINE . END-COLUMN)) of each tool of IR, or nil."
  (mapcar (lambda (tool)
            (let* ((source (alist-get 'source (alist-get 'metadata tool)))
                   (line (alist-get 'line source)))
              (and (integerp line)
                   (cons (cons line (or (alist-get 'column source) 1))
                         (cons (or (alist-get 'end_line source) line)
                               (or (alist-get 'end_column source) 1))))))
          ir))

(defun plistspec--top-level-form (pos)
  "The (BEG . END) of the top-level form around POS or right before it, or nil."
  (save-excursion
    (save-restriction
      (widen)
      (let* ((state (syntax-ppss pos))
             (start (car (nth 9 state))))
        (cond (start (cons start (or (ignore-errors (scan-sexps start 1)) (point-max))))
              ((and (not (nth 8 state)) (eq (char-before pos) ?\)))
               (let ((beg (ignore-errors (scan-sexps pos -1))))
                 (and beg (cons beg pos)))))))))

(defun plistspec--tool-index-at (pos ir)
  "The (INDEX NAME RANK) of the tool at POS among the tools of IR (parsed).
That is the innermost tool around POS, else the one tool inside the
top-level form around POS.  INDEX is its place among the buffer's
tools, RANK its place among those with the same NAME.  Signal a
`user-error' when there is none."
  (let* ((spans (plistspec--tool-spans ir))
         (here (plistspec--line-column pos))
         (indexes (number-sequence 0 (1- (length spans))))
         (within (lambda (beg end)
                   (seq-filter (lambda (i)
                                 (let ((span (nth i spans)))
                                   (and span (plistspec--before-p beg (car span))
                                        (plistspec--before-p (cdr span) end))))
                               indexes)))
         (around (seq-filter (lambda (i)
                               (let ((span (nth i spans)))
                                 (and span (plistspec--before-p (car span) here)
                                      (plistspec--before-p here (cdr span)))))
                             indexes))
         (form (and (null around) (plistspec--top-level-form pos)))
         (inside (and form (funcall within (plistspec--line-column (car form))
                                    (plistspec--line-column (cdr form)))))
         ;; nested tools: the innermost starts last
         (best (cond (around
                      (car (sort around (lambda (a b)
                                          (plistspec--before-p (car (nth b spans))
                                                               (car (nth a spans)))))))
                     ((= (length inside) 1) (car inside)))))
    (unless best
      (user-error "%s (%s shows all the buffer's tools)"
                  (if inside "Several tools here: put point in one" "No tool at point")
                  (substitute-command-keys "\\[plistspec-show-json]")))
    (let ((name (alist-get 'name (nth best ir))))
      (list best name
            (seq-count (lambda (tool) (equal (alist-get 'name tool) name))
                       (seq-take ir best))))))

(defun plistspec-tool-json-string (provider &optional dialect pos)
  "The JSON of the tool at POS (default point) for PROVIDER, and its name.
Return (NAME . JSON): JSON is that tool's entry, exactly as in the
array `plistspec-json-string' returns (for Gemini, its entry of
functionDeclarations).  DIALECT is as for `plistspec-json-string'.
The IR (for the places of the tools) and PROVIDER's JSON are made by
two plistspec processes running at once."
  (pcase-let* ((`(,ir-result ,result)
                (plistspec--call-all (list (plistspec--to-json-args "ir" dialect)
                                           (plistspec--to-json-args provider dialect))
                                     (plistspec--buffer-text)))
               (ir (plistspec--parse (plistspec--to-json-output ir-result)))
               (`(,index ,name ,rank)
                (if (eq ir 'fail)
                    (user-error "Plistspec to-json printed no JSON")
                  (plistspec--tool-index-at (or pos (point)) ir)))
               (json (plistspec--to-json-output result)))
    (with-temp-buffer
      (insert json)
      (let* ((entries (plistspec--tool-entries))
             (same (seq-filter (lambda (entry) (equal (nth 2 entry) name)) entries))
             ;; the same place in both arrays; else the same name, as often before
             (entry (if (equal (nth 2 (nth index entries)) name)
                        (nth index entries)
                      (nth rank same))))
        (unless entry
          (user-error "The %s JSON has no tool named %s" provider name))
        (cons name (plistspec--outdented (nth 0 entry) (nth 1 entry)))))))

;;;###autoload
(defun plistspec-show-tool-json (provider &optional dialect)
  "Show the JSON of the tool at point for PROVIDER.
It is what gptel or llm sends for that tool, as `plistspec-show-json'
shows for all of them.  Interactively, ask for PROVIDER, by default the
format of the current gptel backend (see `plistspec-backend-format');
with a prefix argument, also ask for the DIALECT (gptel or llm)."
  (interactive (plistspec--read-format-and-dialect))
  (pcase-let ((`(,name . ,json)
               (plistspec-tool-json-string provider (or dialect plistspec-dialect))))
    (plistspec--show-json-buffer (concat json "\n")
                                 (format "Tool %s: %s" name provider))))

;;;; Tools from JSON

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

(defun plistspec--insert-paragraph (text)
  "Insert TEXT at point as a paragraph: a blank line before and after it.
No blank line is added at the start or the end of the buffer, nor
where there is one already."
  (unless (bolp) (insert "\n"))
  (unless (or (bobp) (save-excursion (forward-line -1) (looking-at-p "[ \t]*$")))
    (insert "\n"))
  (insert text "\n")
  (unless (or (eobp) (looking-at-p "[ \t]*$")) (insert "\n")))

;;;###autoload
(defun plistspec-insert-from-json (file &optional dialect)
  "Insert at point the tool forms made from the JSON FILE.
Only the forms are inserted (with their comments), not a whole file,
with a blank line before and after them.  DIALECT is \"gptel\" (the
default) or \"llm\"; with a prefix argument, ask for it.  Warnings are
shown in a `compilation-mode' buffer where each one leads to its place
in FILE."
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
    (plistspec--insert-paragraph (string-trim-right (nth 1 result)))
    (when buffer
      (message "plistspec: %d findings, see %s"
               (plistspec--count-findings stderr) plistspec-from-json-buffer))
    buffer))

(provide 'plistspec-json)
;;; plistspec-json.el ends here
