;;; plistspec-tests.el --- ERT tests for plistspec.el  -*- lexical-binding: t; -*-

;;; Commentary:

;; Run in batch Emacs from the repository (tests/emacs_pkg runs them):
;;   Emacs --batch -Q -L elisp -l elisp/plistspec.el -l elisp/plistspec-tests.el \
;;     --eval '(setq plistspec-executable (list "python3" "-m" "plistspec"))' \
;;     -f ert-run-tests-batch-and-exit
;; (with the program's name in lower case).
;; The variable PLISTSPEC_EXECUTABLE (words separated by spaces) may name the command
;; instead.

;;; Code:

(require 'ert)
(require 'cl-lib)
(require 'json)
(require 'plistspec)

(defconst plistspec-tests--root
  (file-name-directory
   (directory-file-name
    (file-name-directory (or load-file-name buffer-file-name default-directory))))
  "The repository root (the parent of elisp/).")

(defconst plistspec-tests--package-files
  '("plistspec-custom.el" "plistspec-trust.el" "plistspec-exec.el" "plistspec-server.el"
    "plistspec-flymake.el" "plistspec-commands.el" "plistspec-json.el" "plistspec-runtime.el"
    "plistspec-gptel-contract.el" "plistspec-gptel-plan.el" "plistspec-gptel-calls.el"
    "plistspec-gptel.el" "plistspec.el")
  "The files of the package in elisp/, each requiring only files before it.")

(let ((exe (getenv "PLISTSPEC_EXECUTABLE")))
  (when (and exe (not (string-empty-p exe)))
    (setq plistspec-executable (split-string exe " " t))))

(defun plistspec-tests--fixture (name)
  "The text of fixtures/elisp/NAME."
  (with-temp-buffer
    (insert-file-contents (expand-file-name (concat "fixtures/elisp/" name)
                                            plistspec-tests--root))
    (buffer-string)))

(defun plistspec-tests--run-backend (&optional timeout)
  "Run `plistspec-flymake' in the current buffer; return what it reported.
Wait at most TIMEOUT seconds (default 60)."
  (let* ((reported 'none)
         (deadline (+ (float-time) (or timeout 60))))
    (plistspec-flymake (lambda (diags &rest _) (setq reported diags)))
    (while (and (eq reported 'none) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    reported))

(ert-deftest plistspec-flymake-record-summary-typo ()
  "The seed's `:description:' key gets a warning at exactly its line and column."
  (with-temp-buffer
    (insert (plistspec-tests--fixture "record_summary.el"))
    (emacs-lisp-mode)
    (let* ((diags (plistspec-tests--run-backend))
           (typo (seq-find (lambda (d) (string-match-p "PS301" (flymake-diagnostic-text d)))
                           diags))
           (expected (save-excursion
                       (goto-char (point-min))
                       (search-forward ":description: \"")
                       (match-beginning 0))))
      (should (listp diags))
      (should typo)
      (should (eq (flymake-diagnostic-type typo) :warning))
      (should (= (flymake-diagnostic-beg typo) expected))
      (should (= (flymake-diagnostic-end typo) (+ expected (length ":description:"))))
      (should (string-match-p "did you mean :description\\?" (flymake-diagnostic-text typo)))
      (save-excursion
        (goto-char (flymake-diagnostic-beg typo))
        (should (= (line-number-at-pos) 14))
        (should (= (1+ (current-column)) 45))))))

(ert-deftest plistspec-flymake-in-flymake-mode ()
  "Through `flymake-mode' itself: the diagnostic appears in `flymake-diagnostics'."
  (with-temp-buffer
    (insert (plistspec-tests--fixture "record_summary.el"))
    (emacs-lisp-mode)
    (setq-local flymake-diagnostic-functions nil)
    (plistspec-flymake-setup)
    (flymake-mode 1)
    (flymake-start)
    (let ((deadline (+ (float-time) 60)))
      (while (and (null (flymake-diagnostics)) (< (float-time) deadline))
        (accept-process-output nil 0.05)))
    (let ((texts (mapcar #'flymake-diagnostic-text (flymake-diagnostics))))
      (should (seq-some (lambda (s) (string-match-p "PS301" s)) texts)))
    (flymake-mode -1)))

(ert-deftest plistspec-flymake-character-columns ()
  "Columns are characters: non-ASCII text before the finding does not shift it."
  (with-temp-buffer
    (insert ";; ünïcödé 𝄞 ✓\n(gptel-make-tool :name \"f\" :description \"é𝄞\" "
            ":function #'f :args (list '(:name \"x\" :type strng)))\n")
    (let* ((diags (plistspec-tests--run-backend))
           (bad (seq-find (lambda (d) (string-match-p "PS314" (flymake-diagnostic-text d)))
                          diags)))
      (should bad)
      (should (eq (flymake-diagnostic-type bad) :error))
      (should (equal (buffer-substring (flymake-diagnostic-beg bad) (flymake-diagnostic-end bad))
                     "strng")))))

(ert-deftest plistspec-flymake-syntax-error-and-clean-buffer ()
  "A syntax error is an error diagnostic; a clean buffer reports an empty list."
  (with-temp-buffer
    (insert "(gptel-make-tool :name \"a\"\n  :args (list '(:name \"x\" ]))\n")
    (let ((diags (plistspec-tests--run-backend)))
      (should (seq-find (lambda (d) (and (eq (flymake-diagnostic-type d) :error)
                                         (string-match-p "PS001" (flymake-diagnostic-text d))))
                        diags))))
  (with-temp-buffer
    (insert (plistspec-tests--fixture "get_weather.el"))
    (should (null (plistspec-tests--run-backend)))))

(ert-deftest plistspec-flymake-obsolete-check-not-reported ()
  "A second check kills the first; only the second one reports."
  (with-temp-buffer
    (insert (plistspec-tests--fixture "record_summary.el"))
    (let ((first 'none) (second 'none)
          (deadline (+ (float-time) 60)))
      (plistspec-flymake (lambda (d &rest _) (setq first d)))
      (plistspec-flymake (lambda (d &rest _) (setq second d)))
      (while (and (eq second 'none) (< (float-time) deadline))
        (accept-process-output nil 0.05))
      (accept-process-output nil 0.2)
      (should (eq first 'none))
      (should (listp second))
      (should second))))

(ert-deftest plistspec-flymake-panics-when-the-program-fails ()
  "A broken executable makes the backend report :panic, not garbage."
  (with-temp-buffer
    (insert "(gptel-make-tool :name \"a\")")
    (let ((plistspec-executable (list (car plistspec-executable) "-c" "import sys; sys.exit(3)"))
          (result nil) (deadline (+ (float-time) 60)))
      (plistspec-flymake (lambda (&rest args) (setq result args)))
      (while (and (null result) (< (float-time) deadline))
        (accept-process-output nil 0.05))
      (should (eq (car result) :panic)))))

(ert-deftest plistspec-json-preview ()
  "`plistspec-show-json' shows the provider JSON of the buffer's tools."
  (with-temp-buffer
    (insert (plistspec-tests--fixture "get_weather.el"))
    (let* ((out (plistspec-show-json "openai"))
           (data (with-current-buffer out
                   (json-parse-string (buffer-string) :object-type 'alist :array-type 'list))))
      (should (= (length data) 1))
      (should (equal (alist-get 'type (car data)) "function"))
      (should (equal (alist-get 'name (alist-get 'function (car data))) "get_weather"))
      (kill-buffer out)))
  (with-temp-buffer
    (insert "(gptel-make-tool :name \"x\" :function #'f :args (list '(:name \"u\" :type string :enum (\"a\"))))")
    (should-error (plistspec-json-string "openai") :type 'user-error)))

(ert-deftest plistspec-insert-from-json-command ()
  "`plistspec-insert-from-json' inserts a gptel tool that reads back."
  (let ((file (make-temp-file "plistspec" nil ".json")))
    (unwind-protect
        (progn
          (with-temp-file file
            (insert "[{\"type\": \"function\", \"function\": {\"name\": \"get_time\", "
                    "\"description\": \"Current time.\", \"parameters\": {\"type\": \"object\", "
                    "\"properties\": {\"tz\": {\"type\": \"string\"}}, \"required\": []}}}]"))
          (with-temp-buffer
            (plistspec-insert-from-json file)
            (goto-char (point-min))
            (should (search-forward "gptel-make-tool" nil t))
            (should (search-forward "get_time" nil t))
            (goto-char (point-min))
            (let ((forms nil) (form nil))
              (while (setq form (ignore-errors (read (current-buffer))))
                (push form forms))
              (should (seq-find (lambda (f) (eq (car-safe f) 'gptel-make-tool)) forms)))))
      (delete-file file))))

(ert-deftest plistspec-byte-compiles-cleanly ()
  "The package's files byte-compile with `byte-compile-error-on-warn'.
They are compiled together, in the order they require each other."
  (let* ((dir (make-temp-file "plistspec-bc" t))
         (load-path (cons dir load-path)))
    (unwind-protect
        (let ((byte-compile-error-on-warn t))
          (dolist (name plistspec-tests--package-files)
            (copy-file (expand-file-name (concat "elisp/" name) plistspec-tests--root)
                       (expand-file-name name dir)))
          (dolist (name plistspec-tests--package-files)
            (should (equal (list name t)
                           (list name (byte-compile-file (expand-file-name name dir)))))))
      (delete-directory dir t))))

;;;; Fixes

(defconst plistspec-tests--typo
  "(gptel-make-tool :name \"f\" :description \"F.\" :function #'ignore\n\t:args (list '(:name \"é𝄞\" :type string :desciption \"Words.\")))\n"
  "A tool whose arg misspells :description, after a TAB and non-ASCII text.")

(defun plistspec-tests--wait-for-flymake ()
  "Wait until Flymake reports diagnostics in this buffer (at most 60 s)."
  (let ((deadline (+ (float-time) 60)))
    (while (and (null (flymake-diagnostics)) (< (float-time) deadline))
      (accept-process-output nil 0.05))))

(ert-deftest plistspec-fix-at-point-without-flymake ()
  "Without Flymake the command checks the buffer itself and applies the fix."
  (with-temp-buffer
    (insert plistspec-tests--typo)
    (goto-char (point-min))
    (search-forward ":desci")
    (should (equal (plistspec-fix-at-point) ":description"))
    (should (string-match-p ":description \"Words.\"" (buffer-string)))
    (should-not (string-match-p ":desciption" (buffer-string)))
    ;; the rest of the buffer is untouched
    (should (equal (buffer-string)
                   (replace-regexp-in-string ":desciption" ":description"
                                             plistspec-tests--typo t t)))))

(ert-deftest plistspec-fix-at-point-from-flymake ()
  "With `flymake-mode' the fix comes from the diagnostic at point, after edits above it."
  (with-temp-buffer
    (insert plistspec-tests--typo)
    (emacs-lisp-mode)
    (setq-local flymake-diagnostic-functions nil)
    (plistspec-flymake-setup)
    (flymake-mode 1)
    (flymake-start)
    (plistspec-tests--wait-for-flymake)
    (let ((typo (seq-find (lambda (d) (string-match-p "PS301" (flymake-diagnostic-text d)))
                          (flymake-diagnostics))))
      (should typo)
      ;; an edit before the finding: the fix follows its text
      (goto-char (point-min))
      (insert ";; a comment
")
      (goto-char (point-min))
      (search-forward ":desciption")
      (backward-char 3)
      (let ((plistspec-executable '("false")))  ; must not need to run plistspec again
        (should (equal (plistspec-fix-at-point) ":description"))))
    (should (string-match-p ":description \"Words.\"" (buffer-string)))
    (flymake-mode -1)))

(ert-deftest plistspec-fix-at-point-refuses-stale-or-missing-fixes ()
  "No fix at point, or text changed under the fix: a `user-error', the buffer unchanged."
  (with-temp-buffer
    (insert plistspec-tests--typo)
    (goto-char (point-min))
    (should-error (plistspec-fix-at-point) :type 'user-error)
    (search-forward ":desciption")
    (let* ((fixes (plistspec--fixes-at (1- (point)) (plistspec--checked-diagnostics)))
           (fix (cdr (car fixes))))
      (should fix)
      (save-excursion
        (goto-char (nth 0 fix))
        (insert "X"))
      (let ((before (buffer-string)))
        (should-error (apply #'plistspec--apply fix) :type 'user-error)
        (should (equal (buffer-string) before))))))

(ert-deftest plistspec-fix-region-from-json ()
  "A JSON fix's line/column (characters) and its offsets name the same text."
  (with-temp-buffer
    (insert "é\t𝄞\n\tabc:desciption rest\n")
    (let ((by-line (plistspec--fix-region
                    '((line . 2) (column . 5) (end_line . 2) (end_column . 16))))
          (by-offset (plistspec--fix-region '((start . 8) (end . 19)))))
      (should (equal (buffer-substring (car by-line) (cdr by-line)) ":desciption"))
      (should (equal by-line by-offset)))))

(ert-deftest plistspec-checkdoc-clean ()
  "The package and its tests pass `checkdoc' without a warning."
  (require 'checkdoc)
  (dolist (name (append plistspec-tests--package-files '("plistspec-tests.el")))
    (let ((warnings nil)
          (file (expand-file-name (concat "elisp/" name) plistspec-tests--root)))
      (cl-letf (((symbol-function 'display-warning)
                 (lambda (_type message &rest _) (push message warnings))))
        (checkdoc-file file))
      (should (equal (list name nil) (list name warnings))))))

(provide 'plistspec-tests)
;;; plistspec-tests.el ends here
