;;; plistspec-serve-export.el --- Export the tools registered in Emacs to a JSON file  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 plistspec contributors
;; SPDX-License-Identifier: GPL-3.0-or-later

;;; Commentary:

;; `M-x plistspec-serve-export-tools' writes the tools registered in this
;; Emacs (gptel's registry, and the llm tools of a variable) to a JSON
;; file: the IR, MCP `tools/list' entries, or any provider's format.  Each
;; tool is written as the constructor call that makes it and compiled by
;; `plistspec to-json', so the JSON is the one the static path gives.

;;; Code:

(require 'subr-x)
(require 'plistspec-serve-index)

(defgroup plistspec-serve nil
  "Serve gptel/llm tools to MCP clients through plistspec."
  :group 'tools
  :prefix "plistspec-serve-")

(defcustom plistspec-serve-executable nil
  "Command that runs plistspec, as a list of strings.
When nil, `plistspec-executable' is used if it is bound, else
\(\"plistspec\")."
  :type '(choice (const :tag "Default" nil) (repeat string)))

;;;; Exporting the registered tools to a JSON file

(defun plistspec-serve--executable ()
  "The plistspec command as a list of strings."
  (or plistspec-serve-executable
      (and (boundp 'plistspec-executable) (symbol-value 'plistspec-executable))
      '("plistspec")))

;;;###autoload
(defun plistspec-serve-export-tools (file format &optional llm-variable)
  "Write the tools registered in this Emacs to FILE as JSON in FORMAT.
FORMAT is \"mcp\" (MCP tools/list entries), \"ir\" or a provider
name.  The tools are gptel's registry and, with LLM-VARIABLE, the llm
tools in that variable.  Each tool is written as the constructor call
that makes it and compiled by `plistspec to-json', so the JSON is the
same the static path gives."
  (interactive
   (list (read-file-name "Export tools to: " nil nil nil "tools.json")
         (completing-read "Format: " '("mcp" "ir" "openai" "openai-responses" "anthropic"
                                       "gemini" "bedrock" "ollama" "vertex")
                          nil t nil nil "mcp")
         (let ((v (read-string "llm tools variable (empty for none): ")))
           (and (not (string-empty-p v)) (intern v)))))
  (let ((src (make-temp-file "plistspec-export" nil ".el"))
        (cmd (plistspec-serve--executable)))
    (unwind-protect
        (progn
          (with-temp-file src
            (insert ";;; -*- lexical-binding: t; -*-\n")
            (dolist (info (plist-get (plistspec-serve--index
                                      (list :llm-variable llm-variable))
                                     :listed))
              (insert (plist-get info :form) "\n")))
          (with-temp-buffer
            (let ((status (apply #'call-process (car cmd) nil t nil
                                 (append (cdr cmd)
                                         (list "to-json" "-t" format "-o"
                                               (expand-file-name file) src)))))
              (unless (eql status 0)
                (error "Plistspec to-json failed: %s" (string-trim (buffer-string))))))
          (message "Wrote %s" file))
      (delete-file src))))

(provide 'plistspec-serve-export)
;;; plistspec-serve-export.el ends here
