;;; plistspec-trust-tests.el --- Visiting a file never runs the project's code  -*- lexical-binding: t; -*-

;;; Commentary:

;; ERT tests run by tests/emacs_pkg/test_emacs_package.py in a real Emacs, with
;; `plistspec-user-tests-python' set to a Python that imports this checkout's
;; plistspec.  A hostile repository holds programs that would write a marker
;; file: a .venv/bin/plistspec, a plistspec.py, a ./plistspec; the tests visit
;; its files, run every command, and check that the marker never appears, until
;; the user trusts the repository.

;;; Code:

(require 'ert)
(require 'cl-lib)
(require 'plistspec)
(require 'plistspec-user-tests)

(defconst plistspec-trust-tests--tools
  "(gptel-make-tool :name \"f\" :description \"F.\" :function #'ignore\n  :args (list '(:name \"x\" :type string :desciption \"Words.\")))\n"
  "A tool whose arg misspells :description.")

(defmacro plistspec-trust-tests--in-repo (vars &rest body)
  "Run BODY in a new hostile repository; VARS names (ROOT MARKER TOOLS-FILE).
ROOT has .git, an executable .venv/bin/plistspec that writes MARKER and
then runs this checkout's plistspec, and TOOLS-FILE (lisp/tools.el, a
tool with a finding).  Nothing is trusted, and only a directory holding
this checkout's plistspec (as bin/plistspec) is on `exec-path'."
  (declare (indent 1))
  (pcase-let ((`(,root ,marker ,tools) vars))
    `(plistspec-user-tests--in-dir tmp
       (plistspec-user-tests--trusting nil
         (let* ((,root (file-name-as-directory (expand-file-name "repo" tmp)))
                (,marker (expand-file-name "MARKER" tmp))
                (,tools (plistspec-user-tests--write (expand-file-name "lisp/tools.el" ,root)
                                                     plistspec-trust-tests--tools))
                (bin (expand-file-name "bin/" tmp))
                (exec-path (list bin))
                (vc-handled-backends nil)  ; VC would run git, which is not on this exec-path
                (plistspec-executable nil)
                (plistspec-cli-directory (expand-file-name "no-cli/" tmp))
                (plistspec--python-checked nil)
                (plistspec--warned nil))
           (make-directory (expand-file-name ".git" ,root) t)
           (plistspec-user-tests--script
            (expand-file-name ".venv/bin/plistspec" ,root)
            (format "echo venv >> %s\nexec %s -m plistspec \"$@\""
                    (shell-quote-argument ,marker)
                    (shell-quote-argument plistspec-user-tests-python)))
           (plistspec-user-tests--real-plistspec (expand-file-name "plistspec" bin))
           (plistspec-restart-server)
           (unwind-protect (progn ,@body)
             (plistspec-restart-server)))))))

(defun plistspec-trust-tests--findings ()
  "Check the current buffer through Flymake; return its plistspec findings' codes."
  (flymake-start)
  (plistspec-user-tests--wait
   (lambda ()
     (delq nil (mapcar (lambda (d)
                         (and (eq (flymake-diagnostic-backend d) 'plistspec-flymake)
                              (string-match "\\[\\(PS[0-9]+\\)\\]\\'" (flymake-diagnostic-text d))
                              (match-string 1 (flymake-diagnostic-text d))))
                       (flymake-diagnostics))))))

(ert-deftest plistspec-trust-untrusted-venv-never-runs ()
  "Visiting, checking and every command: the untrusted project's program never runs.
After `plistspec-trust-project' it is the one that runs."
  (plistspec-trust-tests--in-repo (root marker tools)
    (let ((json (plistspec-user-tests--write
                 (expand-file-name "tools.json" root)
                 "[{\"name\": \"g\", \"description\": \"G.\", \"input_schema\": {\"type\": \"object\", \"properties\": {}}}]")))
      (with-current-buffer (find-file-noselect tools)
        (unwind-protect
            (progn
              (dolist (use-server '(t nil))
                (let ((plistspec-use-server use-server))
                  (plistspec-mode 1)
                  ;; the check is done, by the plistspec on exec-path
                  (should (member "PS301" (plistspec-trust-tests--findings)))
                  (plistspec-mode -1)))
              (should (equal (plistspec-command) (list (expand-file-name "plistspec" bin))))
              (should (string-match-p "\\[\"f\"\\|\"name\": \"f\""
                                      (plistspec-json-string "openai")))
              (goto-char (point-min))
              (search-forward "desciption")
              (should (equal (car (plistspec-tool-json-string "anthropic")) "f"))
              (should (equal (plistspec-explain "PS301") "PS301"))
              (plistspec-fix-buffer)
              (plistspec-fix-buffer t)
              (goto-char (point-max))
              (plistspec-insert-from-json json)
              (should-not (file-exists-p marker))
              ;; the user was told, once, why the project's program did not run
              (should (member (expand-file-name ".venv/bin/plistspec" root)
                              plistspec--untrusted-said))
              ;; trusted: its program runs, for checks and commands
              (plistspec-trust-project root)
              (should (equal (plistspec-command)
                             (list (expand-file-name ".venv/bin/plistspec" root))))
              (plistspec-mode 1)
              (flymake-start)
              (should (plistspec-user-tests--wait (lambda () (file-exists-p marker))))
              (plistspec-mode -1))
          (set-buffer-modified-p nil)
          (kill-buffer))))))

(ert-deftest plistspec-trust-remembered-and-forgotten ()
  "`plistspec-trust-project' writes the file; another Emacs reads it; distrust removes it."
  (plistspec-trust-tests--in-repo (root _marker _tools)
    (let* ((plistspec-trusted-projects-file (expand-file-name "trusted.eld" tmp))
           (venv (expand-file-name ".venv/bin/plistspec" root)))
      (should-not (plistspec-trusted-p venv))
      ;; asked interactively: the answer "no" trusts nothing
      (cl-letf (((symbol-function 'yes-or-no-p) (lambda (&rest _) nil)))
        (plistspec-trust-project root t))
      (should-not (file-exists-p plistspec-trusted-projects-file))
      (should-not (plistspec-trusted-p venv))
      (cl-letf (((symbol-function 'yes-or-no-p) (lambda (&rest _) t)))
        (plistspec-trust-project root t))
      (should (plistspec-trusted-p venv))
      ;; what another Emacs reads back
      (setq plistspec--remembered nil)
      (should (equal (plistspec--read-trust-file plistspec-trusted-projects-file)
                     (list (abbreviate-file-name root))))
      (should (plistspec-trusted-p venv))
      ;; a sibling whose name starts the same is not inside it
      (should-not (plistspec-trusted-p (concat (directory-file-name root) "-other/x")))
      (plistspec-distrust-project root)
      (should-not (plistspec-trusted-p venv))
      (should (equal (plistspec--read-trust-file plistspec-trusted-projects-file) nil))
      ;; a file that is not a list of names trusts nothing
      (with-temp-file plistspec-trusted-projects-file (insert "(\"/\" . 1)"))
      (setq plistspec--remembered nil)
      (should-not (plistspec-trusted-p venv)))))

(ert-deftest plistspec-trust-emacs-trusted-content ()
  "Where Emacs has `trusted-content-p', its `trusted-content' is obeyed, on the project's place."
  (unless (fboundp 'trusted-content-p)
    (ert-skip "this Emacs has no `trusted-content-p' (Emacs 30, or 28/29 with the CVE-2024-53920 fix)"))
  (plistspec-trust-tests--in-repo (root _marker _tools)
    (let ((venv (expand-file-name ".venv/bin/plistspec" root)))
      (let ((trusted-content (list (abbreviate-file-name root))))
        (should (plistspec-trusted-p venv)))
      (let ((trusted-content :all))
        (should (plistspec-trusted-p venv)))
      (let ((trusted-content (list (abbreviate-file-name (expand-file-name "lisp/" root)))))
        (should-not (plistspec-trusted-p venv)))
      ;; a link in a trusted directory to an untrusted program is not trusted
      (let* ((trusted (file-name-as-directory (expand-file-name "trusted" tmp)))
             (link (expand-file-name ".venv" trusted)))
        (make-directory trusted t)
        (make-symbolic-link (expand-file-name ".venv" root) link)
        (let ((trusted-content (list (abbreviate-file-name trusted))))
          (should-not (plistspec-trusted-p (expand-file-name "bin/plistspec" link))))
        (let ((plistspec-trusted-projects (list trusted)))
          (should-not (plistspec-trusted-p (expand-file-name "bin/plistspec" link))))))))

;; Issue 31 #1: trust is decided on the place the program was found, never on a link's target.
(ert-deftest plistspec-trust-link-out-of-the-project-never-runs ()
  "An untrusted project's .venv/bin/plistspec linking into a trusted project never runs.
The trusted project's program would run with the untrusted project as
its working directory (pytest there would load the untrusted conftest.py)."
  (plistspec-trust-tests--in-repo (root marker tools)
    (let* ((trusted (file-name-as-directory (expand-file-name "trusted" tmp)))
           (target (expand-file-name ".venv/bin/pytest" trusted))
           (venv (expand-file-name ".venv/bin/plistspec" root)))
      (plistspec-user-tests--script
       target (format "echo linked >> %s\necho '[]'" (shell-quote-argument marker)))
      (delete-file venv)
      ;; as the audit planted it: a relative link out of the repository
      (make-symbolic-link "../../../trusted/.venv/bin/pytest" venv)
      (should (equal (file-truename venv) target))
      (plistspec-trust-project trusted)
      (should (plistspec-trusted-p target))
      (should-not (plistspec-trusted-p venv))
      (should (string-match-p "link leading out of its project"
                              (plistspec-untrusted-reason venv)))
      (with-current-buffer (find-file-noselect tools)
        (unwind-protect
            (progn
              ;; the checks run the plistspec on exec-path, never the link
              (should (equal (plistspec-command) (list (expand-file-name "plistspec" bin))))
              (plistspec-mode 1)
              (should (member "PS301" (plistspec-trust-tests--findings)))
              (plistspec-mode -1)
              ;; the user was told once, and why
              (should (member venv plistspec--untrusted-said))
              ;; trusting the repository too: a link out of it still never runs
              (plistspec-trust-project root)
              (should-not (plistspec-trusted-p venv))
              (should (equal (plistspec-command) (list (expand-file-name "plistspec" bin))))
              ;; with no other plistspec, the refusal says why
              (let* ((exec-path nil)
                     (plistspec-python "no-such-python")
                     (err (should-error (plistspec-command) :type 'plistspec-unavailable)))
                (should (string-match-p "link leading out of its project" (cadr err)))
                (should (string-match-p "M-x plistspec-install-cli" (cadr err))))
              (should-not (file-exists-p marker)))
          (kill-buffer)))
      ;; Emacs's own `trusted-content' trusting the target changes nothing either
      (when (fboundp 'trusted-content-p)
        (let ((trusted-content (list (abbreviate-file-name trusted))))
          (should-not (plistspec-trusted-p venv))))
      ;; a link that stays inside its own project is the project's program
      (plistspec-user-tests--real-plistspec (expand-file-name "tools/plistspec" root))
      (delete-file venv)
      (make-symbolic-link "../../tools/plistspec" venv)
      (should (plistspec-trusted-p venv))
      (with-current-buffer (find-file-noselect tools)
        (unwind-protect
            (should (equal (plistspec-command) (list venv)))
          (kill-buffer))))))

(ert-deftest plistspec-trust-python-imports-nothing-of-the-directory ()
  "A plistspec.py beside the visited file never runs instead of plistspec.
Neither through the fallback `plistspec-python' -P -m plistspec, nor
through a `plistspec-executable' of (\"python3\" \"-m\" \"plistspec\")."
  (plistspec-trust-tests--in-repo (root marker tools)
    (let* ((dir (file-name-directory tools))
           (py (expand-file-name "py/" tmp))
           (exec-path (list py)))
      (plistspec-user-tests--write
       (expand-file-name "plistspec.py" dir)
       (format "open(%S, 'a').write('hijacked')\n" marker))
      (plistspec-user-tests--script
       (expand-file-name "python3" py)
       (format "exec %s \"$@\"" (shell-quote-argument plistspec-user-tests-python)))
      (with-current-buffer (find-file-noselect tools)
        (unwind-protect
            (progn
              (should (equal (plistspec-command)
                             (list (expand-file-name "python3" py) "-P" "-m" "plistspec")))
              (should (string-match-p "version" (nth 1 (plistspec--call '("--version")))))
              (let ((plistspec-executable (list (expand-file-name "python3" py) "-m" "plistspec")))
                (should (string-match-p "version" (nth 1 (plistspec--call '("--version")))))
                (plistspec-mode 1)
                (should (member "PS301" (plistspec-trust-tests--findings)))
                (plistspec-mode -1))
              (should-not (file-exists-p marker)))
          (kill-buffer))))))

(ert-deftest plistspec-trust-programs-named-from-the-directory ()
  "A relative `plistspec-executable' or a relative `exec-path' entry is the project's."
  (plistspec-trust-tests--in-repo (root marker tools)
    (plistspec-user-tests--script (expand-file-name "lisp/plistspec" root)
                                  (format "echo here >> %s; echo '[]'"
                                          (shell-quote-argument marker)))
    (with-current-buffer (find-file-noselect tools)
      (unwind-protect
          (progn
            ;; "." on exec-path would be the visited file's directory
            (let ((exec-path (list "." "./" nil)))
              (should-error (plistspec-command) :type 'plistspec-unavailable))
            (let ((plistspec-executable "./plistspec"))
              (let ((err (should-error (plistspec-command) :type 'plistspec-unavailable)))
                (should (string-match-p "not trusted" (cadr err))))
              (plistspec-trust-project root)
              (should (equal (plistspec-command)
                             (list (expand-file-name "lisp/plistspec" root)))))
            (should-not (file-exists-p marker)))
        (kill-buffer)))))

(ert-deftest plistspec-trust-options-are-risky-as-local-variables ()
  "A file or its directory cannot choose the program or the trust (they are risky)."
  (dolist (var '(plistspec-executable plistspec-python plistspec-trusted-projects
                 plistspec-trusted-projects-file plistspec-enable-in))
    (should (risky-local-variable-p var)))
  (plistspec-trust-tests--in-repo (root marker tools)
    (plistspec-user-tests--write
     (expand-file-name ".dir-locals.el" root)
     (format "((nil . ((plistspec-executable . %S))))"
             (expand-file-name ".venv/bin/plistspec" root)))
    ;; as Emacs visits a file when asked about unsafe variables, and answering no
    (let ((enable-local-variables :safe))
      (with-current-buffer (find-file-noselect tools)
        (unwind-protect
            (progn
              (should-not (local-variable-p 'plistspec-executable))
              (plistspec-mode 1)
              (should (member "PS301" (plistspec-trust-tests--findings)))
              (plistspec-mode -1)
              (should-not (file-exists-p marker)))
          (kill-buffer))))))

(provide 'plistspec-trust-tests)
;;; plistspec-trust-tests.el ends here
