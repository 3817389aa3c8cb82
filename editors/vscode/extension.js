// Minimal VS Code extension for assistant-ls: it starts the server over stdio for every file and
// exposes the client to other extensions (agent plugins), which send assistant/parse with it.
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

async function activate(context) {
  const config = vscode.workspace.getConfiguration('assistant');
  const command = config.get('path', 'assistant-ls');
  client = new LanguageClient(
    'assistant-ls',
    'assistant-ls',
    { run: { command }, debug: { command, args: ['--log-level', 'debug'] } },
    {
      documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
      initializationOptions: { autoApply: config.get('autoApply'), confirm: config.get('confirm') },
      synchronize: { configurationSection: 'assistant' },
    },
  );
  await client.start();
  context.subscriptions.push(client);
  // Agent plugins: vscode.extensions.getExtension('assistant-ls.assistant-ls').exports.client
  return { client };
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
