// An agent extension for the VS Code test: through the exported API of assistant-ls it streams a
// replace_in_file on an open document holding Japanese text and emoji, then a write_to_file that
// creates a file, then runs "Assistant: Apply Edits in Selection" on a document holding a model
// answer with three edits (one found only after trimming white space, one that matches nothing),
// and writes the outcome (the command's message and the server that
// runs included) to the result file named by the scenario.
const fs = require('fs');
const vscode = require('vscode');

const message =
  'I will change one line and add a file.\n\n<replace_in_file>\n<path>jp.txt</path>\n<diff>\n' +
  '------- SEARCH\nこれはテストです。👍🏽 ok\n=======\nこれは本番です 🚀 ok\n+++++++ REPLACE\n' +
  '</diff>\n</replace_in_file>\n\n<write_to_file>\n<path>new/dir/hello.txt</path>\n<content>\n' +
  'こんにちは 🌸\nline two\n</content>\n</write_to_file>\n';

exports.activate = async function activate() {
  const scenario = process.env.ASSISTANT_PROBE;
  if (!scenario) return;
  const cfg = JSON.parse(fs.readFileSync(scenario, 'utf8'));
  const write = (obj) => {
    fs.writeFileSync(cfg.result + '.tmp', JSON.stringify(obj, null, 2));
    fs.renameSync(cfg.result + '.tmp', cfg.result);
  };
  try {
    const api = await vscode.extensions.getExtension('assistant-ls.assistant-ls').activate();
    await api.ready;
    const folder = vscode.workspace.workspaceFolders[0].uri;
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder, 'jp.txt'));
    await vscode.window.showTextDocument(doc);
    const s = api.stream({ cwd: folder, modelId: 'probe-model' });
    const seen = [];
    s.onBlocks((blocks) => {
      for (const b of blocks) {
        if (b.edit && seen[seen.length - 1] !== `${b.index}:${b.edit.status}`) seen.push(`${b.index}:${b.edit.status}`);
      }
    });
    const chars = Array.from(message);
    for (let i = 0; i < chars.length; i += 5) {
      s.push(chars.slice(i, i + 5).join(''));
    }
    s.finish();
    const settled = await s.settled(150000);
    const jpAfterStream = doc.getText();
    // "Assistant: Apply Edits in Selection" on an untitled document holding a model answer
    const answer = await vscode.workspace.openTextDocument({
      content:
        'Last line too.\n\n<replace_in_file>\n<path>jp.txt</path>\n<diff>\n------- SEARCH\n  終わり 🍣\n=======\nおしまい 🍵\n+++++++ REPLACE\n</diff>\n</replace_in_file>\n\n' +
        'And the first.\n\n<replace_in_file>\n<path>jp.txt</path>\n<diff>\n------- SEARCH\nこんにちは、世界 🎉\n=======\nこんばんは、世界 🌙\n+++++++ REPLACE\n</diff>\n</replace_in_file>\n\n' +
        'And one that misses.\n\n<replace_in_file>\n<path>jp.txt</path>\n<diff>\n------- SEARCH\nこれは本番です 🚀 ok!\n=======\nx\n+++++++ REPLACE\n</diff>\n</replace_in_file>\n',
    });
    await vscode.window.showTextDocument(answer);
    const command = await vscode.commands.executeCommand('assistant.applySelection');
    // The created file as the editor holds it: its open document, else the file VS Code wrote
    // (code-server saves edited files by itself, and may have let go of the document).
    let hello = vscode.workspace.textDocuments.find((d) => d.uri.path.endsWith('/new/dir/hello.txt'));
    if (!hello) {
      hello = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(doc.uri, '..', 'new', 'dir', 'hello.txt')).then(
        (d) => d,
        () => undefined,
      );
    }
    write({
      done: true,
      settled,
      command,
      server: api.server,
      edits: s.blocks.filter((b) => b.edit).map((b) => b.edit),
      seen,
      jp: jpAfterStream,
      jpAfterCommand: doc.getText(),
      jpDirty: doc.isDirty,
      jpDisk: fs.readFileSync(doc.uri.fsPath, 'utf8'),
      hello: hello ? hello.getText() : null,
    });
  } catch (e) {
    write({ done: true, error: String((e && e.stack) || e) });
  }
};
