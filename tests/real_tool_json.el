;;; real_tool_json.el --- Tool forms through the real gptel and llm  -*- lexical-binding: t -*-

;;; Commentary:

;; Test glue, no library code: evaluates tool forms with the REAL, unmodified gptel and
;; llm (put on `load-path' by the caller, from PLISTSPEC_ELISP_DEPS) and records the
;; tools JSON each library builds.  Used by tests/lower/gen_semantics.py,
;; tests/corpus/gen_expected.py and tests/lower/test_tables_real.py.
;;
;; Input: a JSON array of [ID KIND TEXT], KIND "gptel" or "llm", TEXT one form that
;; returns a tool (`gptel-make-tool' / `llm-make-tool', or a `progn' ending in one).
;; Output: one JSON object per line, {"id":ID,"family":F,"json":TOOLS} or
;; {"id":ID,"family":F,"error":"(signal data)"}, F "openai" and "anthropic" for
;; gptel (`gptel--parse-tools' of each backend, serialized by `gptel--json-encode'),
;; "llm" for llm (`llm-openai--build-tools' of a prompt holding the tool, serialized
;; by `json-serialize' as llm's request does).

;;; Code:

(require 'gptel)
(require 'gptel-openai)
(require 'gptel-anthropic)
(require 'llm)
(require 'llm-openai)

(defvar plistspec-rtj--backends
  ;; A host other than api.openai.com: the Chat Completions backend, whose tools
  ;; are the generic (OpenAI family) method's.
  (list (cons "openai" (gptel-make-openai "plistspec-openai" :key "k" :host "localhost"))
        (cons "anthropic" (gptel-make-anthropic "plistspec-anthropic" :key "k")))
  "The gptel backends whose `gptel--parse-tools' method is recorded.")

(defun plistspec-rtj--text (json)
  "JSON as text, whether `json-serialize' returned it unibyte or not."
  (if (multibyte-string-p json) json (decode-coding-string json 'utf-8)))

(defun plistspec-rtj--line (id family key value)
  "One output line: ID, FAMILY and VALUE (JSON text) under KEY."
  (format "{\"id\":%d,\"family\":\"%s\",\"%s\":%s}\n" id family key value))

(defun plistspec-rtj--error-line (id family err)
  "The output line of ID and FAMILY for the signal ERR."
  (plistspec-rtj--line id family "error"
                       (substring (plistspec-rtj--text
                                   (json-serialize (vector (prin1-to-string err))))
                                  1 -1)))

(defun plistspec-rtj--gptel (id tool)
  "The output lines of gptel TOOL, case ID, for each backend."
  (mapconcat
   (lambda (backend)
     (condition-case err
         (plistspec-rtj--line
          id (car backend) "json"
          (plistspec-rtj--text
           (gptel--json-encode (gptel--parse-tools (cdr backend) (list tool)))))
       (error (plistspec-rtj--error-line id (car backend) err))))
   plistspec-rtj--backends ""))

(defun plistspec-rtj--llm (id tool)
  "The output line of llm TOOL, case ID."
  (condition-case err
      (plistspec-rtj--line
       id "llm" "json"
       (plistspec-rtj--text
        (json-serialize
         (plist-get (llm-openai--build-tools (llm-make-chat-prompt "x" :tools (list tool)))
                    :tools))))
    (error (plistspec-rtj--error-line id "llm" err))))

(defun plistspec-rtj--case (case)
  "The output lines of CASE, a list (ID KIND TEXT)."
  (let* ((id (nth 0 case))
         (gptel (equal (nth 1 case) "gptel"))
         (tool (condition-case err
                   (eval (car (read-from-string (nth 2 case))) t)
                 (error (cons 'plistspec-rtj--signal err)))))
    (cond ((eq (car-safe tool) 'plistspec-rtj--signal)
           (if gptel
               (mapconcat (lambda (b) (plistspec-rtj--error-line id (car b) (cdr tool)))
                          plistspec-rtj--backends "")
             (plistspec-rtj--error-line id "llm" (cdr tool))))
          (gptel (plistspec-rtj--gptel id tool))
          (t (plistspec-rtj--llm id tool)))))

(defun plistspec-rtj-run (in out)
  "Run the cases of the JSON file IN; write the results to OUT."
  (let ((cases (with-temp-buffer
                 (let ((coding-system-for-read 'utf-8))
                   (insert-file-contents in))
                 (json-parse-buffer :array-type 'list))))
    (with-temp-file out
      (setq buffer-file-coding-system 'utf-8-unix)
      (dolist (case cases)
        (insert (plistspec-rtj--case case))))))

(provide 'real_tool_json)
;;; real_tool_json.el ends here
