;;; plistspec-gptel-plan.el --- What plistspec-gptel-mode sends for a gptel request  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The plistspec authors

;; Author: The plistspec authors
;; URL: https://github.com/plistspec/plistspec
;; SPDX-License-Identifier: GPL-3.0-or-later

;; This file is not part of GNU Emacs.

;; This program is free software: you can redistribute it and/or modify it under the
;; terms of the GNU General Public License as published by the Free Software
;; Foundation, either version 3 of the License, or (at your option) any later version.

;;; Commentary:

;; The plan of one gptel request for `plistspec-gptel-mode' (plistspec-gptel.el):
;; the request's tools, as gptel writes them for its backend, are sent to the
;; "plistspec check --server" process, which answers with the tools lowered
;; for that backend, those left out and why, and an id per tool to check its
;; calls by.  Answers are kept by content (the same tools are not asked
;; twice), and a request whose tools are the same objects, unchanged, reuses
;; the lowered JSON without making gptel's again.  Every question waits at
;; most `plistspec-gptel-wait' seconds; when there is no answer, the request
;; goes unchanged and a warning says why, once, and later requests do not wait
;; again until the process answers.
;; Each tool's contract (plistspec-gptel-contract.el) goes to plistspec with
;; gptel's JSON.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'plistspec-custom)
(require 'plistspec-exec)
(require 'plistspec-server)
(require 'plistspec-runtime)
(require 'plistspec-gptel-contract)

(declare-function gptel-tool-name "gptel-request" (cl-x))
(declare-function gptel-tool-description "gptel-request" (cl-x))
(declare-function gptel-tool-args "gptel-request" (cl-x))
(declare-function gptel-backend-name "gptel-request" (cl-x))
(declare-function gptel--parse-tools "gptel-request" (backend tools))

(defcustom plistspec-gptel-wait 3
  "Seconds a gptel request may wait for plistspec before going unchanged.
Lowering a tool set plistspec has not seen before takes a few
milliseconds per tool; a tool set it has seen, or a check of one
tool call, takes a few milliseconds in all."
  :type 'number
  :group 'plistspec)

(defvar plistspec-gptel--warned nil
  "The keys of the warnings already shown, so each is shown once.")

(defvar plistspec-gptel--sets (make-hash-table :test #'equal)
  "Answers of plistspec for tool sets: (KIND . TOOLS-JSON) -> answer.")

(defconst plistspec-gptel--sets-max 32
  "Tool sets remembered (the table is emptied beyond).")

(cl-defstruct (plistspec-gptel--plan (:constructor plistspec-gptel--make-plan)
                                     (:copier nil))
  "What the mode did to one request's tools."
  backend kind text contracts target kept json names left-out count time prepared
  refusals)

(defun plistspec-gptel--warn (key text)
  "Show TEXT in a warning, once per KEY."
  (plistspec-runtime-warn 'plistspec-gptel 'plistspec-gptel--warned key text))

(defmacro plistspec-gptel--failing-open (what &rest body)
  "Run BODY; on an error, warn once about WHAT and return nil."
  (declare (indent 1) (debug t))
  `(plistspec-runtime-failing-open plistspec-gptel--warn ,what "requests" ,@body))

;;;; Asking the plistspec process

(defun plistspec-gptel--process ()
  "The live \"plistspec check --server\" process, or nil after warning once."
  (plistspec-runtime-process
   #'plistspec-gptel--warn "gptel requests"
   (lambda (base)
     (let ((why (plistspec--server-why base)))
       (plistspec-gptel--warn
        'down (format "plistspec check --server %s: gptel requests go \
unchanged (M-x plistspec-restart-server tries again) [PS704]"
                      (if why (format "ended (%s)" why) "could not start")))))))

(defun plistspec-gptel--ask (head data)
  "Send HEAD (an alist) and DATA (a unibyte string) to plistspec; wait for it.
Return the answer (a plist), or nil when there is none in time."
  (let ((proc (plistspec-gptel--process)))
    (when (and proc (not (plistspec--server-late-p proc)))
      (let* ((deadline (+ (float-time) plistspec-gptel-wait))
             (state (plistspec-runtime-wait proc (make-symbol "gptel") head data deadline t)))
        (pcase (car state)
          ('nil
           (plistspec--server-mark-late proc)
           (plistspec-runtime-slow #'plistspec-gptel--warn "gptel" 'plistspec-gptel-wait)
           nil)
          ('died
           (plistspec-gptel--warn
            'down (plistspec-gptel--ended proc (max 0 (min 0.2 (- deadline (float-time))))))
           nil)
          (`(0 ,out ,_err) (plistspec-gptel--json out))
          (`(,exit ,_out ,err)
           (plistspec-runtime-failed #'plistspec-gptel--warn exit err)
           nil))))))

(defun plistspec-gptel--ended (proc wait)
  "Why server PROC ended, for a warning; WAIT seconds at most for its stderr."
  (plistspec--server-stderr proc wait)
  (format "plistspec check --server ended (%s): gptel requests go unchanged \
until it starts again (M-x plistspec-restart-server) [PS704]"
          (plistspec--server-ended proc)))

(defun plistspec-gptel-warm ()
  "Start plistspec and lower the default gptel tools for the default backend.
Asynchronously, without waiting: the first gptel request then finds
the process running and its tools lowered.  `plistspec-gptel-mode'
runs it once Emacs is idle after the mode is turned on."
  (condition-case nil
      (let* ((default-directory (expand-file-name "~/"))
             (base (plistspec-command))
             (proc (plistspec--server base))
             (backend (and (boundp 'gptel-backend) (default-value 'gptel-backend)))
             (tools (and (boundp 'gptel-tools) (default-value 'gptel-tools))))
        (when (and proc backend tools (not (plistspec--server-late-p proc)))
          (pcase-let* ((kind (plistspec-gptel--kind backend))
                       (`(,text ,_broken ,contracts) (plistspec-gptel--serialize backend tools))
                       (key (list kind text contracts)))
            (unless (gethash key plistspec-gptel--sets)
              (plistspec--server-request
               proc (make-symbol "gptel-warm")
               (plistspec-gptel--lower-head kind contracts nil)
               (concat text contracts)
               (lambda (reply)
                 (pcase reply
                   (`(0 ,out ,_)
                    (let ((answer (ignore-errors
                                    (plistspec-gptel--uncompact (plistspec-gptel--json out)))))
                      (when (and answer (stringp (plist-get answer :target)))
                        (puthash key answer plistspec-gptel--sets))))))
               t)))))
    (error nil)))

(defun plistspec-gptel--json (text)
  "Parse TEXT the way gptel does: objects as plists, arrays as vectors."
  (json-parse-string text :object-type 'plist :array-type 'array
                     :null-object :null :false-object :json-false))

(defun plistspec-gptel--encode (value)
  "VALUE, as gptel writes JSON, encoded in UTF-8."
  (encode-coding-string
   (json-serialize value :null-object :null :false-object :json-false) 'utf-8 t))

;;;; Lowering the tools of a request

(defun plistspec-gptel--kind (backend)
  "The kind of gptel BACKEND plistspec is told: its struct name less gptel-."
  (let ((type (symbol-name (type-of backend))))
    (if (string-prefix-p "gptel-" type) (substring type 6) type)))

(defun plistspec-gptel--elements (wire)
  "The per-tool elements of gptel's tools JSON WIRE (Gemini: its declarations)."
  (if (and (vectorp wire) (= (length wire) 1)
           (plist-member (aref wire 0) :functionDeclarations))
      (plist-get (aref wire 0) :functionDeclarations)
    wire))

;;;; gptel's JSON of the tools

(defvar plistspec-gptel--texts (make-hash-table :test #'eq :weakness 'key)
  "The JSON gptel writes of each tool, per backend kind.
TOOL -> alist of (KIND NAME DESCRIPTION ARGS TEXT CONTRACT GEMINI):
TEXT is the JSON of the tool's element (nil when gptel cannot write
it: CONTRACT is then why), CONTRACT the JSON of its contract, GEMINI
non-nil when gptel wraps elements in a `functionDeclarations' object.
Valid while the tool's name, description and arguments are those
kept (ARGS a copy).")

(defun plistspec-gptel--tool-text (backend kind tool)
  "Return (TEXT CONTRACT GEMINI) of TOOL for BACKEND of KIND.
See `plistspec-gptel--texts'; made again when TOOL changed since."
  (let* ((all (gethash tool plistspec-gptel--texts))
         (old (assoc kind all)))
    (if (and old
             (equal (nth 1 old) (gptel-tool-name tool))
             (equal (nth 2 old) (gptel-tool-description tool))
             (equal (nth 3 old) (gptel-tool-args tool)))
        (nthcdr 4 old)
      (let* ((wire (gptel--parse-tools backend (list (plistspec-gptel--as-declared tool))))
             (elements (plistspec-gptel--elements wire))
             (gemini (not (eq elements wire)))
             (text nil) (contract nil))
        (condition-case err
            (progn
              (unless (and (vectorp elements) (= (length elements) 1))
                (error "Not one element: %S" wire))
              (setq text (plistspec-gptel--encode (aref elements 0)))
              (setq contract (condition-case nil
                                 (plistspec-gptel--encode (plistspec-gptel--contract tool))
                               (error "null"))))
          (error (setq contract (format "gptel cannot write it as JSON: %s"
                                        (error-message-string err)))))
        (let ((entry (list kind (gptel-tool-name tool) (gptel-tool-description tool)
                           (copy-tree (gptel-tool-args tool) t) text contract gemini)))
          (puthash tool (cons entry (assoc-delete-all kind all)) plistspec-gptel--texts)
          (nthcdr 4 entry))))))

(defun plistspec-gptel--serialize (backend tools)
  "Return gptel's JSON of TOOLS for BACKEND, the tools it cannot write, contracts.
Return (TEXT BROKEN CONTRACTS): BROKEN a list of (INDEX . WHY) for the
tools that `json-serialize' refuses (they are left out), CONTRACTS the
JSON text of the other tools' contracts.  gptel writes copies of the
tools with their declared arguments: the user's tools are not changed.
Each tool's JSON is kept (`plistspec-gptel--texts'): a set that changed
in one tool makes one."
  (let ((kind (plistspec-gptel--kind backend))
        (texts nil) (contracts nil) (broken nil) (gemini nil) (i 0))
    (dolist (tool tools)
      (pcase-let ((`(,text ,contract ,wrapped) (plistspec-gptel--tool-text backend kind tool)))
        (if text
            (progn (push text texts) (push contract contracts)
                   (when wrapped (setq gemini t)))
          (push (cons i contract) broken)))
      (setq i (1+ i)))
    (let ((body (mapconcat #'identity (nreverse texts) ",")))
      (list (if gemini
                (concat "[{\"functionDeclarations\":[" body "]}]")
              (concat "[" body "]"))
            (nreverse broken)
            (concat "[" (mapconcat #'identity (nreverse contracts) ",") "]")))))

(defvar plistspec-gptel--entries (make-hash-table :test #'equal)
  "Each lowered tool's entry of the JSON to send, by its id in plistspec.
plistspec gives an entry once (a compact answer: docs/emacs.md) and
null for it later: a set that changed in one tool brings one entry.")

(defvar plistspec-gptel--entries-reset nil
  "Non-nil when plistspec was not told the entries kept were forgotten.
That is, the variable `plistspec-gptel--entries' was emptied since.")

(defconst plistspec-gptel--entries-max 20000
  "Entries kept in the variable `plistspec-gptel--entries' (emptied beyond).")

(defun plistspec-gptel--uncompact (answer)
  "ANSWER, a compact one, with its `:tools' made from its `:elements'.
Nil when an entry it does not repeat is not kept here."
  (let ((elements (plist-get answer :elements))
        (wrap (plist-get answer :wrap)))
    (if (not (vectorp elements))
        answer
      (let ((tools (make-vector (length elements) nil))
            (ok t))
        (cl-loop for element across elements
                 for sent across (plist-get answer :sent)
                 for i from 0
                 for id = (aref sent 2)
                 do (if (eq element :null)
                        (let ((kept (gethash id plistspec-gptel--entries)))
                          (if kept (aset tools i kept) (setq ok nil)))
                      (puthash id element plistspec-gptel--entries)
                      (aset tools i element)))
        (when (> (hash-table-count plistspec-gptel--entries) plistspec-gptel--entries-max)
          (clrhash plistspec-gptel--entries)
          (setq plistspec-gptel--entries-reset t))
        (and ok
             (plist-put answer :tools
                        (if (stringp wrap)
                            (vector (list (intern (concat ":" wrap)) tools))
                          tools)))))))

(defun plistspec-gptel--lower-head (kind contracts rewrites)
  "The head of a lower request for KIND, CONTRACTS and REWRITES."
  `((kind . "lower") (backend . ,kind) (contracts . ,(length contracts))
    (compact . ,(if plistspec-gptel--entries-reset "reset" t))
    ,@(and rewrites '((rewrites . t)))))

(defun plistspec-gptel--lower-ask (kind text contracts &optional rewrites)
  "Ask plistspec to lower the tools JSON TEXT of a backend of KIND.
CONTRACTS is the JSON text of their contracts, REWRITES non-nil to
have every rewrite in the answer."
  (let* ((data (concat text contracts))
         (reset plistspec-gptel--entries-reset)
         (answer (plistspec-gptel--ask (plistspec-gptel--lower-head kind contracts rewrites)
                                       data)))
    (when answer
      (when reset (setq plistspec-gptel--entries-reset nil))
      (or (plistspec-gptel--uncompact answer)
          ;; an entry given before is not kept here (an answer that came too late)
          (progn (setq plistspec-gptel--entries-reset t)
                 (let ((again (plistspec-gptel--ask
                               (plistspec-gptel--lower-head kind contracts rewrites)
                               data)))
                   (when again (setq plistspec-gptel--entries-reset nil))
                   (and again (plistspec-gptel--uncompact again))))))))

(defun plistspec-gptel--lowered (kind text contracts)
  "Plistspec's answer for the tools JSON TEXT of a backend of KIND, or nil.
CONTRACTS is the JSON text of their contracts."
  (let ((key (list kind text contracts)))
    (or (gethash key plistspec-gptel--sets)
        (let ((answer (plistspec-gptel--lower-ask kind text contracts)))
          (when (and answer (stringp (plist-get answer :target)))
            (when (>= (hash-table-count plistspec-gptel--sets) plistspec-gptel--sets-max)
              (clrhash plistspec-gptel--sets))
            (puthash key answer plistspec-gptel--sets))))))

(defvar plistspec-gptel--recent nil
  "The tool sets planned last, newest first.
Each is (KEY TOOLS SNAPSHOT ANSWER JSON BROKEN TEXT CONTRACTS PLAN): KEY is the
backend's kind, the backend and the model (`plistspec-gptel--plan'),
TOOLS the list of `gptel-tool's, SNAPSHOT a copy of what gptel sends
of each (name, description, args), ANSWER plistspec's, JSON the
lowered tools parsed, BROKEN the tools gptel cannot write, TEXT
gptel's JSON of the tools, CONTRACTS theirs, PLAN the plan made of it.
A request whose tools are the same
objects, unchanged, uses it without making gptel's JSON again.")

(defconst plistspec-gptel--recent-max 8
  "Tool sets kept in the variable `plistspec-gptel--recent'.")

(defun plistspec-gptel--snapshot (tools)
  "What gptel sends of each of TOOLS, copied."
  (plistspec-runtime-snapshot tools #'plistspec-gptel--parts))

(defun plistspec-gptel--parts (tool)
  "What gptel sends of TOOL: its name, description and args."
  (list (gptel-tool-name tool) (gptel-tool-description tool) (gptel-tool-args tool)))

(defun plistspec-gptel--recent (kind tools)
  "Return the entry of variable `plistspec-gptel--recent' for TOOLS sent as KIND.
KIND is a list (BACKEND-KIND BACKEND MODEL): the kind (a new string
each time) and the model are compared with `equal', the backend `eq'."
  (cl-loop for entry in plistspec-gptel--recent
           for key = (nth 0 entry)
           when (and (equal (nth 0 key) (nth 0 kind))
                     (eq (nth 1 key) (nth 1 kind))
                     (equal (nth 2 key) (nth 2 kind))
                     (plistspec-gptel--unchanged-p tools (nth 1 entry) (nth 2 entry)))
           return entry))

(defun plistspec-gptel--unchanged-p (tools old snapshot)
  "Non-nil when TOOLS are the tools OLD, unchanged since their SNAPSHOT."
  (plistspec-runtime-unchanged-p tools old snapshot #'plistspec-gptel--parts))

(defun plistspec-gptel--remember (kind tools answer broken text &optional contracts)
  "Remember ANSWER and BROKEN for TOOLS sent as KIND; return the entry.
TEXT is gptel's JSON of the TOOLS, CONTRACTS theirs."
  (let ((entry (list kind tools (plistspec-gptel--snapshot tools) answer
                     (plist-get answer :tools) broken text contracts)))
    (plistspec-runtime-push entry 'plistspec-gptel--recent plistspec-gptel--recent-max)
    entry))

(defun plistspec-gptel--fresh (json)
  "A copy of the tools JSON whose tool entries are new plists.
gptel adds to the entries (Anthropic's cache_control), never deeper."
  (cl-map 'vector
          (lambda (element)
            (if (plist-member element :functionDeclarations)
                (list :functionDeclarations
                      (cl-map 'vector #'copy-sequence
                              (plist-get element :functionDeclarations)))
              (copy-sequence element)))
          json))

(defun plistspec-gptel--plan (backend tools)
  "The plan for sending TOOLS to BACKEND, or nil to send them unchanged."
  (let* ((kind (plistspec-gptel--kind backend))
         ;; the same tools, backend and model (gptel's JSON may depend on the model)
         (key (list kind backend (bound-and-true-p gptel-model)))
         (entry (or (plistspec-gptel--recent key tools)
                    ;; a process that is not running starts now, while gptel's JSON is made
                    (progn (plistspec-gptel--process) nil)
                    (pcase-let* ((`(,text ,broken ,contracts)
                                  (plistspec-gptel--serialize backend tools))
                                 (answer (plistspec-gptel--lowered kind text contracts)))
                      (and answer
                           (plistspec-gptel--remember key tools answer
                                                      broken text contracts))))))
    (when entry
      (let ((made (nth 8 entry)))
        (if made
            ;; the same tools: the same plan, for this request
            (let ((plan (copy-sequence made)))
              (setf (plistspec-gptel--plan-time plan) (current-time)
                    (plistspec-gptel--plan-prepared plan) nil
                    (plistspec-gptel--plan-refusals plan) nil)
              plan)
          (setcdr (nthcdr 7 entry) (list (plistspec-gptel--make entry backend kind tools)))
          (copy-sequence (nth 8 entry)))))))

(defun plistspec-gptel--make (entry backend kind tools)
  "The plan of ENTRY of variable `plistspec-gptel--recent' for TOOLS to BACKEND.
KIND is the backend's kind."
  (let* ((answer (nth 3 entry))
         (broken (nth 5 entry))
         (all (vconcat tools))
         (good (vconcat (if broken
                            (cl-loop for tool across all for i from 0
                                     unless (assq i broken) collect tool)
                          all)))
         (sent (plistspec-runtime-sent (plist-get answer :sent) good))
         (left-out nil))
    (cl-loop for out across (plist-get answer :left_out)
             do (push (cons (aref out 1) (aref out 2)) left-out))
    (cl-loop for (i . why) in broken
             do (push (cons (gptel-tool-name (aref all i)) why) left-out))
    (plistspec-gptel--make-plan
     :backend (ignore-errors (gptel-backend-name backend))
     :kind kind
     :text (nth 6 entry)
     :contracts (nth 7 entry)
     :target (plist-get answer :target)
     :kept (car sent)
     :json (nth 4 entry)
     :names (cdr sent)
     :left-out (nreverse left-out)
     :count (length all)
     :time (current-time))))

(provide 'plistspec-gptel-plan)
;;; plistspec-gptel-plan.el ends here
