-- User commands:
--   :[range]AssistantApply   the buffer (or range) is a model answer: apply its edits
--   :AssistantBlocks [name]  the blocks of a stream (default: the last one) in a scratch window
--   :AssistantReview N       review block N's edit of the last stream (see assistant_ls.review)
--   :AssistantAccept, :AssistantReject, :AssistantAcceptAll, :AssistantRejectAll
local M = {}

-- tier_words says in words how a section was located by a fallback tier (EditState.tiers).
local tier_words = {
  line_trimmed = 'matched after trimming white space',
  block_anchor = 'matched by its first and last lines only',
  whole_file = 'matched before the previous section',
  ['trailing-whitespace'] = 'matched after trimming trailing white space',
  whitespace = 'matched after trimming white space',
  ['unicode-punctuation'] = 'matched after normalising punctuation',
  offset = 'matched away from its @@ line',
  line_number = 'placed by its @@ line number alone',
  leading_whitespace = 'matched with its indentation set aside',
  leading_blank_line = 'matched without its first, blank line',
  elision = 'matched piece by piece between its "..." lines',
  trailing_whitespace = 'matched after trimming trailing white space',
  quote_normalized = 'matched with curly quotes read as straight ones',
}

local failures = { failed = true, refused = true, rejected = true }

-- fallbacks names the sections of edit e located by a fallback tier, or nil.
local function fallbacks(e)
  local notes = {}
  for i, t in ipairs(e.tiers or {}) do
    if tier_words[t] then
      notes[#notes + 1] = string.format('section %d %s', i, tier_words[t])
    end
  end
  return #notes > 0 and table.concat(notes, ', ') or nil
end

-- summary is the message of :AssistantApply: the count of each status, how edits were located
-- when a fallback tier found them, and each failure's reason with the server's hint ("did you
-- mean line 15? (90% similar)"). The second result is true when an edit did not land.
local function summary(s)
  local counts, order, notes, failed = {}, {}, {}, false
  for _, b in ipairs(s.blocks) do
    local e = b.edit
    if e then
      if not counts[e.status] then
        order[#order + 1] = e.status
      end
      counts[e.status] = (counts[e.status] or 0) + 1
      local what = vim.trim((b.name or 'edit') .. ' ' .. ((b.params and (b.params.path or b.params.file_path)) or ''))
      if e.status == 'applied' and fallbacks(e) then
        notes[#notes + 1] = what .. ': ' .. fallbacks(e)
      elseif failures[e.status] then
        failed = true
        if e.error then
          notes[#notes + 1] = what .. ' ' .. e.status .. ': ' .. e.error:gsub('\n', ' ')
        end
      end
    end
  end
  local parts = {}
  for _, st in ipairs(order) do
    parts[#parts + 1] = counts[st] .. ' ' .. st
  end
  local head = #parts > 0 and table.concat(parts, ', ') or 'no edits'
  if #notes > 0 then
    head = head .. ' (' .. table.concat(notes, '; ') .. ')'
  end
  return head, failed
end
M.summary = summary

-- apply_text streams text as one final model answer, applies every edit that the server holds
-- back (`ready`: autoApply off), and returns the stream once every edit has settled.
function M.apply_text(A, text, opts)
  local s = A.stream(opts)
  s:push(text)
  s:finish()
  if not s:wait(30000) then
    vim.notify('assistant-ls: the edits did not settle within 30 s', vim.log.levels.WARN)
    return s
  end
  for _, b in ipairs(s.blocks) do
    if b.edit and b.edit.status == 'ready' then
      s:apply(b.index)
    end
  end
  s:wait(30000)
  return s
end

local function show_blocks(s)
  local lines = {}
  for _, b in ipairs(s.blocks) do
    if b.type == 'text' then
      local first = vim.split(b.content or '', '\n', { plain = true })
      lines[#lines + 1] = string.format('#%d text%s: %s', b.index, b.partial and ' (partial)' or '', first[1] or '')
    else
      local e = b.edit
      lines[#lines + 1] = string.format('#%d %s %s%s%s', b.index, b.name or '?',
        (b.params and (b.params.path or b.params.file_path)) or '',
        e and (' [' .. e.status .. ']') or '', b.partial and ' (partial)' or '')
      if e and e.error then
        lines[#lines + 1] = '    ' .. e.error:gsub('\n', ' ')
      end
    end
  end
  vim.cmd('botright new')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  vim.api.nvim_buf_set_name(buf, 'assistant-ls://blocks/' .. s.name)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  return buf
end
M.show_blocks = show_blocks

local function review_call(name)
  return function()
    local r = require('assistant_ls.review').get()
    if not r then
      vim.notify('assistant-ls: no review in this buffer', vim.log.levels.WARN)
      return
    end
    r[name](r)
  end
end

-- define creates the user commands.
function M.define(A)
  vim.api.nvim_create_user_command('AssistantApply', function(o)
    local lines = vim.api.nvim_buf_get_lines(0, o.line1 - 1, o.line2, false)
    local s = M.apply_text(A, table.concat(lines, '\n') .. '\n', { cwd = vim.fn.getcwd() })
    local msg, failed = summary(s)
    vim.notify('assistant-ls: ' .. msg, failed and vim.log.levels.WARN or vim.log.levels.INFO)
  end, { range = '%', desc = 'assistant-ls: apply the edits of the model answer in the buffer or range' })

  vim.api.nvim_create_user_command('AssistantBlocks', function(o)
    local s = A.last()
    if o.args ~= '' then
      s = A._streams()[o.args]
    end
    if not s then
      vim.notify('assistant-ls: no stream', vim.log.levels.WARN)
      return
    end
    show_blocks(s)
  end, { nargs = '?', desc = 'assistant-ls: show the blocks of a stream' })

  vim.api.nvim_create_user_command('AssistantReview', function(o)
    local s = A.last()
    if not s then
      vim.notify('assistant-ls: no stream', vim.log.levels.WARN)
      return
    end
    local _, err = s:review(tonumber(o.args))
    if err then
      vim.notify('assistant-ls: ' .. err, vim.log.levels.WARN)
    end
  end, { nargs = 1, desc = 'assistant-ls: review the edit of block N of the last stream' })

  vim.api.nvim_create_user_command('AssistantAccept', review_call('accept'), {})
  vim.api.nvim_create_user_command('AssistantReject', review_call('reject'), {})
  vim.api.nvim_create_user_command('AssistantAcceptAll', review_call('accept_all'), {})
  vim.api.nvim_create_user_command('AssistantRejectAll', review_call('reject_all'), {})
end

return M
