// Drives the code-server workbench in Debian's Chromium with playwright-core (no browser is
// downloaded): opens the workspace, clicks Apply in the Refactor Preview each time it appears
// (when confirm is on), and waits for the probe's result file. Prints a JSON summary. HOLD_AT,
// when not 0, is the preview left open for HOLD_MS before Apply, as a user who takes their time.
//   node drive.js URL RESULT_FILE CONFIRM(0|1) SHOT_DIR [HOLD_AT HOLD_MS]
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

const [url, resultFile, confirm, shotDir, holdAt = '0', holdMs = '0'] = process.argv.slice(2);

async function main() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1400, height: 900 },
  });
  const summary = { clicks: 0, previews: [], result: null };
  try {
    const page = ctx.pages()[0] || (await ctx.newPage());
    await page.goto(url);
    await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
    const deadline = Date.now() + 170000;
    while (Date.now() < deadline) {
      if (fs.existsSync(resultFile)) {
        summary.result = JSON.parse(fs.readFileSync(resultFile, 'utf8'));
        break;
      }
      if (confirm === '1') {
        const apply = page.locator('.refactor-preview-view .monaco-button, .bulk-edit-panel .monaco-button', { hasText: /^Apply$/ });
        if (await apply.first().isVisible().catch(() => false)) {
          const n = summary.clicks + 1;
          const { tree, unticked } = await settledPreview(page);
          await page.screenshot({ path: path.join(shotDir, `preview-${n}.png`) });
          summary.previews.push({ tree, unticked });
          if (n === Number(holdAt)) await page.waitForTimeout(Number(holdMs));
          // Apply as shown: every change is ticked (the extension asks VS Code for the preview
          // with an empty entry of its own; only that one is unticked).
          await apply.first().click();
          summary.clicks = n;
          await page.waitForTimeout(500);
          continue;
        }
      }
      await page.waitForTimeout(200);
    }
    await page.screenshot({ path: path.join(shotDir, 'final.png') });
    await page.close();
  } finally {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  process.stdout.write(JSON.stringify(summary) + '\n');
}

// settledPreview reads the Refactor Preview once its tree has stopped changing: VS Code shows
// the Apply button before it renders the tree's rows, and a read in between sees a file with no
// entries (and no checkboxes) under it. It gives up after 10 s and returns the last read.
async function settledPreview(page) {
  const read = async () => ({
    tree: await page.locator('.refactor-preview-view, .bulk-edit-panel').first().innerText().catch(() => ''),
    unticked: await page.locator('.refactor-preview-view .monaco-checkbox:not(.checked), .bulk-edit-panel .monaco-checkbox:not(.checked)').count(),
    rows: await page.locator('.refactor-preview-view .monaco-list-row, .bulk-edit-panel .monaco-list-row').count(),
  });
  const deadline = Date.now() + 10000;
  let last = await read();
  while (Date.now() < deadline) {
    await page.waitForTimeout(300);
    const now = await read();
    if (now.rows > 1 && now.tree === last.tree && now.unticked === last.unticked && now.rows === last.rows) break;
    last = now;
  }
  return { tree: last.tree, unticked: last.unticked };
}

main().catch((e) => {
  process.stderr.write(String((e && e.stack) || e) + '\n');
  process.exit(1);
});
