;;; fmt_strings.el --- tool forms whose strings fmt must keep as written  -*- lexical-binding: t; -*-

;; Shapes real tool files use: multi-line docstring-like descriptions, `\'-newline
;; continuations, escapes, (concat ...) descriptions, comments everywhere.  Written
;; for plistspec's tests; none of it is laid out canonically yet.

(defun my-read-lines (path &optional start end)
  "Read PATH from line START to END."
  (ignore path start end))

(defun my-grep (regexp dir &optional glob)
  "Search for REGEXP under DIR, files matching GLOB."
  (ignore regexp dir glob))

(defvar my-tools
  (list
   (gptel-make-tool :name "read_lines" :function #'my-read-lines
     :description "Read lines from a file.

Use this to look at a file before editing it.  Lines are numbered from 1;
give START and END to read a part of a large file.  \"~\" is expanded.
  - one indented line
\tand a tab escape"
     :args (list '(:name "path" :type string :description "The file to read; a path \
relative to the project root is fine.")
                 '(:name "start" :type integer :optional t
                         :description "First line (1-based).") ; default 1
                 ;; END is inclusive
                 '(:name "end" :type integer :optional t :description "Last line, \\ included."))
     :category "filesystem" :confirm nil :include t)

   (gptel-make-tool
    :name "grep"   ; the name models see
    :function #'my-grep
    :description (concat "Search files with a regular expression.\n"
                         "Returns matching lines as FILE:LINE:TEXT, "
                         "at most 200 of them.")
    :args (list (list :name "regexp" :type "string"
                      :description "An Emacs or PCRE regexp:
\\w, \\b and groups work.")
                (list :name "dir" :type "string" :description "Where to search.")
                (list :name "glob" :type "string" :optional t :description "e.g. \"*.el\""
                      :enum ["*.el" "*.py" "*.md" "*.org" "*.txt" "*.json" "*.toml" "*.yaml" "*.c" "*.h"]))
    :category "filesystem")))

(llm-make-tool :function (lambda (callback query &optional limit tags) (funcall callback (list query limit tags)))
               :name "search_notes" :async t
               :description "Search the user's notes.
The result is a list of titles, newest first."
               :args '((:name "query" :type string :description "Words to look for; \
quoted \"phrases\" match exactly.")
                       (:name "limit" :type integer :description "How many titles (default 10)." :optional t)
                       (:name "tags" :type array :items (:type string :description "A tag, without the leading #.") :optional t)))

(gptel-make-tool :name "describe_symbol"
                 :function (lambda (name)
                             (let ((sym (intern-soft name)))
                               (if sym (documentation sym) "No such symbol.")))
                 :description "Return the documentation of an Emacs Lisp symbol."
                 :args (list '(:name "name" :type string :description "The symbol's name, e.g. \"car\".")))

;;; fmt_strings.el ends here
