;;; plistspec-server-tests.el --- The check server of plistspec.el  -*- lexical-binding: t; -*-

;;; Commentary:

;; ERT tests run by tests/emacs_pkg/test_emacs_package.py in a real Emacs, with
;; `plistspec-executable' running this checkout's plistspec: the Flymake backend
;; through one long-lived "plistspec check --server" gives the findings of the
;; one-shot "plistspec check", comes back after the server dies, and falls back to
;; the one-shot command when no server can start.

;;; Code:

(require 'ert)
(require 'cl-lib)
(require 'plistspec)
(require 'plistspec-user-tests)

(defconst plistspec-server-tests--root
  (file-name-directory
   (directory-file-name
    (file-name-directory
     (directory-file-name
      (file-name-directory (or load-file-name buffer-file-name default-directory))))))
  "The repository root.")

(defconst plistspec-server-tests--texts
  (list plistspec-user-tests--typo
        ";; ünïcödé 𝄞 ✓\n(gptel-make-tool :name \"f\" :description \"é𝄞\" :function #'f :args (list '(:name \"x\" :type strng)))\n"
        "(gptel-make-tool :name \"a\"\n  :args (list '(:name \"x\" ]))\n"
        "(llm-make-tool :name \"b c\" :function #'ignore :args '((:name \"q\" :type array)))\n"
        "")
  "Buffers with findings of every kind (and none).")

(defun plistspec-server-tests--findings (server)
  "Check the current buffer through the server when SERVER, else one-shot.
Return the findings as (BEG END TYPE TEXT) lists, or what was reported."
  (let* ((plistspec-use-server server)
         (reported (plistspec-user-tests--run-backend)))
    (if (listp (car reported))
        (mapcar (lambda (d) (list (flymake-diagnostic-beg d) (flymake-diagnostic-end d)
                                  (flymake-diagnostic-type d) (flymake-diagnostic-text d)))
                (car reported))
      reported)))

(defun plistspec-server-tests--server ()
  "The live check server of this buffer's command, or nil."
  (let ((proc (gethash (plistspec-command) plistspec--servers)))
    (and (process-live-p proc) proc)))

(defmacro plistspec-server-tests--fresh (&rest body)
  "Run BODY with no check server running, none remembered as failed; end them after."
  (declare (indent 0))
  `(progn
     (plistspec-restart-server)
     (unwind-protect (progn ,@body)
       (plistspec-restart-server))))

(ert-deftest plistspec-server-findings-equal-one-shot ()
  "Every buffer gets the same findings through the server as one-shot; one process."
  (plistspec-server-tests--fresh
    (let (server)
      (dolist (text (cons (with-temp-buffer
                            (insert-file-contents
                             (expand-file-name "fixtures/elisp/record_summary.el"
                                               plistspec-server-tests--root))
                            (buffer-string))
                          plistspec-server-tests--texts))
        (with-temp-buffer
          (insert text)
          (let ((one-shot (plistspec-server-tests--findings nil))
                (served (plistspec-server-tests--findings t)))
            (should (equal served one-shot))
            (should (or (string-empty-p text) (equal text "") one-shot))
            ;; the same server answered every buffer
            (should (plistspec-server-tests--server))
            (if server
                (should (eq (plistspec-server-tests--server) server))
              (setq server (plistspec-server-tests--server)))))))))

(ert-deftest plistspec-server-restarts-after-it-dies ()
  "A server killed between checks is started again; one killed mid-check still reports."
  (plistspec-server-tests--fresh
    (with-temp-buffer
      (insert plistspec-user-tests--typo)
      (let ((expected (plistspec-server-tests--findings nil)))
        (should expected)
        (should (equal (plistspec-server-tests--findings t) expected))
        (let ((first (plistspec-server-tests--server)))
          (should first)
          (signal-process first 'KILL)
          (plistspec-user-tests--wait (lambda () (not (process-live-p first))))
          (should (equal (plistspec-server-tests--findings t) expected))
          (let ((second (plistspec-server-tests--server)))
            (should second)
            (should-not (eq first second))
            ;; killed while it checks: the check is done one-shot, and still reported
            (let ((plistspec-use-server t) (reported nil))
              (plistspec-flymake (lambda (&rest args) (setq reported args)))
              (delete-process second)
              (plistspec-user-tests--wait (lambda () reported))
              (should (equal (mapcar #'flymake-diagnostic-text (car reported))
                             (mapcar (lambda (d) (nth 3 d)) expected))))))))))

(ert-deftest plistspec-server-ignores-obsolete-replies ()
  "Two checks in a row: the reply to the first is not reported."
  (plistspec-server-tests--fresh
    (with-temp-buffer
      (insert plistspec-user-tests--typo)
      (let ((plistspec-use-server t) (first 'none) (second 'none))
        (plistspec-flymake (lambda (d &rest _) (setq first d)))
        (erase-buffer)
        (insert "(gptel-make-tool :name \"f\" :description \"F.\" :function #'ignore)\n")
        (plistspec-flymake (lambda (d &rest _) (setq second d)))
        (plistspec-user-tests--wait (lambda () (not (eq second 'none))))
        (accept-process-output nil 0.3)
        (should (eq first 'none))
        (should (null second))
        (should (plistspec-server-tests--server))))))

(ert-deftest plistspec-server-falls-back-to-one-shot ()
  "A plistspec without --server, or one that hangs, or the option off: one-shot checks."
  (plistspec-user-tests--in-dir tmp
    (plistspec-server-tests--fresh
      (let* ((log (expand-file-name "runs.txt" tmp))
             (real (format "%s -m plistspec" (shell-quote-argument plistspec-user-tests-python)))
             (old (plistspec-user-tests--script
                   (expand-file-name "old-plistspec" tmp)
                   (format "echo \"$2\" >> %s\nif [ \"$2\" = --server ]; then echo 'Error: No such option: --server' >&2; exit 2; fi\nexec %s \"$@\""
                           (shell-quote-argument log) real)))
             (hangs (plistspec-user-tests--script
                     (expand-file-name "hanging-plistspec" tmp)
                     (format "if [ \"$2\" = --server ]; then exec sleep 600; fi\nexec %s \"$@\""
                             real))))
        (with-temp-buffer
          (insert plistspec-user-tests--typo)
          (let ((expected (plistspec-server-tests--findings nil)))
            (should expected)
            ;; an older plistspec: its server exits at once, the check runs one-shot
            (let ((plistspec-executable old))
              (should (equal (plistspec-server-tests--findings t) expected))
              ;; and it is not tried again for each check
              (should (equal (plistspec-server-tests--findings t) expected))
              (should (equal (with-temp-buffer (insert-file-contents log)
                                               (split-string (buffer-string) "\n" t))
                             '("--server" "--output-format" "--output-format")))
              (should-not (plistspec-server-tests--server)))
            ;; a server that never answers is ended after `plistspec-timeout'
            (let ((plistspec-executable hangs) (plistspec-timeout 2))
              (should (equal (plistspec-server-tests--findings t) expected))
              (should-not (plistspec-server-tests--server)))
            ;; the option off: no server is started
            (let ((plistspec-use-server nil))
              (plistspec-server-tests--findings nil)
              (should-not (plistspec-server-tests--server)))))))))

(ert-deftest plistspec-server-honours-each-file-configuration ()
  "The server runs in one directory; each file's .plistspec.toml still applies."
  (plistspec-user-tests--in-dir tmp
    (plistspec-server-tests--fresh
      (let* ((text (concat "(gptel-make-tool :name \"f\" :description \"F.\" :function #'ignore\n"
                           "  :args (list '(:name \"x\" :type string :desciption \"X.\")\n"
                           "              '(:name \"y\" :type string :description \"Y.\" :required t)))\n"))
             (in-project (plistspec-user-tests--write
                          (expand-file-name "proj/lisp/tools.el" tmp) text))
             (elsewhere (plistspec-user-tests--write
                         (expand-file-name "other/tools.el" tmp) text))
             (codes nil))
        (make-directory (expand-file-name "proj/.git" tmp))
        (make-directory (expand-file-name "other/.git" tmp))
        (plistspec-user-tests--write (expand-file-name "proj/.plistspec.toml" tmp)
                                     "ignore = [\"PS303\"]\n")
        (dolist (file (list elsewhere in-project elsewhere))
          (with-current-buffer (find-file-noselect file)
            (unwind-protect
                (let ((served (plistspec-server-tests--findings t)))
                  (should (equal served (plistspec-server-tests--findings nil)))
                  (push (mapcar (lambda (d) (and (string-match "\\[\\(PS[0-9]+\\)\\]\\'" (nth 3 d))
                                                 (match-string 1 (nth 3 d))))
                                served)
                        codes))
              (kill-buffer))))
        (setq codes (nreverse codes))
        ;; started from other/, the server still reads proj/.plistspec.toml for proj's file
        (should (member "PS303" (nth 0 codes)))
        (should (equal (nth 1 codes) '("PS301")))
        (should (equal (nth 2 codes) (nth 0 codes)))))))

(provide 'plistspec-server-tests)
;;; plistspec-server-tests.el ends here
