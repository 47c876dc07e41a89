;;; plistspec-serve.el --- Run gptel/llm tools for `plistspec serve'  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 plistspec contributors
;; SPDX-License-Identifier: GPL-3.0-or-later
;; Package-Requires: ((emacs "28.1"))

;;; Commentary:

;; The Emacs half of `plistspec serve' and `plistspec to-json --from-emacs'.
;;
;; plistspec (Python) loads this file into an Emacs it started itself, or into
;; the user's running Emacs, and talks to it through the Emacs server socket.
;; Every request is one call of a function below whose arguments are strings
;; and numbers printed by plistspec's Emacs-exact printer: the model's JSON
;; arguments arrive as a JSON *string* and are parsed here with
;; `json-parse-string' using the options of the library that defined the tool
;; (gptel 0.9.9.5: the OpenAI path of `gptel--json-read-string', objects as
;; plists, arrays as vectors, false as `:json-false', null as nil; llm 0.31.1:
;; objects as alists, then false as nil, null stays `:null').  Every reply is a
;; JSON object, UTF-8 encoded and base64-encoded so that it crosses the server
;; protocol untouched.
;;
;; Where gptel or llm is not installed, `plistspec-serve-install-shims' defines
;; `gptel-make-tool', `llm-make-tool' and `make-llm-tool' with the same calling
;; convention, so that a tools file still loads and its functions run.
;;
;; `plistspec-serve-export-tools' writes the tools registered in this Emacs to
;; a JSON file (the IR, MCP `tools/list' entries, or any provider's format).

;;; Code:

(require 'cl-lib)
(require 'subr-x)

(defconst plistspec-serve-version "1"
  "Version of the protocol between plistspec (Python) and this file.")

(defgroup plistspec-serve nil
  "Serve gptel/llm tools to MCP clients through plistspec."
  :group 'tools
  :prefix "plistspec-serve-")

(defcustom plistspec-serve-executable nil
  "Command that runs plistspec, as a list of strings.
When nil, `plistspec-executable' is used if it is bound, else
\(\"plistspec\")."
  :type '(choice (const :tag "Default" nil) (repeat string)))

(defvar gptel--known-tools)
(declare-function gptel-tool-p "gptel-request" (tool))
(declare-function gptel-tool-name "gptel-request" (tool))
(declare-function gptel-tool-description "gptel-request" (tool))
(declare-function gptel-tool-args "gptel-request" (tool))
(declare-function gptel-tool-function "gptel-request" (tool))
(declare-function gptel-tool-async "gptel-request" (tool))
(declare-function gptel-tool-category "gptel-request" (tool))
(declare-function gptel-tool-confirm "gptel-request" (tool))
(declare-function gptel-tool-include "gptel-request" (tool))
(declare-function llm-tool-p "llm" (tool))
(declare-function llm-tool-name "llm" (tool))
(declare-function llm-tool-description "llm" (tool))
(declare-function llm-tool-args "llm" (tool))
(declare-function llm-tool-function "llm" (tool))
(declare-function llm-tool-async "llm" (tool))
(declare-function llm-provider-utils--normalize-args "llm-provider-utils" (args &optional false-val))

(defvar plistspec-serve--recorded (make-hash-table :test #'equal)
  "Tools created since this file was loaded: name -> entry plist.")

(defvar plistspec-serve--recorded-order nil
  "Names of `plistspec-serve--recorded', newest first.")

(defvar plistspec-serve--pending (make-hash-table :test #'equal)
  "Asynchronous calls: id -> reply, or `pending' while the callback has not run.")

;;;; Recording the tools a file creates

(defun plistspec-serve--slot (slots key)
  "The first value of KEY in the keyword list SLOTS (as a `&key' argument sees it)."
  (plist-get slots key))

(defun plistspec-serve--record (dialect slots)
  "Remember the tool made by DIALECT's constructor from keyword list SLOTS."
  (let ((name (plistspec-serve--slot slots :name)))
    (when (stringp name)
      (unless (gethash name plistspec-serve--recorded)
        (push name plistspec-serve--recorded-order))
      (puthash name
               (list :name name
                     :dialect dialect
                     :description (plistspec-serve--slot slots :description)
                     :args (plistspec-serve--slot slots :args)
                     :function (plistspec-serve--slot slots :function)
                     :async (plistspec-serve--slot slots :async)
                     :category (and (eq dialect 'gptel)
                                    (plistspec-serve--slot slots :category))
                     :confirm (and (eq dialect 'gptel)
                                   (plistspec-serve--slot slots :confirm))
                     :include (and (eq dialect 'gptel)
                                   (plistspec-serve--slot slots :include)))
               plistspec-serve--recorded))))

(defun plistspec-serve--record-gptel (orig &rest slots)
  "Around advice for `gptel-make-tool': call ORIG with SLOTS and record the tool."
  (prog1 (apply orig slots)
    (plistspec-serve--record 'gptel slots)))

(defun plistspec-serve--record-llm (orig &rest slots)
  "Around advice for `llm-make-tool': call ORIG with SLOTS and record the tool."
  (prog1 (apply orig slots)
    (plistspec-serve--record 'llm slots)))

(defun plistspec-serve-install-shims ()
  "Load gptel and llm where they can be loaded, else define stand-ins.
A stand-in constructor returns the tool's slots; the real constructors
are advised to record each tool too.  Either way the tools a file
creates can be called by name."
  (unless (or (fboundp 'gptel-make-tool)
              (and (locate-library "gptel") (ignore-errors (require 'gptel) t)))
    (defalias 'gptel-make-tool
      (lambda (&rest slots) (cons 'plistspec-gptel-tool slots))
      "plistspec's stand-in for gptel's `gptel-make-tool' (gptel is not installed).")
    (provide 'gptel-request)
    (provide 'gptel))
  (unless (or (fboundp 'llm-make-tool)
              (and (locate-library "llm")
                   (ignore-errors (require 'llm) (require 'llm-provider-utils nil t) t)))
    (defalias 'llm-make-tool
      (lambda (&rest slots) (cons 'plistspec-llm-tool slots))
      "plistspec's stand-in for llm's `llm-make-tool' (llm is not installed).")
    (defalias 'make-llm-tool (symbol-function 'llm-make-tool))
    (provide 'llm))
  (advice-add 'gptel-make-tool :around #'plistspec-serve--record-gptel)
  (advice-add 'llm-make-tool :around #'plistspec-serve--record-llm)
  (advice-add 'make-llm-tool :around #'plistspec-serve--record-llm))

;;;; The registry of a running Emacs

(defun plistspec-serve--gptel-entry (tool)
  "The entry plist of gptel TOOL (a `gptel-tool' struct)."
  (list :name (gptel-tool-name tool)
        :dialect 'gptel
        :description (gptel-tool-description tool)
        :args (gptel-tool-args tool)
        :function (gptel-tool-function tool)
        :async (gptel-tool-async tool)
        :category (gptel-tool-category tool)
        :confirm (gptel-tool-confirm tool)
        :include (gptel-tool-include tool)))

(defun plistspec-serve--llm-entry (tool)
  "The entry plist of llm TOOL (an `llm-tool' struct)."
  (list :name (llm-tool-name tool)
        :dialect 'llm
        :description (llm-tool-description tool)
        :args (llm-tool-args tool)
        :function (llm-tool-function tool)
        :async (llm-tool-async tool)))

(defun plistspec-serve--entries (source)
  "Every tool entry of SOURCE, in registration order.
SOURCE is `recorded' (the tools created since this file was loaded)
or a list (emacs LLM-VARIABLE): gptel's registry `gptel--known-tools'
and the llm tools in LLM-VARIABLE (a symbol, or nil)."
  (if (eq source 'recorded)
      (mapcar (lambda (n) (gethash n plistspec-serve--recorded))
              (reverse plistspec-serve--recorded-order))
    (let ((out nil) (llm-var (cadr source)))
      (when (boundp 'gptel--known-tools)
        ;; gptel puts a new category and a new tool first: reversed, this is
        ;; the order of definition.
        (dolist (cat (reverse gptel--known-tools))
          (dolist (pair (reverse (cdr cat)))
            (when (and (fboundp 'gptel-tool-p) (gptel-tool-p (cdr pair)))
              (push (plistspec-serve--gptel-entry (cdr pair)) out)))))
      (when (and llm-var (boundp llm-var))
        (let ((v (symbol-value llm-var)))
          (dolist (tool (if (listp v) v (append v nil)))
            (cond ((and (fboundp 'llm-tool-p) (llm-tool-p tool))
                   (push (plistspec-serve--llm-entry tool) out))
                  ((and (fboundp 'gptel-tool-p) (gptel-tool-p tool))
                   (push (plistspec-serve--gptel-entry tool) out))))))
      (nreverse out))))

(defun plistspec-serve--find (source name)
  "The entry of the tool called NAME in SOURCE, or nil."
  (if (eq source 'recorded)
      (gethash name plistspec-serve--recorded)
    (cl-find name (plistspec-serve--entries source)
             :key (lambda (e) (plist-get e :name)) :test #'equal)))

(defun plistspec-serve--symbol-types (args)
  "A copy of gptel ARGS with each `:type' string that is one word a symbol again.
`gptel-make-tool' turns `:type string' into `:type \"string\"' in place; both
send the same JSON, and the symbol is what a tools file says."
  (cond ((vectorp args) (vconcat (mapcar #'plistspec-serve--symbol-types args)))
        ((and (consp args) (keywordp (car args)) (proper-list-p args))
         (cl-loop for (k v) on args by #'cddr
                  append (list k (if (and (eq k :type) (stringp v)
                                          (string-match-p "\\`[a-z]+\\'" v))
                                     (intern v)
                                   (plistspec-serve--symbol-types v)))))
        ((and (consp args) (proper-list-p args))
         (mapcar #'plistspec-serve--symbol-types args))
        (t args)))

(defun plistspec-serve--form (entry)
  "The constructor call that makes ENTRY, as text `read' gives back.
A closure is written as nil: it has no printed form worth reading."
  (let* ((fn (plist-get entry :function))
         (gptel (eq (plist-get entry :dialect) 'gptel))
         (form `(,(if gptel 'gptel-make-tool 'llm-make-tool)
                 :name ,(plist-get entry :name)
                 :description ,(plist-get entry :description)
                 ,@(and (plist-get entry :args)
                        `(:args (quote ,(if gptel
                                            (plistspec-serve--symbol-types
                                             (plist-get entry :args))
                                          (plist-get entry :args)))))
                 :function ,(and fn (symbolp fn) `(function ,fn))
                 ,@(and (plist-get entry :async) '(:async t))
                 ,@(and gptel (plist-get entry :category)
                        `(:category ,(plist-get entry :category)))
                 ,@(and gptel (plist-get entry :confirm) '(:confirm t))
                 ,@(and gptel (plist-get entry :include) '(:include t))))
         (print-length nil) (print-level nil) (print-circle nil)
         (print-escape-newlines nil) (print-quoted t))
    (prin1-to-string form)))

(defun plistspec-serve--function-kind (fn)
  "How the tool function FN can be named: \"symbol\", \"closure\" or \"none\"."
  (cond ((null fn) "none")
        ((symbolp fn) "symbol")
        (t "closure")))

;;;; Replies

(defconst plistspec-serve--inline-limit 4000
  "Longest reply sent inline; a longer one goes through a private file.
The server protocol's `server-reply-print' splits what it sends into
`server-msg-size' pieces, which costs time quadratic in the length.")

(defun plistspec-serve--reply (value)
  "VALUE (a plist of strings, numbers, t, :json-false) as a reply string.
Short replies are base64 UTF-8 JSON; a long one is written to a file
that only this user can read, and the reply is \"@\" and its name (the
reader deletes it)."
  (let ((bytes (encode-coding-string
                (condition-case err
                    (json-serialize value :null-object :null :false-object :json-false)
                  (error
                   (json-serialize
                    (list :status "error" :kind "signal"
                          :text (format "The result cannot be sent as JSON: %s"
                                        (error-message-string err))))))
                'utf-8 t)))
    (if (<= (length bytes) plistspec-serve--inline-limit)
        (base64-encode-string bytes t)
      (let ((file (with-file-modes #o600
                    (make-temp-file "plistspec-reply-" nil ".json"))))
        (let ((coding-system-for-write 'binary))
          (write-region bytes nil file nil 'silent))
        (concat "@" file)))))

(defun plistspec-serve-registry (source)
  "The tools of SOURCE (see `plistspec-serve--entries') as a reply."
  (plistspec-serve--reply
   (list :version plistspec-serve-version
         :tools
         (vconcat
          (mapcar (lambda (e)
                    (let ((fn (plist-get e :function))
                          (cat (plist-get e :category)))
                      (list :name (plist-get e :name)
                            :dialect (symbol-name (plist-get e :dialect))
                            :form (plistspec-serve--form e)
                            :function_kind (plistspec-serve--function-kind fn)
                            :function (if (and fn (symbolp fn)) (symbol-name fn) :null)
                            :category (if (stringp cat) cat :null))))
                  (plistspec-serve--entries source))))))

(defun plistspec-serve--plist-p (v)
  "Non-nil if V is a proper list of keyword/value pairs."
  (and (consp v) (proper-list-p v) (cl-evenp (length v))
       (cl-loop for (k _) on v by #'cddr always (keywordp k))))

(defun plistspec-serve--alist-p (v)
  "Non-nil if V is a proper list of (SYMBOL-OR-STRING . VALUE) pairs."
  (and (consp v) (proper-list-p v)
       (cl-every (lambda (c) (and (consp c) (or (symbolp (car c)) (stringp (car c))))) v)))

(defun plistspec-serve--jsonable (v depth)
  "V as a value `json-serialize' accepts; DEPTH guards against cycles.
nil and :null are null, t true, :json-false and :false false, other
symbols their name, plists/alists/hash tables objects, lists/vectors arrays."
  (when (> depth 200) (error "Result nested too deeply"))
  (let ((d (1+ depth)))
    (cond ((memq v '(nil :null)) :null)
          ((eq v t) t)
          ((memq v '(:json-false :false)) :json-false)
          ((or (stringp v) (integerp v)) v)
          ((floatp v) (if (or (isnan v) (memq v '(1.0e+INF -1.0e+INF))) (format "%S" v) v))
          ((symbolp v) (symbol-name v))
          ((vectorp v) (vconcat (mapcar (lambda (x) (plistspec-serve--jsonable x d)) v)))
          ((hash-table-p v)
           (let ((h (make-hash-table :test #'equal)))
             (maphash (lambda (k x) (puthash (format "%s" k) (plistspec-serve--jsonable x d) h)) v)
             h))
          ((plistspec-serve--plist-p v)
           (let ((h (make-hash-table :test #'equal)))
             (cl-loop for (k x) on v by #'cddr
                      unless (gethash (substring (symbol-name k) 1) h)
                      do (puthash (substring (symbol-name k) 1) (plistspec-serve--jsonable x d) h))
             h))
          ((plistspec-serve--alist-p v)
           (let ((h (make-hash-table :test #'equal)))
             (dolist (c v)
               (let ((k (format "%s" (car c))))
                 (unless (gethash k h) (puthash k (plistspec-serve--jsonable (cdr c) d) h))))
             h))
          ((and (consp v) (proper-list-p v))
           (vconcat (mapcar (lambda (x) (plistspec-serve--jsonable x d)) v)))
          (t (prin1-to-string v)))))

(defun plistspec-serve--result (value)
  "The reply for a tool that returned VALUE.
A string is text, anything else JSON."
  (if (stringp value)
      (list :status "ok" :kind "text"
            :text (if (multibyte-string-p value)
                      (substring-no-properties value)
                    ;; a unibyte string holds bytes: text in UTF-8, as a file would
                    (decode-coding-string value 'utf-8)))
    (list :status "ok" :kind "json"
          :text (condition-case nil
                    (json-serialize (plistspec-serve--jsonable value 0)
                                    :null-object :null :false-object :json-false)
                  (error (json-serialize (prin1-to-string value)))))))

(defun plistspec-serve--error (err)
  "The reply for signal ERR raised by a tool."
  (list :status "error" :kind "signal"
        :text (condition-case nil (error-message-string err)
                (error (prin1-to-string err)))))

;;;; Arguments as the defining library hands them over

(defun plistspec-serve--llm-normalize (value)
  "VALUE with every :json-false and :false replaced by nil.
This is what llm does to tool arguments."
  (cond ((memq value '(:json-false :false)) nil)
        ((vectorp value) (vconcat (mapcar #'plistspec-serve--llm-normalize value)))
        ((consp value)
         (cons (plistspec-serve--llm-normalize (car value))
               (plistspec-serve--llm-normalize (cdr value))))
        (t value)))

(defun plistspec-serve--call-args (entry json-text)
  "The argument list ENTRY's function receives for the JSON object JSON-TEXT."
  (let ((names (mapcar (lambda (a) (plist-get a :name))
                       (append (plist-get entry :args) nil))))
    (if (eq (plist-get entry :dialect) 'llm)
        ;; llm 0.31.1: `llm-provider-utils-parse-openai-tool-arguments', then
        ;; `llm-provider-utils--normalize-args', then each arg by `intern'ed name.
        (let* ((parsed (json-parse-string json-text :object-type 'alist))
               (args (if (fboundp 'llm-provider-utils--normalize-args)
                         (llm-provider-utils--normalize-args parsed)
                       (plistspec-serve--llm-normalize parsed))))
          (dolist (pair args)
            (unless (member (symbol-name (car pair)) names)
              (error "Unknown argument '%s' for tool '%s'"
                     (car pair) (plist-get entry :name))))
          (mapcar (lambda (n) (cdr (assq (intern n) args))) names))
      ;; gptel 0.9.9.5, OpenAI path: `gptel--json-read-string', then
      ;; `gptel--map-tool-args'.
      (let ((args (json-parse-string json-text :object-type 'plist
                                     :null-object nil :false-object :json-false)))
        (mapcar (lambda (n) (plist-get args (intern (concat ":" n)))) names)))))

;;;; Calls

(defun plistspec-serve-call (source name json-text id timeout)
  "Run tool NAME of SOURCE with the JSON object JSON-TEXT; return a reply.
An asynchronous tool gets a callback; if it has not been called when
the tool function returns, the reply is pending and
`plistspec-serve-poll' with ID gives it later.  A synchronous tool
that waits longer than TIMEOUT seconds is interrupted."
  (plistspec-serve--reply
   (let ((entry (plistspec-serve--find source name)))
     (cond
      ((null entry)
       (list :status "error" :kind "unknown"
             :text (format "No tool named %S is registered in this Emacs" name)))
      ((not (functionp (plist-get entry :function)))
       (list :status "error" :kind "signal"
             :text (format "Tool %S has no function: %S" name (plist-get entry :function))))
      (t
       (condition-case err
           (let ((args (plistspec-serve--call-args entry json-text))
                 (fn (plist-get entry :function)))
             (if (plist-get entry :async)
                 (progn
                   (puthash id 'pending plistspec-serve--pending)
                   (apply fn (lambda (&optional result &rest _)
                               (when (eq (gethash id plistspec-serve--pending) 'pending)
                                 (puthash id (plistspec-serve--result result)
                                          plistspec-serve--pending)))
                          args)
                   (let ((r (gethash id plistspec-serve--pending)))
                     (if (eq r 'pending)
                         (list :status "pending" :id id)
                       (remhash id plistspec-serve--pending)
                       r)))
               (let* ((timed-out t)
                      (value (with-timeout (timeout nil)
                               (prog1 (apply fn args) (setq timed-out nil)))))
                 (if timed-out
                     (list :status "error" :kind "timeout"
                           :text (format "Tool '%s' timed out after %g seconds" name timeout))
                   (plistspec-serve--result value)))))
         ((debug t)
          (remhash id plistspec-serve--pending)
          (plistspec-serve--error err))))))))

(defun plistspec-serve-poll (id)
  "The reply of asynchronous call ID, or a pending reply."
  (plistspec-serve--reply
   (let ((r (gethash id plistspec-serve--pending)))
     (cond ((null r) (list :status "error" :kind "unknown" :text "No such call"))
           ((eq r 'pending) (list :status "pending" :id id))
           (t (remhash id plistspec-serve--pending) r)))))

(defun plistspec-serve-forget (id)
  "Drop asynchronous call ID: a late callback is then ignored."
  (puthash id 'abandoned plistspec-serve--pending)
  (run-at-time 600 nil (lambda () (remhash id plistspec-serve--pending)))
  t)

;;;; The one entry point

(defun plistspec-serve--source (request)
  "The tool source named by REQUEST's \"source\" member."
  (let ((src (plist-get request :source)))
    (if (or (null src) (equal src "recorded"))
        'recorded
      (let ((var (plist-get src :llm_variable)))
        (list 'emacs (and (stringp var) (intern var)))))))

(defun plistspec-serve-request (json-text)
  "Answer the request JSON-TEXT (a JSON object) from plistspec; return a reply.
Its \"op\" is \"hello\", \"registry\", \"call\", \"poll\", \"forget\" or
\"load\".  Every string (tool names included) travels inside the JSON, so
that only ASCII crosses the server socket."
  (let* ((request (json-parse-string json-text :object-type 'plist
                                     :null-object nil :false-object nil))
         (op (plist-get request :op)))
    (pcase op
      ("hello"
       (plistspec-serve--reply
        (list :version plistspec-serve-version :emacs emacs-version :pid (emacs-pid)
              :gptel (if (featurep 'gptel-request) t :json-false)
              :llm (if (featurep 'llm) t :json-false))))
      ("registry" (plistspec-serve-registry (plistspec-serve--source request)))
      ("call" (plistspec-serve-call (plistspec-serve--source request)
                                    (plist-get request :name)
                                    (plist-get request :arguments)
                                    (plist-get request :id)
                                    (or (plist-get request :timeout) 60)))
      ("poll" (plistspec-serve-poll (plist-get request :id)))
      ("forget" (plistspec-serve-forget (plist-get request :id))
       (plistspec-serve--reply (list :status "ok")))
      ("load" (plistspec-serve-load (plist-get request :file)))
      (_ (plistspec-serve--reply (list :status "error" :kind "protocol"
                                       :text (format "Unknown op %S" op)))))))

;;;; Loading files in plistspec's own Emacs

(defun plistspec-serve-load (file)
  "Load FILE; return a reply saying whether it loaded, with the error if not."
  (plistspec-serve--reply
   (condition-case err
       (progn (load file nil t t)
              (list :status "ok" :kind "text" :text file))
     ((debug t) (plistspec-serve--error err)))))

(defun plistspec-serve-watch-parent (pid &optional dir)
  "Kill this Emacs when process PID (the plistspec that started it) ends.
DIR, the private directory plistspec made for this Emacs, is deleted first."
  (run-at-time 1 1 (lambda ()
                     (unless (ignore-errors (zerop (signal-process pid 0)))
                       (when dir (ignore-errors (delete-directory dir t)))
                       (kill-emacs 0)))))

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
            (dolist (e (plistspec-serve--entries (list 'emacs llm-variable)))
              (insert (plistspec-serve--form e) "\n")))
          (with-temp-buffer
            (let ((status (apply #'call-process (car cmd) nil t nil
                                 (append (cdr cmd)
                                         (list "to-json" "-f" format "-o"
                                               (expand-file-name file) src)))))
              (unless (eql status 0)
                (error "Plistspec to-json failed: %s" (string-trim (buffer-string))))))
          (message "Wrote %s" file))
      (delete-file src))))

(provide 'plistspec-serve)
;;; plistspec-serve.el ends here
