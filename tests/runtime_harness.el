;;; runtime_harness.el --- What the gptel-mode and llm-mode harnesses share  -*- lexical-binding: t; -*-

;; Loaded (by tests/runtime_support.py) into `emacs --batch' just before
;; tests/gptel_mode/harness.el or tests/llm_mode/harness.el, after the real gptel or
;; llm, mcp.el and this checkout's plistspec package: reading the harness's JSON
;; configuration, tool functions that record what they receive, the tools of an MCP
;; tools/list file as mcp.el's stubbed connection hands them, mcp.el's stub method,
;; and the mode's record (blocked calls, tools left out) for the report.

;;; Code:

(require 'cl-lib)
(require 'json)

(defvar harness-config)
(defvar harness-calls nil "(SCENARIO TOOL PRINTED-ARGS), newest first.")
(defvar harness-scenario nil "The id of the scenario running.")
(defvar mcp-server-connections)

(defun harness-read-json (file)
  (with-temp-buffer
    (insert-file-contents file)
    (json-parse-buffer :object-type 'alist :array-type 'list :null-object nil :false-object nil)))

(defun harness-record (name)
  "A tool function that records its arguments under NAME."
  (lambda (&rest args)
    (push (list harness-scenario name (prin1-to-string args)) harness-calls)
    (format "%s ran" name)))

(defun harness-record-async (name)
  "An async tool function that records its arguments under NAME."
  (lambda (callback &rest args)
    (push (list harness-scenario name (prin1-to-string args)) harness-calls)
    (run-at-time 0.01 nil callback (format "%s ran" name))))

(defun harness-mcp-tools (server file)
  "The tools of the MCP tools/list FILE, SERVER's connection stubbed with them."
  (let* ((data (with-temp-buffer
                 (insert-file-contents file)
                 ;; what jsonrpc.el hands mcp.el
                 (json-parse-buffer :object-type 'plist :null-object nil :false-object :json-false)))
         (data (or (plist-get data :result) data))
         (tools (append (plist-get data :tools) nil)))
    (puthash server (cons 'harness-stub tools) mcp-server-connections)
    tools))

(defun harness-blocked (blocked)
  "The BLOCKED calls of a mode (its list, newest first) as [NAME TEXT], oldest first."
  (vconcat (mapcar (lambda (b) (vector (nth 2 b) (nth 3 b))) (reverse blocked))))

(defun harness-left-out (last target left-out)
  "[NAME TARGET [TOOL...]] of each plan in LAST, a mode's table of its last plans.
TARGET and LEFT-OUT are the plan's accessors."
  (let (acc)
    (maphash (lambda (name plan)
               (push (vector name (funcall target plan)
                             (vconcat (mapcar #'car (funcall left-out plan))))
                     acc))
             last)
    acc))

(cl-defmethod mcp--tools ((connection (head harness-stub)))
  "The tools/list of a stubbed CONNECTION."
  (cdr connection))

;;; runtime_harness.el ends here
