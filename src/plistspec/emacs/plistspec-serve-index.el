;;; plistspec-serve-index.el --- The tool table of plistspec serve and its generations  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 plistspec contributors
;; SPDX-License-Identifier: GPL-3.0-or-later

;;; Commentary:

;; The tools a source offers `plistspec serve': a source is `recorded'
;; (the tools recorded in plistspec's own Emacs) or gptel's registry and
;; an llm variable in the user's Emacs.  The index of a source is built
;; once (`plistspec-serve--index') and checked, not rebuilt, on every
;; request: a walk comparing the objects of gptel's registry and of the
;; llm variable by identity.  Each build is a new generation, the string
;; plistspec asks about ("still generation G?").  A tool is looked up the
;; way gptel does (`plistspec-serve--lookup': `gptel-get-tool', the first
;; category holding the name).  `plistspec-serve-registry' is the reply
;; listing a source's tools.

;;; Code:

(require 'cl-lib)
(require 'plistspec-serve-reply)
(require 'plistspec-serve-tool)
(require 'plistspec-serve-record)

(defvar gptel--known-tools)
(declare-function gptel-tool-p "gptel-request" (tool))
(declare-function gptel-tool-name "gptel-request" (tool))
(declare-function llm-tool-p "llm" (tool))
(declare-function llm-tool-name "llm" (tool))

(defvar plistspec-serve--epoch
  (format "%d.%d" (emacs-pid) (random 1000000000))
  "Distinguishes this Emacs (and this load) in generation strings.")

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

;;;; The registry reply

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

(provide 'plistspec-serve-index)
;;; plistspec-serve-index.el ends here
