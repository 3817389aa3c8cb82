-- assistant-ls for Neovim 0.7 through 0.11.
--
--   require('assistant_ls').setup{ cmd = {'assistant-ls'}, settings = { confirm = false } }
--
-- starts the server beside a buffer's other servers and gives agent plugins a small API:
--
--   local s = require('assistant_ls').stream{ on_blocks = function(blocks, stream) end, cwd = dir }
--   s:push(delta); s:push_tool_call{ id = 'c1', name = 'write_to_file', arguments = '{"pa' }
--   s:finish(); s:apply(index)
--
-- Blocks and edit states are those of docs/protocol.md (assistant/blocks); the stream keeps them
-- up to date in s.blocks (1-based: s.blocks[i].index == i - 1).
local M = {}

local compat = require('assistant_ls.compat')

-- M.config holds the options given to setup, merged over these defaults.
M.config = {
  cmd = { 'assistant-ls' },
  -- initializationOptions (contract section 2), e.g. { autoApply = false, review = true }
  settings = {},
  -- file types to attach to; nil attaches to every buffer that holds a file (buftype '').
  filetypes = nil,
  -- markers of a workspace folder, searched upwards from the buffer; else the current directory.
  root_markers = { '.git' },
  -- passed to the client as its `flags` (for example debounce_text_changes).
  flags = {},
}

-- streams by name, so assistant/blocks finds the stream object it updates.
local streams = {}
-- the last stream created, which :AssistantBlocks shows by default.
local last_stream

local counter = 0

local function on_blocks(_, result)
  if type(result) ~= 'table' or not result.stream then
    return
  end
  local s = streams[result.stream]
  if not s then
    return
  end
  for i = #s.blocks, result.from + 1, -1 do
    s.blocks[i] = nil
  end
  for _, b in ipairs(result.blocks or {}) do
    s.blocks[b.index + 1] = b
  end
  s.final = result.final or s.final
  for _, fn in ipairs(s._listeners) do
    local ok, err = pcall(fn, s.blocks, s)
    if not ok then
      vim.notify('assistant-ls: on_blocks: ' .. tostring(err), vim.log.levels.ERROR)
    end
  end
end

-- A Lua table that is empty is sent as a JSON array; the server wants objects.
local function object(t)
  return next(t or {}) and t or vim.empty_dict()
end

-- insertions_into_empty returns {bufnr = text} for the edits of a WorkspaceEdit that insert text
-- ending in a line break into an empty document.
local function insertions_into_empty(edit)
  local out = {}
  local function add(uri, edits)
    if #edits ~= 1 or edits[1].newText:sub(-1) ~= '\n' then
      return
    end
    local r = edits[1].range
    if r.start.line ~= 0 or r.start.character ~= 0 or r['end'].line ~= 0 or r['end'].character ~= 0 then
      return
    end
    local fname = vim.uri_to_fname(uri)
    local b = vim.fn.bufnr(fname)
    local empty
    if b > 0 and vim.api.nvim_buf_is_loaded(b) then
      empty = vim.deep_equal(vim.api.nvim_buf_get_lines(b, 0, -1, false), { '' })
    else
      empty = vim.fn.getfsize(fname) <= 0
    end
    if empty then
      out[fname] = edits[1].newText
    end
  end
  for uri, edits in pairs(edit.changes or {}) do
    add(uri, edits)
  end
  for _, dc in ipairs(edit.documentChanges or {}) do
    if dc.textDocument then
      add(dc.textDocument.uri, dc.edits)
    end
  end
  return out
end

-- stale returns why an edit is for an older version of a loaded buffer than the buffer's, or nil.
-- Neovim 0.7 checks versions only above 0 (the version of a buffer just opened is 0) and answers
-- `applied: true` for an edit it skips.
local function stale(edit)
  for _, dc in ipairs(edit.documentChanges or {}) do
    local td = dc.textDocument
    if td and type(td.version) == 'number' then
      local b = vim.fn.bufnr(vim.uri_to_fname(td.uri))
      if b > 0 and vim.api.nvim_buf_is_loaded(b) then
        local v = vim.lsp.util.buf_versions[b]
        if type(v) == 'number' and v ~= td.version then
          return string.format('%s changed since the edit was computed (version %d, the edit is for %d)',
            vim.fn.fnamemodify(vim.uri_to_fname(td.uri), ':~:.'), v, td.version)
        end
      end
    end
  end
  return nil
end

-- apply_edit is Neovim's workspace/applyEdit handler, except that an edit for an older version of
-- a buffer is refused (applied: false) rather than applied at stale positions or silently
-- skipped, and text inserted into an empty document does not gain a blank last line: Neovim
-- keeps the empty buffer's one line after the inserted text, so "a\nb\n" would be saved as
-- "a\nb\n\n".
local function apply_edit(err, result, ctx, config)
  local why = result and result.edit and stale(result.edit)
  if why then
    return { applied = false, failureReason = why }
  end
  local fix = result and result.edit and insertions_into_empty(result.edit) or {}
  local answer = vim.lsp.handlers['workspace/applyEdit'](err, result, ctx, config)
  for fname, text in pairs(fix) do
    local b = vim.fn.bufnr(fname)
    if b > 0 and vim.deep_equal(vim.api.nvim_buf_get_lines(b, 0, -1, false), vim.split(text, '\n', { plain = true })) then
      vim.api.nvim_buf_set_lines(b, -2, -1, false, {})
    end
  end
  return answer
end

-- Neovim 0.7 applies versioned documentChanges but does not advertise them. Without them the
-- server sends unversioned `changes`, which Neovim applies at the old positions of a buffer the
-- user edited meanwhile, overwriting the user's lines; with them it skips a stale edit, and the
-- server sees that the document lacks it.
local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.workspace = caps.workspace or {}
  caps.workspace.workspaceEdit = caps.workspace.workspaceEdit or {}
  caps.workspace.workspaceEdit.documentChanges = true
  return caps
end

local function client_config(root)
  return {
    name = 'assistant-ls',
    cmd = M.config.cmd,
    capabilities = capabilities(),
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fn.fnamemodify(root, ':t') } },
    init_options = object(M.config.settings),
    settings = { assistant = object(M.config.settings) },
    flags = M.config.flags,
    handlers = {
      ['assistant/blocks'] = on_blocks,
      ['assistant/preview'] = function() end,
      ['workspace/applyEdit'] = apply_edit,
    },
    on_exit = function(_, _, id)
      compat.forget(id)
    end,
  }
end

local function root_of(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local dir = name ~= '' and vim.fn.fnamemodify(name, ':p:h') or vim.fn.getcwd()
  for _, marker in ipairs(M.config.root_markers) do
    -- ':p' gives a folder a trailing slash, so its parent is ':p:h:h', a file's ':p:h'
    local found = vim.fn.finddir(marker, dir .. ';')
    if found ~= '' then
      return vim.fn.fnamemodify(found, ':p:h:h')
    end
    found = vim.fn.findfile(marker, dir .. ';')
    if found ~= '' then
      return vim.fn.fnamemodify(found, ':p:h')
    end
  end
  return vim.fn.getcwd()
end

-- attach starts (or reuses) the server for bufnr's workspace folder and attaches it. It returns
-- the client id, or nil when the buffer is not a file buffer.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if vim.bo[bufnr].buftype ~= '' then
    return nil
  end
  return compat.start(client_config(root_of(bufnr)), bufnr)
end

-- client returns the running client for the current directory's workspace (or any running one).
function M.client()
  return compat.client(vim.fn.getcwd())
end

local function ensure_client()
  local c = M.client()
  if c then
    return c
  end
  local id = compat.start(client_config(vim.fn.getcwd()), nil)
  return id and vim.lsp.get_client_by_id(id)
end

-- setup records opts (see M.config) and attaches the server to every file buffer from now on,
-- and to the buffers already open; it defines the user commands.
function M.setup(opts)
  -- one level deep: a list given (cmd, root_markers) replaces the default list whole
  for k, v in pairs(opts or {}) do
    M.config[k] = v
  end
  local group = vim.api.nvim_create_augroup('assistant_ls', { clear = true })
  local function wanted(b)
    return M.config.filetypes == nil or vim.tbl_contains(M.config.filetypes, vim.bo[b].filetype)
  end
  -- every file buffer, whether or not a file type is detected; with filetypes, those types
  vim.api.nvim_create_autocmd(M.config.filetypes and { 'FileType' } or { 'BufReadPost', 'BufNewFile' }, {
    group = group,
    callback = function(args)
      if wanted(args.buf) then
        M.attach(args.buf)
      end
    end,
  })
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.api.nvim_buf_get_name(b) ~= '' and wanted(b) then
      M.attach(b)
    end
  end
  require('assistant_ls.commands').define(M)
end

local Stream = {}
Stream.__index = Stream

-- stream opens an assistant message. opts: on_blocks(blocks, stream) called after every push,
-- cwd (a directory: base of relative paths), model_id, name (default a fresh unique name).
-- The server is started if no buffer has started it yet.
function M.stream(opts)
  opts = opts or {}
  counter = counter + 1
  local client = ensure_client()
  if not client then
    error('assistant-ls: the server could not be started (is ' .. tostring(M.config.cmd[1]) .. ' on PATH?)')
  end
  local s = setmetatable({
    name = opts.name or string.format('nvim-%d-%d', vim.fn.getpid(), counter),
    blocks = {},
    final = false,
    client = client,
    _listeners = {},
    _first = true,
    _cwd = opts.cwd and vim.uri_from_fname((vim.fn.fnamemodify(opts.cwd, ':p'):gsub('(.)/$', '%1'))) or nil,
    _model = opts.model_id,
  }, Stream)
  if opts.on_blocks then
    s._listeners[1] = opts.on_blocks
  end
  streams[s.name] = s
  last_stream = s
  return s
end

-- last returns the stream most recently opened, or nil.
function M.last()
  return last_stream
end

function M._streams()
  return streams
end

function Stream:_params(p)
  p.stream = self.name
  if self._first then
    p.cwd, p.modelId = self._cwd, self._model
    self._first = false
  end
  return p
end

-- on_blocks adds a listener called with (blocks, stream) after every push.
function Stream:on_blocks(fn)
  table.insert(self._listeners, fn)
end

-- push appends a delta of the model's text.
function Stream:push(delta)
  compat.notify(self.client, 'assistant/parse', self:_params({ delta = delta }))
end

-- push_tool_call sends a fragment of a native tool call: {id, name?, arguments?, done?}
-- (contract section 3, toolCall). A server without toolCall support answers nothing for it.
function Stream:push_tool_call(call)
  compat.notify(self.client, 'assistant/parse', self:_params({ toolCall = call }))
end

-- finish says the model's output has ended.
function Stream:finish()
  compat.notify(self.client, 'assistant/parse', self:_params({ final = true }))
end

-- close drops the stream on the server.
function Stream:close()
  compat.notify(self.client, 'assistant/close', { stream = self.name })
  streams[self.name] = nil
end

local function request(client, method, params, callback)
  if callback then
    compat.request(client, method, params, function(err, result)
      callback(err, result)
    end)
    return
  end
  local done, e, r = false, nil, nil
  compat.request(client, method, params, function(err, result)
    done, e, r = true, err, result
  end)
  if not vim.wait(30000, function()
    return done
  end, 10) then
    return nil, { message = method .. ': no answer within 30 s' }
  end
  return r, e
end
M._request = request

-- apply applies block `index` (0-based, as in the protocol) with assistant/apply. With a
-- callback(err, result) it returns at once; without one it waits (the editor keeps serving the
-- server's requests meanwhile) and returns result, err. result: {status, error?, uri, edit}.
function Stream:apply(index, callback)
  return request(self.client, 'assistant/apply', { stream = self.name, index = index }, callback)
end

-- resolve computes block `index`'s edit without sending it (assistant/resolveEdit).
function Stream:resolve(index, callback)
  return request(self.client, 'assistant/resolveEdit', { stream = self.name, index = index }, callback)
end

-- edit returns the EditState of block `index`, or nil.
function Stream:edit(index)
  local b = self.blocks[index + 1]
  return b and b.edit
end

local settled = { applied = true, rejected = true, failed = true, refused = true, ready = true, partial = true }

-- wait waits until the stream is final and no edit is streaming or applying, at most timeout_ms
-- (default 10 s). It returns true when that happened.
function Stream:wait(timeout_ms)
  return vim.wait(timeout_ms or 10000, function()
    if not self.final then
      return false
    end
    for _, b in ipairs(self.blocks) do
      if b.edit and not settled[b.edit.status] then
        return false
      end
    end
    return true
  end, 10)
end

-- review opens the review of block `index`'s edit in its buffer (see assistant_ls.review).
function Stream:review(index)
  return require('assistant_ls.review').open(self, index)
end

return M
