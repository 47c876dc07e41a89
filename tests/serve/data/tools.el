;;; tools.el --- tools that plistspec serve runs in tests  -*- lexical-binding: t; -*-

;; Each function shows exactly which Lisp values it received: `%S' of its arguments.

(require 'cl-lib)

(defun serve-test-show (&rest args)
  "The printed form of ARGS."
  (let ((print-escape-newlines nil)) (format "%S" args)))

(gptel-make-tool
 :name "show_args"
 :description "Show every argument as Emacs received it."
 :args (list '(:name "text" :type string :description "Any text")
             '(:name "flag" :type boolean :description "A boolean" :optional t)
             '(:name "count" :type integer :description "A number" :optional t)
             '(:name "opts" :type object :description "Nested"
                     :properties (:mode (:type string :enum ["a" "b"])
                                  :deep (:type object :properties (:on (:type boolean))))
                     :optional t)
             '(:name "items" :type array :items (:type string) :description "A list" :optional t))
 :function #'serve-test-show)

(gptel-make-tool
 :name "greet"
 :description "Greet someone in their language."
 :args (list '(:name "name" :type string :description "Who"))
 :function (lambda (name) (concat "Grüß dich, " name " ☃")))

(gptel-make-tool
 :name "wait_then_answer"
 :description "Answer after a delay, asynchronously."
 :args (list '(:name "ms" :type integer :description "Delay in milliseconds"))
 :async t
 :function (lambda (callback ms)
             (run-at-time (/ ms 1000.0) nil
                          (lambda () (funcall callback (format "waited %d ms" ms))))))

(gptel-make-tool
 :name "fail"
 :description "Always signals an error."
 :args (list '(:name "why" :type string :description "The message"))
 :function (lambda (why) (error "Tool failed: %s" why)))

(gptel-make-tool
 :name "sleepy"
 :description "A synchronous tool that waits too long."
 :args (list '(:name "seconds" :type number :description "How long"))
 :function (lambda (seconds) (sleep-for seconds) "woke up"))

(gptel-make-tool
 :name "as_json"
 :description "Return a Lisp value (not a string)."
 :function (lambda () (list :ok t :no :json-false :n 3 :list [1 "two"] :nested (list :x nil))))

(gptel-make-tool
 :name "delete_everything"
 :description "Pretends to delete everything."
 :args (list '(:name "really" :type boolean :description "Sure?"))
 :confirm t
 :category "danger"
 :function (lambda (really) (format "deleted: %S" really)))

(gptel-make-tool
 :name "which_gptel"
 :description "Say whether the real gptel or plistspec's stand-in made the tools."
 :function (lambda ()
             (format "%s, %s"
                     (if (fboundp 'gptel--make-tool-internal) "real gptel" "stand-in gptel")
                     (if (fboundp 'llm-tool-p) "real llm" "stand-in llm"))))

(defvar serve-test-llm-tools nil "The llm tools of this file.")

(push
 (llm-make-tool
 :name "llm_show"
 :description "Show arguments as llm hands them over."
 :args '((:name "text" :type string :description "Any text")
         (:name "flag" :type boolean :description "A boolean" :optional t)
         (:name "opts" :type object :description "Nested" :optional t
                :properties (:on (:type boolean) :off (:type boolean)))
         (:name "maybe" :type string :description "Null or not" :optional t))
 :function #'serve-test-show)
 serve-test-llm-tools)

(defmacro serve-test-deftool (name doc)
  "Define a tool NAME with description DOC that returns its own name."
  `(gptel-make-tool :name ,name :description ,doc
                    :function (lambda () ,(concat "I am " name))))

(serve-test-deftool "made_by_macro" "A tool built by a macro")

;;; tools.el ends here
