;;; user_macro.el --- tools made by the file's own macro -*- lexical-binding: t -*-
(defmacro my-deftool (name description fn &rest args)
  "Define the tool NAME with DESCRIPTION, FN and ARGS."
  `(gptel-make-tool :name ,(symbol-name name) :description ,description
                    :function ,fn :args (list ,@args)))

(my-deftool greet "Greet someone." (lambda (who) (format "Hi %s" who))
            '(:name "who" :type string :description "Who"))
