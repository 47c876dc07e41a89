;;; macher.el --- the shape of kmontag/macher's tool maker -*- lexical-binding: t -*-
;; A tool constructor chosen at run time: plistspec cannot read what it makes.
(defun macher--make-tool (anon &rest slots)
  "Make a tool from SLOTS; ANON makes it without registering it."
  (apply (if anon #'gptel--make-tool #'gptel-make-tool) slots))

(defun macher--tools (context)
  "The tools of CONTEXT."
  (list (macher--make-tool t :name "read_file" :description "Read a file."
                           :args '((:name "path" :type string))
                           :function (lambda (path) (macher--read context path)))))
