// The assistant-ls extension: it starts the server, keeps it configured from the `assistant.*`
// settings, applies the server's edits one at a time (through the Refactor Preview when
// `assistant.confirm` is on), and exports a small API for agent extensions:
//
//   const api = await vscode.extensions.getExtension('assistant-ls.assistant-ls')!.activate();
//   const s = api.stream({ cwd: folderUri });
//   s.onBlocks((blocks) => …); s.push('I will fix it.\n<replace_in_file>…'); s.finish();
//   await s.settled(); s.blocks[1].edit?.status === 'applied'
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  ApplyWorkspaceEditParams,
  ApplyWorkspaceEditRequest,
  ApplyWorkspaceEditResult,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  TextDocumentEdit,
} from 'vscode-languageclient/node';

/** A position in the negotiated encoding (utf-16 in VS Code). */
export interface Position {
  line: number;
  character: number;
}

/** The state of a file-editing tool use (docs/protocol.md, EditState). */
export interface EditState {
  uri?: string;
  status: 'streaming' | 'ready' | 'applying' | 'applied' | 'rejected' | 'failed' | 'refused' | 'partial';
  error?: string;
  matchPositions?: Position[];
  files?: { uri: string; status: string }[];
  tiers?: string[];
  toolResult?: string;
  /** Hunks of an edit held for review (contract 7a), once the server holds edits. */
  hunks?: { range: { start: Position; end: Position }; status: 'pending' | 'accepted' | 'rejected' | 'stale' }[];
}

/** One block of an assistant message, as the server pushes it. */
export interface Block {
  index: number;
  id: string;
  type: 'text' | 'tool_use';
  partial: boolean;
  content?: string;
  name?: string;
  params?: Record<string, string>;
  callId?: string;
  input?: unknown;
  edit?: EditState;
}

/** A fragment of a native tool call (contract section 3, `toolCall`). */
export interface ToolCallDelta {
  id: string;
  name?: string;
  arguments?: string;
  done?: boolean;
}

/** What `assistant/apply` and `assistant/resolveEdit` return. */
export interface ApplyResult {
  status: EditState['status'];
  error?: string;
  uri: string;
  edit?: unknown;
}

/** Options of a new stream. */
export interface StreamOptions {
  /** Base of relative paths; default: the first workspace folder. */
  cwd?: vscode.Uri | string;
  /** The model's id; selects the server's content fixes. */
  modelId?: string;
  /** The stream's name; default: a fresh unique one. */
  name?: string;
}

/** One assistant message streamed to the server. */
export interface Stream {
  readonly name: string;
  /** The blocks so far, kept up to date from the server's pushes. */
  readonly blocks: readonly Block[];
  /** True once the server has seen the end of the message. */
  readonly final: boolean;
  /** Appends a delta of the model's text. */
  push(delta: string): void;
  /** Sends a fragment of a native tool call. */
  pushToolCall(call: ToolCallDelta): void;
  /** Says that the model's output has ended. */
  finish(): void;
  /** Calls fn after every push with all blocks and the index of the first that changed. */
  onBlocks(fn: (blocks: readonly Block[], from: number) => void): vscode.Disposable;
  /** Applies block index's edit now (assistant/apply). */
  apply(index: number): Promise<ApplyResult>;
  /**
   * Resolves true once the message is final and no edit is streaming or applying; false after
   * timeoutMs (default 30 s; `Infinity` waits as long as the edits take, a Refactor Preview
   * left open included) or when the server stops.
   */
  settled(timeoutMs?: number): Promise<boolean>;
  /** Drops the stream on the server. */
  close(): void;
}

/** Parameters of `resolveEdit`: a block of a stream, or a diff or content for a document. */
export type ResolveParams = { stream: string; index: number } | { uri: string; diff: string } | { uri: string; content: string };

/** The server this extension started. */
export interface ServerInfo {
  /** The executable that runs, resolved from `assistant.serverPath`. */
  path: string;
  /** What the server said in `initialize` (`serverInfo`), e.g. "assistant-ls 0.1.0". */
  version: string;
}

/** The API this extension exports to agent extensions. */
export interface AssistantApi {
  /** Resolves once the server is running; rejects when it cannot start. */
  readonly ready: Promise<void>;
  /** The running server, once ready has resolved. */
  readonly server: ServerInfo | undefined;
  stream(options?: StreamOptions): Stream;
  /** Computes an edit without sending it (for extensions that draw their own preview). */
  resolveEdit(params: ResolveParams): Promise<ApplyResult>;
}

const serverKeys = [
  'toolNames', 'paramNames', 'diffVersion', 'contentFixes', 'autoApply', 'confirm', 'preview',
  'allowOutsideWorkspace', 'allowGitDir', 'requireRead', 'editTools', 'textFormats', 'review',
  'responseDocuments',
];

const settledStatuses = new Set(['applied', 'rejected', 'failed', 'refused', 'ready', 'partial']);

// defaultSettleTimeout is how long settled() waits when its caller names no limit. The
// environment may set it (the editor test makes it short, to show that Apply Edits in Selection
// waits past it while a Refactor Preview stays open).
const defaultSettleTimeout = Number(process.env.ASSISTANT_LS_SETTLE_TIMEOUT_MS) || 30000;

function serverSettings(): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration('assistant');
  const out: Record<string, unknown> = {};
  for (const k of serverKeys) {
    out[k] = config.get(k);
  }
  return out;
}

/** findExecutable resolves a command name on PATH, or checks a path; undefined when missing. */
function findExecutable(cmd: string): string | undefined {
  const ok = (p: string) => {
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return fs.statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (cmd.includes('/') || cmd.includes(path.sep)) {
    return ok(cmd) ? cmd : undefined;
  }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && ok(path.join(dir, cmd))) {
      return path.join(dir, cmd);
    }
  }
  return undefined;
}

let client: LanguageClient | undefined;
let server: ServerInfo | undefined;
// stopped fires when the running client stops, so that waits on its streams end.
const stopped = new vscode.EventEmitter<void>();
let counter = 0;
const streams = new Map<string, StreamImpl>();

class StreamImpl implements Stream {
  blocks: Block[] = [];
  final = false;
  private listeners = new Set<(blocks: readonly Block[], from: number) => void>();
  private sent: Promise<unknown>;
  private first = true;

  constructor(
    readonly name: string,
    private readonly ready: Promise<void>,
    private readonly cwd: string | undefined,
    private readonly modelId: string | undefined,
  ) {
    this.sent = ready;
  }

  private send(params: Record<string, unknown>) {
    const p: Record<string, unknown> = { stream: this.name, ...params };
    if (this.first) {
      this.first = false;
      if (this.cwd) p.cwd = this.cwd;
      if (this.modelId) p.modelId = this.modelId;
    }
    // in order, after the server is up
    this.sent = this.sent.then(() => client!.sendNotification('assistant/parse', p));
    this.sent.catch((e) => log(`assistant/parse for ${this.name}: ${e}`));
  }

  push(delta: string) {
    this.send({ delta });
  }

  pushToolCall(call: ToolCallDelta) {
    this.send({ toolCall: call });
  }

  finish() {
    this.send({ final: true });
  }

  close() {
    this.sent = this.sent.then(() => client!.sendNotification('assistant/close', { stream: this.name }));
    streams.delete(this.name);
  }

  onBlocks(fn: (blocks: readonly Block[], from: number) => void): vscode.Disposable {
    this.listeners.add(fn);
    return new vscode.Disposable(() => this.listeners.delete(fn));
  }

  update(from: number, blocks: Block[], final: boolean) {
    this.blocks = this.blocks.slice(0, from).concat(blocks);
    this.final = this.final || final;
    for (const fn of this.listeners) {
      try {
        fn(this.blocks, from);
      } catch (e) {
        log(`onBlocks listener of ${this.name}: ${e}`);
      }
    }
  }

  isSettled(): boolean {
    return this.final && this.blocks.every((b) => !b.edit || settledStatuses.has(b.edit.status));
  }

  settled(timeoutMs = defaultSettleTimeout): Promise<boolean> {
    if (this.isSettled()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        if (timer !== undefined) clearTimeout(timer);
        sub.dispose();
        gone.dispose();
        resolve(ok);
      };
      const timer = Number.isFinite(timeoutMs) ? setTimeout(() => done(false), timeoutMs) : undefined;
      const sub = this.onBlocks(() => {
        if (this.isSettled()) done(true);
      });
      const gone = stopped.event(() => done(false));
    });
  }

  async apply(index: number): Promise<ApplyResult> {
    await this.sent;
    return client!.sendRequest<ApplyResult>('assistant/apply', { stream: this.name, index });
  }
}

let output: vscode.OutputChannel;

function log(msg: string) {
  output?.appendLine(`[extension] ${msg}`);
}

// Edits are applied one at a time: VS Code shows one Refactor Preview at a time and answers a
// second confirmation edit that arrives while one is shown by discarding it, so a second edit would
// end `rejected` although the user rejected nothing.
let applying: Promise<unknown> = Promise.resolve();

// applyInEditor applies an edit of text alone to one document shown in an editor through that
// editor, when no confirmation is wanted; it returns undefined for any other edit. VS Code
// (1.139) shrinks a workspace edit of the active editor's document in its editor worker, and a
// change that the shrinking starts inside a surrogate pair (an emoji replaced by another emoji
// that shares its first UTF-16 unit) comes back from the worker as U+FFFD, which corrupts the
// document. TextEditor.edit applies the text as given.
async function applyInEditor(c: LanguageClient, params: ApplyWorkspaceEditParams): Promise<boolean | undefined> {
  const we = params.edit;
  const confirm = Object.values(we.changeAnnotations ?? {}).some((a) => a.needsConfirmation);
  const changes = we.documentChanges ?? [];
  if (confirm || we.changes || changes.length !== 1 || !TextDocumentEdit.is(changes[0])) return undefined;
  const uri = c.protocol2CodeConverter.asUri(changes[0].textDocument.uri).toString();
  const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri);
  if (!editor) return undefined;
  const edits = await c.protocol2CodeConverter.asTextEdits(changes[0].edits);
  return editor.edit((b) => {
    for (const e of edits ?? []) b.replace(e.range, e.newText);
  });
}

async function applyOne(c: LanguageClient, params: ApplyWorkspaceEditParams): Promise<ApplyWorkspaceEditResult> {
  for (const change of params.edit.documentChanges ?? []) {
    if (TextDocumentEdit.is(change) && change.textDocument.version !== null) {
      const uri = c.protocol2CodeConverter.asUri(change.textDocument.uri).toString();
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
      if (doc && doc.version !== change.textDocument.version) {
        return {
          applied: false,
          failureReason: `version mismatch: ${vscode.workspace.asRelativePath(doc.uri)} is at version ${doc.version}, the edit was built on ${change.textDocument.version}`,
        };
      }
    }
  }
  const direct = await applyInEditor(c, params);
  if (direct !== undefined) {
    return direct ? { applied: true } : { applied: false, failureReason: 'the editor refused the edit' };
  }
  const confirm = Object.values(params.edit.changeAnnotations ?? {}).some((a) => a.needsConfirmation);
  const edit = await c.protocol2CodeConverter.asWorkspaceEdit(confirm ? confirmedByUs(params.edit) : params.edit);
  if (confirm) askFirst(edit, params.label ?? 'assistant-ls');
  const applied = await vscode.workspace.applyEdit(edit);
  return applied ? { applied } : { applied, failureReason: 'the edit was discarded in the editor' };
}

// confirmedByUs returns edit with its change annotations no longer needing confirmation. VS
// Code opens the changes of an annotation that needs confirmation unticked in the Refactor
// Preview, so Apply as shown would apply nothing; the changes keep their annotation (its label
// groups them in the preview) but are ticked, and askFirst makes VS Code show the preview.
function confirmedByUs(edit: ApplyWorkspaceEditParams['edit']): ApplyWorkspaceEditParams['edit'] {
  const copy = JSON.parse(JSON.stringify(edit)) as ApplyWorkspaceEditParams['edit'];
  for (const a of Object.values(copy.changeAnnotations ?? {})) a.needsConfirmation = false;
  return copy;
}

// askFirst adds to edit one empty insertion that needs confirmation, so that VS Code shows the
// Refactor Preview (with that empty entry unticked and every real change ticked): the user
// sees each change, and Apply applies them as shown.
function askFirst(edit: vscode.WorkspaceEdit, label: string): void {
  const first = edit.entries()[0];
  if (!first) return;
  edit.insert(first[0], new vscode.Position(0, 0), '', { label, needsConfirmation: true });
}

function startClient(): Promise<void> {
  const config = vscode.workspace.getConfiguration('assistant');
  const wanted = config.get<string>('serverPath') || 'assistant-ls';
  const command = findExecutable(wanted);
  const where = config.inspect<string>('serverPath');
  log(`assistant.serverPath is "${wanted}" (user: ${JSON.stringify(where?.globalValue)}, workspace: ${JSON.stringify(where?.workspaceValue)}); starting ${command ?? 'nothing'}`);
  if (!command) {
    const msg = wanted.includes('/')
      ? `assistant-ls: the server "${wanted}" (setting assistant.serverPath) does not exist or is not executable.`
      : `assistant-ls: the server "${wanted}" is not on PATH. Install it with "go install ./cmd/assistant-ls" in a checkout, or set assistant.serverPath to its full path.`;
    log(msg);
    void vscode.window.showErrorMessage(msg, 'Open Settings').then((choice) => {
      if (choice) void vscode.commands.executeCommand('workbench.action.openSettings', 'assistant.serverPath');
    });
    return Promise.reject(new Error(msg));
  }
  const args = config.get<string[]>('serverArgs') ?? [];
  const serverOptions: ServerOptions = { run: { command, args }, debug: { command, args } };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
    initializationOptions: serverSettings(),
    outputChannel: output,
  };
  const c = new LanguageClient('assistant-ls', 'assistant-ls', serverOptions, clientOptions);
  client = c;
  server = undefined;
  c.onDidChangeState((e) => {
    if (e.newState === State.Stopped) stopped.fire();
  });
  c.onNotification('assistant/blocks', (p: { stream: string; from: number; blocks: Block[]; final: boolean }) => {
    streams.get(p.stream)?.update(p.from, p.blocks, p.final);
  });
  c.onNotification('assistant/preview', () => undefined);
  const started = c.start().then(() => {
    const info = c.initializeResult?.serverInfo;
    server = { path: command, version: `${info?.name ?? '?'} ${info?.version ?? '?'}`.trim() };
    log(`started ${server.path}: ${server.version}`);
    c.onRequest(ApplyWorkspaceEditRequest.type, (params) => {
      const p = applying.then(() => applyOne(c, params));
      applying = p.catch(() => undefined);
      return p;
    });
  });
  return started;
}

function cwdString(cwd: vscode.Uri | string | undefined): string | undefined {
  if (cwd === undefined) return undefined;
  if (typeof cwd === 'string') return cwd.includes('://') ? cwd : vscode.Uri.file(cwd).toString();
  return cwd.toString();
}

// tierWords says in words how a section was located by a fallback tier (EditState.tiers).
const tierWords: Record<string, string> = {
  line_trimmed: 'matched after trimming white space',
  block_anchor: 'matched by its first and last lines only',
  whole_file: 'matched before the previous section',
  'trailing-whitespace': 'matched after trimming trailing white space',
  whitespace: 'matched after trimming white space',
  'unicode-punctuation': 'matched after normalising punctuation',
  offset: 'matched away from its @@ line',
  line_number: 'placed by its @@ line number alone',
  leading_whitespace: 'matched with its indentation set aside',
  leading_blank_line: 'matched without its first, blank line',
  elision: 'matched piece by piece between its "..." lines',
  trailing_whitespace: 'matched after trimming trailing white space',
  quote_normalized: 'matched with curly quotes read as straight ones',
};

/** fallbacks names the sections of an edit located by a fallback tier, or ''. */
function fallbacks(e: EditState): string {
  const notes = (e.tiers ?? []).flatMap((t, i) => (tierWords[t] ? [`section ${i + 1} ${tierWords[t]}`] : []));
  return notes.join(', ');
}

/**
 * summary is the message of Apply Edits in Selection: the count of each status, how edits were
 * located when a fallback tier found them, and each failure's reason with the server's hint
 * ("did you mean line 15? (90% similar)").
 */
function summary(blocks: readonly Block[]): string {
  const counts = new Map<string, number>();
  const notes: string[] = [];
  for (const b of blocks) {
    if (!b.edit) continue;
    counts.set(b.edit.status, (counts.get(b.edit.status) ?? 0) + 1);
    const what = `${b.name ?? 'edit'} ${b.params?.path ?? ''}`.trim();
    if (b.edit.status === 'applied' && fallbacks(b.edit)) notes.push(`${what}: ${fallbacks(b.edit)}`);
    if ((b.edit.status === 'failed' || b.edit.status === 'refused' || b.edit.status === 'rejected') && b.edit.error) {
      notes.push(`${what} ${b.edit.status}: ${b.edit.error}`);
    }
  }
  const head = counts.size ? [...counts].map(([k, n]) => `${n} ${k}`).join(', ') : 'no edits';
  return notes.length ? `${head} (${notes.join('; ')})` : head;
}

export function activate(context: vscode.ExtensionContext): AssistantApi {
  output = vscode.window.createOutputChannel('assistant-ls');
  context.subscriptions.push(output);
  let ready = startClient();
  ready.catch(() => undefined);

  const api: AssistantApi = {
    get ready() {
      return ready;
    },
    get server() {
      return server;
    },
    stream(options: StreamOptions = {}) {
      const name = options.name ?? `vscode-${process.pid}-${++counter}`;
      const s = new StreamImpl(name, ready, cwdString(options.cwd), options.modelId);
      streams.set(name, s);
      return s;
    },
    async resolveEdit(params: ResolveParams) {
      await ready;
      return client!.sendRequest<ApplyResult>('assistant/resolveEdit', params);
    },
  };

  context.subscriptions.push(
    vscode.commands.registerCommand('assistant.applySelection', async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) {
        void vscode.window.showWarningMessage('assistant-ls: no active editor holds a model answer.');
        return;
      }
      const text = editor.selection.isEmpty ? editor.document.getText() : editor.document.getText(editor.selection);
      const folder = vscode.workspace.getWorkspaceFolder(editor.document.uri) ?? vscode.workspace.workspaceFolders?.[0];
      const s = api.stream({ cwd: folder?.uri });
      s.push(text);
      s.finish();
      // However long the user leaves a Refactor Preview open: the message tells the outcome.
      await s.settled(Infinity);
      for (const b of s.blocks) {
        if (b.edit?.status === 'ready') await s.apply(b.index);
      }
      await s.settled(Infinity);
      const msg = `assistant-ls: ${summary(s.blocks)}`;
      s.close();
      const failed = s.blocks.some((b) => b.edit && ['failed', 'refused', 'rejected'].includes(b.edit.status));
      void (failed ? vscode.window.showWarningMessage(msg) : vscode.window.showInformationMessage(msg));
      return msg;
    }),
    vscode.commands.registerCommand('assistant.showLog', () => output.show(true)),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (!e.affectsConfiguration('assistant')) return;
      if (e.affectsConfiguration('assistant.serverPath') || e.affectsConfiguration('assistant.serverArgs')) {
        await client?.stop().catch(() => undefined);
        ready = startClient();
        ready.catch(() => undefined);
        return;
      }
      await ready.catch(() => undefined);
      await client?.sendNotification('workspace/didChangeConfiguration', { settings: { assistant: serverSettings() } });
    }),
  );
  return api;
}

export function deactivate(): Promise<void> | undefined {
  return client?.stop();
}
