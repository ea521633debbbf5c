// `gguf serve` in a real browser: Debian's chromium driven by puppeteer-core.
//
//   node tests/web/serve_test.mjs GGUF_CLI DATA_DIR ARTIFACTS_DIR
//
// Starts `gguf serve --port 0` (a free loopback port) over every model in DATA_DIR/models
// (and a second server with --diff over two quantizations), loads the page headless and
// checks, for each file: every metadata key (data-testid="kv-row", against `gguf dump
// --json`) and every tensor row (name, type, ne); the tokenizer box against `gguf tokenize
// --jsonl` on llama.cpp's tokenizer test strings (vocab/ggml-vocab-llama-spm.gguf.inp); the
// memory box against `gguf estimate FILE -c N --json`'s total_bytes; the chat box against `gguf chat
// --jsonl --add-generation-prompt --count [--server]`; the diff view against
// `gguf diff --json`. Every request the page makes must go to the server (others are
// aborted and fail the test) and no script error may occur. Screenshots of each box go to
// ARTIFACTS_DIR. Exit 0 pass, 1 fail, 77 skipped (no chromium, no puppeteer-core, no data).
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

const [cli, dataArg, artifacts] = process.argv.slice(2);
const data = process.env.GGUF_TEST_DATA || dataArg;
const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
const skip = (why) => { console.log(`skipped: ${why}`); process.exit(77); };
if (!existsSync(chromium)) skip(`${chromium} is not installed (scripts/bootstrap.sh installs Debian's chromium)`);
if (!existsSync(path.join(data, 'models'))) skip(`no test data at ${data}`);
let puppeteer;
try {
  puppeteer = (await import('puppeteer-core')).default;
} catch {
  skip('puppeteer-core is not installed (npm ci in tests/web; scripts/bootstrap.sh does it)');
}

let failures = 0;
const fail = (what) => { failures++; console.log('FAIL ' + what); };
const eq = (got, want, what) => {
  const g = JSON.stringify(got), w = JSON.stringify(want);
  if (g !== w) fail(`${what}: got ${g.slice(0, 300)}, want ${w.slice(0, 300)}`);
};
const run = (...args) => execFileSync(cli, args, { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] });

const servers = new Set();
process.on('exit', () => { for (const c of servers) c.kill('SIGKILL'); });
function startServer(args) {
  const child = spawn(cli, ['serve', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (l) => {
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(l);
      if (m) resolve({ child, url: m[1] });
    });
    servers.add(child);
    child.on('exit', (code) => servers.delete(child));
    child.on('exit', (code) => reject(new Error(`gguf serve exited with ${code}`)));
  });
}

async function stopServer(s) {
  const exited = new Promise((r) => s.child.once('exit', (code, sig) => r({ code, sig })));
  s.child.kill('SIGTERM');
  const { code } = await exited;
  if (code !== 0) fail(`gguf serve exited with ${code} on SIGTERM`);
}

// The page, with every request checked: only the server's own origin is allowed.
async function openPage(browser, url) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1360, height: 900 });
  const origin = new URL(url).origin;
  await page.setRequestInterception(true);
  page.on('request', (req) => {
    const u = req.url();
    if (u.startsWith('data:') || new URL(u).origin === origin) return req.continue();
    fail(`request leaving the host: ${u}`);
    return req.abort();
  });
  page.on('pageerror', (e) => fail(`script error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') fail(`console error: ${m.text()}`); });
  page.on('requestfailed', (r) => { if (new URL(r.url()).origin === origin) fail(`request failed: ${r.url()}`); });
  await page.goto(url, { waitUntil: 'load' });
  return page;
}

const inputs = readFileSync(path.join(data, 'vocab/ggml-vocab-llama-spm.gguf.inp'), 'utf8').split('\n__ggml_vocab_test__\n');
inputs[inputs.length - 1] = inputs[inputs.length - 1].replace(/\n__ggml_vocab_test__\n?$/, '');
const texts = inputs.filter((t) => t.length > 0);

const models = readdirSync(path.join(data, 'models')).filter((f) => f.endsWith('.gguf')).sort()
  .map((f) => path.join(data, 'models', f));
mkdirSync(artifacts, { recursive: true });
const profile = mkdtempSync(path.join(tmpdir(), 'gguf-serve-chromium-'));
const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  userDataDir: profile,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync',
         '--disable-dev-shm-usage'],
});

async function shot(page, selector, name) {
  const e = await page.$(selector);
  if (!e) return fail(`no ${selector} to screenshot`);
  await e.screenshot({ path: path.join(artifacts, name) });
}

try {
  const server = await startServer(models);
  const page = await openPage(browser, server.url);
  for (let i = 0; i < models.length; ++i) {
    const model = models[i];
    const name = path.basename(model);
    if (i > 0) await page.click(`#files button:nth-child(${i + 1})`);
    await page.waitForFunction((n) => document.body.dataset.loaded === String(n), { timeout: 30000 }, i);
    const dump = JSON.parse(run('dump', '--json', model));

    // every key and every tensor, in file order
    const keys = await page.$$eval('[data-testid="kv-row"]', (rows) => rows.map((r) => r.dataset.key));
    eq(keys, dump.kv.map((k) => k.key), `${name}: metadata rows`);
    const rows = await page.$$eval('[data-testid="tensor-row"]', (rs) => rs.map((r) => [r.dataset.name, r.dataset.type, r.dataset.ne]));
    eq(rows, dump.tensors.map((t) => [t.name, t.type, t.ne.join(',')]), `${name}: tensor rows`);

    // tokenizer box = gguf tokenize
    const info = JSON.parse(run('info', '--json', model));
    if (info.tokenizer_model) {
      const jsonl = texts.map((t) => JSON.stringify({ text: t })).join('\n') + '\n';
      const expected = execFileSync(cli, ['tokenize', '-m', model, '--jsonl'], { input: jsonl, encoding: 'utf8' })
        .trim().split('\n').map((l) => JSON.parse(l));
      let bad = 0;
      for (let k = 0; k < texts.length; ++k) {
        await page.$eval('[data-testid="tokenize-input"]', (e, t) => { e.value = t; e.dispatchEvent(new Event('input')); }, texts[k]);
        await page.waitForFunction((t) => document.getElementById('tok-ids').dataset.text === t, { timeout: 10000 }, texts[k]);
        const shown = await page.$eval('[data-testid="tokenize-ids"]', (e) => e.textContent);
        if (shown !== JSON.stringify(expected[k])) {
          bad++;
          fail(`${name}: tokenizer box on ${JSON.stringify(texts[k])}: ${shown} != ${JSON.stringify(expected[k])}`);
        }
      }
      if (!bad) console.log(`ok ${name}: tokenizer box = gguf tokenize on ${texts.length} strings`);
    }

    // chat box = gguf chat (prompt and token count), in both renderings
    if (info.tokenizer_model) {
      const convs = [await page.$eval('[data-testid="chat-input"]', (e) => e.value), '[{"role":"user","content":"Hi"}]'];
      for (const conv of convs) {
        for (const mode of ['transformers', 'server']) {
          await page.select('#chat-mode', mode);
          await page.$eval('[data-testid="chat-input"]', (e, t) => { e.value = t; e.dispatchEvent(new Event('input')); }, conv);
          await page.waitForFunction((t, m) => {
            const o = document.getElementById('chat-prompt');
            return o.dataset.messages === t && o.dataset.mode === m;
          }, { timeout: 10000 }, conv, mode);
          const prompt = await page.$eval('[data-testid="chat-prompt"]', (e) => e.textContent);
          const n = await page.$eval('[data-testid="chat-count"]', (e) => e.dataset.count ?? null);
          const args = ['chat', '-m', model, '--jsonl', '--add-generation-prompt', '--count', ...(mode === 'server' ? ['--server'] : [])];
          const want = JSON.parse(execFileSync(cli, args, { input: JSON.stringify({ messages: JSON.parse(conv) }) + '\n', encoding: 'utf8' }));
          eq(prompt, want.prompt, `${name}: chat box prompt (${mode})`);
          eq(n, String(want.n_tokens), `${name}: chat box token count (${mode})`);
        }
      }
    }

    // memory box = gguf estimate -c N --json
    const estimable = await page.$eval('[data-testid="estimate-ctx"]', (e) => !e.disabled);
    let cliEstimates = true;
    try { run('estimate', model, '--json'); } catch { cliEstimates = false; }
    eq(estimable, cliEstimates, `${name}: memory box enabled exactly where gguf estimate works`);
    for (const ctx of estimable ? ['256', '1000', '4096'] : []) {
      await page.click('[data-testid="estimate-ctx"]', { clickCount: 3 });
      await page.type('[data-testid="estimate-ctx"]', ctx);
      await page.keyboard.press('Enter');
      await page.waitForFunction((c) => document.getElementById('est-total').dataset.ctx === c, { timeout: 10000 }, ctx);
      const shown = await page.$eval('[data-testid="estimate-total"]', (e) => e.dataset.bytes ?? null);
      let want = null;
      try { want = String(JSON.parse(run('estimate', model, '-c', ctx, '--json')).total_bytes); } catch { want = null; }
      eq(shown, want, `${name}: memory box total at -c ${ctx}`);
    }
    console.log(`ok ${name}: ${keys.length} keys, ${rows.length} tensors, memory box checked`);

    if (name === 'synth-llama-256-Q4_K_M.gguf' || i === 0) {
      const stem = name.replace(/\.gguf$/, '');
      const sample = 'Hello world! GGUF files are tokenized here as llama.cpp does: 1234 🦙 ünïcödé';
      await page.$eval('[data-testid="tokenize-input"]', (e, t) => { e.value = t; e.dispatchEvent(new Event('input')); }, sample);
      await page.waitForFunction((t) => document.getElementById('tok-ids').dataset.text === t, { timeout: 10000 }, sample);
      for (const [sel, box] of [['#overview', 'overview'], ['#memory', 'memory'], ['#tokenizer', 'tokenizer'], ['#layers', 'layers'],
        ['#chat', 'chat'], ['#validation', 'validation'], ['#metadata', 'metadata'], ['#tensors', 'tensors']]) {
        await shot(page, sel, `${stem}-${box}.png`);
      }
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: path.join(artifacts, `${stem}-page.png`) });
    }
  }
  // the tensor table sorts and filters
  await page.click('#files button:nth-child(1)');
  await page.waitForFunction(() => document.body.dataset.loaded === '0');
  await page.click('th[data-sort="nbytes"]');
  const sizes = await page.$$eval('[data-testid="tensor-row"]', (rs) => rs.map((r) => r.children[5].textContent));
  const firstName = await page.$eval('[data-testid="tensor-row"]', (r) => r.dataset.name);
  const dump0 = JSON.parse(run('dump', '--json', models[0]));
  const biggest = dump0.tensors.reduce((a, b) => (b.nbytes > a.nbytes ? b : a));
  eq(dump0.tensors.find((t) => t.name === firstName).nbytes, biggest.nbytes, 'sorted by bytes: the largest first');
  if (sizes.length !== dump0.tensors.length) fail('sorting lost rows');
  await page.type('#tensor-filter', 'blk.0.');
  const visible = await page.$$eval('[data-testid="tensor-row"]:not([hidden])', (rs) => rs.map((r) => r.dataset.name));
  eq(visible.sort(), dump0.tensors.map((t) => t.name).filter((n) => n.includes('blk.0.')).sort(), 'filter blk.0.');
  await page.close();
  await stopServer(server);

  // diff view = gguf diff --json
  const a = path.join(data, 'models/stories260K.gguf'), b = path.join(data, 'models/stories260K-Q4_0.gguf');
  const ds = await startServer([a, b, '--diff']);
  const dp = await openPage(browser, ds.url);
  await dp.waitForFunction(() => document.querySelectorAll('[data-testid="diff-tensor-row"]').length > 0, { timeout: 30000 });
  let want;
  try { run('diff', '--json', a, b); } catch (e) { want = JSON.parse(e.stdout); }
  const dkeys = await dp.$$eval('[data-testid="diff-kv-row"]', (rs) => rs.map((r) => r.dataset.key));
  eq(dkeys, want.kv.map((k) => k.key), 'diff view: keys');
  const dts = await dp.$$eval('[data-testid="diff-tensor-row"]', (rs) => rs.map((r) => r.dataset.name));
  eq(dts, want.tensors.map((t) => t.name), 'diff view: tensors');
  // the page loads file 0 beside the diff: click only once it has settled (a click during a
  // layout change can land beside the box, as it once did on a loaded CI machine)
  await dp.waitForFunction(() => document.body.dataset.loaded === '0' && document.getElementById('diff').dataset.values === '0', { timeout: 30000 });
  await dp.click('#diff-values');
  if (!(await dp.$eval('#diff-values', (e) => e.checked))) fail('diff view: the values box is not checked after a click');
  // the values diff dequantizes and compares every tensor of both models: allow a loaded machine
  await dp.waitForFunction(() => document.getElementById('diff').dataset.values === '1', { timeout: 120000 });
  let wantValues;
  try { run('diff', '--json', '--values', a, b); } catch (e) { wantValues = JSON.parse(e.stdout); }
  const shownValues = await dp.$$eval('[data-testid="diff-tensor-row"]', (rs) => rs.map((r) => [r.dataset.name, r.children[4].textContent, r.children[5].textContent]));
  eq(shownValues, wantValues.tensors.map((t) => [t.name, t.nmse === null ? '–' : t.nmse.toExponential(3), t.max_abs === null ? '–' : t.max_abs.toPrecision(4)]),
    'diff view: NMSE and max |b − a| as gguf diff --values');
  if (!wantValues.tensors.some((t) => t.nmse !== null)) fail('diff view: no tensor has values to compare');
  await shot(dp, '#diff', 'diff.png');
  console.log(`ok diff view: ${dkeys.length} keys, ${dts.length} tensors as gguf diff`);
  await dp.close();
  await stopServer(ds);
} catch (e) {
  fail(String(e.stack || e));
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
console.log(failures ? `${failures} failures` : 'all checks passed');
process.exit(failures ? 1 : 0);
