;;; apply_args.el --- tools made from a list built at run time -*- lexical-binding: t -*-
(defvar my-tool-specs nil "Filled at run time.")
(defun my-register-tools ()
  "Make every tool of `my-tool-specs'."
  (dolist (args my-tool-specs)
    (apply #'gptel-make-tool args)))
