-- Review of one edit in its buffer: each pending hunk (one TextEdit of the edit) is drawn inline,
-- the lines it replaces highlighted (DiffDelete) and its new lines below them as virtual lines
-- (DiffAdd). Keys in that buffer accept or reject the hunk under the cursor, or all of them.
--
-- Two sources of hunks:
--  * held edits (contract 7a): when the server holds the edit (status `ready` with
--    EditState.hunks) and offers the assistant.acceptHunk commands, the hunks and their states
--    are the server's, and accepting or rejecting runs its commands, so the server applies;
--  * otherwise the edit is computed with assistant/resolveEdit (nothing is sent), and accepting
--    a hunk applies its TextEdit to the buffer here. The server's state for that block stays
--    `ready` then: it learns of the result only through didChange.
-- Hunk positions follow the user's typing through extmarks.
local compat = require('assistant_ls.compat')

local M = {}

local track = vim.api.nvim_create_namespace('assistant_ls_review_track')
local draw = vim.api.nvim_create_namespace('assistant_ls_review')

-- keys of a review, buffer-local while it is open.
M.keys = { accept = 'ga', reject = 'gr', accept_all = 'gA', reject_all = 'gR', close = 'gq' }

-- reviews by buffer
local reviews = {}

local has_011 = vim.fn.has('nvim-0.11') == 1

local function byte_col(line, character, encoding)
  if character == 0 or line == nil then
    return 0
  end
  if encoding == 'utf-8' then
    return math.min(character, #line)
  end
  local ok, col
  if has_011 then
    ok, col = pcall(vim.str_byteindex, line, encoding, character, false)
  else
    ok, col = pcall(vim.str_byteindex, line, character, encoding == 'utf-16')
  end
  return ok and col or #line
end

local function text_edits(edit, uri)
  local out = {}
  if edit.documentChanges then
    for _, dc in ipairs(edit.documentChanges) do
      if dc.textDocument and dc.textDocument.uri == uri then
        vim.list_extend(out, dc.edits)
      end
    end
  elseif edit.changes then
    vim.list_extend(out, edit.changes[uri] or {})
  end
  return out
end

local function server_holds(stream, index)
  local e = stream:edit(index)
  local caps = stream.client.server_capabilities or {}
  local cmds = caps.executeCommandProvider and caps.executeCommandProvider.commands or {}
  return e and e.hunks ~= nil and vim.tbl_contains(cmds, 'assistant.acceptHunk')
end

local Review = {}
Review.__index = Review

-- open starts the review of block `index` of stream in the buffer of its target, which it loads
-- and shows in the current window. It returns the review, or nil and an error message.
function M.open(stream, index)
  local res, err = stream:resolve(index)
  if not res then
    return nil, err and err.message or 'no answer'
  end
  if res.status ~= 'ready' and res.status ~= 'partial' then
    return nil, string.format('the edit is %s%s', res.status, res.error and (': ' .. res.error) or '')
  end
  local bufnr = vim.uri_to_bufnr(res.uri)
  vim.fn.bufload(bufnr)
  vim.api.nvim_win_set_buf(0, bufnr)
  if reviews[bufnr] then
    reviews[bufnr]:close()
  end
  local r = setmetatable({
    stream = stream,
    index = index,
    bufnr = bufnr,
    server = server_holds(stream, index),
    hunks = {},
  }, Review)
  local enc = compat.offset_encoding(stream.client)
  for i, te in ipairs(text_edits(res.edit or {}, res.uri)) do
    local s, e = te.range.start, te.range['end']
    local sl = vim.api.nvim_buf_get_lines(bufnr, s.line, s.line + 1, false)[1]
    local el = vim.api.nvim_buf_get_lines(bufnr, e.line, e.line + 1, false)[1]
    local last = vim.api.nvim_buf_line_count(bufnr)
    local erow, ecol = e.line, byte_col(el, e.character, enc)
    if erow >= last then -- a range that ends past the last line ends at the buffer's end
      erow = last - 1
      ecol = #(vim.api.nvim_buf_get_lines(bufnr, erow, erow + 1, false)[1] or '')
    end
    local id = vim.api.nvim_buf_set_extmark(bufnr, track, s.line, byte_col(sl, s.character, enc), {
      end_row = erow,
      end_col = ecol,
      right_gravity = false,
      end_right_gravity = true,
    })
    r.hunks[i] = { mark = id, new = vim.split(te.newText, '\n', { plain = true }), status = 'pending', hunk = i - 1 }
  end
  if r.server then
    -- The server resolves a held edit to its pending hunks only; its commands number the hunks
    -- of the whole edit (EditState.hunks), accepted ones included.
    local pending = {}
    for j, sh in ipairs(stream:edit(index).hunks or {}) do
      if sh.status == 'pending' then
        pending[#pending + 1] = j - 1
      end
    end
    for i, h in ipairs(r.hunks) do
      h.hunk = pending[i] or h.hunk
    end
  end
  reviews[bufnr] = r
  if r.server then
    stream:on_blocks(function()
      if reviews[bufnr] == r then
        r:_sync()
      end
    end)
  end
  for name, lhs in pairs(M.keys) do
    vim.keymap.set('n', lhs, function()
      r[name](r)
    end, { buffer = bufnr, desc = 'assistant-ls review: ' .. name:gsub('_', ' ') })
  end
  r:redraw()
  return r
end

-- get returns the open review of bufnr (default: the current buffer), or nil.
function M.get(bufnr)
  return reviews[(bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr]
end

function Review:_range(h)
  local m = vim.api.nvim_buf_get_extmark_by_id(self.bufnr, track, h.mark, { details = true })
  return m[1], m[2], m[3].end_row, m[3].end_col
end

-- _sync takes the hunk states from the server's EditState.hunks (held edits).
function Review:_sync()
  local e = self.stream:edit(self.index)
  for _, h in ipairs(self.hunks) do
    local sh = e and e.hunks and e.hunks[h.hunk + 1]
    if sh then
      h.status = sh.status
    end
  end
  self:redraw()
end

-- redraw draws the pending hunks.
function Review:redraw()
  vim.api.nvim_buf_clear_namespace(self.bufnr, draw, 0, -1)
  for _, h in ipairs(self.hunks) do
    if h.status == 'pending' then
      local sr, sc, er, ec = self:_range(h)
      local virt = {}
      local new = h.new
      if new[#new] == '' then
        new = vim.list_slice(new, 1, #new - 1)
      end
      for _, l in ipairs(new) do
        virt[#virt + 1] = { { l, 'DiffAdd' } }
      end
      if sr == er and sc == ec then
        vim.api.nvim_buf_set_extmark(self.bufnr, draw, sr, 0, { virt_lines = virt, virt_lines_above = true })
      else
        vim.api.nvim_buf_set_extmark(self.bufnr, draw, sr, sc, {
          end_row = er,
          end_col = ec,
          hl_group = 'DiffDelete',
          hl_eol = true,
        })
        local vr = ec == 0 and er - 1 or er
        vim.api.nvim_buf_set_extmark(self.bufnr, draw, vr, 0, { virt_lines = virt })
      end
    end
  end
end

-- pending returns the hunks still pending, in order.
function Review:pending()
  local out = {}
  for _, h in ipairs(self.hunks) do
    if h.status == 'pending' then
      out[#out + 1] = h
    end
  end
  return out
end

-- at returns the pending hunk on (0-based) row, else the next pending one below it, else nil.
function Review:at(row)
  local after
  for _, h in ipairs(self:pending()) do
    local sr, _, er, ec = self:_range(h)
    local last = (ec == 0 and er > sr) and er - 1 or er
    if row >= sr and row <= last then
      return h
    end
    if sr > row and not after then
      after = h
    end
  end
  return after
end

local function command(self, name, args)
  local _, err = require('assistant_ls')._request(self.stream.client, 'workspace/executeCommand', {
    command = name,
    arguments = { args },
  })
  if err then
    vim.notify('assistant-ls: ' .. name .. ': ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
  end
end

function Review:_decide(h, accept)
  if self.server then
    command(self, accept and 'assistant.acceptHunk' or 'assistant.rejectHunk',
      { stream = self.stream.name, index = self.index, hunk = h.hunk })
    return
  end
  if accept then
    local sr, sc, er, ec = self:_range(h)
    vim.api.nvim_buf_set_text(self.bufnr, sr, sc, er, ec, h.new)
  end
  h.status = accept and 'accepted' or 'rejected'
end

local function cursor_row()
  return vim.api.nvim_win_get_cursor(0)[1] - 1
end

-- accept accepts the hunk under the cursor (or the next one below it).
function Review:accept()
  local h = self:at(cursor_row())
  if h then
    self:_decide(h, true)
    self:redraw()
  end
end

-- reject rejects the hunk under the cursor (or the next one below it).
function Review:reject()
  local h = self:at(cursor_row())
  if h then
    self:_decide(h, false)
    self:redraw()
  end
end

local function all(self, accept)
  if self.server then
    command(self, accept and 'assistant.acceptAll' or 'assistant.rejectAll',
      { stream = self.stream.name, index = self.index })
    return
  end
  -- bottom up, so that no applied hunk moves one still to apply
  local p = self:pending()
  for i = #p, 1, -1 do
    self:_decide(p[i], accept)
  end
  self:redraw()
end

-- accept_all accepts every pending hunk.
function Review:accept_all()
  all(self, true)
end

-- reject_all rejects every pending hunk.
function Review:reject_all()
  all(self, false)
end

-- close ends the review: drawings, marks and keys are removed; undecided hunks stay unapplied.
function Review:close()
  vim.api.nvim_buf_clear_namespace(self.bufnr, draw, 0, -1)
  vim.api.nvim_buf_clear_namespace(self.bufnr, track, 0, -1)
  for _, lhs in pairs(M.keys) do
    pcall(vim.keymap.del, 'n', lhs, { buffer = self.bufnr })
  end
  reviews[self.bufnr] = nil
end

return M
