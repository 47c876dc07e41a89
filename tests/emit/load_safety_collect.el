;;; load_safety_collect.el --- what Emacs knows of macros and functions  -*- lexical-binding: t; -*-

;; Run by tests/emit/gen_load_safety.py and tests/emit/test_load_safety_sweep.py in
;; `emacs --batch -Q' (the real gptel/llm on `load-path' first).  Prints one line per
;; symbol, "KIND NAME" (NAME as `prin1' writes it), for the kinds:
;;   special   a special form
;;   macro     a macro (after requiring the libraries below)
;;   function  any other function
;;   compile   a function with a compiler macro, a byte-compile handler or a
;;             byte-optimizer (what runs when a call of it is expanded or compiled)
;;   pcase     a pcase pattern macro (a `pcase-macroexpander')
;;   srcmacro  a name some Emacs Lisp source defines as a macro (defmacro, cl-defmacro,
;;             or a defalias to a macro), read with `read' from every file of the
;;             directories in `load-safety-source-dirs' (never evaluated)

(defvar load-safety-libraries
  '(cl-lib subr-x seq map json url url-http url-util dom thingatpt project xref
    gptel llm))

(defvar load-safety-source-dirs nil)

(dolist (lib load-safety-libraries)
  (condition-case nil (require lib) (error nil)))

(defun load-safety--print (kind sym)
  (princ (format "%s %s\n" kind (prin1-to-string sym))))

(mapatoms
 (lambda (s)
   (when (fboundp s)
     (cond ((special-form-p s) (load-safety--print "special" s))
           ((macrop s) (load-safety--print "macro" s))
           (t (load-safety--print "function" s)
              (when (or (function-get s 'compiler-macro)
                        (get s 'byte-compile)
                        (get s 'byte-optimizer))
                (load-safety--print "compile" s)))))
   (when (get s 'pcase-macroexpander)
     (load-safety--print "pcase" s))))

(defun load-safety--walk (form found)
  "Names FORM (read, never evaluated) defines as macros, pushed on FOUND's car."
  (let ((stack (list form)))
    (while stack
      (let ((x (pop stack)))
        (when (and (consp x) (proper-list-p x))
          (let ((head (car x)) (name (nth 1 x)))
            (cond
             ((and (memq head '(defmacro cl-defmacro defmacro* define-compiler-macro))
                   (symbolp name) name (not (eq head 'define-compiler-macro)))
              (push name (car found)))
             ((and (eq head 'defalias) (eq (car-safe name) 'quote)
                   (symbolp (nth 1 name))
                   (let ((def (nth 2 x)))
                     (or (and (memq (car-safe def) '(quote function))
                              (eq (car-safe (nth 1 def)) 'macro))
                         (and (eq (car-safe def) 'cons)
                              (equal (nth 1 def) ''macro))
                         (and (memq (car-safe def) '(quote function))
                              (symbolp (nth 1 def)) (macrop (nth 1 def))))))
              (push (nth 1 name) (car found)))))
          (dolist (y x) (when (consp y) (push y stack))))))))

(dolist (dir load-safety-source-dirs)
  (dolist (file (directory-files-recursively dir "\\.el\\(\\.gz\\)?\\'"))
    (let ((found (list nil)))
      (with-temp-buffer
        (condition-case nil
            (progn
              (insert-file-contents file)
              (goto-char (point-min))
              (while t
                (load-safety--walk (read (current-buffer)) found)))
          (error nil)))
      (dolist (s (car found)) (load-safety--print "srcmacro" s)))))
