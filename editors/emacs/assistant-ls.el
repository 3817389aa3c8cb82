;;; assistant-ls.el --- Preview and apply language-model edits with assistant-ls  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (eglot "1.9"))
;; Keywords: tools, languages
;; URL: https://github.com/assistant-ls/assistant-ls

;;; Commentary:

;; assistant-ls is a language server that applies code edits written by a
;; language model (Cline's XML tools, SEARCH/REPLACE diffs, …) as
;; versioned `workspace/applyEdit' requests.  This package runs it through
;; eglot *beside* a buffer's usual server: eglot manages one server per
;; project and major mode, so assistant-ls gets its own eglot connection
;; (an `eglot-lsp-server' of class `assistant-ls-server', registered under
;; a project of its own) and this package keeps it told about every file
;; buffer of the project (didOpen, didChange after eglot's idle time,
;; didClose).  The server's requests — `workspace/applyEdit' above all — are
;; answered by eglot's own handlers, so edits behave exactly as eglot's.
;;
;; Agent plugins (gptel, ellama, …) use:
;;
;;   (let ((s (assistant-ls-stream :cwd default-directory)))
;;     (assistant-ls-push s "I'll fix it.\n<replace_in_file>…")
;;     (assistant-ls-finish s))
;;
;; and `assistant-ls-blocks-functions' (or :on-blocks) to follow the
;; blocks and edit states.  `assistant-ls-apply-region' applies the edits
;; of a model answer in the region; `assistant-ls-review' shows an edit as
;; a `diff-mode' buffer whose hunks apply with the usual keys (C-c C-a).

;;; Code:

(require 'cl-lib)
(require 'eglot)
(require 'jsonrpc)
(require 'project)
(require 'diff-mode)

(defgroup assistant-ls nil
  "Language-model edits through the assistant-ls language server."
  :group 'tools)

(defcustom assistant-ls-program '("assistant-ls")
  "Command line that starts the server."
  :type '(repeat string))

(defcustom assistant-ls-settings nil
  "Server settings (contract section 2) as a plist, e.g. (:autoApply :json-false).
Sent as `initializationOptions' when the server starts."
  :type 'plist)

(defcustom assistant-ls-confirm-edits 'inherit
  "Whether eglot asks before applying the server's edits.
`inherit' uses `eglot-confirm-server-initiated-edits'.  Eglot asks in
any case for an edit of a file that no buffer visits."
  :type '(choice (const :tag "As eglot-confirm-server-initiated-edits" inherit)
                 (const :tag "Ask" confirm)
                 (const :tag "Don't ask" nil)))

(defcustom assistant-ls-send-edits-at-once t
  "Non-nil: tell the server of a buffer edited by its edit right after applying it.
Otherwise the change waits for `eglot-send-changes-idle-time' of idleness
like any other, which never comes while a Lisp program waits for the
server (idle timers run only while Emacs waits for input), and the server
takes an edit it cannot see in the document within 2 s for a failed one."
  :type 'boolean)

(defcustom assistant-ls-review-context 1
  "Lines of context around each hunk of `assistant-ls-review' (diff -U)."
  :type 'natnum)

(defvar assistant-ls-blocks-functions nil
  "Abnormal hook run after each `assistant/blocks' push.
Each function gets the stream (an `assistant-ls-stream') and the index
FROM of the first block that changed; the blocks are in
`assistant-ls-stream-blocks' (a vector of plists, see docs/protocol.md).")

(defclass assistant-ls-server (eglot-lsp-server) ()
  :documentation "An eglot connection to assistant-ls, kept beside the project's usual server.")

(cl-defstruct (assistant-ls-stream (:constructor assistant-ls--make-stream))
  "One assistant message streamed to the server."
  name server (blocks []) final on-blocks cwd model-id (sent-first nil))

(defvar assistant-ls--servers (make-hash-table :test #'equal)
  "Live servers by workspace folder (a directory name).")

(defvar assistant-ls--streams (make-hash-table :test #'equal)
  "Streams by name.")

(defvar assistant-ls--counter 0)

(defvar-local assistant-ls--server nil
  "The server this buffer is synchronised with, or nil.")

(defvar-local assistant-ls--dirty nil
  "Non-nil when the buffer changed since the server was last told.")

(defvar-local assistant-ls--timer nil)

;;;; Projects and servers

(cl-defmethod project-root ((project (head assistant-ls)))
  "The folder of an assistant-ls PROJECT."
  (cdr project))

(defun assistant-ls--root (&optional dir)
  "The workspace folder of DIR (default: `default-directory')."
  (let* ((dir (or dir default-directory))
         (p (project-current nil dir)))
    (file-name-as-directory (expand-file-name (if p (project-root p) dir)))))

(defun assistant-ls--live (server)
  (and server (jsonrpc-running-p server) server))

(cl-defmethod eglot-initialization-options ((_server assistant-ls-server))
  "Send `assistant-ls-settings' as initializationOptions."
  (or assistant-ls-settings eglot--{}))

(defun assistant-ls-connection (&optional dir)
  "Return the server for DIR's workspace folder, starting it if needed.
Every file buffer of that folder is then synchronised with it."
  (let* ((root (assistant-ls--root dir))
         (server (assistant-ls--live (gethash root assistant-ls--servers))))
    (unless server
      (setq server (eglot--connect '(assistant-ls--none) (cons 'assistant-ls root)
                                   'assistant-ls-server assistant-ls-program "assistant"))
      (unless server
        (error "assistant-ls: the server did not start (is %s on PATH?)" (car assistant-ls-program)))
      (puthash root server assistant-ls--servers)
      (dolist (b (buffer-list))
        (with-current-buffer b (assistant-ls--maybe-sync))))
    server))

(defun assistant-ls--server-root (server)
  (cdr (eglot--project server)))

;;;; Document synchronisation

(defun assistant-ls--language-id ()
  (if (and buffer-file-name (string-match-p "\\.assistant\\.md\\'" buffer-file-name))
      "assistant"
    (string-remove-suffix "-mode" (symbol-name major-mode))))

(defun assistant-ls--maybe-sync ()
  "Synchronise the current buffer with the server of its folder, if one runs."
  (when (and buffer-file-name (not assistant-ls--server))
    (let ((file (expand-file-name buffer-file-name)))
      (maphash (lambda (root server)
                 (when (and (not assistant-ls--server) (assistant-ls--live server)
                            (string-prefix-p root file))
                   (setq assistant-ls--server server)
                   (add-hook 'after-change-functions #'assistant-ls--after-change 90 t)
                   (add-hook 'kill-buffer-hook #'assistant-ls--did-close nil t)
                   (add-hook 'eglot-managed-mode-hook #'assistant-ls--reopen nil t)
                   (assistant-ls--did-open)))
               assistant-ls--servers))))

(add-hook 'find-file-hook #'assistant-ls--maybe-sync)

(defun assistant-ls--uri ()
  (eglot--path-to-uri (expand-file-name buffer-file-name)))

(defun assistant-ls--did-open ()
  ;; The version is eglot's own counter, which eglot's edit handler checks.
  (setq assistant-ls--dirty nil)
  (jsonrpc-notify assistant-ls--server :textDocument/didOpen
                  `(:textDocument (:uri ,(assistant-ls--uri)
                                   :languageId ,(assistant-ls--language-id)
                                   :version ,eglot--versioned-identifier
                                   :text ,(eglot--widening (buffer-substring-no-properties
                                                            (point-min) (point-max)))))))

(defun assistant-ls--did-close ()
  (when (assistant-ls--live assistant-ls--server)
    (ignore-errors
      (jsonrpc-notify assistant-ls--server :textDocument/didClose
                      `(:textDocument (:uri ,(assistant-ls--uri))))))
  (setq assistant-ls--server nil))

(defun assistant-ls--reopen ()
  "Eglot's own didOpen restarts the buffer's version: tell our server anew."
  (when (assistant-ls--live assistant-ls--server)
    (assistant-ls--did-close)
    (assistant-ls--maybe-sync)))

(defun assistant-ls--after-change (_beg _end _len)
  ;; Eglot counts versions only in buffers it manages; elsewhere we do.
  (unless (bound-and-true-p eglot--managed-mode)
    (cl-incf eglot--versioned-identifier))
  (setq assistant-ls--dirty t)
  (when assistant-ls--timer (cancel-timer assistant-ls--timer))
  (let ((buf (current-buffer)))
    (setq assistant-ls--timer
          (run-with-idle-timer eglot-send-changes-idle-time nil
                               #'assistant-ls--flush-buffer buf))))

(defun assistant-ls--flush-buffer (buf)
  "Send BUF's pending change to its server as one full-text didChange."
  (when (buffer-live-p buf)
    (with-current-buffer buf
      (when assistant-ls--timer (cancel-timer assistant-ls--timer))
      (setq assistant-ls--timer nil)
      (when (and assistant-ls--dirty (assistant-ls--live assistant-ls--server))
        (setq assistant-ls--dirty nil)
        (jsonrpc-notify assistant-ls--server :textDocument/didChange
                        `(:textDocument (:uri ,(assistant-ls--uri)
                                         :version ,eglot--versioned-identifier)
                          :contentChanges
                          [(:text ,(eglot--widening (buffer-substring-no-properties
                                                     (point-min) (point-max))))]))))))

(defun assistant-ls-flush (&optional server)
  "Send the pending changes of the buffers synchronised with SERVER.
SERVER nil means every server.  Done before every message to the
server, as eglot does before its requests."
  (dolist (b (buffer-list))
    (when (and (buffer-local-value 'assistant-ls--dirty b)
               (or (null server) (eq server (buffer-local-value 'assistant-ls--server b))))
      (assistant-ls--flush-buffer b))))

;;;; Edits: eglot's own handler, with our confirmation setting

(cl-defmethod eglot-handle-request
  ((server assistant-ls-server) (_method (eql workspace/applyEdit)) &key _label _edit)
  "Apply the edit as eglot does, asking as `assistant-ls-confirm-edits' says.
With `assistant-ls-send-edits-at-once', the edited buffers' didChange
follows the answer at once."
  (let ((eglot-confirm-server-initiated-edits
         (if (eq assistant-ls-confirm-edits 'inherit)
             eglot-confirm-server-initiated-edits
           assistant-ls-confirm-edits)))
    (prog1 (cl-call-next-method)
      (when assistant-ls-send-edits-at-once
        (run-at-time 0 nil #'assistant-ls-flush server)))))

;;;; Streams

(cl-defun assistant-ls-stream (&key cwd model-id on-blocks name)
  "Open an assistant message and return it.
CWD is the base of relative paths (default: `default-directory'),
MODEL-ID selects the server's content fixes, ON-BLOCKS a function
called like `assistant-ls-blocks-functions', NAME the stream's name
\(default: a fresh one)."
  (let* ((cwd (expand-file-name (or cwd default-directory)))
         (s (assistant-ls--make-stream
             :name (or name (format "emacs-%d-%d" (emacs-pid) (cl-incf assistant-ls--counter)))
             :server (assistant-ls-connection cwd)
             :cwd cwd :model-id model-id :on-blocks on-blocks)))
    (puthash (assistant-ls-stream-name s) s assistant-ls--streams)
    s))

(defun assistant-ls--parse (stream params)
  (let ((server (assistant-ls-stream-server stream)))
    (assistant-ls-flush server)
    (unless (assistant-ls-stream-sent-first stream)
      (setf (assistant-ls-stream-sent-first stream) t)
      (setq params (append params
                           (list :cwd (eglot--path-to-uri (directory-file-name (assistant-ls-stream-cwd stream))))
                           (and (assistant-ls-stream-model-id stream)
                                (list :modelId (assistant-ls-stream-model-id stream))))))
    (jsonrpc-notify server :assistant/parse
                    (append (list :stream (assistant-ls-stream-name stream)) params))))

(defun assistant-ls-push (stream delta)
  "Append DELTA, a piece of the model's text, to STREAM."
  (assistant-ls--parse stream (list :delta delta)))

(defun assistant-ls-push-tool-call (stream call)
  "Send CALL, a fragment of a native tool call, to STREAM.
CALL is a plist (:id ID :name NAME :arguments FRAGMENT :done BOOL);
see `toolCall' in the contract, section 3."
  (assistant-ls--parse stream (list :toolCall call)))

(defun assistant-ls-finish (stream)
  "Say that the model's output for STREAM has ended."
  (assistant-ls--parse stream (list :final t)))

(defun assistant-ls-close (stream)
  "Drop STREAM on the server."
  (jsonrpc-notify (assistant-ls-stream-server stream) :assistant/close
                  (list :stream (assistant-ls-stream-name stream)))
  (remhash (assistant-ls-stream-name stream) assistant-ls--streams))

(cl-defmethod eglot-handle-notification
  ((_server assistant-ls-server) (_method (eql assistant/blocks)) &key stream from blocks final)
  "Replace the stream's blocks from FROM on."
  (when-let ((s (gethash stream assistant-ls--streams)))
    (setf (assistant-ls-stream-blocks s)
          (vconcat (seq-take (assistant-ls-stream-blocks s) from) blocks))
    (when (eq final t) (setf (assistant-ls-stream-final s) t))
    (when (assistant-ls-stream-on-blocks s)
      (funcall (assistant-ls-stream-on-blocks s) s from))
    (run-hook-with-args 'assistant-ls-blocks-functions s from)))

(cl-defmethod eglot-handle-notification
  ((_server assistant-ls-server) (_method (eql assistant/preview)) &rest _)
  "Previews are for plugins that draw them; ignored here."
  nil)

(defun assistant-ls-edit (stream index)
  "The EditState plist of block INDEX (0-based) of STREAM, or nil."
  (let ((blocks (assistant-ls-stream-blocks stream)))
    (and (< index (length blocks)) (plist-get (aref blocks index) :edit))))

(defconst assistant-ls--settled '("applied" "rejected" "failed" "refused" "ready" "partial"))

(defun assistant-ls-settled-p (stream)
  "Non-nil when STREAM is final and none of its edits is streaming or applying."
  (and (assistant-ls-stream-final stream)
       (cl-every (lambda (b) (let ((e (plist-get b :edit)))
                               (or (null e) (member (plist-get e :status) assistant-ls--settled))))
                 (assistant-ls-stream-blocks stream))))

(defun assistant-ls-wait (stream &optional timeout)
  "Wait until STREAM has settled (see `assistant-ls-settled-p').
Wait at most TIMEOUT seconds (default 10).  Return non-nil when it did."
  (let ((deadline (+ (float-time) (or timeout 10))))
    (while (and (not (assistant-ls-settled-p stream)) (< (float-time) deadline))
      (accept-process-output nil 0.02))
    (assistant-ls-settled-p stream)))

(defun assistant-ls--request (stream method params)
  (let ((server (assistant-ls-stream-server stream)))
    (assistant-ls-flush server)
    (jsonrpc-request server method params)))

(defun assistant-ls-apply (stream index)
  "Apply block INDEX's edit with assistant/apply; return the result plist.
The result is (:status S :error E :uri U :edit WORKSPACE-EDIT)."
  (assistant-ls--request stream :assistant/apply
                         (list :stream (assistant-ls-stream-name stream) :index index)))

(defun assistant-ls-resolve (stream index)
  "Compute block INDEX's edit without sending it (assistant/resolveEdit)."
  (assistant-ls--request stream :assistant/resolveEdit
                         (list :stream (assistant-ls-stream-name stream) :index index)))

;;;; Commands

(defconst assistant-ls--tier-words
  '(("line_trimmed" . "matched after trimming white space")
    ("block_anchor" . "matched by its first and last lines only")
    ("whole_file" . "matched before the previous section")
    ("trailing-whitespace" . "matched after trimming trailing white space")
    ("whitespace" . "matched after trimming white space")
    ("unicode-punctuation" . "matched after normalising punctuation")
    ("offset" . "matched away from its @@ line")
    ("line_number" . "placed by its @@ line number alone")
    ("leading_whitespace" . "matched with its indentation set aside")
    ("leading_blank_line" . "matched without its first, blank line")
    ("elision" . "matched piece by piece between its \"...\" lines")
    ("trailing_whitespace" . "matched after trimming trailing white space")
    ("quote_normalized" . "matched with curly quotes read as straight ones"))
  "How a section was located by a fallback tier (EditState tiers), in words.")

(defun assistant-ls--fallbacks (edit)
  "The sections of EDIT located by a fallback tier, in words, or nil."
  (let ((i 0) notes)
    (seq-doseq (tier (plist-get edit :tiers))
      (setq i (1+ i))
      (when-let ((words (cdr (assoc tier assistant-ls--tier-words))))
        (push (format "section %d %s" i words) notes)))
    (and notes (string-join (nreverse notes) ", "))))

(defun assistant-ls--failed-p (edit)
  "Whether EDIT did not land."
  (member (plist-get edit :status) '("failed" "refused" "rejected")))

(defun assistant-ls--summary (stream)
  "The message of `assistant-ls-apply-region' for STREAM: the count of each status, how edits
were located when a fallback tier found them, and each failure's reason with the server's
hint (\"did you mean line 15? (90% similar)\")."
  (let (counts notes)
    (seq-doseq (b (assistant-ls-stream-blocks stream))
      (when-let* ((e (plist-get b :edit)) (st (plist-get e :status)))
        (setf (alist-get st counts nil nil #'equal) (1+ (alist-get st counts 0 nil #'equal)))
        (let ((what (string-trim (format "%s %s" (or (plist-get b :name) "edit")
                                         (or (plist-get (plist-get b :params) :path) "")))))
          (cond ((and (equal st "applied") (assistant-ls--fallbacks e))
                 (push (format "%s: %s" what (assistant-ls--fallbacks e)) notes))
                ((and (assistant-ls--failed-p e) (plist-get e :error))
                 (push (format "%s %s: %s" what st
                               (replace-regexp-in-string "\n" " " (plist-get e :error)))
                       notes))))))
    (concat (if counts
                (mapconcat (lambda (c) (format "%d %s" (cdr c) (car c))) (nreverse counts) ", ")
              "no edits")
            (if notes (format " (%s)" (string-join (nreverse notes) "; ")) ""))))

;;;###autoload
(defun assistant-ls-apply-region (beg end)
  "Treat the region (or the buffer) as a model answer and apply its edits.
Edits the server holds back (autoApply off) are applied too."
  (interactive (if (use-region-p) (list (region-beginning) (region-end))
                 (list (point-min) (point-max))))
  (let ((s (assistant-ls-stream)))
    (assistant-ls-push s (buffer-substring-no-properties beg end))
    (assistant-ls-finish s)
    (assistant-ls-wait s 30)
    (seq-doseq (b (assistant-ls-stream-blocks s))
      (when (equal (plist-get (plist-get b :edit) :status) "ready")
        (assistant-ls-apply s (plist-get b :index))))
    (assistant-ls-wait s 30)
    (let ((msg (format "assistant-ls: %s" (assistant-ls--summary s))))
      (if (seq-some (lambda (b) (assistant-ls--failed-p (plist-get b :edit)))
                    (assistant-ls-stream-blocks s))
          (display-warning 'assistant-ls msg :warning)
        (message "%s" msg)))
    s))

(defun assistant-ls--text-edits (wedit uri)
  (let (out)
    (seq-doseq (dc (plist-get wedit :documentChanges))
      (when (equal (plist-get (plist-get dc :textDocument) :uri) uri)
        (setq out (append out (append (plist-get dc :edits) nil)))))
    (or out (append (plist-get (plist-get wedit :changes) (intern (concat ":" uri))) nil))))

;;;###autoload
(defun assistant-ls-review (stream index)
  "Show block INDEX's edit of STREAM as a `diff-mode' buffer and return it.
Nothing is sent: apply hunks with \\[diff-apply-hunk], skip them with
\\[diff-hunk-kill], as in any diff."
  (interactive (let ((s (or (car (last (hash-table-values assistant-ls--streams)))
                            (user-error "No assistant-ls stream"))))
                 (list s (read-number "Block: "))))
  (let* ((res (assistant-ls-resolve stream index))
         (uri (plist-get res :uri))
         (file (eglot--uri-to-path uri))
         (root (assistant-ls--server-root (assistant-ls-stream-server stream)))
         (rel (file-relative-name file root))
         (buf (find-file-noselect file))
         (old (make-temp-file "assistant-ls-old"))
         (new (make-temp-file "assistant-ls-new"))
         (edits (assistant-ls--text-edits (plist-get res :edit) uri)))
    (unless (equal (plist-get res :status) "ready")
      (user-error "assistant-ls: the edit is %s%s" (plist-get res :status)
                  (if (plist-get res :error) (concat ": " (plist-get res :error)) "")))
    (unwind-protect
        (let ((text (with-current-buffer buf
                      (eglot--widening (buffer-substring-no-properties (point-min) (point-max))))))
          (let ((coding-system-for-write 'utf-8-unix))
            (write-region text nil old nil 'silent)
            (with-temp-buffer
              (insert text)
              (let ((inhibit-message t)) (eglot--apply-text-edits edits nil))
              (write-region nil nil new nil 'silent)))
          (with-current-buffer (get-buffer-create (format "*assistant-ls review %s*" rel))
            (let ((inhibit-read-only t)
                  (coding-system-for-read 'utf-8-unix))
              (erase-buffer)
              (setq default-directory root)
              (call-process "diff" nil t nil (format "-U%d" assistant-ls-review-context)
                            "--label" rel "--label" rel old new)
              (goto-char (point-min))
              (diff-mode))
            (current-buffer)))
      (delete-file old)
      (delete-file new))))

(provide 'assistant-ls)
;;; assistant-ls.el ends here
