;;; assistant-ls-test.el --- Batch tests of assistant-ls.el in a real Emacs with eglot  -*- lexical-binding: t; -*-

;; Run by editors/editors_test.go, one test per Emacs:
;;   ASSISTANT_LS_BIN=… ASSISTANT_WS=… emacs --batch -L editors/emacs \
;;     -l editors/emacs/test/assistant-ls-test.el --eval '(ert-run-tests-batch-and-exit "NAME")'

;;; Code:

(require 'ert)
(require 'cl-lib)
(require 'assistant-ls)

(defconst assistant-ls-test-ws (file-name-as-directory (getenv "ASSISTANT_WS")))

(setq assistant-ls-program
      (list (getenv "ASSISTANT_LS_BIN") "--log-file"
            (expand-file-name "../server.log" assistant-ls-test-ws) "--log-level" "debug")
      assistant-ls-confirm-edits nil
      eglot-sync-connect t
      project-find-functions (list (lambda (_dir) (cons 'transient assistant-ls-test-ws))))

(defun assistant-ls-test-file (rel) (expand-file-name rel assistant-ls-test-ws))

(defun assistant-ls-test-read (rel)
  (with-temp-buffer
    (let ((coding-system-for-read 'utf-8-unix))
      (insert-file-contents (assistant-ls-test-file rel)))
    (buffer-string)))

(defun assistant-ls-test-text (buf)
  (with-current-buffer buf (buffer-substring-no-properties (point-min) (point-max))))

(defun assistant-ls-test-visit (rel)
  (let ((coding-system-for-read 'utf-8-unix))
    (find-file-noselect (assistant-ls-test-file rel))))

(defun assistant-ls-test-message (path search replace)
  (concat "I will change one line.\n\n<replace_in_file>\n<path>" path "</path>\n<diff>\n"
          "------- SEARCH\n" search "\n=======\n" replace "\n+++++++ REPLACE\n"
          "</diff>\n</replace_in_file>\n"))

(defun assistant-ls-test-push-chunks (s text n)
  (let ((i 0))
    (while (< i (length text))
      (assistant-ls-push s (substring text i (min (length text) (+ i n))))
      (cl-incf i n))))

(defun assistant-ls-test-edit (s)
  "The edit state of STREAM's first file-editing block."
  (plist-get (seq-find (lambda (b) (plist-get b :edit)) (assistant-ls-stream-blocks s)) :edit))

(defun assistant-ls-test-sleep (secs)
  (let ((end (+ (float-time) secs)))
    (while (< (float-time) end) (accept-process-output nil 0.02))))

(defconst assistant-ls-test-jp "こんにちは、世界 🎉\nこれはテストです。👍🏽 ok\n終わり 🍣\n")
(defconst assistant-ls-test-jp-edited "こんにちは、世界 🎉\nこれは本番です 🚀 ok\n終わり 🍣\n")
(defconst assistant-ls-test-jp-msg
  (assistant-ls-test-message "jp.txt" "これはテストです。👍🏽 ok" "これは本番です 🚀 ok"))

(ert-deftest assistant-ls-stream-replace ()
  "Through eglot's connection, a streamed replace_in_file lands in the visiting buffer."
  (let* ((buf (assistant-ls-test-visit "jp.txt"))
         (hooked 0)
         (assistant-ls-blocks-functions (list (lambda (_s _from) (cl-incf hooked))))
         (s (assistant-ls-stream :cwd assistant-ls-test-ws)))
    (should (cl-typep (assistant-ls-stream-server s) 'eglot-lsp-server))
    (assistant-ls-test-push-chunks s assistant-ls-test-jp-msg 3)
    (assistant-ls-finish s)
    (should (assistant-ls-wait s 15))
    (should (equal "applied" (plist-get (assistant-ls-test-edit s) :status)))
    (should (equal assistant-ls-test-jp-edited (assistant-ls-test-text buf)))
    (should (equal assistant-ls-test-jp (assistant-ls-test-read "jp.txt")))
    (should (> hooked 1))))

(ert-deftest assistant-ls-write-new-file ()
  "A write_to_file creating a file: eglot asks (no buffer visits it), the user says yes."
  (let ((asked nil)
        (s (assistant-ls-stream :cwd assistant-ls-test-ws)))
    (cl-letf (((symbol-function 'y-or-n-p) (lambda (prompt) (push prompt asked) t)))
      (assistant-ls-push s "Creating it.\n<write_to_file>\n<path>new/dir/hello.txt</path>\n<content>\n")
      (assistant-ls-push s "こんにちは 🌸\nline two\n</content>\n</write_to_file>")
      (assistant-ls-finish s)
      (should (assistant-ls-wait s 15)))
    (should asked)
    (should (equal "applied" (plist-get (assistant-ls-test-edit s) :status)))
    ;; eglot visits the file (didOpen with the old text) to edit it: the tool result is still
    ;; the diff of the edit made.
    (let ((result (plist-get (assistant-ls-test-edit s) :toolResult)))
      (should-not (string-match-p "The user also changed" result))
      (should (string-match-p (regexp-quote "+こんにちは 🌸\n+line two\n") result)))
    (let ((buf (find-buffer-visiting (assistant-ls-test-file "new/dir/hello.txt"))))
      (should buf)
      (should (equal "こんにちは 🌸\nline two\n" (assistant-ls-test-text buf)))
      (with-current-buffer buf (let ((coding-system-for-write 'utf-8-unix)) (save-buffer)))
      (should (equal "こんにちは 🌸\nline two\n" (assistant-ls-test-read "new/dir/hello.txt"))))))

(ert-deftest assistant-ls-version-mismatch ()
  "The user types after the edit was computed: eglot answers a JSON-RPC error
\"Edits on ... require version N, you have N+1\"; its didChange follows when the
user pauses.  Contract section 4: retried against the new content, then applied."
  (let* ((buf (assistant-ls-test-visit "jp.txt"))
         (errors nil)
         (s (assistant-ls-stream :cwd assistant-ls-test-ws)))
    (advice-add 'eglot--apply-text-edits :around
                (lambda (f &rest args)
                  (condition-case err (apply f args)
                    (error (push (error-message-string err) errors) (signal (car err) (cdr err)))))
                '((name . assistant-ls-test)))
    (unwind-protect
        (progn
          (assistant-ls-push s assistant-ls-test-jp-msg)
          (assistant-ls-finish s)
          ;; typed before Emacs reads the server's applyEdit
          (with-current-buffer buf (goto-char (point-min)) (insert "ユーザー ✍️\n"))
          (let ((end (+ (float-time) 10)))
            (while (and (null errors) (< (float-time) end)) (accept-process-output nil 0.02)))
          (should (string-match-p "require version" (or (car errors) "")))
          (assistant-ls-test-sleep 0.1)    ; the user pauses: eglot's idle time
          (assistant-ls-flush)
          (should (assistant-ls-wait s 15)))
      (advice-remove 'eglot--apply-text-edits 'assistant-ls-test))
    (message "version mismatch: %S" (assistant-ls-test-edit s))
    (should (equal "applied" (plist-get (assistant-ls-test-edit s) :status)))
    (should (equal (concat "ユーザー ✍️\n" assistant-ls-test-jp-edited) (assistant-ls-test-text buf)))
    (should (equal assistant-ls-test-jp (assistant-ls-test-read "jp.txt")))))

(ert-deftest assistant-ls-user-says-no ()
  "Files no buffer visits: eglot asks, the user answers no (a JSON-RPC error).
Contract section 4: rejected, and the disk is as it was (a file the server
created for the edit is removed again)."
  (let ((s (assistant-ls-stream :cwd assistant-ls-test-ws)))
    (cl-letf (((symbol-function 'y-or-n-p) (lambda (_prompt) nil)))
      (assistant-ls-push s assistant-ls-test-jp-msg)
      (assistant-ls-push s "<write_to_file>\n<path>brand/new.txt</path>\n<content>\nhi\n</content>\n</write_to_file>\n")
      (assistant-ls-finish s)
      (should (assistant-ls-wait s 15)))
    (let ((edits (seq-filter #'identity
                             (mapcar (lambda (b) (plist-get b :edit)) (assistant-ls-stream-blocks s)))))
      (message "user says no: %S" edits)
      (should (= 2 (length edits)))
      (should (null (find-buffer-visiting (assistant-ls-test-file "jp.txt"))))
      (should (equal assistant-ls-test-jp (assistant-ls-test-read "jp.txt")))
      (dolist (e edits)
        (should (equal "rejected" (plist-get e :status))))
      (should (not (file-exists-p (assistant-ls-test-file "brand/new.txt")))))))

(ert-deftest assistant-ls-late-did-change ()
  "Eglot applies the edit but the user keeps typing, so its didChange comes
only after the server's 2 s check.  Contract section 4: the late didChange
that brings the intended content turns the status to applied."
  (let* ((assistant-ls-send-edits-at-once nil) ; eglot's own timing
         (buf (assistant-ls-test-visit "jp.txt"))
         (s (assistant-ls-stream :cwd assistant-ls-test-ws)))
    (assistant-ls-push s assistant-ls-test-jp-msg)
    (assistant-ls-finish s)
    (let ((end (+ (float-time) 10)))
      (while (and (not (equal assistant-ls-test-jp-edited (assistant-ls-test-text buf)))
                  (< (float-time) end))
        (accept-process-output nil 0.02)))
    (should (equal assistant-ls-test-jp-edited (assistant-ls-test-text buf)))
    ;; typing and correcting for 3 s, never pausing long enough for eglot's idle time
    (let ((end (+ (float-time) 3)))
      (while (< (float-time) end)
        (with-current-buffer buf
          (goto-char (point-max)) (insert "x") (delete-char -1))
        (accept-process-output nil 0.1)))
    (message "late didChange, before it: %S" (assistant-ls-test-edit s))
    (assistant-ls-flush)
    (let ((end (+ (float-time) 5)))
      (while (and (not (equal "applied" (plist-get (assistant-ls-test-edit s) :status)))
                  (< (float-time) end))
        (accept-process-output nil 0.02)))
    (message "late didChange, after it: %S" (assistant-ls-test-edit s))
    (should (equal "applied" (plist-get (assistant-ls-test-edit s) :status)))
    (should (equal assistant-ls-test-jp-edited (assistant-ls-test-text buf)))))

(ert-deftest assistant-ls-apply-region ()
  "`assistant-ls-apply-region' applies the edits of the model answer in a buffer."
  (let ((buf (assistant-ls-test-visit "jp.txt")))
    (with-temp-buffer
      (setq default-directory assistant-ls-test-ws)
      (insert (assistant-ls-test-message "jp.txt" "終わり 🍣" "おしまい 🍵"))
      (let ((s (assistant-ls-apply-region (point-min) (point-max))))
        (should (equal "applied" (plist-get (assistant-ls-test-edit s) :status)))))
    (should (equal "こんにちは、世界 🎉\nこれはテストです。👍🏽 ok\nおしまい 🍵\n" (assistant-ls-test-text buf)))))

(ert-deftest assistant-ls-apply-region-summary ()
  "The message of `assistant-ls-apply-region' names a fallback tier, and a failure with the
server's hint, as a warning."
  (let ((buf (assistant-ls-test-visit "jp.txt")) warned)
    (with-temp-buffer
      (setq default-directory assistant-ls-test-ws)
      (insert (assistant-ls-test-message "jp.txt" "   これはテストです。👍🏽 ok" "これは本番です 🚀 ok")
              (assistant-ls-test-message "jp.txt" "こんにちは、世界 🎉!" "x"))
      (cl-letf (((symbol-function 'display-warning)
                 (lambda (_type msg &rest _) (push msg warned))))
        (assistant-ls-apply-region (point-min) (point-max))))
    (should (equal "こんにちは、世界 🎉\nこれは本番です 🚀 ok\n終わり 🍣\n" (assistant-ls-test-text buf)))
    (should (= 1 (length warned)))
    (let ((msg (car warned)))
      (should (string-match-p (regexp-quote "1 applied, 1 failed") msg))
      (should (string-match-p (regexp-quote "replace_in_file jp.txt: section 1 matched after trimming white space") msg))
      (should (string-match-p (regexp-quote "did you mean line 1?") msg)))))

(ert-deftest assistant-ls-review-diff ()
  "With autoApply off, `assistant-ls-review' shows the edit in diff-mode; one hunk
is applied with `diff-apply-hunk', the other is not."
  (let* ((assistant-ls-settings '(:autoApply :json-false))
         (buf (assistant-ls-test-visit "four.txt"))
         (s (assistant-ls-stream :cwd assistant-ls-test-ws)))
    (assistant-ls-push s (concat "Two changes.\n<replace_in_file>\n<path>four.txt</path>\n<diff>\n"
                                 "------- SEARCH\nbeta\n=======\nBETA ✅\n+++++++ REPLACE\n"
                                 "------- SEARCH\nzeta\n=======\nZETA ❌\n+++++++ REPLACE\n"
                                 "</diff>\n</replace_in_file>\n"))
    (assistant-ls-finish s)
    (should (assistant-ls-wait s 15))
    (should (equal "ready" (plist-get (assistant-ls-test-edit s) :status)))
    (let ((diff (assistant-ls-review s 1)))
      (with-current-buffer diff
        (should (eq major-mode 'diff-mode))
        (should (= 2 (how-many "^@@" (point-min) (point-max))))
        (goto-char (point-min))
        (diff-hunk-next)
        (diff-apply-hunk)))
    (should (equal "alpha 🍎\nBETA ✅\ngamma\ndelta\nepsilon\nzeta\neta\ntheta 🌙\n"
                   (assistant-ls-test-text buf)))))

(ert-deftest assistant-ls-beside-usual-server ()
  "The buffer keeps its usual eglot server (here a second assistant-ls playing
that part for `text-mode'); ours runs beside it, both are told of the edit."
  (let* ((eglot-server-programs `((text-mode . (,(getenv "ASSISTANT_LS_BIN")))))
         (buf (assistant-ls-test-visit "jp.txt")))
    (with-current-buffer buf
      (text-mode)
      (apply #'eglot (eglot--guess-contact))
      (let ((end (+ (float-time) 10)))
        (while (and (not (bound-and-true-p eglot--managed-mode)) (< (float-time) end))
          (accept-process-output nil 0.05)))
      (should eglot--managed-mode))
    (let* ((usual (with-current-buffer buf (eglot-current-server)))
           (s (assistant-ls-stream :cwd assistant-ls-test-ws)))
      (should usual)
      (should-not (eq usual (assistant-ls-stream-server s)))
      (should (eq (assistant-ls-stream-server s) (buffer-local-value 'assistant-ls--server buf)))
      (assistant-ls-push s assistant-ls-test-jp-msg)
      (assistant-ls-finish s)
      (should (assistant-ls-wait s 15))
      (should (equal "applied" (plist-get (assistant-ls-test-edit s) :status)))
      (should (equal assistant-ls-test-jp-edited (assistant-ls-test-text buf)))
      ;; both servers are still there, and eglot still manages the buffer with its own
      (should (jsonrpc-running-p usual))
      (with-current-buffer buf
        (should (eq usual (eglot-current-server)))
        (should (= 1 eglot--versioned-identifier))))))

;;; assistant-ls-test.el ends here
