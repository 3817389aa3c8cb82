-- Headless test of the plugin in a real Neovim, run by editors/editors_test.go:
--   ASSISTANT_LS_BIN=… ASSISTANT_WS=… ASSISTANT_CASE=name nvim --headless -u NONE -i NONE \
--     --cmd 'set rtp^=editors/neovim' -c 'luafile editors/neovim/test/run.lua'
-- It exits 0 when the case passed, else it prints why on stderr and exits 1 (cquit).
local ws = assert(os.getenv('ASSISTANT_WS'), 'ASSISTANT_WS is not set')
local bin = assert(os.getenv('ASSISTANT_LS_BIN'), 'ASSISTANT_LS_BIN is not set')
local case = assert(os.getenv('ASSISTANT_CASE'), 'ASSISTANT_CASE is not set')

local function log(...)
  io.stderr:write(string.format(...) .. '\n')
end

local function eq(want, got, what)
  if not vim.deep_equal(want, got) then
    error(string.format('%s:\n  want %s\n  got  %s', what, vim.inspect(want), vim.inspect(got)), 2)
  end
end

local function read(path)
  local f = io.open(path, 'rb')
  if not f then
    return nil
  end
  local s = f:read('*a')
  f:close()
  return s
end

local function buf_text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n') .. '\n'
end

local A = require('assistant_ls')

local function start(settings, flags)
  vim.cmd('cd ' .. vim.fn.fnameescape(ws))
  A.setup({
    cmd = { bin, '--log-file', ws .. '/../server.log', '--log-level', 'debug' },
    settings = settings or {},
    flags = flags or {},
  })
end

-- open edits path (relative to the workspace) and waits until the server is attached to it.
local function open(path)
  vim.cmd('edit ' .. vim.fn.fnameescape(ws .. '/' .. path))
  local bufnr = vim.api.nvim_get_current_buf()
  assert(vim.wait(10000, function()
    local c = A.client()
    return c ~= nil and c.server_capabilities ~= nil and vim.lsp.buf_is_attached(bufnr, c.id)
  end, 10), 'the server did not start and attach within 10 s')
  return bufnr
end

local function message(path, search, replace)
  return table.concat({
    'I will change one line.\n\n<replace_in_file>\n<path>', path, '</path>\n<diff>\n',
    '------- SEARCH\n', search, '\n=======\n', replace, '\n+++++++ REPLACE\n',
    '</diff>\n</replace_in_file>\n',
  })
end

-- push sends text in small deltas that split characters' bytes nowhere but split everything else.
local function push_chunks(s, text, n)
  local chars = vim.fn.split(text, '\\zs')
  local i = 1
  while i <= #chars do
    s:push(table.concat(chars, '', i, math.min(i + n - 1, #chars)))
    i = i + n
  end
end

local function edit_of(s, tool)
  for _, b in ipairs(s.blocks) do
    if b.name == tool then
      return b.edit, b
    end
  end
end

local jp = 'こんにちは、世界 🎉\nこれはテストです。👍🏽 ok\n終わり 🍣\n'

local cases = {}

-- A replace_in_file on a buffer holding Japanese text and emoji, streamed in 3-character deltas.
function cases.replace()
  start({})
  local bufnr = open('jp.txt')
  local seen = {}
  local s = A.stream({
    cwd = ws,
    on_blocks = function(blocks)
      for _, b in ipairs(blocks) do
        if b.edit then
          seen[b.edit.status] = true
        end
      end
    end,
  })
  push_chunks(s, message('jp.txt', 'これはテストです。👍🏽 ok', 'これは本番です 🚀 ok'), 3)
  s:finish()
  assert(s:wait(15000), 'the edit did not settle')
  local e = edit_of(s, 'replace_in_file')
  eq('applied', e.status, 'status (' .. tostring(e.error) .. ')')
  eq(vim.uri_from_fname(ws .. '/jp.txt'), e.uri, 'uri')
  eq('こんにちは、世界 🎉\nこれは本番です 🚀 ok\n終わり 🍣\n', buf_text(bufnr), 'buffer')
  assert(seen.streaming, 'no streaming state was pushed')
  eq(jp, read(ws .. '/jp.txt'), 'disk (the editor saves, not the server)')
end

-- A write_to_file creating a file in a folder that does not exist yet, and a replace_in_file of
-- a file no buffer holds: Neovim loads each (didOpen with the old text) before it answers, and
-- the tool result is still the diff of the edit made.
function cases.write()
  start({})
  open('jp.txt')
  local s = A.stream({ cwd = ws })
  s:push('Creating it.\n<write_to_file>\n<path>new/dir/hello.txt</path>\n<content>\n')
  s:push('こんにちは 🌸\nline two\n</content>\n</write_to_file>\n')
  s:push(message('four.txt', 'beta', 'BETA ✅'))
  s:finish()
  assert(s:wait(15000), 'the edit did not settle')
  local e = edit_of(s, 'write_to_file')
  eq('applied', e.status, 'status (' .. tostring(e.error) .. ')')
  local r = edit_of(s, 'replace_in_file')
  eq('applied', r.status, 'status of the unopened file\'s edit (' .. tostring(r.error) .. ')')
  for _, x in ipairs({ { e, '+こんにちは 🌸\n+line two\n' }, { r, '-beta\n+BETA ✅\n' } }) do
    local result = x[1].toolResult or ''
    assert(not result:find('The user also changed', 1, true), 'tool result: ' .. result)
    assert(result:find(x[2], 1, true), 'tool result without the diff: ' .. result)
  end
  local bufnr = vim.fn.bufnr(ws .. '/new/dir/hello.txt')
  assert(bufnr > 0, 'no buffer holds the new file')
  eq('こんにちは 🌸\nline two\n', buf_text(bufnr), 'new buffer')
  vim.api.nvim_buf_call(bufnr, function()
    vim.cmd('write')
  end)
  eq('こんにちは 🌸\nline two\n', read(ws .. '/new/dir/hello.txt'), 'disk after :write')
end

-- The user edits the buffer after the edit was computed, before Neovim applies it (didChange held
-- back by the debounce): the edit must end applied with the buffer really holding it (recomputed),
-- or failed or rejected with the buffer as the user left it — never applied at stale positions.
function cases.stale()
  start({}, { debounce_text_changes = 400 })
  local bufnr = open('jp.txt')
  local s = A.stream({ cwd = ws })
  local msg = message('jp.txt', 'これはテストです。👍🏽 ok', 'これは本番です 🚀 ok')
  local cut = #msg - #'</replace_in_file>\n'
  s:push(msg:sub(1, cut))
  assert(vim.wait(5000, function()
    local e = edit_of(s, 'replace_in_file')
    return e ~= nil
  end, 10), 'no block for the tool use')
  s:push(msg:sub(cut + 1))
  s:finish()
  -- typed after the tool use completed, before Neovim reads the server's applyEdit
  vim.api.nvim_buf_set_lines(bufnr, 0, 0, false, { 'ユーザーの行 ✍️' })
  assert(s:wait(15000), 'the edit did not settle')
  local e = edit_of(s, 'replace_in_file')
  local text = buf_text(bufnr)
  log('stale: status %s (%s); buffer %s', e.status, tostring(e.error), vim.inspect(text))
  if e.status == 'applied' then
    eq('ユーザーの行 ✍️\nこんにちは、世界 🎉\nこれは本番です 🚀 ok\n終わり 🍣\n', text, 'buffer of an applied edit')
  elseif e.status == 'failed' or e.status == 'rejected' then
    assert(e.error and e.error ~= '', e.status .. ' without a reason')
    eq('ユーザーの行 ✍️\n' .. jp, text, 'buffer of a failed edit (nothing of the user lost, nothing half-applied)')
  else
    error('status ' .. e.status .. ', want applied, failed or rejected')
  end
end

local four = 'alpha 🍎\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta 🌙\n'

local function two_hunks(path)
  return table.concat({
    'Two changes.\n<replace_in_file>\n<path>', path, '</path>\n<diff>\n',
    '------- SEARCH\nbeta\n=======\nBETA ✅\n+++++++ REPLACE\n',
    '------- SEARCH\nepsilon\n=======\nEPSILON ❌\n+++++++ REPLACE\n',
    '</diff>\n</replace_in_file>\n',
  })
end

-- Review of an edit the server does not send (autoApply off): accept one hunk with the key,
-- reject the other, and the buffer holds exactly the accepted one.
function cases.review()
  start({ autoApply = false })
  local bufnr = open('four.txt')
  local s = A.stream({ cwd = ws })
  s:push(two_hunks('four.txt'))
  s:finish()
  assert(s:wait(15000), 'the edit did not settle')
  local e, b = edit_of(s, 'replace_in_file')
  eq('ready', e.status, 'status before review')
  local r = assert(s:review(b.index))
  eq(2, #r:pending(), 'pending hunks')
  local ns = vim.api.nvim_create_namespace('assistant_ls_review')
  local marks = vim.api.nvim_buf_get_extmarks(bufnr, ns, 0, -1, { details = true })
  local virt = 0
  for _, m in ipairs(marks) do
    if m[4].virt_lines then
      virt = virt + 1
    end
  end
  eq(2, virt, 'hunks drawn with virtual lines')
  vim.api.nvim_win_set_cursor(0, { 2, 0 })
  vim.cmd('normal ga')
  -- Accepting goes through the server (the server holds the edit too, as autoApply is off):
  -- wait for the decision before the next key.
  vim.wait(5000, function()
    return #r:pending() == 1
  end, 20)
  vim.api.nvim_win_set_cursor(0, { 5, 0 })
  vim.cmd('normal gr')
  vim.wait(5000, function()
    return #r:pending() == 0
  end, 20)
  eq(0, #r:pending(), 'pending hunks after the decisions')
  vim.wait(5000, function()
    return buf_text(bufnr) == 'alpha 🍎\nBETA ✅\ngamma\ndelta\nepsilon\nzeta\neta\ntheta 🌙\n'
  end, 20)
  eq('alpha 🍎\nBETA ✅\ngamma\ndelta\nepsilon\nzeta\neta\ntheta 🌙\n', buf_text(bufnr), 'buffer after review')
  eq({}, vim.api.nvim_buf_get_extmarks(bufnr, ns, 0, -1, {}), 'drawings after every hunk is decided')
end

-- Review of an edit the server holds (review: true, contract 7a): the hunks and their states are
-- the server's, and the accept/reject keys run its commands.
function cases.review_held()
  start({ review = true })
  local bufnr = open('four.txt')
  local caps = A.client().server_capabilities.executeCommandProvider or {}
  assert(vim.tbl_contains(caps.commands or {}, 'assistant.acceptHunk'), 'the server does not advertise assistant.acceptHunk')
  local s = A.stream({ cwd = ws })
  s:push(two_hunks('four.txt'))
  s:finish()
  assert(s:wait(15000), 'the edit did not settle')
  local e, b = edit_of(s, 'replace_in_file')
  eq('ready', e.status, 'status of a held edit')
  assert(e.hunks and #e.hunks == 2, 'EditState.hunks: ' .. vim.inspect(e.hunks))
  local r = assert(s:review(b.index))
  assert(r.server, 'the review does not use the server commands')
  vim.api.nvim_win_set_cursor(0, { 2, 0 })
  vim.cmd('normal ga')
  assert(vim.wait(10000, function()
    return s:edit(b.index).hunks[1].status == 'accepted'
  end, 10), 'hunk 1 not accepted')
  vim.api.nvim_win_set_cursor(0, { 5, 0 })
  vim.cmd('normal gr')
  assert(vim.wait(10000, function()
    return s:edit(b.index).status == 'partial'
  end, 10), 'status not partial: ' .. vim.inspect(s:edit(b.index)))
  eq('alpha 🍎\nBETA ✅\ngamma\ndelta\nepsilon\nzeta\neta\ntheta 🌙\n', buf_text(bufnr), 'buffer after review')
end

-- A held edit (review: true) whose first hunk is accepted through its code action: the review
-- then shows the other hunk, pending, not the whole edit failed; undoing the accepted hunk makes
-- it pending again, so the edit is not reported applied without it.
function cases.review_partial()
  start({ review = true })
  local bufnr = open('four.txt')
  local s = A.stream({ cwd = ws })
  s:push(two_hunks('four.txt'))
  s:finish()
  assert(s:wait(15000), 'the edit did not settle')
  local e, b = edit_of(s, 'replace_in_file')
  eq('ready', e.status, 'status of a held edit')
  local client = A.client()
  local actions = assert(A._request(client, 'textDocument/codeAction', {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = 1, character = 0 }, ['end'] = { line = 1, character = 0 } },
    context = { diagnostics = {} },
  }))
  local accept
  for _, a in ipairs(actions) do
    if a.title == 'Accept this change' then
      accept = a
    end
  end
  assert(accept and accept.command, 'no "Accept this change" among ' .. vim.inspect(actions))
  assert(A._request(client, 'workspace/executeCommand', accept.command))
  assert(vim.wait(10000, function()
    return buf_text(bufnr) == 'alpha 🍎\nBETA ✅\ngamma\ndelta\nepsilon\nzeta\neta\ntheta 🌙\n'
      and s:edit(b.index).status == 'partial'
  end, 10), 'hunk 1 not accepted: ' .. vim.inspect(s:edit(b.index)))

  local r, err = s:review(b.index)
  assert(r, 'review after a partial accept: ' .. tostring(err))
  vim.cmd('let &undolevels = &undolevels') -- a user's next key starts a new undo block
  eq(1, #r:pending(), 'pending hunks in the review')
  eq(4, (r:_range(r:pending()[1])), 'the pending hunk is on epsilon (0-based row 4)')
  vim.api.nvim_win_set_cursor(0, { 5, 0 })
  vim.cmd('normal ga')
  local both = 'alpha 🍎\nBETA ✅\ngamma\ndelta\nEPSILON ❌\nzeta\neta\ntheta 🌙\n'
  assert(vim.wait(10000, function()
    return s:edit(b.index).status == 'applied' and buf_text(bufnr) == both
  end, 10), 'hunk 2 not accepted from the review: ' .. vim.inspect(s:edit(b.index)))
  eq(0, #r:pending(), 'pending hunks in the review after ga')

  vim.cmd('undo')
  eq('alpha 🍎\nBETA ✅\ngamma\ndelta\nepsilon\nzeta\neta\ntheta 🌙\n', buf_text(bufnr), 'buffer after undo')
  assert(vim.wait(10000, function()
    local st = s:edit(b.index)
    return st.status == 'partial' and st.hunks[1].status == 'accepted' and st.hunks[2].status == 'pending'
  end, 10), 'the undone hunk is still counted: ' .. vim.inspect(s:edit(b.index)))
  assert(vim.wait(5000, function()
    return #r:pending() == 1
  end, 10), 'the review does not show the undone hunk again')
end

-- A native tool call (toolCall deltas) whose JSON arguments arrive in fragments that split a
-- string and a surrogate pair's escapes. Skips while the server ignores toolCall.
function cases.tool_call()
  start({})
  open('jp.txt')
  local s = A.stream({ cwd = ws })
  s:push('Writing it.\n')
  s:push_tool_call({ id = 'call_1', name = 'write_to_file', arguments = '{"path":"tc/ne' })
  s:push_tool_call({ id = 'call_1', arguments = 'w.txt","content":"ツール \\ud83c' })
  s:push_tool_call({ id = 'call_1', arguments = '\\udf38\\nend\\n"}', done = true })
  s:finish()
  assert(s:wait(15000), 'the stream did not settle')
  local call
  for _, b in ipairs(s.blocks) do
    if b.callId == 'call_1' then
      call = b
    end
  end
  assert(call, 'no block with callId call_1; blocks: ' .. vim.inspect(s.blocks))
  eq('applied', call.edit and call.edit.status, 'status (' .. vim.inspect(call.edit) .. ')')
  local bufnr = vim.fn.bufnr(ws .. '/tc/new.txt')
  assert(bufnr > 0, 'no buffer holds the new file')
  eq('ツール 🌸\nend\n', buf_text(bufnr), 'new buffer')
end

-- :AssistantApply on a buffer holding a model answer, then :AssistantBlocks. The answer's second
-- edit matches only after trimming white space and its third matches nothing: the message says
-- both, the server's hint included, as a warning.
function cases.command()
  start({})
  local target = open('jp.txt')
  vim.cmd('enew')
  local answer = message('jp.txt', '終わり 🍣', 'おしまい 🍵')
    .. message('jp.txt', '   これはテストです。👍🏽 ok', 'これは本番です 🚀 ok')
    .. message('jp.txt', 'こんにちは、世界 🎉!', 'x')
  vim.api.nvim_buf_set_lines(0, 0, -1, false, vim.split(answer, '\n'))
  local notified = {}
  vim.notify = function(msg, level)
    notified[#notified + 1] = { msg = msg, level = level }
  end
  vim.cmd('%AssistantApply')
  eq('こんにちは、世界 🎉\nこれは本番です 🚀 ok\nおしまい 🍵\n', buf_text(target), 'target buffer')
  eq(1, #notified, 'messages: ' .. vim.inspect(notified))
  local msg = notified[1].msg
  eq(vim.log.levels.WARN, notified[1].level, 'level of ' .. msg)
  assert(msg:find('2 applied, 1 failed', 1, true), 'counts in: ' .. msg)
  assert(msg:find('replace_in_file jp.txt: section 1 matched after trimming white space', 1, true), 'tier in: ' .. msg)
  assert(msg:find('did you mean line 1?', 1, true), 'hint in: ' .. msg)
  vim.cmd('AssistantBlocks')
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  assert(vim.tbl_contains(lines, '#1 replace_in_file jp.txt [applied]'), 'blocks window: ' .. vim.inspect(lines))
  assert(vim.tbl_contains(lines, '#5 replace_in_file jp.txt [failed]'), 'blocks window: ' .. vim.inspect(lines))
end

local ok, err = xpcall(function()
  assert(cases[case], 'no such case: ' .. case)()
end, debug.traceback)
if ok then
  log('PASS %s (%s)', case, vim.fn.execute('version'):match('NVIM v[%d.]+'))
  vim.cmd('qall!')
else
  log('FAIL %s: %s', case, err)
  vim.cmd('cquit 1')
end
