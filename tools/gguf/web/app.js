// gguf serve's page: everything comes from the JSON API of the same server (/api/...).
// Text from a file (keys, values, token pieces, tensor names) is only ever set as
// textContent, never parsed as HTML.
'use strict';

const state = { files: [], file: 0, info: null, tensors: [], sort: { key: 'index', desc: false } };

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k === 'style') Object.assign(e.style, v);
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}
const $ = (id) => document.getElementById(id);

async function api(path, params) {
  const q = new URLSearchParams(params || {});
  const r = await fetch('/api/' + path + (q.toString() ? '?' + q : ''));
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || ('HTTP ' + r.status));
  return body;
}

function bytes(n) {
  if (n === null || n === undefined) return '–';
  const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0, v = n;
  while (v >= 1024 && i < u.length - 1) { v /= 1024; i++; }
  return (i ? v.toFixed(2) : String(v)) + ' ' + u[i];
}
function count(n) {
  const u = ['', 'K', 'M', 'B', 'T'];
  let i = 0, v = n;
  while (v >= 1000 && i < u.length - 1) { v /= 1000; i++; }
  return (i ? v.toFixed(v < 10 ? 2 : 1) : String(v)) + u[i];
}

// A fixed colour per ggml type family, so that a quantization mix reads at a glance.
const TYPE_COLORS = {
  f32: '#7c8799', f64: '#5b6473', f16: '#3d7dd8', bf16: '#5a5fd6', q8_0: '#23915b', q8_1: '#23915b', q8_K: '#23915b',
  q6_K: '#2aa39a', q5_0: '#79a832', q5_1: '#79a832', q5_K: '#8fae26', q4_0: '#e0a126', q4_1: '#e0a126',
  q4_K: '#e88a1a', iq4_nl: '#d9782b', iq4_xs: '#d9782b', mxfp4: '#c9862e', q3_K: '#e0563b', iq3_xxs: '#d4473d',
  iq3_s: '#d4473d', q2_K: '#c92f4f', iq2_xxs: '#b2275f', iq2_xs: '#b2275f', iq2_s: '#b2275f', iq1_s: '#8e2a7a',
  iq1_m: '#8e2a7a', tq1_0: '#7a3aa0', tq2_0: '#7a3aa0', i8: '#8a6d3b', i16: '#8a6d3b', i32: '#8a6d3b', i64: '#8a6d3b',
};
function typeColor(t) {
  if (TYPE_COLORS[t]) return TYPE_COLORS[t];
  let h = 0;
  for (const c of t) h = (h * 31 + c.charCodeAt(0)) % 360;
  return `hsl(${h} 55% 48%)`;
}
function pill(t) { return el('span', { class: 'type-pill', text: t, style: { background: typeColor(t) } }); }

function showError(e) {
  const p = $('error');
  p.textContent = String(e && e.message ? e.message : e);
  p.hidden = false;
}

// ---- files -------------------------------------------------------------------------
function renderFiles() {
  const nav = $('files');
  nav.replaceChildren(...state.files.map((f, i) => el('button', {
    type: 'button', title: f.name, 'aria-current': String(i === state.file), text: f.name.split('/').pop(),
    onclick: () => { state.file = i; renderFiles(); loadFile(); },
  })));
}

// ---- overview ----------------------------------------------------------------------
function renderOverview(info) {
  $('file-name').textContent = info.file;
  const hp = info.hparams || {};
  const naming = info.naming || {};
  const parts = naming.parts || {};
  const facts = [
    ['architecture', info.architecture ?? '–'],
    ['name', info.name ?? '–'],
    ['parameters', `${count(info.parameters)} (${info.parameters.toLocaleString('en')})`],
    ['file type', info.file_type_name ? `${info.file_type_name} (${info.file_type})` : '–'],
    ['bits per weight', info.bits_per_weight ? info.bits_per_weight.toFixed(3) : '–'],
    ['file size', bytes(info.file_size) + (info.split ? ` (shard ${info.split.no + 1} of ${info.split.count}, ${bytes(info.split.total_size)} in all)` : '')],
    ['tensor data', bytes(info.data_size)],
    ['metadata', `${info.kv_count} keys, ${bytes(info.metadata_size)}`],
    ['tensors', String(info.tensor_count)],
    ['format', `GGUF v${info.version}, ${info.byte_order}-endian, alignment ${info.alignment}`],
    ['layers / n_embd', hp.n_layer !== undefined ? `${hp.n_layer} / ${hp.n_embd}` : (info.hparams_error || '–')],
    ['context (train)', hp.n_ctx_train !== undefined ? String(hp.n_ctx_train) : '–'],
    ['tokenizer', info.tokenizer_model ? `${info.tokenizer_model}, ${info.n_vocab} tokens` : 'none'],
    ['file name', naming.conforms ? 'follows the naming convention'
      : `does not follow the convention${parts.base_name ? ' (read as ' + [parts.base_name, parts.size_label, parts.fine_tune, parts.version, parts.encoding].filter(Boolean).join(' · ') + ')' : ''}`],
    ['suggested name', naming.suggested || '–'],
  ];
  $('overview-facts').replaceChildren(...facts.map(([k, v]) => el('div', {}, el('dt', { text: k }), el('dd', { text: v }))));
  const types = Object.entries(info.tensor_types || {});
  const total = types.reduce((s, [, v]) => s + v.bytes, 0) || 1;
  $('type-mix').replaceChildren(...types.sort((a, b) => b[1].bytes - a[1].bytes).map(([t, v]) => el('span', {
    title: `${t}: ${v.tensors} tensors, ${bytes(v.bytes)}`, style: { width: (100 * v.bytes / total) + '%', background: typeColor(t) },
  })));
}

// ---- metadata ----------------------------------------------------------------------
function valueCell(row) {
  const td = el('td', { class: 'value' });
  if (row.type === 'array') {
    const shown = JSON.stringify(row.value);
    const det = el('details', {}, el('summary', { text: `array[${row.element_type}] × ${row.length.toLocaleString('en')}` }));
    const body = el('pre', { text: shown + (row.length > row.value.length ? ` … (${row.length - row.value.length} more)` : '') });
    det.append(body);
    if (row.length > row.value.length) {
      det.append(el('button', { type: 'button', class: 'link', text: `show ${Math.min(row.length, 10000).toLocaleString('en')} elements`,
        onclick: async (ev) => {
          ev.target.disabled = true;
          try {
            const v = await api('value', { file: state.file, key: row.key, count: 10000 });
            body.textContent = JSON.stringify(v.value) + (v.length > v.value.length ? ` … (${v.length - v.value.length} more)` : '');
          } catch (e) { body.textContent = String(e.message); }
        } }));
    }
    td.append(det);
  } else if (row.type === 'string') {
    if (row.truncated) {
      const pre = el('pre', { text: row.value + '…' });
      td.append(el('span', { class: 'muted', text: `${row.length.toLocaleString('en')} bytes ` }),
        el('button', { type: 'button', class: 'link', text: 'show in full', onclick: async (ev) => {
          ev.target.disabled = true;
          try { pre.textContent = (await api('value', { file: state.file, key: row.key })).value; } catch (e) { pre.textContent = e.message; }
        } }), pre);
    } else if (row.value.includes('\n')) {
      td.append(el('pre', { text: row.value }));
    } else {
      td.append(JSON.stringify(row.value));
    }
  } else if (row.type === 'float32') {
    td.append(float32Text(row.value));
  } else {
    td.append(JSON.stringify(row.value));
  }
  return td;
}
// The shortest decimal that reads back as the same float32 (the JSON holds its double).
function float32Text(v) {
  if (typeof v !== 'number' || !Number.isFinite(v)) return JSON.stringify(v);
  for (let p = 1; p <= 9; ++p) {
    const t = Number(v.toPrecision(p));
    if (Math.fround(t) === Math.fround(v)) return String(t);
  }
  return String(v);
}
function renderKv(rows) {
  $('kv-count').textContent = `${rows.length} keys`;
  $('kv-body').replaceChildren(...rows.map((r) => el('tr', { 'data-testid': 'kv-row', 'data-key': r.key },
    el('td', { class: 'key', text: r.key }), el('td', { class: 'mono muted', text: r.type === 'array' ? `[${r.element_type}]` : r.type }),
    valueCell(r))));
}
$('kv-filter').addEventListener('input', (ev) => {
  const q = ev.target.value.toLowerCase();
  for (const tr of $('kv-body').children) tr.hidden = q !== '' && !tr.dataset.key.toLowerCase().includes(q);
});

// ---- tensors -----------------------------------------------------------------------
function renderTensors() {
  const { key, desc } = state.sort;
  const rows = state.tensors.slice();
  const val = (t) => key === 'ne' ? t.ne.join('x') : t[key];
  rows.sort((a, b) => {
    const x = val(a), y = val(b);
    const c = typeof x === 'number' ? x - y : String(x).localeCompare(String(y), 'en', { numeric: true });
    return desc ? -c : c;
  });
  const q = $('tensor-filter').value.toLowerCase();
  $('tensor-body').replaceChildren(...rows.map((t) => el('tr', {
    'data-testid': 'tensor-row', 'data-name': t.name, 'data-type': t.type, 'data-ne': t.ne.join(','),
    hidden: q !== '' && !(t.name.toLowerCase().includes(q) || t.type.toLowerCase() === q),
  }, el('td', { class: 'num muted', text: String(t.index) }), el('td', { class: 'mono', text: t.name }), el('td', {}, pill(t.type)),
  el('td', { class: 'mono', text: '[' + t.ne.join(', ') + ']' }), el('td', { class: 'num', text: t.elements.toLocaleString('en') }),
  el('td', { class: 'num', text: bytes(t.nbytes) }), el('td', { class: 'num', text: t.bpw.toFixed(2) }))));
  for (const th of document.querySelectorAll('th[data-sort]')) {
    th.classList.toggle('sorted', th.dataset.sort === key);
    th.classList.toggle('desc', th.dataset.sort === key && desc);
  }
}
for (const th of document.querySelectorAll('th[data-sort]')) {
  th.addEventListener('click', () => {
    const k = th.dataset.sort;
    state.sort = { key: k, desc: state.sort.key === k ? !state.sort.desc : ['nbytes', 'elements', 'bpw'].includes(k) };
    renderTensors();
  });
}
$('tensor-filter').addEventListener('input', renderTensors);

// ---- layers ------------------------------------------------------------------------
function renderLayers() {
  const layers = new Map();
  const other = [];
  for (const t of state.tensors) {
    const m = /^blk\.(\d+)\./.exec(t.name);
    if (m) {
      const i = Number(m[1]);
      if (!layers.has(i)) layers.set(i, []);
      layers.get(i).push(t);
    } else other.push(t);
  }
  const ids = [...layers.keys()].sort((a, b) => a - b);
  const size = (ts) => ts.reduce((s, t) => s + t.nbytes, 0);
  // heights are bytes relative to the largest block; the tensors outside the blocks
  // (embeddings, output) get a column of their own, scaled down when larger
  const max = Math.max(1, ...ids.map((i) => size(layers.get(i))));
  const column = (label, ts, scale) => el('div', { class: 'layer' + (label === 'in/out' ? ' io' : ''), title: `${label}: ${bytes(size(ts))}` },
    ...ts.slice().sort((a, b) => b.nbytes - a.nbytes).map((t) => el('span', { title: `${t.name}: ${t.type}, ${bytes(t.nbytes)}`,
      style: { height: (100 * t.nbytes / scale) + '%', background: typeColor(t.type) } })), el('b', { text: label }));
  const cols = ids.map((i) => column(String(i), layers.get(i), max));
  if (other.length) {
    const big = size(other) > max;
    cols.unshift(column('in/out', other, big ? size(other) : max));
    if (big) cols[0].title += ` (drawn at ${(100 * max / size(other)).toFixed(0)}% scale)`;
  }
  $('layer-strip').replaceChildren(...cols);
  const types = [...new Set(state.tensors.map((t) => t.type))].sort();
  $('layer-legend').replaceChildren(...types.map((t) => el('span', {}, el('i', { class: 'swatch', style: { background: typeColor(t) } }), t)));
}

// ---- validation --------------------------------------------------------------------
async function loadValidation() {
  const v = await api('validate', { file: state.file });
  $('val-summary').textContent = `${v.errors} errors, ${v.warnings} warnings, ${v.notes} notes`;
  const items = v.diagnostics.map((d) => el('li', {}, el('span', { class: 'level ' + d.level, text: d.level }),
    el('span', {}, d.message, ' ', el('span', { class: 'rule', text: d.rule + (d.subject ? ' · ' + d.subject : '') + (d.offset !== null ? ` · byte ${d.offset}` : '') }))));
  if (!items.length) items.push(el('li', {}, el('span', { class: 'level ok', text: 'ok' }), 'every rule passes'));
  $('val-list').replaceChildren(...items);
}

// ---- tokenizer ---------------------------------------------------------------------
let tokSeq = 0;
async function tokenize() {
  const text = $('tok-input').value;
  const seq = ++tokSeq;
  const ids = $('tok-ids');
  try {
    const r = await api('tokenize', { file: state.file, text, add_special: $('tok-add').checked ? 1 : 0, parse_special: $('tok-parse').checked ? 1 : 0 });
    if (seq !== tokSeq) return;
    $('tok-error').hidden = true;
    // a piece that is part of a UTF-8 sequence (byte tokens) is shown as its bytes
    $('tok-pieces').replaceChildren(...r.pieces.map((p, i) => el('span', {
      title: `id ${r.ids[i]}: ${JSON.stringify(r.texts[i])}`,
      class: p === null ? 'bytes' : (/^<.*>$|^\[.*\]$/.test(p) ? 'special' : null),
      style: { background: `hsl(${(i * 67) % 360} 70% 88%)` },
      text: p === null ? r.bytes[i] : p.replace(/\n/g, '↵').replace(/\t/g, '⇥'),
    })));
    ids.textContent = JSON.stringify(r.ids);
    $('tok-count').textContent = `${r.ids.length} tokens, ${new TextEncoder().encode(text).length} bytes`;
  } catch (e) {
    if (seq !== tokSeq) return;
    $('tok-pieces').replaceChildren();
    ids.textContent = '';
    $('tok-error').textContent = e.message;
    $('tok-error').hidden = false;
  }
  ids.dataset.text = text;  // which text the ids are of (tests wait on it)
}
let tokTimer = null;
for (const id of ['tok-input', 'tok-add', 'tok-parse']) {
  $(id).addEventListener(id === 'tok-input' ? 'input' : 'change', () => { clearTimeout(tokTimer); tokTimer = setTimeout(tokenize, 120); });
}

// ---- chat --------------------------------------------------------------------------
let chatSeq = 0;
async function chat() {
  const messages = $('chat-input').value;
  const seq = ++chatSeq;
  const out = $('chat-prompt'), count = $('chat-count');
  try {
    JSON.parse(messages);  // say so here rather than send what the server would refuse
    const r = await api('chat', { file: state.file, messages, add_generation_prompt: $('chat-gen').checked ? 1 : 0, mode: $('chat-mode').value });
    if (seq !== chatSeq) return;
    $('chat-error').hidden = true;
    out.textContent = r.prompt;
    count.textContent = String(r.n_tokens);
    count.dataset.count = String(r.n_tokens);
    $('chat-kind').textContent = `${r.template} (as gguf chat)`;
  } catch (e) {
    if (seq !== chatSeq) return;
    out.textContent = '';
    count.textContent = '–';
    delete count.dataset.count;
    $('chat-error').textContent = e.message;
    $('chat-error').hidden = false;
  }
  out.dataset.messages = messages;  // which messages and rendering the prompt is of (tests wait on it)
  out.dataset.mode = $('chat-mode').value;
}
let chatTimer = null;
for (const id of ['chat-input', 'chat-gen', 'chat-mode']) {
  $(id).addEventListener(id === 'chat-input' ? 'input' : 'change', () => { clearTimeout(chatTimer); chatTimer = setTimeout(chat, 200); });
}

// ---- memory ------------------------------------------------------------------------
const CACHE_TYPES = ['f16', 'f32', 'bf16', 'q8_0', 'q4_0', 'q4_1', 'iq4_nl', 'q5_0', 'q5_1'];
for (const id of ['est-type-k', 'est-type-v']) $(id).replaceChildren(...CACHE_TYPES.map((t) => el('option', { text: t })));
const PARTS = [['weights_bytes', 'weights', '#3d7dd8'], ['kv_bytes', 'KV cache', '#23915b'],
  ['output_bytes', 'output buffer', '#e0a126'], ['compute_bytes', 'compute buffer', '#c92f4f']];
async function estimate() {
  const p = { file: state.file, parallel: $('est-parallel').value || 1, type_k: $('est-type-k').value,
    type_v: $('est-type-v').value, flash_attn: $('est-fa').value, gpu_layers: $('est-gpu').value || 0 };
  const ctxText = $('est-ctx').value;
  if (ctxText) p.ctx = ctxText;
  const total = $('est-total');
  if ($('est-ctx').disabled) { total.dataset.ctx = ctxText; return; }
  try {
    const e = await api('estimate', p);
    $('est-refused').hidden = !e.refused;
    $('est-refused').textContent = e.refused ? 'llama.cpp refuses: ' + e.refused : '';
    total.textContent = bytes(e.total_bytes);
    total.dataset.bytes = String(e.total_bytes);
    const sum = e.total_bytes || 1;
    $('est-bar').replaceChildren(...PARTS.map(([k, label, c]) => el('span', {
      title: `${label}: ${bytes(e[k])}`, style: { width: (100 * e[k] / sum) + '%', background: c } })));
    $('est-table').replaceChildren(
      ...PARTS.map(([k, label, c]) => el('tr', {}, el('td', {}, el('i', { class: 'swatch', style: { background: c } }), label),
        el('td', { class: 'num', text: bytes(e[k]) }), el('td', { class: 'num muted', text: (100 * e[k] / sum).toFixed(1) + '%' }))),
      el('tr', {}, el('td', { class: 'muted', text: 'n_ctx / per sequence' }), el('td', { class: 'num', text: `${e.n_ctx} / ${e.n_ctx_seq}` })),
      el('tr', {}, el('td', { class: 'muted', text: 'flash attention / memory' }), el('td', { class: 'num', text: `${e.flash_attn ? 'on' : 'off'} / ${e.memory}` })),
      ...(e.devices.length > 1 ? e.devices.map((d) => el('tr', {}, el('td', { class: 'muted', text: d.name }), el('td', { class: 'num', text: bytes(d.total_bytes) }))) : []));
  } catch (err) {
    total.textContent = '–';
    delete total.dataset.bytes;
    $('est-refused').textContent = err.message;
    $('est-refused').hidden = false;
  }
  total.dataset.ctx = ctxText;  // which context the total is for (tests wait on it)
}
$('estimate-form').addEventListener('submit', (ev) => { ev.preventDefault(); estimate(); });
$('estimate-form').addEventListener('change', estimate);
$('est-ctx').addEventListener('keydown', (ev) => { if (ev.key === 'Enter') { ev.preventDefault(); estimate(); } });

// ---- diff --------------------------------------------------------------------------
function sideText(v) {
  if (v === null || v === undefined) return '–';
  if (typeof v === 'object' && v.type === 'array') return `array[${v.element_type}] × ${v.length}` + ('at_index' in v ? ` ([i] = ${JSON.stringify(v.at_index)})` : '');
  const s = JSON.stringify(v);
  return s.length > 160 ? s.slice(0, 160) + '…' : s;
}
function tensorText(t) { return t ? `${t.type} [${t.ne.join(', ')}]` : '–'; }
let diffRequest = 0;  // only the answer to the latest request is shown
async function loadDiff() {
  const values = $('diff-values').checked;
  const mine = ++diffRequest;
  $('diff-summary').textContent = 'comparing…';
  const d = await api('diff', { a: 0, b: 1, values: values ? 1 : 0 });
  if (mine !== diffRequest) return;  // a later toggle superseded this answer
  $('diff-files').textContent = `${d.a} → ${d.b}`;
  $('diff-summary').textContent = d.same ? 'The two files hold the same model.' : `${d.kv.length} keys and ${d.tensors.length} tensors differ.`;
  const head = (...cols) => el('tr', {}, ...cols.map((c) => el('th', { text: c })));
  $('diff-kv').replaceChildren(...(d.kv.length ? [head('key', 'status', 'A', 'B')] : []), ...d.kv.map((k) => el('tr', { 'data-testid': 'diff-kv-row', 'data-key': k.key },
    el('td', { class: 'key', text: k.key }), el('td', { class: 'status-' + k.status, text: k.status + ('index' in k ? ` at [${k.index}]` : '') }),
    el('td', { class: 'value', text: sideText(k.a) + (k.a_type ? ` (${k.a_type})` : '') }), el('td', { class: 'value', text: sideText(k.b) + (k.b_type ? ` (${k.b_type})` : '') }))));
  $('diff-tensors').replaceChildren(...(d.tensors.length ? [head('tensor', 'status', 'A', 'B', 'NMSE', 'max |b − a|')] : []), ...d.tensors.map((t) => el('tr', { 'data-testid': 'diff-tensor-row', 'data-name': t.name },
    el('td', { class: 'mono', text: t.name }), el('td', { class: 'status-' + t.status, text: t.status }),
    el('td', { class: 'mono', text: tensorText(t.a) }), el('td', { class: 'mono', text: tensorText(t.b) }),
    el('td', { class: 'num', text: t.nmse === null ? '–' : t.nmse.toExponential(3) }), el('td', { class: 'num', text: t.max_abs === null ? '–' : t.max_abs.toPrecision(4) }))));
  $('diff').dataset.values = values ? '1' : '0';  // which comparison is on screen (tests wait on it)
}
$('diff-values').addEventListener('change', () => loadDiff().catch(showError));

// ---- loading -----------------------------------------------------------------------
async function loadFile() {
  const f = state.file;
  $('error').hidden = true;
  const [info, kv, tensors] = await Promise.all([api('info', { file: f }), api('kv', { file: f }), api('tensors', { file: f })]);
  state.info = info;
  state.tensors = tensors.tensors.map((t, i) => ({ ...t, index: i, elements: t.ne.reduce((a, b) => a * b, 1) }));
  renderOverview(info);
  renderKv(kv.kv);
  $('tensor-count').textContent = `${state.tensors.length} tensors`;
  renderTensors();
  renderLayers();
  $('tok-kind').textContent = info.tokenizer_model ? `${info.tokenizer_model}, ${info.n_vocab} tokens (as gguf tokenize)` : 'no tokenizer in this file';
  const tokBox = info.tokenizer_model !== null;
  $('tok-input').disabled = !tokBox;
  if (tokBox) {
    await tokenize();
  } else {
    $('tok-pieces').replaceChildren();
    $('tok-ids').textContent = '';
    $('tok-count').textContent = '';
  }
  for (const e of [$('chat-input'), $('chat-gen'), $('chat-mode')]) e.disabled = !tokBox;
  if (tokBox) {
    await chat();
  } else {
    $('chat-prompt').textContent = '';
    $('chat-count').textContent = '–';
    $('chat-kind').textContent = 'no tokenizer in this file';
  }
  const estBox = info.hparams !== null;
  for (const e of $('estimate-form').elements) e.disabled = !estBox;
  if (estBox) {
    await estimate();
  } else {
    $('est-total').textContent = '–';
    delete $('est-total').dataset.bytes;
    $('est-bar').replaceChildren();
    $('est-table').replaceChildren();
    $('est-refused').textContent = 'No estimate: ' + info.hparams_error;
    $('est-refused').hidden = false;
  }
  await loadValidation().catch((e) => { $('val-summary').textContent = e.message; });
  document.body.dataset.loaded = String(f);  // tests wait on it
}

async function main() {
  try {
    const r = await api('files');
    state.files = r.files;
    renderFiles();
    if (r.diff) {
      $('diff').hidden = false;
      $('jump-diff').hidden = false;
      loadDiff().catch(showError);
    }
    await loadFile();
  } catch (e) { showError(e); }
}
main();
