;;; plistspec-user-tests.el --- plistspec.el as a new user meets it  -*- lexical-binding: t; -*-

;;; Commentary:

;; ERT tests run by tests/emacs_pkg/test_emacs_package.py in a real Emacs, with
;; `plistspec-user-tests-python' set to a Python that can import this checkout's
;; plistspec.  Fake plistspec programs are small shell scripts in temporary
;; projects, to tell which one the package found and ran.

;;; Code:

(require 'ert)
(require 'cl-lib)
(require 'compile)
(require 'plistspec)

(defvar plistspec-user-tests-python "python3"
  "A Python that imports this checkout's plistspec.")

(defmacro plistspec-user-tests--in-dir (var &rest body)
  "Bind VAR to a new temporary directory around BODY; delete it after."
  (declare (indent 1))
  `(let ((,var (file-name-as-directory (make-temp-file "plistspec-user" t))))
     (unwind-protect (progn ,@body)
       (delete-directory ,var t))))

(defun plistspec-user-tests--write (file text &optional executable)
  "Write TEXT to FILE, making its directories; make it EXECUTABLE if asked."
  (make-directory (file-name-directory file) t)
  (with-temp-file file (insert text))
  (when executable (set-file-modes file #o755))
  file)

(defun plistspec-user-tests--script (file body)
  "Write a /bin/sh script FILE running BODY."
  (plistspec-user-tests--write file (concat "#!/bin/sh\n" body "\n") t))

(defun plistspec-user-tests--real-plistspec (file)
  "Write FILE: a plistspec program running this checkout's plistspec."
  (plistspec-user-tests--script
   file (format "exec %s -m plistspec \"$@\""
                (shell-quote-argument plistspec-user-tests-python))))

(defmacro plistspec-user-tests--trusting (dirs &rest body)
  "Run BODY trusting only DIRS: no remembered project, no `trusted-content'."
  (declare (indent 1))
  `(let ((plistspec-trusted-projects ,dirs)
         ;; never the plistspec M-x plistspec-install-cli installed for the user
         (plistspec-cli-directory "/nonexistent/plistspec-cli/")
         (plistspec-trusted-projects-file nil)
         (plistspec--session-trusted nil)
         (plistspec--untrusted-said nil)
         (trusted-content nil))
     ,@body))

(defun plistspec-user-tests--wait (pred &optional seconds)
  "Wait until PRED is non-nil, at most SECONDS (default 60); return its value."
  (let ((deadline (+ (float-time) (or seconds 60))) value)
    (while (and (not (setq value (funcall pred))) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    value))

(defun plistspec-user-tests--lighter ()
  "Return what `plistspec-mode' puts in this buffer's mode line.
\(`format-mode-line' is empty in batch Emacs, so its entry is evaluated here.)"
  (let ((entry (cadr (assq 'plistspec-mode minor-mode-alist))))
    (should (eq (car-safe entry) :eval))
    (eval (cadr entry) t)))

(defun plistspec-user-tests--run-backend ()
  "Run `plistspec-flymake' in the current buffer; return the arguments it reported."
  (let ((reported nil))
    (plistspec-flymake (lambda (&rest args) (setq reported args)))
    (plistspec-user-tests--wait (lambda () reported))))

(defconst plistspec-user-tests--typo
  "(gptel-make-tool :name \"f\" :description \"F.\" :function #'ignore\n  :args (list '(:name \"x\" :type string :desciption \"Words.\")))\n"
  "A tool whose arg misspells :description.")

;;;; Finding the program

(ert-deftest plistspec-user-discovery-order ()
  "`plistspec-executable', the trusted project's .venv, the installed one, PATH, python3 -m."
  (plistspec-user-tests--in-dir tmp
   (plistspec-user-tests--trusting (list (expand-file-name "proj/" tmp))
    (let* ((proj (expand-file-name "proj/" tmp))
           (sub (expand-file-name "lisp/tools/" proj))
           (venv (plistspec-user-tests--script
                  (expand-file-name ".venv/bin/plistspec" proj) "echo venv \"$@\""))
           (custom (plistspec-user-tests--script
                    (expand-file-name "custom/plistspec-custom" tmp) "echo custom \"$@\""))
           (bin (expand-file-name "bin/" tmp))
           (py (expand-file-name "py/" tmp))
           (nopy (expand-file-name "nopy/" tmp))
           (plistspec--python-checked nil)
           (plistspec-executable nil)
           (exec-path (list bin py)))
      (make-directory (expand-file-name ".git" proj) t)
      (make-directory sub t)
      (plistspec-user-tests--script (expand-file-name "plistspec" bin) "echo path \"$@\"")
      ;; a Python that imports this checkout's plistspec, and one that cannot
      (plistspec-user-tests--script
       (expand-file-name "python3" py)
       (format "exec %s \"$@\"" (shell-quote-argument plistspec-user-tests-python)))
      (plistspec-user-tests--script
       (expand-file-name "python3" nopy)
       (format "unset PYTHONPATH; exec %s -S \"$@\""
               (shell-quote-argument plistspec-user-tests-python)))
      ;; a .venv above the project is not the project's
      (plistspec-user-tests--script (expand-file-name ".venv/bin/plistspec" tmp) "echo above")
      (with-temp-buffer
        (setq default-directory sub)
        ;; 1. the project's .venv (found from a sub-directory), and it is what runs
        (should (equal (plistspec-command) (list venv)))
        (should (equal (nth 1 (plistspec--call '("--version"))) "venv --version\n"))
        ;; 2. plistspec-executable first, as a string or as a list
        (let ((plistspec-executable custom))
          (should (equal (plistspec-command) (list custom))))
        (let ((plistspec-executable (list custom "--flag")))
          (should (equal (nth 1 (plistspec--call '("x"))) "custom --flag x\n")))
        (let ((plistspec-executable (expand-file-name "missing/plistspec" tmp)))
          (should (string-match-p "not an executable"
                                  (cadr (should-error (plistspec-command)
                                                      :type 'plistspec-unavailable)))))
        ;; the one M-x plistspec-install-cli installed comes after the project's
        (let* ((plistspec-cli-directory (expand-file-name "cli/" tmp))
               (cli (plistspec-user-tests--script
                     (expand-file-name "bin/plistspec" plistspec-cli-directory) "echo cli")))
          (should (equal (plistspec-command) (list venv)))
          (delete-directory (expand-file-name ".venv" proj) t)
          ;; 3. without a .venv: the installed one, before PATH
          (should (equal (plistspec-command) (list cli))))
        ;; 4. without it: PATH (the .venv above the project does not count)
        (should (equal (plistspec-command) (list (expand-file-name "plistspec" bin))))
        ;; 5. without any: python3 -P -m plistspec, when it imports plistspec
        (let ((exec-path (list py)))
          (should (equal (plistspec-command)
                         (list (expand-file-name "python3" py) "-P" "-m" "plistspec")))
          (should (string-match-p "version" (nth 1 (plistspec--call '("--version"))))))
        ;; 6. a python3 that cannot import it: none, and the error says why
        (let* ((exec-path (list nopy))
               (err (should-error (plistspec-command) :type 'plistspec-unavailable)))
          (should (string-match-p "cannot import plistspec" (cadr err)))
          (should (string-match-p "plistspec-executable" (cadr err))))
        (let* ((exec-path nil)
               (err (should-error (plistspec-command) :type 'user-error)))
          (should (string-match-p "no python3" (cadr err)))))
      ;; a new file in a directory that does not exist yet: looked for from above it
      (with-temp-buffer
        (setq default-directory (expand-file-name "new/dirs/" sub))
        (should (equal (plistspec-command) (list (expand-file-name "plistspec" bin)))))
      ;; without a project, the nearest .venv above counts, when it is trusted
      (with-temp-buffer
        (let ((dir (expand-file-name "loose/deep/" tmp)))
          (make-directory dir t)
          (setq default-directory dir)
          (should (equal (plistspec-command) (list (expand-file-name "plistspec" bin))))
          (let ((plistspec-trusted-projects (list tmp)))
            (should (equal (plistspec-command)
                           (list (expand-file-name ".venv/bin/plistspec" tmp)))))))))))

(ert-deftest plistspec-user-missing-program-is-said-where-the-user-looks ()
  "No plistspec: one warning, the mode line, a clear `user-error'; found later, it checks."
  (plistspec-user-tests--in-dir tmp
   (plistspec-user-tests--trusting nil
    (let ((plistspec-executable nil)
          (plistspec--warned nil)
          (plistspec--python-checked nil)
          (exec-path (list (expand-file-name "empty/" tmp)))
          (file (plistspec-user-tests--write (expand-file-name "tools.el" tmp)
                                             plistspec-user-tests--typo)))
      (when (get-buffer "*Warnings*") (kill-buffer "*Warnings*"))
      (with-current-buffer (find-file-noselect file)
        (unwind-protect
            (progn
              (emacs-lisp-mode)
              (setq-local flymake-diagnostic-functions nil)
              (plistspec-mode 1)
              (should flymake-mode)
              (flymake-start)  ; a buffer that is not displayed waits to be shown
              (should (plistspec-user-tests--wait (lambda () plistspec--problem)))
              (plistspec-user-tests--run-backend)
              (plistspec-user-tests--run-backend)
              ;; a warning, once, that says what to do
              (let ((warnings (with-current-buffer "*Warnings*" (buffer-string))))
                (should (string-match-p "plistspec was not found" warnings))
                (should (string-match-p "pip install plistspec" warnings))
                ;; what works from Emacs alone
                (should (string-match-p "M-x plistspec-install-cli installs it" warnings)))
              (let ((n 0) (start 0) (text (with-current-buffer "*Warnings*" (buffer-string))))
                (while (string-match "Warning (plistspec)" text start)
                  (setq n (1+ n) start (match-end 0)))
                (should (= n 1)))
              ;; the mode line
              (let ((line (plistspec-user-tests--lighter)))
                (should (string-match-p "plistspec!" line))
                (should (string-match-p "not found"
                                        (get-text-property (string-match "plistspec!" line)
                                                           'help-echo line))))
              ;; the backend is not disabled: it only found nothing to run
              (should (memq #'plistspec-flymake (flymake-running-backends)))
              ;; commands: a user-error with the reason, not a raw file-missing
              (let ((err (should-error (plistspec-json-string "openai") :type 'user-error)))
                (should (eq (car err) 'plistspec-unavailable))
                (should (string-match-p "not found" (cadr err))))
              (should-error (plistspec-fix-at-point) :type 'user-error)
              ;; installed in the project's .venv: not run until the project is trusted
              (plistspec-user-tests--real-plistspec (expand-file-name ".venv/bin/plistspec" tmp))
              (let ((err (should-error (plistspec-json-string "openai") :type 'user-error)))
                (should (string-match-p "not trusted" (cadr err)))
                (should (string-match-p "plistspec-trust-project" (cadr err))))
              ;; trusted: the next check works, the indicator goes
              (plistspec-trust-project tmp)
              (flymake-start)
              (should (plistspec-user-tests--wait
                       (lambda () (seq-find (lambda (d) (string-match-p
                                                         "PS301" (flymake-diagnostic-text d)))
                                            (flymake-diagnostics)))))
              (should-not plistspec--problem)
              (should (equal (plistspec-user-tests--lighter) " plistspec")))
          (set-buffer-modified-p nil)
          (kill-buffer)))))))

(ert-deftest plistspec-user-broken-program-is-said-where-the-user-looks ()
  "A program that cannot start, or fails: the warning and the mode line say why."
  (plistspec-user-tests--in-dir tmp
   (plistspec-user-tests--trusting (list tmp)
    (let* ((plistspec--warned nil)
           (bad-shebang (plistspec-user-tests--write
                         (expand-file-name ".venv/bin/plistspec" tmp)
                         "#!/nonexistent/python3\nprint(1)\n" t))
           (old (plistspec-user-tests--script
                 (expand-file-name "old-plistspec" tmp)
                 "echo 'Error: No such option: --exit-zero' >&2; exit 2"))
           (default-directory tmp)
           (plistspec-executable nil))
      (when (get-buffer "*Warnings*") (kill-buffer "*Warnings*"))
      (with-temp-buffer
        (setq default-directory tmp)
        (insert plistspec-user-tests--typo)
        (let ((reported (plistspec-user-tests--run-backend)))
          (should (eq (car reported) :panic))
          (should (string-match-p "could not be started" (plist-get (cdr reported) :explanation))))
        (should (string-match-p bad-shebang plistspec--problem))
        (should (string-match-p "could not be started"
                                (with-current-buffer "*Warnings*" (buffer-string))))
        (let ((err (should-error (plistspec-json-string "openai") :type 'user-error)))
          (should (string-match-p "could not be started" (cadr err))))
        ;; another buffer, the same program: the mode line says it, the warning is not repeated
        (with-temp-buffer
          (setq default-directory tmp)
          (insert plistspec-user-tests--typo)
          (should (eq (car (plistspec-user-tests--run-backend)) :panic))
          (should plistspec--problem))
        (with-current-buffer "*Warnings*"
          (should (= 1 (how-many "could not be started" (point-min) (point-max)))))
        (let ((plistspec-executable old))
          (let ((reported (plistspec-user-tests--run-backend)))
            (should (eq (car reported) :panic))
            (should (string-match-p "No such option: --exit-zero"
                                    (plist-get (cdr reported) :explanation))))
          (should (string-match-p "No such option"
                                  (with-current-buffer "*Warnings*" (buffer-string))))))))))

(ert-deftest plistspec-user-mode-on-and-off ()
  "`plistspec-mode' adds the backend and Flymake; off, it takes back what it added."
  (with-temp-buffer
    (emacs-lisp-mode)
    (plistspec-mode 1)
    (should flymake-mode)
    (should (memq #'plistspec-flymake flymake-diagnostic-functions))
    (plistspec-mode -1)
    (should-not flymake-mode)
    (should-not (memq #'plistspec-flymake flymake-diagnostic-functions)))
  (with-temp-buffer
    (emacs-lisp-mode)
    (flymake-mode 1)
    (plistspec-mode 1)
    (plistspec-mode -1)
    ;; the user's own Flymake stays on
    (should flymake-mode)
    (should-not (memq #'plistspec-flymake flymake-diagnostic-functions))))

;;;; What the backend runs

(ert-deftest plistspec-user-flymake-passes-the-real-file-name ()
  "The backend names the buffer's file with --stdin-filename and runs in its directory.
\(The one-shot command: this fake program cannot be a check server.)"
  (plistspec-user-tests--in-dir tmp
   (plistspec-user-tests--trusting (list tmp)
    (let* ((log (expand-file-name "args.txt" tmp))
           (plistspec-executable nil)
           (plistspec-use-server nil)
           (file (plistspec-user-tests--write (expand-file-name "proj/sub/tools.el" tmp)
                                              plistspec-user-tests--typo)))
      (make-directory (expand-file-name "proj/.git" tmp) t)
      (plistspec-user-tests--script
       (expand-file-name "proj/.venv/bin/plistspec" tmp)
       (format "pwd > %s; for a in \"$@\"; do echo \"$a\" >> %s; done; cat > /dev/null; echo '[]'"
               (shell-quote-argument log) (shell-quote-argument log)))
      (with-current-buffer (find-file-noselect file)
        (unwind-protect
            (progn
              (should (equal (plistspec-user-tests--run-backend) '(nil)))
              (let ((lines (with-temp-buffer
                             (insert-file-contents log)
                             (split-string (buffer-string) "\n" t))))
                (should (equal (file-name-as-directory (car lines))
                               (file-name-directory file)))
                (should (equal (cadr (member "--stdin-filename" lines)) file))
                (should (equal (car (last lines)) "-"))))
          (kill-buffer)))))))

;;;; Inserting tools from JSON

(defconst plistspec-user-tests--json
  "{\"tools\": [\n  {\"name\": \"get_time\",\n   \"inputSchema\": {\"type\": \"object\",\n     \"properties\": {\"tz\": {\"type\": \"string\", \"description\": \"Zone.\"}},\n     \"required\": [\"tz\", \"zone\"]}}\n]}\n"
  "An MCP tools/list with two findings: no description (2:3), bad required (5:18).")

(ert-deftest plistspec-user-insert-from-json-inserts-forms-only ()
  "Only the tool forms go into the buffer; the warnings go to a compilation buffer."
  (plistspec-user-tests--in-dir tmp
    (let ((json (plistspec-user-tests--write (expand-file-name "tools.json" tmp)
                                             plistspec-user-tests--json))
          (before ";;; my-tools.el --- Mine  -*- lexical-binding: t; -*-\n(require 'gptel)\n")
          (after "\n(provide 'my-tools)\n;;; my-tools.el ends here\n"))
      (with-temp-buffer
        (insert before after)
        (goto-char (1+ (length before)))
        (let ((shown (plistspec-insert-from-json json)))
          (should (bufferp shown))
          (let* ((text (buffer-string))
                 (inserted (substring text (length before) (- (length text) (length after)))))
            (should (string-prefix-p before text))
            (should (string-suffix-p after text))
            ;; a paragraph of its own: one blank line before it (and the one after is there)
            (should (string-match-p "\\`\n(gptel-make-tool\n :name \"get_time\"" inserted))
            (should (string-match-p ")\n\\'" inserted))
            (dolist (frame '("^;;;" "Commentary" "(require " "(provide " "ends here"))
              (should-not (string-match-p frame inserted)))
            ;; what was inserted reads as exactly one form
            (with-temp-buffer
              (insert inserted)
              (goto-char (point-min))
              (should (eq (car (read (current-buffer))) 'gptel-make-tool))
              (should-error (read (current-buffer)) :type 'end-of-file))))
        ;; the warnings, in compilation-mode, lead to the JSON's line and column
        (with-current-buffer plistspec-from-json-buffer
          (should (derived-mode-p 'compilation-mode))
          (should (string-match-p "tools.json:2:3: warning: .*\\[PS504\\]" (buffer-string)))
          (should (string-match-p "tools.json:5:18: warning: .*\\[PS507\\]" (buffer-string)))
          ;; RET on a line, as a user does
          (goto-char (point-min))
          (search-forward "tools.json:5:18")
          (compile-goto-error))
        (let ((visiting (find-buffer-visiting json)))
          (should visiting)
          (with-current-buffer visiting
            (should (= (line-number-at-pos) 5))
            (should (= (1+ (current-column)) 18))
            (should (looking-at-p "\\[\"tz\", \"zone\"\\]")))
          (kill-buffer visiting)))
      ;; llm, and no compilation buffer left over when nothing is said
      (plistspec-user-tests--write
       json "[{\"name\": \"f\", \"description\": \"F.\", \"input_schema\": {\"type\": \"object\", \"properties\": {}}}]")
      (with-temp-buffer
        (insert "(setq x 1)")
        (should-not (plistspec-insert-from-json json "llm"))
        (should-not (get-buffer plistspec-from-json-buffer))
        ;; at the end of the buffer: a blank line before, and the buffer ends with a newline
        (should (string-match-p "\\`(setq x 1)\n\n(llm-make-tool\n" (buffer-string)))
        (should (string-match-p ")\n\\'" (buffer-string))))
      ;; bad JSON: nothing inserted, the error in the compilation buffer
      (plistspec-user-tests--write json "{\"tools\": [\n  {\"name\": }\n]}\n")
      (with-temp-buffer
        (insert "x")
        (should-error (plistspec-insert-from-json json) :type 'user-error)
        (should (equal (buffer-string) "x"))
        (with-current-buffer plistspec-from-json-buffer
          (should (string-match-p "tools.json:2:12: error: invalid JSON" (buffer-string))))))))

;;;; Fixes

(ert-deftest plistspec-user-fix-at-point-after-the-key ()
  "Point right after the key it fixes (where `search-forward' leaves it) counts."
  (dolist (flymake '(nil t))
    (with-temp-buffer
      (insert plistspec-user-tests--typo)
      (emacs-lisp-mode)
      (when flymake
        (setq-local flymake-diagnostic-functions nil)
        (plistspec-mode 1)
        (flymake-start)  ; a buffer that is not displayed waits to be shown
        (should (plistspec-user-tests--wait #'flymake-diagnostics)))
      (goto-char (point-min))
      (search-forward ":desciption")
      (should (equal (plistspec-fix-at-point) ":description"))
      (should (equal (buffer-string)
                     (string-replace ":desciption" ":description" plistspec-user-tests--typo)))
      ;; one character further there is no finding
      (goto-char (point-min))
      (search-forward ":description \"W")
      (should-error (plistspec-fix-at-point) :type 'user-error)
      (when flymake (plistspec-mode -1)))))

(defun plistspec-user-tests--cli-has-fix-p ()
  "Non-nil when the plistspec being tested has \"check --fix\"."
  (string-match-p "--fix\\b" (nth 1 (plistspec--call '("check" "--help")))))

(defun plistspec-user-tests--cli (text &rest args)
  "Return the output of this checkout's plistspec with ARGS on TEXT, run directly."
  (with-temp-buffer
    (insert text)
    (let ((coding-system-for-read 'utf-8-unix)
          (coding-system-for-write 'utf-8-unix))
      (apply #'call-process-region (point-min) (point-max) plistspec-user-tests-python
             t (list t nil) nil "-m" "plistspec" args))
    (buffer-string)))

(defconst plistspec-user-tests--fixable
  (concat ";; é ✓ tools\n"
          "(gptel-make-tool :name \"f\" :description \"F.\" :function #'ignore\n"
          "  :args (list '(:name \"x\" :type string :desciption \"Words.\") ; plistspec: ignore[PS333]\n"
          "              '(:name \"y\" :type string :description \"Y.\" :required t)))\n"
          ";; the end\n")
  "Tools with a safe fix (an unused suppression) and two unsafe ones.")

(ert-deftest plistspec-user-fix-buffer ()
  "`plistspec-fix-buffer' applies what \"check --fix\" prints; point and markers stay."
  (unless (plistspec-user-tests--cli-has-fix-p)
    (ert-skip "the plistspec CLI under test has no `check --fix' yet (the lint branch adds it)"))
  (let ((text plistspec-user-tests--fixable)
        (results nil))
    (dolist (unsafe '(nil t))
      (with-temp-buffer
        (insert text)
        (setq buffer-file-name (expand-file-name "fix-me.el" temporary-file-directory))
        (let* ((expected (apply #'plistspec-user-tests--cli text "check" "--fix"
                                (append (and unsafe '("--unsafe-fixes"))
                                        (list "--stdin-filename" buffer-file-name "-"))))
               (end-marker (save-excursion (goto-char (point-max))
                                           (search-backward ";; the end")
                                           (point-marker))))
          (goto-char (point-min))
          (search-forward "tools")
          (plistspec-fix-buffer unsafe)
          (should (equal (buffer-string) expected))
          (push (buffer-string) results)
          ;; only the changed text was replaced: point and markers stay with their text
          (should (looking-back ";; é ✓ tools" (line-beginning-position)))
          (goto-char end-marker)
          (should (looking-at-p ";; the end")))
        (set-buffer-modified-p nil)
        (setq buffer-file-name nil)))
    (pcase-let ((`(,unsafe-result ,safe-result) results))
      ;; safe: the unused suppression goes, the misspelt key stays
      (should-not (string-match-p "plistspec: ignore" safe-result))
      (should (string-match-p ":desciption" safe-result))
      ;; unsafe: the key is mended and :required t goes as well
      (should (string-match-p ":description \"Words.\"" unsafe-result))
      (should-not (string-match-p ":required t" unsafe-result))))
  ;; nothing to fix: the buffer is left alone
  (with-temp-buffer
    (insert "(gptel-make-tool :name \"f\" :description \"F.\" :function #'ignore)\n")
    (let ((before (buffer-string)))
      (plistspec-fix-buffer)
      (should (equal (buffer-string) before)))))

(ert-deftest plistspec-user-flymake-honours-configuration-and-suppressions ()
  "The project's .plistspec.toml and in-source suppressions apply in Flymake too."
  (unless (string-match-p "--isolated" (nth 1 (plistspec--call '("check" "--help"))))
    (ert-skip "the plistspec CLI under test reads no configuration yet (the lint branch adds it)"))
  (plistspec-user-tests--in-dir tmp
    (let* ((text (concat "(gptel-make-tool :name \"f\" :description \"F.\" :function #'ignore\n"
                         "  :args (list '(:name \"x\" :type string :desciption \"X.\")\n"
                         "              '(:name \"y\" :type string :description \"Y.\" :required t)\n"
                         "              '(:name \"z\" :type string :desciption \"Z.\"))) ; plistspec: ignore[PS301]\n"))
           (in-project (plistspec-user-tests--write (expand-file-name "proj/lisp/tools.el" tmp) text))
           (elsewhere (plistspec-user-tests--write (expand-file-name "other/tools.el" tmp) text)))
      (make-directory (expand-file-name "proj/.git" tmp))
      (make-directory (expand-file-name "other/.git" tmp))
      (plistspec-user-tests--write (expand-file-name "proj/.plistspec.toml" tmp)
                                   "ignore = [\"PS303\"]\n")
      (cl-flet ((findings (file)
                  (with-current-buffer (find-file-noselect file)
                    (unwind-protect
                        (mapcar (lambda (d)
                                  (cons (line-number-at-pos (flymake-diagnostic-beg d))
                                        (and (string-match "\\[\\(PS[0-9]+\\)\\]\\'"
                                                           (flymake-diagnostic-text d))
                                             (match-string 1 (flymake-diagnostic-text d)))))
                                (car (plistspec-user-tests--run-backend)))
                      (kill-buffer)))))
        (should (equal (findings in-project) '((2 . "PS301"))))
        (should (member '(3 . "PS303") (findings elsewhere)))
        (should-not (assoc 4 (findings elsewhere)))))))

(provide 'plistspec-user-tests)
;;; plistspec-user-tests.el ends here
