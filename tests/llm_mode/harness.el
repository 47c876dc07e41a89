;;; harness.el --- Real llm requests to the stub providers, with and without the mode  -*- lexical-binding: t; -*-

;; Loaded by llm_harness.py into `emacs --batch' after the real llm 0.31.1 (plz), mcp.el
;; and this checkout's plistspec package.  `harness-config' names a JSON file:
;;
;;   {"port": PORT, "mode": true, "mcp": [[SERVER, FILE], ...],
;;    "scenarios": [{"id": N, "provider": PROTOCOL, "entry": "sync"|"async"|"streaming",
;;                   "tools": [NAME...] or null (all), "turns": MAX,
;;                   "tool_choice": NAME (optional: that tool forced, by llm's :tool-options)}],
;;    "report": true, "then_off": true (the mode turned on, then off), "out": FILE}
;;
;; Tools: every tool of the MCP tools/list files, made by mcp.el's own conversion
;; (`mcp-make-text-tool', the connection stubbed as mcp.el's README says), and the
;; hand-written `llm-make-tool' tools below.  Every tool's function records what it
;; receives.  A scenario is one conversation: the entry point is called with a prompt
;; naming it ("scenario-N"), and again with the same prompt while the answer is tool
;; results (at most MAX times).  What each call ended with, the calls the functions
;; received and the mode's record go to OUT as JSON.

;;; Code:

(require 'cl-lib)

;; harness-config, harness-calls, harness-record...: tests/runtime_harness.el, loaded first
(defvar harness-tools nil "The tools, by name: (NAME . TOOL).")

(defun harness-register-mcp (server file)
  "Make llm tools of the MCP tools/list FILE as mcp.el does, for SERVER."
  (let ((tools (harness-mcp-tools server file)))
    (dolist (tl tools)
      (let* ((name (plist-get tl :name))
             (spec (mcp-make-text-tool server name)))
        (push (cons name (apply #'llm-make-tool
                                (append (list :function (harness-record name)) spec)))
              harness-tools)))))

(defun harness-hand (&rest args)
  (let ((tool (apply #'llm-make-tool args)))
    (push (cons (llm-tool-name tool) tool) harness-tools)))

(defun harness-register-handwritten ()
  "Tools written by hand: enums, nested objects, arrays, optional, async."
  (harness-hand
   :name "get_weather" :function (harness-record "get_weather")
   :description "Get the weather in a city"
   :args '((:name "location" :type string :description "The city")
           (:name "unit" :type string :enum ["celsius" "fahrenheit"] :optional t)
           (:name "days" :type integer :optional t)))
  (harness-hand
   :name "set_level" :function (harness-record "set_level")
   :description "Set the level"
   :args '((:name "level" :type integer :enum [1 2 3])
           (:name "loud" :type boolean :optional t)))
  (harness-hand
   :name "create_item" :function (harness-record "create_item")
   :description "Create an item"
   :args '((:name "item" :type object
                  :properties (:title (:type string)
                               :tags (:type array :items (:type string))
                               :meta (:type object
                                      :properties (:priority (:type integer))
                                      :required ["priority"]))
                  :required ["title"]
                  :additionalProperties :json-false)
           (:name "dry_run" :type boolean :optional t)))
  (harness-hand
   :name "tag_all" :function (harness-record "tag_all")
   :description "Tag things"
   :args '((:name "ids" :type array :items (:type integer))
           (:name "label" :description "any label" :optional t)))
  (harness-hand
   :name "no_args" :function (harness-record "no_args")
   :description "Takes nothing")
  (harness-hand
   :name "fetch_async" :function (harness-record-async "fetch_async") :async t
   :description "Fetch a URL"
   :args '((:name "url" :type string)))
  (harness-hand
   :name "boom_async" :async t :description "Always fails"
   :function (lambda (_callback &rest args)
               (push (list harness-scenario "boom_async" (prin1-to-string args)) harness-calls)
               (error "Boom"))
   :args '((:name "x" :type string)))
  (harness-hand
   :name "silent_async" :async t :description "Never answers"
   :function (lambda (_callback &rest args)
               (push (list harness-scenario "silent_async" (prin1-to-string args)) harness-calls))
   :args '((:name "x" :type string)))
  (harness-hand
   :name "lookup/v2" :function (harness-record "lookup/v2")
   :description "A name no provider accepts"
   :args '((:name "q" :type string)))
  (harness-hand
   :name "tree" :function (harness-record "tree")
   :description "A recursive schema"
   :args '((:name "node" :type object
                  :properties (:value (:type string)
                               :children (:type array
                                          :items (:$ref "#/properties/node")))))))

(defun harness-provider (protocol port)
  "An llm provider of PROTOCOL pointed at the stub on PORT."
  (let ((base (format "http://127.0.0.1:%d" port)))
    (pcase protocol
      ("openai" (make-llm-openai-compatible :url (concat base "/v1/") :key "k"
                                            :chat-model "stub-model"))
      ("openai-responses" (make-llm-openai :key "k" :chat-model "stub-model"))
      ("anthropic" (make-llm-claude :key "k" :chat-model "stub-model"))
      ("gemini" (make-llm-gemini :key "k" :chat-model "stub-model"))
      ("vertex" (make-llm-vertex :key "k" :key-gentime (current-time) :project "p"
                                 :chat-model "stub-model"))
      ("ollama" (make-llm-ollama :scheme "http" :host "127.0.0.1" :port port
                                 :chat-model "stub-model")))))

(defun harness-redirect (port)
  "Point the URLs llm hard-codes at the stub on PORT (only those functions)."
  (let ((base (format "http://127.0.0.1:%d" port)))
    (cl-defmethod llm-openai--url ((_ llm-openai) command) (concat base "/v1/" command))
    (advice-add 'llm-claude--url :override (lambda (method) (concat base "/v1/" method)))
    (setq llm-gemini--base-url (concat base "/v1beta/models/"))
    (advice-add 'llm-vertex--chat-url :override
                (lambda (_provider &optional streaming)
                  (format "%s/v1/projects/p/locations/l/publishers/google/models/stub:%s"
                          base (if streaming "streamGenerateContent" "generateContent"))))))

(defun harness-turn (provider prompt entry wait)
  "One call of ENTRY with PROVIDER and PROMPT: (KIND . VALUE)."
  (pcase entry
    ("sync"
     (condition-case err
         (let ((r (llm-chat provider prompt)))
           (cons (if (stringp r) "text" "tools") (prin1-to-string r)))
       (error (cons "error" (error-message-string err)))))
    (_
     (let ((ended nil)
           (deadline (+ (float-time) wait)))
       (condition-case err
           (funcall (if (equal entry "async") #'llm-chat-async
                      (lambda (p pr ok bad) (llm-chat-streaming p pr #'ignore ok bad)))
                    provider prompt
                    (lambda (r)
                      (setq ended (cons (if (stringp r) "text" "tools") (prin1-to-string r))))
                    (lambda (type msg) (setq ended (cons "error" (format "%s: %s" type msg)))))
         ;; llm signals when it cannot build the request (mcp.el's string types)
         (error (setq ended (cons "error" (error-message-string err)))))
       (while (and (not ended) (< (float-time) deadline))
         (condition-case err
             (accept-process-output nil 0.05)
           (error (setq ended (cons "error" (format "signalled: %s"
                                                    (error-message-string err)))))))
       (or ended (cons "hung" ""))))))

(defun harness-run (scenario port)
  "Run SCENARIO, a conversation: the list of what each call ended with."
  (let* ((id (alist-get 'id scenario))
         (names (alist-get 'tools scenario))
         (tools (if names (mapcar (lambda (n) (cdr (assoc n harness-tools))) names)
                  (reverse (mapcar #'cdr harness-tools))))
         (provider (harness-provider (alist-get 'provider scenario) port))
         (choice (alist-get 'tool_choice scenario))
         (prompt (llm-make-chat-prompt
                  (format "scenario-%s: go" id) :tools tools
                  :tool-options (and choice (make-llm-tool-options :tool-choice choice))))
         (turns nil) (n 0) (max (or (alist-get 'turns scenario) 3)))
    (setq harness-scenario id)
    (while (and (< n max) (or (null turns) (equal (car (car turns)) "tools")))
      (push (harness-turn provider prompt (alist-get 'entry scenario) 30) turns)
      (cl-incf n))
    (vconcat (mapcar (lambda (x) (vector (car x) (cdr x))) (nreverse turns)))))

(defun harness-main ()
  (let* ((config (harness-read-json harness-config))
         (port (alist-get 'port config))
         (out (alist-get 'out config))
         (results nil))
    (harness-redirect port)
    (dolist (m (alist-get 'mcp config))
      (harness-register-mcp (car m) (cadr m)))
    (harness-register-handwritten)
    (when (alist-get 'mode config)
      (plistspec-llm-mode 1)
      (when (alist-get 'then_off config)
        (plistspec-llm-mode -1)))
    (dolist (scenario (alist-get 'scenarios config))
      (push (cons (alist-get 'id scenario) (harness-run scenario port)) results))
    (with-temp-file out
      (insert
       (json-encode
        `((ended . ,(vconcat (mapcar (lambda (r) (vector (car r) (cdr r))) (nreverse results))))
          (calls . ,(vconcat (mapcar #'vconcat (reverse harness-calls))))
          (tools . ,(vconcat (reverse (mapcar #'car harness-tools))))
          (report . ,(if (alist-get 'report config)
                         (progn (plistspec-llm-report)
                                (with-current-buffer "*plistspec-llm*" (buffer-string)))
                       ""))
          (shared_report . ,(if (alist-get 'report config)
                                (progn (plistspec-report)
                                       (with-current-buffer "*plistspec-report*" (buffer-string)))
                              ""))
          (blocked . ,(harness-blocked (and (boundp 'plistspec-llm--blocked)
                                               plistspec-llm--blocked)))
          (left_out . ,(vconcat
                        (and (boundp 'plistspec-llm--last)
                             (harness-left-out plistspec-llm--last
                                               #'plistspec-llm--plan-target
                                               #'plistspec-llm--plan-left-out))))))))))

(harness-main)

;;; harness.el ends here
