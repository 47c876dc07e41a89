;;; harness.el --- Real gptel requests to the stub provider, with and without the mode  -*- lexical-binding: t; -*-

;; Loaded by test_gptel_mode.py into `emacs --batch' after the real gptel, mcp.el and
;; this checkout's plistspec package.  `harness-config' names a JSON file:
;;
;;   {"host": "127.0.0.1:PORT", "mode": true, "mcp": [[SERVER, FILE, CATEGORY?], ...],
;;    "scenarios": [{"id": N, "backend": PROTOCOL, "path": "request" | "send",
;;                   "tools": [NAME...] or null (all), "wait": SECONDS,
;;                   "kill_server": true (end plistspec's process before it),
;;                   "force": true (`gptel-use-tools' is `force'),
;;                   "pause": SECONDS (to wait, running timers and processes, first)}],
;;    "reports": [PROTOCOL...] (`plistspec-gptel-report' for those backends),
;;    "dry_run": [PROTOCOL...] (the request data of a dry run, e.g. Bedrock's),
;;    "extra_tools": true (the tools of `harness-register-extra' too),
;;    "out": FILE}
;;
;; Tools: every tool of the MCP tools/list files, registered by mcp.el's own conversion
;; (`mcp-make-text-tool', the connection stubbed as mcp.el's README says), and the
;; hand-written tools below.  Every tool's function records what it receives.  Each
;; scenario is one real request (`gptel-request', or `gptel-send' in a buffer) whose
;; prompt names it ("scenario-N"), so the stub answers it from its own script.  The
;; results (calls received, what each scenario ended with, the mode's record) go to OUT
;; as JSON.

;;; Code:

(require 'cl-lib)

;; harness-config, harness-calls, harness-record...: tests/runtime_harness.el, loaded first

(defun harness-register-mcp (server file &optional category)
  "Register the tools of the MCP tools/list FILE as mcp.el does, for SERVER.
CATEGORY is the tools' category (default SERVER; mcp-hub's is \"mcp-SERVER\")."
  (let ((tools (harness-mcp-tools server file)))
    (dolist (tl tools)
      (let* ((name (plist-get tl :name))
             (spec (mcp-make-text-tool server name)))
        (apply #'gptel-make-tool
               (append (list :function (harness-record name) :category (or category server))
                       spec))))))

(defun harness-register-handwritten ()
  "Tools written by hand: enums, nested objects, arrays, optional, async."
  (gptel-make-tool
   :name "get_weather" :function (harness-record "get_weather") :category "hand"
   :description "Get the weather in a city"
   :args (list '(:name "location" :type string :description "The city")
               '(:name "unit" :type string :enum ["celsius" "fahrenheit"] :optional t)))
  (gptel-make-tool
   :name "set_level" :function (harness-record "set_level") :category "hand"
   :description "Set the level"
   :args (list '(:name "level" :type integer :enum [1 2 3])
               '(:name "note" :type ["string" "null"] :optional t)))
  (gptel-make-tool
   :name "create_item" :function (harness-record "create_item") :category "hand"
   :description "Create an item"
   :args (list '(:name "item" :type object
                       :properties (:title (:type string)
                                    :tags (:type array :items (:type string))
                                    :meta (:type object
                                           :properties (:priority (:type integer))
                                           :required ["priority"]))
                       :required ["title"])
               '(:name "dry_run" :type boolean :optional t)))
  (gptel-make-tool
   :name "pick_shape" :function (harness-record "pick_shape") :category "hand"
   :description "Pick a shape"
   :args (list '(:name "shape" :type object
                       :oneOf [(:type object :properties (:radius (:type number))
                                      :required ["radius"])
                               (:type object :properties (:side (:type number))
                                      :required ["side"])])))
  (gptel-make-tool
   :name "lookup/v2" :function (harness-record "lookup/v2") :category "hand"
   :description "Look something up"
   :args (list '(:name "q" :type string :const "x" :description "what")))
  (gptel-make-tool
   :name "options_only" :function (harness-record "options_only") :category "hand"
   :description "Everything optional"
   :args (list '(:name "verbose" :type boolean :optional t)
               '(:name "limit" :type integer :optional t)))
  (gptel-make-tool
   :name "no_args" :function (harness-record "no_args") :category "hand"
   :description "Takes nothing")
  (gptel-make-tool
   :name "fetch_async" :function (harness-record-async "fetch_async") :async t
   :category "hand" :description "Fetch a URL"
   :args (list '(:name "url" :type string)))
  (gptel-make-tool
   :name "boom_async" :async t :category "hand" :description "Always fails"
   :function (lambda (_callback &rest args)
               (push (list harness-scenario "boom_async" (prin1-to-string args)) harness-calls)
               (error "Boom"))
   :args (list '(:name "x" :type string)))
  (gptel-make-tool
   :name "tree" :function (harness-record "tree") :category "hand"
   :description "A recursive schema"
   :args (list '(:name "node" :type object
                       :properties (:value (:type string)
                                    :children (:type array
                                               :items (:$ref "#/properties/node")))))))

(defun harness-register-extra ()
  "Tools for the contract checks: declared closed objects, constraints lowering
widens, a backtracking pattern, an async tool that signals from a timer."
  (gptel-make-tool
   :name "configure" :function (harness-record "configure") :category "extra"
   :description "Configure"
   :args (list '(:name "config" :type object
                       :properties (:name (:type string)
                                    :opts (:type object
                                           :properties (:level (:type integer))
                                           :additionalProperties :json-false))
                       :required ["name"]
                       :additionalProperties :json-false)))
  (gptel-make-tool
   :name "widened" :function (harness-record "widened") :category "extra"
   :description "Constraints some backends cannot say"
   :args (list '(:name "count" :type integer :enum [1 2 3] :optional t)
               '(:name "ratio" :type number :exclusiveMinimum 0 :optional t)
               '(:name "step" :type integer :multipleOf 5 :optional t)
               '(:name "tags" :type array :items (:type string) :uniqueItems t :optional t)
               '(:name "code" :type string :minLength 3 :optional t)
               '(:name "mode" :type ["string" "null"] :enum ["a" "b" :null] :optional t)))
  (gptel-make-tool
   :name "matcher" :function (harness-record "matcher") :category "extra"
   :description "A pattern that backtracks"
   :args (list '(:name "s" :type string :pattern "^(a+)+$")))
  (gptel-make-tool
   :name "timer_boom" :async t :category "extra" :description "Fails later"
   :function (lambda (_callback &rest args)
               (push (list harness-scenario "timer_boom" (prin1-to-string args)) harness-calls)
               (run-at-time 0.05 nil (lambda () (error "Later boom"))))
   :args (list '(:name "x" :type string))))

(defvar harness-ask-max 0.0 "The longest time one question to plistspec took.")
(defvar harness-start-max 0.0 "The longest time starting a request took.")

(defun harness-time-ask (orig &rest args)
  "Time ORIG, `plistspec-gptel--ask', called with ARGS."
  (let ((start (float-time)))
    (prog1 (apply orig args)
      (setq harness-ask-max (max harness-ask-max (- (float-time) start))))))

(defun harness-backend (protocol host)
  "A gptel backend of PROTOCOL pointed at the stub on HOST."
  (pcase protocol
    ("openai" (gptel-make-openai "stub-openai" :host host :protocol "http" :key "k"
                                 :models '(stub-model) :stream nil))
    ("openai-responses"
     (gptel-make-openai-responses "stub-responses" :host host :protocol "http" :key "k"
                                  :models '(stub-model) :stream nil))
    ("anthropic" (gptel-make-anthropic "stub-anthropic" :host host :protocol "http" :key "k"
                                       :models '(stub-model) :stream nil))
    ("gemini" (gptel-make-gemini "stub-gemini" :host host :protocol "http" :key "k"
                                 :models '(stub-model) :stream nil))
    ("ollama" (gptel-make-ollama "stub-ollama" :host host :protocol "http"
                                 :models '(stub-model) :stream nil))))

(defun harness-all-tools ()
  (cl-loop for (_cat . tools) in gptel--known-tools append (mapcar #'cdr tools)))

(defun harness-run (scenario host)
  "Run SCENARIO; return what it ended with."
  (let* ((id (alist-get 'id scenario))
         (names (alist-get 'tools scenario))
         (wait (or (alist-get 'wait scenario) 30))
         (gptel-backend (harness-backend (alist-get 'backend scenario) host))
         (gptel-model 'stub-model)
         (gptel-stream nil)
         (gptel-use-tools (if (alist-get 'force scenario) 'force t))
         (gptel-confirm-tool-calls nil)
         (gptel-tools (if names (mapcar #'gptel-get-tool names) (harness-all-tools)))
         (prompt (format "scenario-%s: go" id))
         (ended nil)
         (start (float-time)))
    (when-let ((pause (alist-get 'pause scenario)))
      (let ((end (+ start pause)))
        (while (< (float-time) end) (accept-process-output nil 0.05)))
      (setq start (float-time)))
    (setq harness-scenario id)
    (if (equal (alist-get 'path scenario) "send")
        (with-current-buffer (get-buffer-create (format "*harness-%s*" id))
          (text-mode)
          (setq-local gptel-backend gptel-backend gptel-model gptel-model
                      gptel-tools gptel-tools gptel-use-tools gptel-use-tools gptel-stream nil)
          (insert prompt)
          (let ((hook (lambda (&rest _) (setq ended "done"))))
            (add-hook 'gptel-post-response-functions hook nil t)
            (gptel-send)))
      (gptel-request prompt
        :callback (lambda (response _info)
                    (cond ((stringp response) (setq ended "done"))
                          ((memq response '(nil abort)) (setq ended "error"))))))
    (setq harness-start-max (max harness-start-max (- (float-time) start)))
    (let ((deadline (+ (float-time) wait)))
      (while (and (not ended) (< (float-time) deadline))
        ;; an error a tool signals where gptel does not catch it ends up here
        (condition-case err
            (accept-process-output nil 0.05)
          (error (setq ended (format "signalled: %s" (error-message-string err)))))))
    (or ended "hung")))

(defun harness-report (protocol host)
  "The text `plistspec-gptel-report' shows for the backend of PROTOCOL."
  (with-temp-buffer
    (setq-local gptel-backend (harness-backend protocol host))
    (plistspec-gptel-report)
    (with-current-buffer "*plistspec-gptel*" (buffer-string))))

(defun harness-dry-run (protocol)
  "The JSON of the request a backend of PROTOCOL would be sent (nothing is sent)."
  (let* ((gptel-backend
          (if (equal protocol "bedrock")
              (cl-letf (((symbol-function 'gptel-bedrock--curl-version) (lambda () "8.9.0")))
                (gptel-make-bedrock "stub-bedrock" :region "us-east-1"
                                    :models '(stub-model)))
            (harness-backend protocol "127.0.0.1:9")))
         (gptel-model 'stub-model)
         (gptel-use-tools t)
         (gptel-tools (harness-all-tools))
         (fsm (gptel-request "scenario-dry: go" :dry-run t :callback #'ignore)))
    (gptel--json-encode (plist-get (gptel-fsm-info fsm) :data))))

(defun harness-main ()
  (let* ((config (harness-read-json harness-config))
         (host (alist-get 'host config))
         (out (alist-get 'out config))
         (results nil))
    (setq gptel--known-tools nil)
    (dolist (m (alist-get 'mcp config))
      (harness-register-mcp (car m) (cadr m) (nth 2 m)))
    (harness-register-handwritten)
    (when (alist-get 'extra_tools config)
      (harness-register-extra))
    (when (alist-get 'mode config)
      (plistspec-gptel-mode 1))
    (when (fboundp 'plistspec-gptel--ask)
      (advice-add 'plistspec-gptel--ask :around #'harness-time-ask))
    (dolist (scenario (alist-get 'scenarios config))
      (when (alist-get 'kill_server scenario)
        (maphash (lambda (_base proc) (delete-process proc)) plistspec--servers))
      (push (cons (alist-get 'id scenario) (harness-run scenario host)) results))
    (with-temp-file out
      (insert
       (json-encode
        `((ended . ,(vconcat (mapcar (lambda (r) (vector (car r) (cdr r))) (nreverse results))))
          (calls . ,(vconcat (mapcar #'vconcat (reverse harness-calls))))
          (tools . ,(vconcat (mapcar #'gptel-tool-name (harness-all-tools))))
          (reports . ,(vconcat (mapcar (lambda (p) (harness-report p host))
                                       (alist-get 'reports config))))
          (dry_runs . ,(vconcat (mapcar #'harness-dry-run (alist-get 'dry_run config))))
          (servers . ,(hash-table-count plistspec--servers))
          (ask_max . ,harness-ask-max)
          (start_max . ,harness-start-max)
          (blocked . ,(harness-blocked (and (boundp 'plistspec-gptel--blocked)
                                               plistspec-gptel--blocked)))
          (left_out . ,(vconcat
                        (and (boundp 'plistspec-gptel--last)
                             (harness-left-out plistspec-gptel--last
                                               #'plistspec-gptel--plan-target
                                               #'plistspec-gptel--plan-left-out))))))))))

(harness-main)

;;; harness.el ends here
