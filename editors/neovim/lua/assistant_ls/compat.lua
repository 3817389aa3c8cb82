-- One place for what differs between Neovim 0.7 and 0.11: how a client is started and attached,
-- found, and how its request/notify methods are called (functions with `.` before 0.11, methods
-- with `:` from 0.11 on, where the `.` form is deprecated).
local M = {}

local has_011 = vim.fn.has('nvim-0.11') == 1
local has_start = vim.lsp.start ~= nil

-- client ids by workspace folder
local by_root = {}

local function alive(id)
  local c = id and vim.lsp.get_client_by_id(id)
  if c and not (has_011 and c:is_stopped() or not has_011 and c.is_stopped()) then
    return c
  end
  return nil
end

-- start returns the id of the client for config.root_dir, starting it when none is running, and
-- attaches it to bufnr when bufnr is given.
function M.start(config, bufnr)
  local c = alive(by_root[config.root_dir])
  if c then
    if bufnr then
      vim.lsp.buf_attach_client(bufnr, c.id)
    end
    return c.id
  end
  local id
  if has_start and bufnr then
    id = vim.lsp.start(config, { bufnr = bufnr })
  elseif has_011 then
    id = vim.lsp.start(config, { attach = false })
  else
    id = vim.lsp.start_client(config)
    if id and bufnr then
      vim.lsp.buf_attach_client(bufnr, id)
    end
  end
  by_root[config.root_dir] = id
  return id
end

-- forget drops a client that exited.
function M.forget(id)
  for root, v in pairs(by_root) do
    if v == id then
      by_root[root] = nil
    end
  end
end

-- client returns the live client of workspace folder root, else any live assistant-ls client.
function M.client(root)
  local c = alive(by_root[root])
  if c then
    return c
  end
  for _, v in pairs(by_root) do
    c = alive(v)
    if c then
      return c
    end
  end
  return nil
end

-- request sends a request; handler(err, result) gets the answer.
function M.request(client, method, params, handler)
  if has_011 then
    return client:request(method, params, handler)
  end
  return client.request(method, params, handler)
end

-- notify sends a notification.
function M.notify(client, method, params)
  if has_011 then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

-- offset_encoding is the position encoding the client negotiated.
function M.offset_encoding(client)
  return client.offset_encoding or 'utf-16'
end

return M
