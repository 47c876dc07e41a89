;;;; Calling Python (written by plistspec from-py; needs only Emacs 27+)

;; Each tool's :function hands its arguments to `plistspec-bridge-v1-call' with a SPEC:
;; (PYTHON DIRECTORY MODULE-FILE TARGET DIALECT MODE TIMEOUT).  MODE `worker' keeps one
;; `python -P -m plistspec worker' per module (started on first use, restarted when the
;; module's file changes or the worker dies, ended with Emacs); MODE `process' runs one
;; `python -P -m plistspec call' per call.  A call that takes longer than TIMEOUT (else
;; `plistspec-bridge-timeout') seconds is stopped and the tool returns an `Error:' line.

(defvar plistspec-bridge-timeout 60
  "Seconds a Python tool may run before it is stopped with an error.
nil: no limit.")

(defvar plistspec-bridge--workers (make-hash-table :test 'equal)
  "The worker process (and the module file's time it started from) of each module.")

(defvar plistspec-bridge--next-id 0
  "The id of the last request sent to a worker.")

(defun plistspec-bridge-v1--error (target &rest parts)
  "One `Error:' line about TARGET, made of PARTS (strings, never a format string)."
  (replace-regexp-in-string
   "[\n\r]+" " " (apply #'concat "Error: the Python tool " target " " parts) t t))

(defun plistspec-bridge-v1--json (spec args)
  "ARGS (an alist, nil values included) as JSON text for SPEC's library."
  (decode-coding-string
   (if (equal (nth 4 spec) "llm")
       (json-serialize args :null-object :null :false-object :false)
     (json-serialize args :null-object :null :false-object :json-false))
   'utf-8))

(defun plistspec-bridge-v1--result (target status output)
  "The tool's text from OUTPUT of a `plistspec call' for TARGET.
STATUS is the exit status of that call."
  (if (or (eql status 0) (and (memql status '(1 2 3)) (string-prefix-p "Error:" output)))
      output
    (let ((lines (split-string (string-trim output) "\n" t)))
      (plistspec-bridge-v1--error
       target "failed (exit " (format "%s" status) "): "
       (if lines (car (last lines)) "no output")))))

(defun plistspec-bridge-v1--spawn (spec json callback)
  "Run one `plistspec call' for SPEC with JSON on its input.
CALLBACK gets the tool's text.
Return (STOP . PROCESS): STOP, a function of one argument (why), stops the call."
  (let* ((target (nth 3 spec))
         (default-directory (nth 1 spec))
         (buf (generate-new-buffer " *plistspec-call*"))
         (done nil)
         (proc nil)
         (finish (lambda (text)
                   (unless done
                     (setq done t)
                     (when (buffer-live-p buf) (kill-buffer buf))
                     (funcall callback text)))))
    (condition-case err
        (progn
          (setq proc
                (make-process
                 :name "plistspec-call" :buffer buf
                 :command (list (nth 0 spec) "-P" "-m" "plistspec" "call"
                                "--from" (nth 4 spec) target)
                 :coding 'utf-8-unix :connection-type 'pipe :noquery t
                 :sentinel
                 (lambda (p _event)
                   (unless (process-live-p p)
                     (funcall finish
                              (condition-case err
                                  (plistspec-bridge-v1--result
                                   target (process-exit-status p)
                                   (with-current-buffer buf (buffer-string)))
                                (error (plistspec-bridge-v1--error
                                        target "failed: " (error-message-string err)))))))))
          (process-send-string proc json)
          (process-send-eof proc))
      (error (funcall finish (plistspec-bridge-v1--error
                              target "could not be started: " (error-message-string err)))))
    (cons (lambda (why)
            (unless done
              (funcall finish (plistspec-bridge-v1--error target why))
              (when (and proc (process-live-p proc)) (delete-process proc))))
          proc)))

(defun plistspec-bridge-v1--filter (proc output)
  "Hand each complete answer line in OUTPUT of worker PROC to its caller.
An unfinished line is kept in pieces (joined once complete: linear in its size)."
  (let ((start 0) end)
    (while (setq end (save-match-data (string-match "\n" output start)))
      (let ((line (apply #'concat
                         (nreverse (cons (substring output start end)
                                         (process-get proc 'plistspec-partial))))))
        (process-put proc 'plistspec-partial nil)
        (setq start (1+ end))
        (plistspec-bridge-v1--answer proc line)))
    (when (< start (length output))
      (process-put proc 'plistspec-partial
                   (cons (substring output start) (process-get proc 'plistspec-partial))))))

(defun plistspec-bridge-v1--answer (proc line)
  "Call the caller waiting on worker PROC for the answer LINE."
  (let* ((msg (and (string-prefix-p "{" line)
                   (ignore-errors (json-parse-string line :object-type 'plist))))
         (id (plist-get msg :id)))
    (if (not id)
        (process-put proc 'plistspec-noise line) ; e.g. Python could not start
      (let* ((pending (process-get proc 'plistspec-pending))
             (entry (gethash id pending)))
        (remhash id pending)
        (when entry
          (with-demoted-errors "plistspec bridge: %S"
            (funcall (cdr entry) (plist-get msg :text))))))))

(defun plistspec-bridge-v1--sentinel (proc event)
  "When worker PROC has ended (EVENT), each call waiting on it gets an error."
  (unless (process-live-p proc)
    (let ((pending (process-get proc 'plistspec-pending))
          (noise (process-get proc 'plistspec-noise)))
      (process-put proc 'plistspec-pending (make-hash-table))
      (maphash (lambda (_id entry)
                 (with-demoted-errors "plistspec bridge: %S"
                   (funcall (cdr entry)
                            (plistspec-bridge-v1--error
                             (car entry) "stopped: its worker ended (" (string-trim event) ")"
                             (if noise (concat ": " noise) "")))))
               pending))))

(defun plistspec-bridge-v1--worker (spec)
  "The live worker of SPEC's module.
Started on first use, restarted when it died or its module's file changed."
  (let* ((key (list (nth 0 spec) (nth 1 spec) (nth 2 spec)))
         (file (nth 2 spec))
         (mtime (and file (file-attribute-modification-time (file-attributes file))))
         (old (gethash key plistspec-bridge--workers)))
    (when (and old (or (not (process-live-p (car old)))
                       (and (not (equal (cdr old) mtime))
                            (= 0 (hash-table-count
                                  (process-get (car old) 'plistspec-pending))))))
      (when (process-live-p (car old)) (delete-process (car old)))
      (setq old nil))
    (if old
        (car old)
      (let* ((default-directory (nth 1 spec))
             ;; no read delay for small answers (adaptive buffering waits up to ~30 ms)
             (process-adaptive-read-buffering nil)
             (proc (make-process
                    :name "plistspec-worker" :buffer nil
                    :command (list (nth 0 spec) "-P" "-m" "plistspec" "worker")
                    :coding 'utf-8-unix :connection-type 'pipe :noquery t
                    :filter #'plistspec-bridge-v1--filter
                    :sentinel #'plistspec-bridge-v1--sentinel)))
        (process-put proc 'plistspec-pending (make-hash-table))
        (process-put proc 'plistspec-partial nil)
        (puthash key (cons proc mtime) plistspec-bridge--workers)
        proc))))

(defun plistspec-bridge-v1--ask (spec json callback)
  "Send one call for SPEC (JSON arguments) to its module's worker.
CALLBACK gets the tool's text.
Return (STOP . PROCESS): STOP, a function of one argument (why), stops
the call (and the busy worker)."
  (let* ((target (nth 3 spec))
         (done nil)
         (proc nil)
         (id (setq plistspec-bridge--next-id (1+ plistspec-bridge--next-id)))
         (finish (lambda (text) (unless done (setq done t) (funcall callback text)))))
    (condition-case err
        (progn
          (setq proc (plistspec-bridge-v1--worker spec))
          (puthash id (cons target finish) (process-get proc 'plistspec-pending))
          (process-send-string
           proc (concat (decode-coding-string
                         (json-serialize (vector id target (nth 4 spec))) 'utf-8)
                        "\t" json "\n")))
      (error (funcall finish (plistspec-bridge-v1--error
                              target "could not be started: " (error-message-string err)))))
    (cons (lambda (why)
            (unless done
              (when proc (remhash id (process-get proc 'plistspec-pending)))
              (funcall finish (plistspec-bridge-v1--error target why))
              ;; the worker is still busy with this call: end it, the next call starts anew
              (when (and proc (process-live-p proc)) (delete-process proc))))
          proc)))

(defun plistspec-bridge-v1-call (spec args &optional callback)
  "Call the Python tool of SPEC with ARGS (an alist of every argument, nil too).
With CALLBACK, return at once and call it with the tool's text later;
else wait for the text and return it."
  (let* ((target (nth 3 spec))
         (timeout (or (nth 6 spec) plistspec-bridge-timeout))
         (why (concat "timed out after " (format "%s" timeout) " s"))
         (start (if (eq (nth 5 spec) 'process)
                    #'plistspec-bridge-v1--spawn
                  #'plistspec-bridge-v1--ask))
         (json (condition-case err
                   (plistspec-bridge-v1--json spec args)
                 (error (plistspec-bridge-v1--error
                         target "got arguments that are not JSON: "
                         (error-message-string err)))))
         (bad (and (string-prefix-p "Error:" json) json)))
    (if callback
        (if bad
            (funcall callback bad)
          (let* ((timer nil)
                 (stop (car (funcall start spec json
                                     (lambda (text)
                                       (when timer (cancel-timer timer))
                                       (funcall callback text))))))
            (when timeout (setq timer (run-at-time timeout nil stop why)))
            nil))
      (or bad
          (let* ((result nil)
                 (got nil)
                 (started (funcall start spec json (lambda (text) (setq result text got t))))
                 (stop (car started))
                 (proc (cdr started))
                 (deadline (and timeout (+ (float-time) timeout))))
            (unwind-protect
                (while (not got)
                  (if (and deadline (> (float-time) deadline))
                      (funcall stop why)
                    ;; waiting on the process itself answers at once (nil: ~10 ms later)
                    (accept-process-output (and proc (process-live-p proc) proc) 0.05)))
              (unless got (funcall stop "was interrupted")))
            result)))))
