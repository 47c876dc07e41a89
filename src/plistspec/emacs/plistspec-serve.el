;;; plistspec-serve.el --- Run gptel/llm tools for `plistspec serve'  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 plistspec contributors
;; SPDX-License-Identifier: GPL-3.0-or-later

;;; Commentary:

;; The Emacs half of `plistspec serve' and `plistspec to-json --from-emacs'.
;;
;; plistspec (Python) loads this file into an Emacs it started itself, or into
;; the user's running Emacs, and talks to it through the Emacs server socket.
;; Every request is one call of `plistspec-serve-request' whose argument is a
;; JSON object printed by plistspec's Emacs-exact printer: the model's JSON
;; arguments arrive as a JSON *string* and are parsed here with
;; `json-parse-string' using the options of the library that defined the tool
;; (gptel 0.9.9.5: the OpenAI path of `gptel--json-read-string', objects as
;; plists, arrays as vectors, false as `:json-false', null as nil; llm 0.31.1:
;; objects as alists, then false as nil, null stays `:null').  Every reply is a
;; JSON object, UTF-8 encoded and base64-encoded so that it crosses the server
;; protocol untouched (a long one goes through a file in the private folder
;; plistspec names in the request).
;;
;; The registry is indexed once (`plistspec-serve--index') and the index is
;; checked, not rebuilt, on every request: a walk comparing the objects of
;; gptel's registry and of the llm variable by identity.  A call looks its
;; tool up the way gptel does (`gptel-get-tool': the first category holding
;; the name) and carries the fingerprint of the definition plistspec
;; validated the arguments against; a different current definition answers
;; "stale" without running anything.
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

(defconst plistspec-serve-version "2"
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
(defvar byte-compile-warnings)
(defvar byte-compile-verbose)
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

(defvar plistspec-serve--recorded nil
  "Every tool definition recorded since the shims were installed, newest first.
Each is a plist: the entry (see `plistspec-serve--entry') plus :object,
what the constructor returned.")

(defvar plistspec-serve--recorded-tick 0
  "Incremented at every recorded definition.")

(defvar plistspec-serve--pending (make-hash-table :test #'equal)
  "Asynchronous calls: id -> reply, or `pending' while the callback has not run.")

(defvar plistspec-serve--epoch
  (format "%d.%d" (emacs-pid) (random 1000000000))
  "Distinguishes this Emacs (and this load) in generation strings.")

(defvar plistspec-serve--reply-dir nil
  "The private folder plistspec named for long replies, or nil.")

;;;; Values as gptel sends them

(defun plistspec-serve--clean (value)
  "A copy of VALUE with the text properties of every string removed.
`json-serialize' ignores text properties, so gptel sends the same JSON."
  (let ((depth 0))
    (cl-labels ((walk (v)
                  (cl-incf depth)
                  (when (> depth 500) (error "Tool spec nested too deeply"))
                  (prog1
                      (cond ((stringp v) (substring-no-properties v))
                            ((vectorp v) (vconcat (mapcar #'walk v)))
                            ((and (consp v) (proper-list-p v)) (mapcar #'walk v))
                            ((consp v) (cons (walk (car v)) (walk (cdr v))))
                            (t v))
                    (cl-decf depth))))
      (walk value))))

(defun plistspec-serve--strings (value)
  "Every string and symbol name in VALUE, as a vector."
  (let ((out nil) (todo (list value)))
    (while todo
      (let ((v (pop todo)))
        (cond ((stringp v) (push v out))
              ((and (symbolp v) v (not (eq v t))) (push (symbol-name v) out))
              ((vectorp v) (setq todo (append v todo)))
              ((consp v) (push (car v) todo) (push (cdr v) todo)))))
    (vconcat out)))

(defun plistspec-serve--unsendable (entry)
  "Why ENTRY cannot be sent as JSON (a raw byte in one of its strings), or nil."
  (condition-case err
      (progn (ignore (json-serialize (plistspec-serve--strings
                              (list (plist-get entry :name)
                                    (plist-get entry :description)
                                    (plist-get entry :args)
                                    (plist-get entry :category)))))
             nil)
    (error (format "it cannot be sent as JSON (%s): a string holds a raw byte"
                   (error-message-string err)))))

(defun plistspec-serve--text (s)
  "String S as text JSON can carry.
A unibyte string holds bytes: decoded as UTF-8; a byte that is not
UTF-8 (a Latin-1 result) becomes the Latin-1 character of that byte,
as does every raw byte of a multibyte string.  Text properties go."
  (let ((s (substring-no-properties s)))
    (unless (multibyte-string-p s)
      (setq s (decode-coding-string s 'utf-8 t)))
    (if (condition-case nil (progn (ignore (json-serialize s)) t) (error nil))
        s
      (apply #'string (mapcar (lambda (c) (if (>= c #x3fff80) (- c #x3fff00) c)) s)))))

;;;; Recording the tools a file creates

(defun plistspec-serve--record (dialect slots object)
  "Remember the tool OBJECT made by DIALECT's constructor from keyword list SLOTS."
  (let ((name (plist-get slots :name)))
    (when (stringp name)
      (cl-incf plistspec-serve--recorded-tick)
      (push (append (plistspec-serve--entry
                     dialect name (plist-get slots :description) (plist-get slots :args)
                     (plist-get slots :function) (plist-get slots :async)
                     (plist-get slots :category) (plist-get slots :confirm)
                     (plist-get slots :include))
                    (list :object object))
            plistspec-serve--recorded))))

(defun plistspec-serve--record-gptel (orig &rest slots)
  "Around advice for `gptel-make-tool': call ORIG with SLOTS and record the tool.
Recording never makes the constructor fail."
  (let ((tool (apply orig slots)))
    (ignore-errors (plistspec-serve--record 'gptel slots tool))
    tool))

(defun plistspec-serve--record-llm (orig &rest slots)
  "Around advice for `llm-make-tool': call ORIG with SLOTS and record the tool.
Recording never makes the constructor fail."
  (let ((tool (apply orig slots)))
    (ignore-errors (plistspec-serve--record 'llm slots tool))
    tool))

(defun plistspec-serve--gptel-stand-in (&rest slots)
  "Stand in for `gptel-make-tool' (gptel is not installed), made of SLOTS."
  (cons 'plistspec-gptel-tool slots))

(defun plistspec-serve--llm-stand-in (&rest slots)
  "Stand in for `llm-make-tool' (llm is not installed), made of SLOTS."
  (cons 'plistspec-llm-tool slots))

(defun plistspec-serve-install-shims ()
  "Load gptel and llm where they can be loaded, else define stand-ins.
A stand-in constructor returns the tool's slots; the real constructors
are advised to record each tool too.  Either way the tools a file
creates can be called by name."
  (unless (or (fboundp 'gptel-make-tool)
              (and (locate-library "gptel") (ignore-errors (require 'gptel) t)))
    (fset 'gptel-make-tool #'plistspec-serve--gptel-stand-in)
    (provide 'gptel-request)
    (provide 'gptel))
  (unless (or (fboundp 'llm-make-tool)
              (and (locate-library "llm")
                   (ignore-errors (require 'llm) (require 'llm-provider-utils nil t) t)))
    (fset 'llm-make-tool #'plistspec-serve--llm-stand-in)
    (fset 'make-llm-tool #'plistspec-serve--llm-stand-in)
    (provide 'llm))
  (advice-add 'gptel-make-tool :around #'plistspec-serve--record-gptel)
  (advice-add 'llm-make-tool :around #'plistspec-serve--record-llm)
  (when (fboundp 'make-llm-tool)
    (advice-add 'make-llm-tool :around #'plistspec-serve--record-llm)))

;;;; Entries: one tool, as plain data

(defun plistspec-serve--entry (dialect name description args function async
                                       category confirm include)
  "The entry plist of one tool of DIALECT (`gptel' or `llm').
NAME, DESCRIPTION, ARGS, FUNCTION, ASYNC, CATEGORY, CONFIRM and
INCLUDE are its slots; strings lose their text properties."
  (let ((gptel (eq dialect 'gptel)))
    (list :name (if (stringp name) (substring-no-properties name) name)
          :dialect dialect
          :description (plistspec-serve--clean description)
          :args (plistspec-serve--clean args)
          :function function
          :async async
          :category (and gptel (plistspec-serve--clean category))
          :confirm (and gptel confirm)
          :include (and gptel include))))

(defun plistspec-serve--gptel-entry (tool)
  "The entry plist of gptel TOOL (a `gptel-tool' struct)."
  (plistspec-serve--entry 'gptel (gptel-tool-name tool) (gptel-tool-description tool)
                          (gptel-tool-args tool) (gptel-tool-function tool)
                          (gptel-tool-async tool) (gptel-tool-category tool)
                          (gptel-tool-confirm tool) (gptel-tool-include tool)))

(defun plistspec-serve--llm-entry (tool)
  "The entry plist of llm TOOL (an `llm-tool' struct)."
  (plistspec-serve--entry 'llm (llm-tool-name tool) (llm-tool-description tool)
                          (llm-tool-args tool) (llm-tool-function tool)
                          (llm-tool-async tool) nil nil nil))

(defun plistspec-serve--slots (tool)
  "Return TOOL's slot values, as a list: the same objects while it is unchanged."
  (cond ((and (fboundp 'gptel-tool-p) (gptel-tool-p tool))
         (list (gptel-tool-name tool) (gptel-tool-description tool) (gptel-tool-args tool)
               (gptel-tool-function tool) (gptel-tool-async tool) (gptel-tool-category tool)
               (gptel-tool-confirm tool) (gptel-tool-include tool)))
        ((and (fboundp 'llm-tool-p) (llm-tool-p tool))
         (list (llm-tool-name tool) (llm-tool-description tool) (llm-tool-args tool)
               (llm-tool-function tool) (llm-tool-async tool)))
        (t nil)))

(defun plistspec-serve--tool-entry (tool)
  "The entry of TOOL (a gptel or llm struct), or nil."
  (cond ((and (fboundp 'gptel-tool-p) (gptel-tool-p tool)) (plistspec-serve--gptel-entry tool))
        ((and (fboundp 'llm-tool-p) (llm-tool-p tool)) (plistspec-serve--llm-entry tool))))

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
  "Return the constructor call that would make ENTRY, as text `read' gives back.
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

;;;; What one tool looks like to plistspec, cached per tool object

(defvar plistspec-serve--described (make-hash-table :test #'eq :weakness 'key)
  "Tool object -> (SLOTS . INFO): INFO as `plistspec-serve--describe' made it.")

(defun plistspec-serve--info (entry)
  "The description plistspec gets of ENTRY: a plist.
:entry, :form, :fingerprint and :skipped (why it cannot be served)."
  (let* ((skipped (plistspec-serve--unsendable entry))
         (form (and (not skipped)
                    (condition-case err (plistspec-serve--form entry)
                      (error (setq skipped (error-message-string err)) nil)))))
    (list :entry entry :form form :skipped skipped
          :fingerprint (secure-hash 'sha1 (or form (format "skipped %s" skipped))))))

(defun plistspec-serve--describe (tool)
  "The info of TOOL (a gptel or llm struct), cached while its slots stay the same."
  (let ((slots (plistspec-serve--slots tool))
        (cached (gethash tool plistspec-serve--described)))
    (if (and cached (= (length slots) (length (car cached)))
             (cl-every #'eq slots (car cached)))
        (cdr cached)
      (let ((info (condition-case err
                      (plistspec-serve--info (plistspec-serve--tool-entry tool))
                    (error (plistspec-serve--unreadable (car slots) err)))))
        (puthash tool (cons slots info) plistspec-serve--described)
        info))))

(defun plistspec-serve--unreadable (name err)
  "The info of a tool called NAME whose slots cannot be read (ERR)."
  (let ((why (format "it cannot be read: %s" (error-message-string err))))
    (list :entry (list :name (if (stringp name) (substring-no-properties name)
                               (format "%S" name)))
          :skipped why :fingerprint (secure-hash 'sha1 why))))

;;;; Sources

;; A source is `recorded' (the tools created since the shims were installed:
;; plistspec's own Emacs) or a plist (:llm-variable SYMBOL :categories LIST
;; :tools LIST): gptel's registry `gptel--known-tools', only the categories and
;; names listed when the lists are non-nil, then the llm tools held in the
;; variable.

(defun plistspec-serve--gptel-walk (source fn)
  "Call FN with CATEGORY, NAME and TOOL for each gptel tool of SOURCE.
In gptel's order, the one `gptel-get-tool' searches: the newest
category first."
  (when (and (boundp 'gptel--known-tools) (fboundp 'gptel-tool-p))
    (let ((cats (plist-get source :categories)) (names (plist-get source :tools)))
      (dolist (cat gptel--known-tools)
        (when (and (consp cat) (or (null cats) (member (car cat) cats)))
          (dolist (pair (cdr cat))
            (when (and (consp pair) (gptel-tool-p (cdr pair))
                       (or (null names) (member (car pair) names)))
              (funcall fn (car cat) (car pair) (cdr pair)))))))))

(defun plistspec-serve--llm-tools (source)
  "The llm tools held in SOURCE's llm variable, as a list."
  (let ((var (plist-get source :llm-variable)) (names (plist-get source :tools)))
    (when (and var (boundp var))
      (let ((v (symbol-value var)))
        (cl-remove-if-not
         (lambda (tool)
           (and (or (and (fboundp 'llm-tool-p) (llm-tool-p tool))
                    (and (fboundp 'gptel-tool-p) (gptel-tool-p tool)))
                (or (null names)
                    (member (if (and (fboundp 'llm-tool-p) (llm-tool-p tool))
                                (llm-tool-name tool)
                              (gptel-tool-name tool))
                            names))))
         (if (listp v) (if (proper-list-p v) v nil) (append v nil)))))))

(defun plistspec-serve--marks (source &optional against)
  "Return the objects that stay the same while SOURCE's tools are unchanged.
Without AGAINST, a vector of them; with AGAINST (such a vector), non-nil
if they are still the same objects in the same order.  The registry
variables, each category cell and the head of its tools, each tool cell
and the tool in it: a definition, a redefinition (gptel replaces the
tool in its cell) and a removal all change one.  Comparing allocates
nothing and calls no function per tool."
  (let ((i 0) (n (length against)) (ok t) (out nil))
    (cl-macrolet ((mark (x) `(let ((v ,x))
                               (if against
                                   (if (and ok (< i n) (eq v (aref against i)))
                                       (setq i (1+ i))
                                     (setq ok nil))
                                 (push v out)))))
      (if (eq source 'recorded)
          (mark plistspec-serve--recorded-tick)
        (mark (and (boundp 'gptel--known-tools) gptel--known-tools))
        (mark (fboundp 'gptel-tool-p))
        (mark (fboundp 'llm-tool-p))
        (when (boundp 'gptel--known-tools)
          (let ((cats (plist-get source :categories)) (names (plist-get source :tools)))
            (dolist (cat gptel--known-tools)
              (when (and ok (consp cat) (or (null cats) (member (car cat) cats)))
                (mark cat)
                (mark (cdr cat))
                (dolist (pair (cdr cat))
                  (when (and ok (consp pair) (or (null names) (member (car pair) names)))
                    (mark pair)
                    (mark (cdr pair))))))))
        (let ((var (plist-get source :llm-variable)))
          (mark (and var (boundp var) (symbol-value var)))
          (when (and ok var (boundp var))
            (let ((v (symbol-value var)))
              (dolist (tool (if (listp v) (if (proper-list-p v) v nil) (append v nil)))
                (mark tool)))))))
    (if against (and ok (= i n)) (vconcat (nreverse out)))))

;;;; The index

(defvar plistspec-serve--indexes (make-hash-table :test #'equal)
  "Source -> index plist (:marks :generation :by-name :listed :shadowed :skipped).")

(defvar plistspec-serve--generations 0
  "Counter of the indexes built in this Emacs.")

(defun plistspec-serve--recorded-build ()
  "Index parts of the `recorded' source: (LISTED BY-NAME SHADOWED SKIPPED).
A name defined more than once is served as gptel resolves it when the
real gptel holds it, else as its last definition (a later definition
replaces an earlier one, in gptel's registry and in llm's use)."
  (let ((defs (reverse plistspec-serve--recorded))
        (by-name (make-hash-table :test #'equal))
        (counts (make-hash-table :test #'equal))
        (gptel-choice (make-hash-table :test #'equal))
        listed shadowed skipped)
    ;; what `gptel-get-tool' gives for each name, when the real gptel holds it
    (plistspec-serve--gptel-walk
     nil (lambda (_cat name tool)
           (unless (gethash name gptel-choice) (puthash name tool gptel-choice))))
    (dolist (d defs)
      (let* ((name (plist-get d :name))
             (n (1+ (gethash name counts 0))))
        (puthash name n counts)
        (let ((info (condition-case err (plistspec-serve--info d)
                      (error (plistspec-serve--unreadable name err)))))
          (setq d (append (list :ordinal n) d))
          (plist-put info :entry d)
          (if (plist-get info :skipped)
              (push (list :name name :message (plist-get info :skipped)) skipped)
            (let* ((old (gethash name by-name))
                   (real (gethash name gptel-choice))
                   (wins (or (null old)
                             (not (and real
                                       (eq real (plist-get (plist-get old :entry) :object)))))))
              (when wins (puthash name info by-name)))))))
    ;; the order of definition, each name once, at its winning definition
    (let ((seen (make-hash-table :test #'equal)))
      (dolist (d defs)
        (let* ((name (plist-get d :name)) (info (gethash name by-name)))
          (when (and info (not (gethash name seen)))
            (puthash name t seen)
            (push info listed)))))
    (maphash (lambda (name info)
               (let ((n (gethash name counts)))
                 (when (> n 1)
                   (push (list :name name
                               :served (plist-get (plist-get info :entry) :ordinal)
                               :count n)
                         shadowed))))
             by-name)
    (list (nreverse listed) by-name shadowed skipped)))

(defun plistspec-serve--registry-build (source)
  "Index parts of a registry SOURCE: (LISTED BY-NAME SHADOWED SKIPPED)."
  (let ((by-name (make-hash-table :test #'equal))
        (cats (make-hash-table :test #'equal))
        gptel-order listed shadowed skipped)
    ;; the winner of each name: the first in gptel's order, then the llm tools
    (plistspec-serve--gptel-walk
     source (lambda (cat name tool)
              (push (list cat name tool) gptel-order)))
    (setq gptel-order (nreverse gptel-order))
    (dolist (c gptel-order)
      (let* ((name (nth 1 c)) (info (plistspec-serve--describe (nth 2 c))))
        (cond ((plist-get info :skipped)
               (push (list :name name :message (plist-get info :skipped)) skipped))
              ((gethash name by-name)
               (push (list :name name :category (nth 0 c)
                           :served_category (gethash name cats))
                     shadowed))
              (t (puthash name info by-name) (puthash name (nth 0 c) cats)))))
    (dolist (tool (plistspec-serve--llm-tools source))
      (let* ((info (plistspec-serve--describe tool))
             (name (plist-get (plist-get info :entry) :name)))
        (cond ((plist-get info :skipped)
               (push (list :name name :message (plist-get info :skipped)) skipped))
              ((gethash name by-name)
               (push (list :name name :category "llm variable"
                           :served_category (or (gethash name cats) "llm variable"))
                     shadowed))
              (t (puthash name info by-name) (puthash name "llm variable" cats)))))
    ;; listed in the order of definition: gptel's order reversed, then llm's
    (let ((seen (make-hash-table :test #'equal)))
      (dolist (c (reverse gptel-order))
        (let ((info (gethash (nth 1 c) by-name)))
          (when (and info (eq (plistspec-serve--describe (nth 2 c)) info)
                     (not (gethash (nth 1 c) seen)))
            (puthash (nth 1 c) t seen)
            (push info listed))))
      (dolist (tool (plistspec-serve--llm-tools source))
        (let* ((info (plistspec-serve--describe tool))
               (name (plist-get (plist-get info :entry) :name)))
          (when (and (eq (gethash name by-name) info) (not (gethash name seen)))
            (puthash name t seen)
            (push info listed)))))
    (list (nreverse listed) by-name (nreverse shadowed) (nreverse skipped))))

(defun plistspec-serve--index (source &optional rebuild)
  "The index of SOURCE, rebuilt only when its tools changed (or REBUILD).
A tool whose slots were set in place keeps its object: REBUILD finds it
\(each tool is described again only if one of its slots changed)."
  (let ((index (gethash source plistspec-serve--indexes)))
    (if (and index (not rebuild) (plistspec-serve--marks source (plist-get index :marks)))
        index
      (let ((marks (plistspec-serve--marks source))
            (parts (if (eq source 'recorded)
                       (plistspec-serve--recorded-build)
                     (plistspec-serve--registry-build source))))
        (setq index (list :marks marks
                          :generation (format "%s.%d" plistspec-serve--epoch
                                              (cl-incf plistspec-serve--generations))
                          :listed (nth 0 parts) :by-name (nth 1 parts)
                          :shadowed (nth 2 parts) :skipped (nth 3 parts)))
        (puthash source index plistspec-serve--indexes)
        index))))

(defun plistspec-serve--lookup (source name)
  "The info of the tool NAME of SOURCE that gptel would use, or nil.
Found afresh (not from the index): gptel's registry in `gptel-get-tool'
order, then the llm variable."
  (if (eq source 'recorded)
      (gethash name (plist-get (plistspec-serve--index source) :by-name))
    (let ((tool (catch 'found
                  (plistspec-serve--gptel-walk
                   source (lambda (_c nm tool)
                            (when (and (equal nm name)
                                       (not (plist-get (plistspec-serve--describe tool)
                                                       :skipped)))
                              (throw 'found tool))))
                  (cl-find-if (lambda (tool)
                                (let ((info (plistspec-serve--describe tool)))
                                  (and (not (plist-get info :skipped))
                                       (equal (plist-get (plist-get info :entry) :name)
                                              name))))
                              (plistspec-serve--llm-tools source)))))
      (and tool (plistspec-serve--describe tool)))))

(defun plistspec-serve--entries (source)
  "Every served tool entry of SOURCE, in the order of definition."
  (mapcar (lambda (info) (plist-get info :entry))
          (plist-get (plistspec-serve--index source) :listed)))

;;;; Replies

(defconst plistspec-serve--inline-limit 4000
  "Longest reply sent inline when plistspec named a folder for replies.
The server protocol's `server-reply-print' splits what it sends into
`server-msg-size' pieces, which costs time quadratic in the length.")

(defun plistspec-serve--reply (value)
  "VALUE (a plist of strings, numbers, t, :json-false) as a reply string.
See `plistspec-serve--reply-text'."
  (plistspec-serve--reply-text
   (condition-case err
       (json-serialize value :null-object :null :false-object :json-false)
     (error
      (json-serialize
       (list :status "error" :kind "signal"
             :text (format "The result cannot be sent as JSON: %s"
                           (plistspec-serve--text (error-message-string err)))))))))

(defun plistspec-serve--reply-text (json)
  "The reply string of JSON (a JSON text).
Short replies are base64 UTF-8 JSON; a long one is written to a new
file in `plistspec-serve--reply-dir' (plistspec's private folder), and
the reply is \"@\" and its name (plistspec reads and deletes it)."
  (let ((bytes (encode-coding-string json 'utf-8 t))
        (dir plistspec-serve--reply-dir))
    (if (or (<= (length bytes) plistspec-serve--inline-limit)
            (not (and (stringp dir) (file-directory-p dir))))
        (base64-encode-string bytes t)
      (let ((file (with-file-modes #o600
                    (make-temp-file (expand-file-name "reply-" dir) nil ".json"))))
        (let ((coding-system-for-write 'binary))
          (write-region bytes nil file nil 'silent))
        (concat "@" file)))))

(defun plistspec-serve--tool-json (info)
  "The registry reply of one tool INFO."
  (let* ((e (plist-get info :entry))
         (fn (plist-get e :function))
         (cat (plist-get e :category)))
    (list :name (plist-get e :name)
          :dialect (symbol-name (plist-get e :dialect))
          :form (plist-get info :form)
          :fingerprint (plist-get info :fingerprint)
          :function_kind (plistspec-serve--function-kind fn)
          :function (if (and fn (symbolp fn)) (symbol-name fn) :null)
          :category (if (stringp cat) cat :null)
          :ordinal (or (plist-get e :ordinal) 1))))

(defun plistspec-serve--status (source)
  "What SOURCE can read in this Emacs: a plist of booleans."
  (let ((var (and (listp source) (plist-get source :llm-variable))))
    (list :gptel (if (and (boundp 'gptel--known-tools) (fboundp 'gptel-tool-p))
                     t :json-false)
          :llm_variable_bound (if (and var (boundp var)) t :json-false))))

(defun plistspec-serve--tool-json-text (info)
  "The registry reply of tool INFO as JSON text, made once per INFO."
  (or (plist-get info :json)
      (let ((text (json-serialize (plistspec-serve--tool-json info)
                                  :null-object :null :false-object :json-false)))
        (plist-put info :json text)
        text)))

(defun plistspec-serve-registry (source &optional known rebuild)
  "The tools of SOURCE as a reply; only its generation when it is KNOWN.
REBUILD: index SOURCE again first.  Each tool's JSON is made once and
spliced into the reply, not serialized again."
  (let* ((index (plistspec-serve--index source rebuild))
         (generation (plist-get index :generation)))
    (if (equal known generation)
        (plistspec-serve--reply
         (list :version plistspec-serve-version :generation generation :unchanged t))
      (let ((head (json-serialize
                   (append
                    (list :version plistspec-serve-version :generation generation
                          :shadowed (vconcat (plist-get index :shadowed))
                          :skipped (vconcat (plist-get index :skipped)))
                    (plistspec-serve--status source))
                   :null-object :null :false-object :json-false)))
        (plistspec-serve--reply-text
         (concat (substring head 0 -1) ",\"tools\":["
                 (mapconcat #'plistspec-serve--tool-json-text (plist-get index :listed) ",")
                 "]}"))))))

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

;;;; The one entry point

(defun plistspec-serve--source (request)
  "The tool source named by REQUEST's \"source\" member."
  (let ((src (plist-get request :source)))
    (if (or (null src) (equal src "recorded"))
        'recorded
      (let ((var (plist-get src :llm_variable)))
        (list :llm-variable (and (stringp var) (not (string-empty-p var)) (intern var))
              :categories (append (plist-get src :categories) nil)
              :tools (append (plist-get src :tools) nil))))))

(defun plistspec-serve-request (json-text)
  "Answer the request JSON-TEXT (a JSON object) from plistspec; return a reply.
Its \"op\" is \"hello\", \"registry\", \"call\", \"poll\", \"forget\" or
\"load\".  Every string (tool names included) travels inside the JSON, so
that only ASCII crosses the server socket.  \"reply_dir\" names the
private folder for long replies."
  (let* ((request (json-parse-string json-text :object-type 'plist
                                     :null-object nil :false-object nil))
         (op (plist-get request :op))
         (plistspec-serve--reply-dir (plist-get request :reply_dir)))
    (pcase op
      ("hello"
       (plistspec-serve--reply
        (list :version plistspec-serve-version :emacs emacs-version :pid (emacs-pid)
              :gptel (if (featurep 'gptel-request) t :json-false)
              :llm (if (featurep 'llm) t :json-false))))
      ("registry" (plistspec-serve-registry (plistspec-serve--source request)
                                            (plist-get request :known)
                                            (plist-get request :rebuild)))
      ("call" (plistspec-serve-call (plistspec-serve--source request)
                                    (plist-get request :name)
                                    (plist-get request :arguments)
                                    (plist-get request :id)
                                    (or (plist-get request :timeout) 60)
                                    (plist-get request :expect)))
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

;;;; Compiled when loaded from source

(defun plistspec-serve--compile (file)
  "Byte-compile the functions FILE defined, where they were loaded as source.
plistspec loads the .el into a running Emacs; compiled, a request over
a registry of hundreds of tools costs a fraction of a millisecond."
  (require 'bytecomp)
  (let ((byte-compile-warnings nil) (byte-compile-verbose nil))
    (dolist (f (cdr (assoc file load-history)))
      (when (and (consp f) (eq (car f) 'defun)
                 (string-prefix-p "plistspec-serve" (symbol-name (cdr f)))
                 (not (byte-code-function-p (symbol-function (cdr f)))))
        (ignore-errors (byte-compile (cdr f)))))))

(provide 'plistspec-serve)
;;; plistspec-serve.el ends here
