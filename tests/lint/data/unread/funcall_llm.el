;;; funcall_llm.el --- llm tools made through funcall -*- lexical-binding: t -*-
(defun my-llm-tool (spec)
  "An llm tool of SPEC."
  (funcall #'llm-make-tool :name (plist-get spec :name)
           :description (plist-get spec :description)
           :function (plist-get spec :function) :args (plist-get spec :args)))
