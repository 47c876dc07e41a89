;;; plistspec-serve-call.el --- Call a tool for plistspec serve and collect its result  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 plistspec contributors
;; SPDX-License-Identifier: GPL-3.0-or-later

;;; Commentary:

;; One call of a tool for `plistspec serve' (`plistspec-serve-call'): the
;; tool is the one gptel would use for the name, and nothing runs when its
;; fingerprint is not the one plistspec validated the arguments against
;; ("stale").  The model's JSON arguments are parsed with the options of
;; the library that defined the tool (gptel 0.9.9.5: the OpenAI path of
;; `gptel--json-read-string', objects as plists, arrays as vectors, false
;; as `:json-false', null as nil; llm 0.31.1: objects as alists, then false
;; as nil, null stays `:null').  A synchronous tool is interrupted after
;; its timeout; an asynchronous one gets a callback and its result is
;; collected later (`plistspec-serve-poll', `plistspec-serve-forget').
;; The result becomes the reply: a string as text, anything else as JSON.

;;; Code:

(require 'cl-lib)
(require 'plistspec-serve-reply)
(require 'plistspec-serve-index)

(declare-function llm-provider-utils--normalize-args "llm-provider-utils" (args &optional false-val))

(defvar plistspec-serve--pending (make-hash-table :test #'equal)
  "Asynchronous calls: id -> reply, or `pending' while the callback has not run.")

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
          ((stringp v) (plistspec-serve--text v))
          ((integerp v) v)
          ((floatp v) (if (or (isnan v) (memql v '(1.0e+INF -1.0e+INF))) (format "%S" v) v))
          ((symbolp v) (plistspec-serve--text (symbol-name v)))
          ((vectorp v) (vconcat (mapcar (lambda (x) (plistspec-serve--jsonable x d)) v)))
          ((hash-table-p v)
           (let ((h (make-hash-table :test #'equal)))
             (maphash (lambda (k x)
                        (puthash (plistspec-serve--text (format "%s" k))
                                 (plistspec-serve--jsonable x d) h))
                      v)
             h))
          ((plistspec-serve--plist-p v)
           (let ((h (make-hash-table :test #'equal)))
             (cl-loop for (k x) on v by #'cddr
                      for key = (plistspec-serve--text (substring (symbol-name k) 1))
                      unless (gethash key h)
                      do (puthash key (plistspec-serve--jsonable x d) h))
             h))
          ((plistspec-serve--alist-p v)
           (let ((h (make-hash-table :test #'equal)))
             (dolist (c v)
               (let ((k (plistspec-serve--text (format "%s" (car c)))))
                 (unless (gethash k h) (puthash k (plistspec-serve--jsonable (cdr c) d) h))))
             h))
          ((and (consp v) (proper-list-p v))
           (vconcat (mapcar (lambda (x) (plistspec-serve--jsonable x d)) v)))
          (t (plistspec-serve--text (prin1-to-string v))))))

(defun plistspec-serve--result (value)
  "The reply for a tool that returned VALUE.
A string is text, anything else JSON."
  (if (stringp value)
      (list :status "ok" :kind "text" :text (plistspec-serve--text value))
    ;; decoded: Emacs 30's json-serialize returns unibyte UTF-8, which the reply's own
    ;; json-serialize refuses (28 returns a multibyte string, which decoding leaves as is)
    (list :status "ok" :kind "json"
          :text (decode-coding-string
                 (condition-case nil
                     (json-serialize (plistspec-serve--jsonable value 0)
                                     :null-object :null :false-object :json-false)
                   (error (json-serialize (plistspec-serve--text (prin1-to-string value)))))
                 'utf-8))))

(defun plistspec-serve--error (err)
  "The reply for signal ERR raised by a tool."
  (list :status "error" :kind "signal"
        :text (plistspec-serve--text
               (condition-case nil (error-message-string err)
                 (error (prin1-to-string err))))))

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

(defun plistspec-serve-call (source name json-text id timeout &optional expect)
  "Run tool NAME of SOURCE with the JSON object JSON-TEXT; return a reply.
The tool is the one gptel would use for NAME.  When EXPECT (a
fingerprint) is not that tool's, nothing runs: the reply is \"stale\"
and plistspec validates again.  An asynchronous tool gets a callback;
if it has not been called when the tool function returns, the reply
is pending and `plistspec-serve-poll' with ID gives it later.  A
synchronous tool that waits longer than TIMEOUT seconds is interrupted."
  (plistspec-serve--reply
   (let* ((info (plistspec-serve--lookup source name))
          (entry (plist-get info :entry)))
     (cond
      ((null info)
       (list :status "error" :kind "unknown"
             :text (format "No tool named %S is registered in this Emacs" name)))
      ((and expect (not (equal expect (plist-get info :fingerprint))))
       (list :status "stale" :fingerprint (plist-get info :fingerprint)))
      ((not (functionp (plist-get entry :function)))
       (list :status "error" :kind "signal"
             :text (plistspec-serve--text
                    (format "Tool %S has no function: %S" name (plist-get entry :function)))))
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

(provide 'plistspec-serve-call)
;;; plistspec-serve-call.el ends here
