;;; plistspec-command-tests.el --- The commands and keys of plistspec-mode  -*- lexical-binding: t; -*-

;;; Commentary:

;; ERT tests run by tests/emacs_pkg/test_emacs_package.py in a real Emacs, with
;; `plistspec-executable' running this checkout's plistspec: the JSON of the tool
;; at point, explanations, the messages of the fixes, the keys, where
;; `global-plistspec-mode' turns the mode on and which Flymake backends run.

;;; Code:

(require 'ert)
(require 'cl-lib)
(require 'json)
(require 'plistspec)
(require 'plistspec-user-tests)

(defconst plistspec-command-tests--tools
  (concat ";; tools\n"
          "(defvar my-tools nil)\n"
          "(gptel-make-tool :name \"first\" :description \"First.\" :function #'ignore\n"
          "  :args (list '(:name \"x\" :type string :description \"X.\")))\n"
          "\n"
          "(push (gptel-make-tool :name \"second\" :description \"Second.\" :function #'ignore\n"
          "        :args (list '(:name \"n\" :type integer :description \"N.\" :minimum 1)))\n"
          "      my-tools)\n"
          "(llm-make-tool :name \"third\" :description \"Third.\" :function #'ignore\n"
          "  :args '((:name \"b\" :type boolean :description \"B.\")))\n")
  "Three tools, one of them llm's, between other forms.")

(defun plistspec-command-tests--parse (json)
  "JSON parsed, objects as alists, arrays as lists."
  (json-parse-string json :object-type 'alist :array-type 'list :null-object nil))

(defun plistspec-command-tests--tools-of (all)
  "The tools of ALL, the parsed JSON of a buffer, unwrapping functionDeclarations."
  (if (and (= (length all) 1) (assq 'functionDeclarations (car all)))
      (alist-get 'functionDeclarations (car all))
    all))

(ert-deftest plistspec-command-tool-at-point-json ()
  "The JSON of the tool at point is that tool's entry of the buffer's JSON, for every format."
  (with-temp-buffer
    (insert plistspec-command-tests--tools)
    (emacs-lisp-mode)
    (dolist (format (remove "ir" plistspec-providers))
      (let ((all (plistspec-command-tests--tools-of
                  (plistspec-command-tests--parse (plistspec-json-string format)))))
        (should (= (length all) 3))
        ;; every place for two formats (Gemini's wraps its tools), one for the others
        (cl-loop for (search . index) in (if (member format '("openai-responses" "gemini"))
                                             '(("\"First.\"" . 0) (":minimum" . 1)
                                               ("my-tools)" . 1) ("boolean" . 2))
                                           '(("boolean" . 2)))
                 do (goto-char (point-min))
                 (search-forward search)
                 (let ((got (plistspec-tool-json-string format)))
                   (should (equal (list format search (plistspec-command-tests--parse (cdr got)))
                                  (list format search (nth index all))))
                   (should (equal (car got) (nth index '("first" "second" "third"))))))))
    ;; right after a tool's closing paren still counts; before any tool there is none
    (goto-char (point-min))
    (search-forward "\"X.\")))")
    (should (equal (car (plistspec-tool-json-string "openai")) "first"))
    (goto-char (point-min))
    (should-error (plistspec-tool-json-string "openai") :type 'user-error)
    ;; a top-level form holding several tools: which one is not guessed
    (goto-char (point-max))
    (insert "(setq both (list (gptel-make-tool :name \"a\" :function #'ignore :description \"A.\")\n"
            "                 (gptel-make-tool :name \"b\" :function #'ignore :description \"B.\")))\n")
    (search-backward "(list")
    (let ((err (should-error (plistspec-tool-json-string "openai") :type 'user-error)))
      (should (string-match-p "Several tools" (cadr err))))
    ;; the text is plistspec's own, outdented: the entry of "anthropic" as printed
    (goto-char (point-min))
    (search-forward "Second")
    (should (string-prefix-p "{\n  \"name\": \"second\",\n  \"description\": \"Second.\","
                             (cdr (plistspec-tool-json-string "anthropic"))))))

(ert-deftest plistspec-command-tool-at-point-same-names ()
  "Two tools with one name: the one at point, not the first."
  (with-temp-buffer
    (insert "(gptel-make-tool :name \"t\" :description \"One.\" :function #'ignore)\n"
            "(gptel-make-tool :name \"t\" :description \"Two.\" :function #'ignore)\n")
    (goto-char (point-max))
    (search-backward "Two")
    (should (equal (alist-get 'description
                              (plistspec-command-tests--parse
                               (cdr (plistspec-tool-json-string "openai-responses"))))
                   "Two."))
    (let ((buffer (plistspec-show-tool-json "mcp")))
      (with-current-buffer buffer
        (should (equal header-line-format "Tool t: mcp"))
        (should (equal (alist-get 'description (plistspec-command-tests--parse (buffer-string)))
                       "Two.")))
      (kill-buffer buffer))))

(ert-deftest plistspec-command-explain ()
  "`plistspec-explain': the finding at point (Flymake's or checked now), else a code asked for."
  (dolist (flymake '(nil t))
    (with-temp-buffer
      (insert plistspec-user-tests--typo)
      (emacs-lisp-mode)
      (when flymake
        (setq-local flymake-diagnostic-functions nil)
        (plistspec-mode 1)
        (flymake-start)
        (should (plistspec-user-tests--wait #'flymake-diagnostics)))
      (goto-char (point-min))
      (search-forward ":desciption")
      (should (equal (plistspec--codes-at (point)) '("PS301")))
      (should (equal (call-interactively #'plistspec-explain) "PS301"))
      (with-current-buffer (help-buffer)
        (should (derived-mode-p 'help-mode))
        (should (string-prefix-p "PS301 (warning): unknown keyword" (buffer-string))))
      ;; no finding at point: the code is asked for, the list offered
      (goto-char (point-min))
      (let ((offered nil))
        (cl-letf (((symbol-function 'completing-read)
                   (lambda (_prompt collection &rest _)
                     (setq offered collection)
                     "PS303  warning  whatever")))
          (should (equal (call-interactively #'plistspec-explain) "PS303")))
        (should (seq-find (lambda (line) (string-prefix-p "PS301 " line)) offered)))
      (with-current-buffer (help-buffer)
        (should (string-prefix-p "PS303 " (buffer-string))))
      (when flymake (plistspec-mode -1))))
  (should-error (plistspec-explain "PS9999") :type 'user-error))

(defun plistspec-command-tests--said (command &rest args)
  "Call COMMAND with ARGS; return the last message it showed."
  (let ((said nil))
    (cl-letf (((symbol-function 'message)
               (lambda (format &rest args)
                 (setq said (and format (apply #'format-message format args))))))
      (apply command args))
    said))

(ert-deftest plistspec-command-fix-buffer-says-what-is-left ()
  "The message of `plistspec-fix-buffer' counts what is left and names the unsafe fixes' key."
  (unless (plistspec-user-tests--cli-has-fix-p)
    (ert-skip "the plistspec CLI under test has no `check --fix' yet"))
  (with-temp-buffer
    (insert plistspec-user-tests--fixable)
    (emacs-lisp-mode)
    (setq-local flymake-diagnostic-functions nil)
    (plistspec-mode 1)
    (let ((said (plistspec-command-tests--said #'plistspec-fix-buffer)))
      (should (string-match-p "fixed 1 finding; 2 findings left, 2 with an unsafe fix" said))
      (should (string-match-p "C-u C-c , F applies them" said)))
    (should (string-match-p "\\`plistspec: nothing to fix; 2 findings left, 2 with an unsafe fix"
                            (plistspec-command-tests--said #'plistspec-fix-buffer)))
    (should (equal (plistspec-command-tests--said #'plistspec-fix-buffer t)
                   "plistspec: fixed 2 findings"))
    (plistspec-mode -1))
  ;; without the mode's keys, the message names the command
  (should (string-match-p "C-u M-x plistspec-fix-buffer applies it"
                          (plistspec--fix-summary 0 1 1))))

(ert-deftest plistspec-command-keys ()
  "The keys of `plistspec-mode' are under C-c , and its documentation lists them."
  (with-temp-buffer
    (emacs-lisp-mode)
    (setq-local flymake-diagnostic-functions nil)
    (plistspec-mode 1)
    (pcase-dolist (`(,keys . ,command)
                   '(("C-c , f" . plistspec-fix-at-point) ("C-c , F" . plistspec-fix-buffer)
                     ("C-c , e" . plistspec-explain) ("C-c , j" . plistspec-show-tool-json)
                     ("C-c , J" . plistspec-show-json) ("C-c , i" . plistspec-insert-from-json)))
      (should (eq (key-binding (kbd keys)) command)))
    (plistspec-mode -1)
    (should-not (eq (key-binding (kbd "C-c , f")) 'plistspec-fix-at-point)))
  (let ((doc (documentation 'plistspec-mode)))
    (dolist (line '("C-c , f" "plistspec-fix-at-point" "C-c , e" "plistspec-explain"
                    "C-c , j" "plistspec-show-tool-json"))
      (should (string-match-p (regexp-quote line) doc)))))

(ert-deftest plistspec-command-global-mode-where-tools-are ()
  "`global-plistspec-mode': on where tools are made, else off until a save shows some."
  (plistspec-user-tests--in-dir tmp
    (let ((tools (plistspec-user-tests--write (expand-file-name "tools.el" tmp)
                                              plistspec-command-tests--tools))
          (plain (plistspec-user-tests--write (expand-file-name "plain.el" tmp)
                                              "(defun f (x) x)\n"))
          (text (plistspec-user-tests--write (expand-file-name "notes.txt" tmp)
                                             "(gptel-make-tool :name \"x\")\n"))
          (buffers nil))
      (unwind-protect
          (progn
            (global-plistspec-mode 1)
            (let ((plistspec-flymake-only t))
              (push (find-file-noselect tools) buffers)
              (push (find-file-noselect plain) buffers)
              (push (find-file-noselect text) buffers))
            (with-current-buffer (find-buffer-visiting tools)
              (should plistspec-mode)
              (should flymake-mode)
              ;; only plistspec's backend: no checkdoc or byte-compile noise
              (should (equal flymake-diagnostic-functions '(plistspec-flymake))))
            (with-current-buffer (find-buffer-visiting plain)
              (should-not plistspec-mode)
              (should-not (bound-and-true-p flymake-mode))
              ;; a tool written and saved: the mode comes on
              (goto-char (point-max))
              (insert "(llm-make-tool :name \"y\" :description \"Y.\" :function #'ignore)\n")
              (save-buffer)
              (should plistspec-mode))
            (with-current-buffer (find-buffer-visiting text)
              (should-not plistspec-mode))
            ;; widened: every Emacs Lisp buffer
            (let ((plistspec-enable-in 'all))
              (with-temp-buffer
                (emacs-lisp-mode)
                (should plistspec-mode)))
            (let ((plistspec-enable-in (lambda () (string-match-p "keep" (buffer-name)))))
              (with-current-buffer (get-buffer-create "keep-me")
                (push (current-buffer) buffers)
                (emacs-lisp-mode)
                (should plistspec-mode))
              (with-temp-buffer
                (emacs-lisp-mode)
                (should-not plistspec-mode))))
        (global-plistspec-mode -1)
        (dolist (buffer buffers)
          (with-current-buffer buffer (set-buffer-modified-p nil))
          (kill-buffer buffer))))))

(ert-deftest plistspec-command-flymake-backends ()
  "Started by the mode, Flymake runs plistspec only; the user's own Flymake keeps its backends."
  (with-temp-buffer
    (emacs-lisp-mode)
    (let ((own (buffer-local-value 'flymake-diagnostic-functions (current-buffer))))
      (should (memq 'elisp-flymake-checkdoc own))
      (let ((plistspec-flymake-only t))
        (plistspec-mode 1)
        (should (equal flymake-diagnostic-functions '(plistspec-flymake)))
        (plistspec-mode -1)
        (should-not flymake-mode)
        (should (equal flymake-diagnostic-functions own)))
      (let ((plistspec-flymake-only nil))
        (plistspec-mode 1)
        (should (memq 'elisp-flymake-checkdoc flymake-diagnostic-functions))
        (should (memq 'plistspec-flymake flymake-diagnostic-functions))
        (plistspec-mode -1))
      (flymake-mode 1)
      (plistspec-mode 1)
      (should (memq 'elisp-flymake-checkdoc flymake-diagnostic-functions))
      (should (memq 'plistspec-flymake flymake-diagnostic-functions))
      (plistspec-mode -1)
      (should flymake-mode)
      (should (equal flymake-diagnostic-functions own))
      (flymake-mode -1))))

(ert-deftest plistspec-command-insert-from-json-paragraphs ()
  "Inserted forms are a paragraph of their own, at the end of the buffer too."
  (plistspec-user-tests--in-dir tmp
    (let ((json (plistspec-user-tests--write
                 (expand-file-name "t.json" tmp)
                 "[{\"name\": \"f\", \"description\": \"F.\", \"input_schema\": {\"type\": \"object\", \"properties\": {}}}]")))
      (pcase-dolist (`(,before ,after ,expected)
                     '(("(provide 'x)\n" "" "\\`(provide 'x)\n\n(gptel-make-tool\n[^\0]*)\n\\'")
                       ("(provide 'x)" "" "\\`(provide 'x)\n\n(gptel-make-tool\n[^\0]*)\n\\'")
                       ("(a)\n\n" "" "\\`(a)\n\n(gptel-make-tool\n[^\0]*)\n\\'")
                       ("" "" "\\`(gptel-make-tool\n[^\0]*)\n\\'")
                       ("" "(b)\n" "\\`(gptel-make-tool\n[^\0]*)\n\n(b)\n\\'")
                       ("(a)\n" "(b)\n" "\\`(a)\n\n(gptel-make-tool\n[^\0]*)\n\n(b)\n\\'")))
        (with-temp-buffer
          (insert before after)
          (goto-char (1+ (length before)))
          (plistspec-insert-from-json json)
          (should (equal (list before after t)
                         (list before after
                               (and (string-match-p expected (buffer-string)) t)))))))))

(provide 'plistspec-command-tests)
;;; plistspec-command-tests.el ends here
