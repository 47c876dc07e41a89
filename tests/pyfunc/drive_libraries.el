;;; drive_libraries.el --- run generated tools through the real gptel and llm  -*- lexical-binding: t -*-

;; Test harness (no code of gptel or llm is copied here).  A canned provider response (JSON,
;; or a server-sent-event stream) is handed to the library's OWN parser for that transport,
;; then to the library's OWN tool-execution code, exactly as a request in a running Emacs
;; would be after the HTTP response arrived:
;;
;; gptel: `gptel--parse-response' (non-streaming; the body read by `gptel--json-read', as
;;   gptel-curl does) or `gptel-curl--parse-stream' (streaming), then `gptel--handle-tool-use'
;;   on a `gptel-fsm' whose transition table is empty (so no follow-up request is sent), which
;;   calls the tool and `gptel--process-tool-call' stores its :result.
;; llm: the non-streaming body parsed by plz-media-type's application/json media type (what
;;   `llm-request-plz-sync'/`-async' use), or the stream fed to the provider's
;;   `llm-provider-streaming-media-handler' through plz-media-type/plz-event-source, then
;;   `llm-provider-utils-process-result' -> `llm-provider-utils-execute-tool-uses'.

(require 'cl-lib)
(require 'gptel)
(require 'gptel-openai)
(require 'gptel-anthropic)
(require 'gptel-openai-responses)
(require 'llm)
(require 'llm-provider-utils)
(require 'llm-openai)
(require 'llm-claude)
(require 'plz-media-type)
(require 'plz-event-source)

;; The Python that runs the tools, named: the one running the tests (first on PATH, see
;; tests/conftest.py), never a .venv the bridge would find above the fixtures (one in the
;; clone need not have plistspec).
(defvar plistspec-bridge-python)
(setq plistspec-bridge-python (executable-find "python3"))

(defvar ps-tools nil "The tool objects the generated file made.")

(defun ps-load-tools (file)
  "Evaluate each form of FILE; keep the gptel/llm tools it makes (bare or in a variable)."
  (with-temp-buffer
    (insert-file-contents file)
    (goto-char (point-min))
    ;; As `load' does: the file's forms see its name (a generated file finds its
    ;; modules from its own place), never the directory Emacs was started in.
    (let ((load-file-name (expand-file-name file))
          (load-true-file-name (file-truename file))
          (default-directory "/nonexistent/")
          form)
      (while (setq form (condition-case nil (read (current-buffer)) (end-of-file nil)))
        (let ((v (eval form t)))
          (dolist (x (cond ((or (gptel-tool-p v) (llm-tool-p v)) (list v))
                           ((and (symbolp v) (boundp v) (consp (symbol-value v)))
                            (symbol-value v))))
            (when (or (gptel-tool-p x) (llm-tool-p x))
              (push x ps-tools))))))))

(defun ps-tool (name)
  (cl-find-if (lambda (tool) (equal name (if (gptel-tool-p tool) (gptel-tool-name tool)
                                          (llm-tool-name tool))))
              ps-tools))

(defun ps-gptel-backend (transport)
  (pcase transport
    ;; a host other than api.openai.com: gptel-make-openai makes a Chat Completions backend
    ((or "openai" "openai-stream")
     (gptel-make-openai "ps-openai" :host "chat.example" :key "k" :models '(gpt-4o)))
    ((or "responses" "responses-stream")
     (gptel-make-openai-responses "ps-responses" :key "k" :models '(gpt-4o)))
    ((or "anthropic" "anthropic-stream")
     (gptel-make-anthropic "ps-anthropic" :key "k" :models '(claude-sonnet-4-5)))))

(defun ps-gptel-call (transport text name callback)
  "gptel parses TEXT as TRANSPORT's response and runs tool NAME; CALLBACK gets the result."
  (let* ((backend (ps-gptel-backend transport))
         (stream (string-suffix-p "-stream" transport))
         (info (list :backend backend :data (list :messages [] :input [])
                     :buffer (current-buffer) :tools (list (ps-tool name))
                     :callback #'ignore :stream stream))
         (fsm (gptel-make-fsm :info info :table nil :handlers nil)))
    (with-temp-buffer
      (insert text)
      (goto-char (point-min))
      (if stream
          (gptel-curl--parse-stream backend info)
        (gptel--parse-response backend (gptel--json-read) info)))
    (let ((gptel-confirm-tool-calls nil))
      (gptel--handle-tool-use fsm))
    (ps-wait (lambda () (cl-every (lambda (c) (plist-get c :result)) (plist-get info :tool-use))))
    (funcall callback (or (plist-get (car (plist-get info :tool-use)) :result)
                          (format "NO-RESULT %S" (plist-get info :tool-use))))))

(defun ps-llm-provider (transport)
  (pcase transport
    ((or "openai-compatible" "openai-compatible-stream")
     (make-llm-openai-compatible :url "http://127.0.0.1:9/v1/" :chat-model "m"))
    ((or "openai" "openai-stream") (make-llm-openai :key "k" :chat-model "gpt-4o"))
    ((or "claude" "claude-stream") (make-llm-claude :key "k" :chat-model "claude-sonnet-4-5"))))

(defun ps-llm-call (transport text name callback)
  "llm parses TEXT as TRANSPORT's response and runs tool NAME; CALLBACK gets the result."
  (let* ((provider (ps-llm-provider transport))
         (prompt (llm-make-chat-prompt "hi" :tools (list (ps-tool name))))
         (done (lambda (result) (funcall callback (if (consp result) (cdar result) result))))
         (err (lambda (type msg) (funcall callback (format "LLM-ERROR %s %s" type msg)))))
    (if (string-suffix-p "-stream" transport)
        (let* ((current nil)
               (media (cdr (llm-provider-streaming-media-handler
                            provider
                            (lambda (s) (setq current (llm-provider-utils-streaming-accumulate
                                                       current s)))
                            (lambda (e) (funcall err 'error e)))))
               (buf (generate-new-buffer " *ps-stream*"))
               (proc (make-pipe-process :name "ps-stream" :buffer buf :noquery t)))
          (with-current-buffer buf
            ;; the process buffer holds the HTTP head curl printed; the events follow it
            (insert "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")
            (set-marker (process-mark proc) (point))
            (plz-media-type-process media proc (make-plz-response
                                                :status 200 :headers nil
                                                :body (encode-coding-string text 'utf-8))))
          ;; plz-event-source dispatches each event from a timer: let them run
          (dotimes (_ 5) (accept-process-output nil 0.02))
          (delete-process proc)
          ;; what `llm-chat-streaming' does once the stream has ended
          (llm-provider-utils-process-result
           provider prompt
           (llm-provider-utils-streaming-accumulate
            current
            (when-let* ((raw (plist-get current :tool-uses-raw)))
              `(:tool-uses ,(llm-provider-collect-streaming-tool-uses provider raw))))
           nil done err))
      (let ((response (with-temp-buffer
                        (insert text)
                        (goto-char (point-min))
                        (plz-response-body
                         (plz-media-type-then (alist-get 'application/json plz-media-types)
                                              (make-plz-response :body nil))))))
        (llm-provider-utils-process-result
         provider prompt (llm-provider-utils-extract-all provider response) nil done err)))))

(defun ps-wait (pred &optional seconds)
  (let ((deadline (+ (float-time) (or seconds 90))))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.02))))

(defun ps-run-all (runs)
  "RUNS: a vector of [LIBRARY TRANSPORT TOOL TEXT]; print the results as a JSON array."
  (let ((results (make-vector (length runs) nil)))
    (dotimes (i (length runs))
      (let* ((run (aref runs i))
             (cb (lambda (r) (aset results i (if (stringp r) r (format "%S" r))))))
        (condition-case e
            (if (and (equal (aref run 1) "responses-stream")
                     (< (cdr (func-arity 'looking-at)) 2))
                (funcall cb "UNSUPPORTED-HERE")
              (if (equal (aref run 0) "gptel")
                (ps-gptel-call (aref run 1) (aref run 3) (aref run 2) cb)
                (ps-llm-call (aref run 1) (aref run 3) (aref run 2) cb)))
          (error (funcall cb (format "HARNESS-ERROR %S" e))))))
    (ps-wait (lambda () (cl-every #'identity results)))
    ;; Emacs 30's json-serialize returns unibyte UTF-8: decoded, it prints as on 28
    (princ (decode-coding-string
            (json-serialize (vconcat (mapcar (lambda (r) (or r :null)) results)))
            'utf-8))))

;;; drive_libraries.el ends here
