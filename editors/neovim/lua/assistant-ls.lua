-- Minimal Neovim (0.11+) setup for assistant-ls. Add editors/neovim to 'runtimepath' (or copy
-- this file into ~/.config/nvim/lua/), then call require('assistant-ls').setup().
-- It starts the server for every file buffer and gives agent plugins a parse() function.
local M = {}

-- setup starts assistant-ls for each buffer that has a file type.
-- opts.cmd: the command (default {'assistant-ls'}); opts.settings: initializationOptions,
-- e.g. { autoApply = true, confirm = false } (see docs/protocol.md, Configuration).
function M.setup(opts)
  opts = opts or {}
  vim.api.nvim_create_autocmd('FileType', {
    group = vim.api.nvim_create_augroup('assistant-ls', { clear = true }),
    callback = function(args)
      if vim.bo[args.buf].buftype ~= '' then
        return
      end
      vim.lsp.start({
        name = 'assistant-ls',
        cmd = opts.cmd or { 'assistant-ls' },
        root_dir = vim.fs.root(args.buf, { '.git' }) or vim.fn.getcwd(),
        init_options = opts.settings or {},
        handlers = {
          -- Blocks are pushed as they change; a plugin replaces its copy from `from` on.
          ['assistant/blocks'] = function(_, result)
            M.blocks[result.stream] = M.blocks[result.stream] or {}
            local blocks = M.blocks[result.stream]
            for i = #blocks, result.from + 1, -1 do
              blocks[i] = nil
            end
            for _, b in ipairs(result.blocks) do
              blocks[b.index + 1] = b
            end
          end,
        },
      }, { bufnr = args.buf })
    end,
  })
end

-- blocks holds the latest blocks of every stream, by stream name.
M.blocks = {}

-- parse sends the model's text so far (or a delta) for a stream; final = true when it has ended.
function M.parse(stream, params)
  local client = vim.lsp.get_clients({ name = 'assistant-ls' })[1]
  if not client then
    vim.notify('assistant-ls is not running', vim.log.levels.WARN)
    return
  end
  client:notify('assistant/parse', vim.tbl_extend('force', { stream = stream }, params))
end

return M
