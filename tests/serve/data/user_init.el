;;; user_init.el --- more of a user's set-up for the --emacs tests  -*- lexical-binding: t; -*-

;; Tools registered at run time (no static reader can see them) and an llm tools variable.

(dolist (n '("runtime_one" "runtime_two"))
  (gptel-make-tool
   :name n
   :description (concat "Made at run time: " n)
   :category "runtime"
   :args (list (list :name "v" :type 'integer :description "A number"))
   :function (lambda (v) (format "%s got %S" n v))))

(defvar user-llm-tools
  (list (llm-make-tool
         :name "llm_echo"
         :description "Echo with llm's conventions."
         :args '((:name "a" :type string :description "Text")
                 (:name "b" :type boolean :description "Flag" :optional t))
         :function (lambda (a b) (format "%S" (list a b))))))

;;; user_init.el ends here
