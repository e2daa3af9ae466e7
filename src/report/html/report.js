// grainscope html: the script of the self-contained report page (docs/html.md). It reads the JSON
// that `grainscope html` put in <script id="gs-data">, builds the page and draws the Gantt chart
// on a canvas. No network, no libraries. State for tests: window.gs (view, stats) and
// document.body.dataset (lanes, grains, rects, lod). page.html runs this file and tables.js in
// one function scope, then start().
const data = JSON.parse(document.getElementById('gs-data').textContent);
const Q = data.quantum_ns;  // ns per page time unit (quantum)

// ---- decoding -------------------------------------------------------------------------------
function decode(b64, Type) {
  if (Uint8Array.fromBase64) return new Type(Uint8Array.fromBase64(b64).buffer);
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; ++i) bytes[i] = bin.charCodeAt(i);
  return new Type(bytes.buffer);
}

// Intervals sorted by lane then start: lane l holds [first[l], first[l + 1]), and maxDur[l] is
// its longest interval, so a view's intervals are found by binary search on start >= t0 - longest.
function intervals(src, laneCount) {
  const iv = {
    count: src.count, embedded: src.embedded,
    start: decode(src.start, Uint32Array), dur: decode(src.dur, Uint32Array), key: decode(src.key, Uint32Array),
    first: new Uint32Array(laneCount + 1), maxDur: new Float64Array(laneCount),
  };
  let i = 0;
  for (let l = 0; l < laneCount; ++l) {
    iv.first[l] = i;
    const end = i + (src.lane_counts[l] || 0);
    for (; i < end; ++i) if (iv.dur[i] > iv.maxDur[l]) iv.maxDur[l] = iv.dur[i];
  }
  iv.first[laneCount] = i;
  return iv;
}

// First index in [lo, hi) of `arr` with arr[i] >= x.
function lowerBound(arr, lo, hi, x) {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid] < x) lo = mid + 1; else hi = mid;
  }
  return lo;
}

const lanes = data.lanes;
const L = lanes.length;
const grains = intervals(data.grains, L);
const hasRaw = grains.embedded === grains.count;
const levels = data.grains.levels.map(function (lv) {
  return {
    buckets: lv.buckets, width: lv.span / lv.buckets,
    busy: decode(lv.busy, Uint8Array), length: decode(lv.length, Uint8Array), key: decode(lv.key, Uint16Array),
  };
});
const msgs = {
  count: data.messages.count, embedded: data.messages.embedded,
  from: decode(data.messages.from, Uint32Array), to: decode(data.messages.to, Uint32Array),
  send: decode(data.messages.send, Uint32Array), recv: decode(data.messages.recv, Uint32Array),
};
// Launch, synchronisation and collective arrows (html_report.cc Edges): from, to, t_from, t_to, kind.
const edges = {
  count: data.edges.count, embedded: data.edges.embedded,
  from: decode(data.edges.from, Uint32Array), to: decode(data.edges.to, Uint32Array),
  send: decode(data.edges.t_from, Uint32Array), recv: decode(data.edges.t_to, Uint32Array),
  kind: decode(data.edges.kind, Uint32Array),
};
const EDGE_COLORS = ['rgba(20,140,60,0.8)', 'rgba(200,120,0,0.8)', 'rgba(110,110,110,0.8)', 'rgba(170,30,150,0.8)'];
const waits = intervals(data.waits, L);
const blocked = intervals(data.blocked, L);
const path = intervals(data.path, L);
// A layer's summary (html_report.cc SummaryGrid) where it had too many items to embed one by one:
// per lane, cells of the share covered (intervals) or of the density (arrows' starts), 0..255.
function summaryOf(src) {
  const s = src.summary;
  return s ? { buckets: s.buckets, width: s.span / s.buckets, busy: decode(s.busy, Uint8Array) } : null;
}
const msgsSum = summaryOf(data.messages), edgesSum = summaryOf(data.edges), waitsSum = summaryOf(data.waits),
  blockedSum = summaryOf(data.blocked), pathSum = summaryOf(data.path);
const joins = {
  count: data.path.joins.count, from: decode(data.path.joins.from, Uint32Array), to: decode(data.path.joins.to, Uint32Array),
  tFrom: decode(data.path.joins.t_from, Uint32Array), tTo: decode(data.path.joins.t_to, Uint32Array),
};
let span = data.span;
for (let i = 0; i < grains.start.length; ++i) span = Math.max(span, grains.start[i] + grains.dur[i]);
span = Math.max(1, span);

// ---- formatting -----------------------------------------------------------------------------
// Like the text reports: three decimals in the largest unit <= the value.
function fmtDuration(ns) {
  const a = Math.abs(ns);
  if (a >= 1e9) return (ns / 1e9).toFixed(3) + ' s';
  if (a >= 1e6) return (ns / 1e6).toFixed(3) + ' ms';
  if (a >= 1e3) return (ns / 1e3).toFixed(3) + ' us';
  return Math.round(ns) + ' ns';
}
function fmtPercent(f) { return (100 * f).toFixed(1) + ' %'; }
function el(tag, attrs, children) {
  const e = document.createElement(tag);
  if (attrs) for (const k in attrs) {
    if (k === 'text') e.textContent = attrs[k]; else if (k === 'class') e.className = attrs[k]; else e.setAttribute(k, attrs[k]);
  }
  (children || []).forEach(function (c) { if (c) e.appendChild(c); });
  return e;
}
function table(headers, rows, numericFrom) {
  const t = el('table');
  const head = el('tr');
  headers.forEach(function (h, i) { head.appendChild(el('th', { text: h, class: i >= numericFrom ? 'num' : '' })); });
  t.appendChild(el('thead', null, [head]));
  const body = el('tbody');
  rows.forEach(function (r) {
    const tr = el('tr');
    r.forEach(function (v, i) { tr.appendChild(el('td', { text: String(v), class: i >= numericFrom ? 'num' : '' })); });
    body.appendChild(tr);
  });
  t.appendChild(body);
  return t;
}
function facts(pairs) {
  const dl = el('dl', { class: 'facts' });
  pairs.forEach(function (p) { dl.appendChild(el('dt', { text: p[0] })); dl.appendChild(el('dd', { text: p[1] })); });
  return dl;
}

// ---- colours --------------------------------------------------------------------------------
// The same five stops as report/svg.cc LengthColor: pale blue (short) to dark red (long).
const LENGTH_STOPS = [[198, 219, 239], [107, 174, 214], [253, 208, 162], [253, 141, 60], [165, 15, 21]];
const lengthLo = Math.log(Math.max(1, data.grains.min_ns || 1));
const lengthHi = Math.log(Math.max(1, data.grains.max_ns || 1));
const lengthCache = new Map();
function lengthColorNs(ns) {
  const x = Math.log(Math.max(1, ns));
  let f = lengthHi > lengthLo ? (x - lengthLo) / (lengthHi - lengthLo) : 1;
  f = Math.min(1, Math.max(0, f));
  const bucket = Math.round(f * 64);
  let c = lengthCache.get(bucket);
  if (c) return c;
  const pos = bucket / 64 * (LENGTH_STOPS.length - 1);
  const i = Math.min(LENGTH_STOPS.length - 2, Math.floor(pos));
  const w = pos - i;
  const rgb = [0, 1, 2].map(function (k) { return Math.round(LENGTH_STOPS[i][k] * (1 - w) + LENGTH_STOPS[i + 1][k] * w); });
  c = 'rgb(' + rgb.join(',') + ')';
  lengthCache.set(bucket, c);
  return c;
}
// A summary cell's length class back to ns (report/lod.h: 1 + round(8 log2 ns)).
function classNs(c) { return Math.pow(2, (c - 1) / 8); }
const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7',
  '#9c755f', '#bab0ac', '#1f77b4', '#2ca02c', '#8c564b', '#17becf', '#bcbd22', '#7f7f7f'];
function regionColor(key) { return PALETTE[key % PALETTE.length]; }
// Colour by role (model/region_roles.h): blues for computation, oranges and reds for MPI, purple
// for thread and OpenMP synchronisation, greens for GPU work, greys for the rest.
const ROLE_COLORS = {
  grain: '#4e79a7', function: '#4e79a7', openmp: '#76b7b2', io: '#9c755f',
  point_to_point: '#f28e2b', one_sided: '#f28e2b', collective: '#e15759', barrier: '#b07aa1', wait: '#ff9da7',
  mpi_other: '#edc948', init_finalize: '#bab0ac', thread_sync: '#b07aa1',
  kernel: '#59a14f', gpu_memcpy: '#8cd17d', gpu_memset: '#8cd17d', comm_collective: '#e15759',
  gpu_launch: '#a0cbe8', device_sync: '#b07aa1', other: '#7f7f7f',
};
function roleOf(key) { return (data.regions[key] || { role: 'other' }).role; }
function roleColor(key) { return ROLE_COLORS[roleOf(key)] || '#7f7f7f'; }
// The colour of a region's boxes by the colouring chosen (colorSelect): 'region' or 'role'.
function keyColor(key, by) { return by === 'role' ? roleColor(key) : regionColor(key); }

// ---- page -----------------------------------------------------------------------------------
const info = data.tables.info || {};
const body = document.body;
body.appendChild(el('header', null, [
  el('h1', { text: 'grainscope: ' + data.source }),
  el('p', { class: 'sub', text: [info.format, lanes.length + ' locations',
    grains.count + (data.has_grains === false ? ' code regions (no grains)' : ' grain instances'),
    info.events + ' events', msgs.count + ' messages', 'span ' + fmtDuration(span * Q)].join(' \u00b7 ') }),
  el('nav', null, ['gantt:Gantt chart', 'time:Time', 'epa:EPA report', 'critpath:Critical path', 'waits:Wait states',
    'speedup:Speedup'].map(function (s) { const p = s.split(':'); return el('a', { href: '#' + p[0], text: p[1] }); })),
]));

// Toolbar
// Grains by length (the seed's view); other traces by role (computation, MPI, sync, GPU) first.
const colorSelect = el('select', { id: 'gs-color', title: 'Colour grains by' }, [
  el('option', { value: 'role', text: 'colour: role' }), el('option', { value: 'region', text: 'colour: region' }),
  el('option', { value: 'length', text: 'colour: length' })]);
colorSelect.value = data.has_grains ? 'length' : 'role';
const showMsgs = el('input', { type: 'checkbox', id: 'gs-show-messages', checked: '' });
const showEdges = el('input', { type: 'checkbox', id: 'gs-show-edges', checked: '' });
const showWaits = el('input', { type: 'checkbox', id: 'gs-show-waits', checked: '' });
const showBlocked = el('input', { type: 'checkbox', id: 'gs-show-blocked', checked: '' });
const showPath = el('input', { type: 'checkbox', id: 'gs-show-path', checked: '' });
const selectMode = el('input', { type: 'checkbox', id: 'gs-select-mode' });
const laneRegex = el('input', { type: 'text', id: 'gs-lane-filter', placeholder: 'lane filter (regex)', size: '18' });
function button(id, text, title) { return el('button', { id: id, text: text, title: title, type: 'button' }); }
const fitButton = button('gs-fit', 'Fit', 'Fit the whole trace to the screen (0)');
const zoomIn = button('gs-zoom-in', '+', 'Zoom in (+)');
const zoomOut = button('gs-zoom-out', '\u2212', 'Zoom out (-)');
const laneList = el('div', { class: 'lane-list' });
const laneChecks = lanes.map(function (lane, i) {
  const cb = el('input', { type: 'checkbox', checked: '', 'data-lane': String(i) });
  laneList.appendChild(el('label', null, [cb, document.createTextNode(' ' + lane.name)]));
  return cb;
});
const allButton = button('gs-lanes-all', 'all', 'Show every lane');
const noneButton = button('gs-lanes-none', 'none', 'Hide every lane');
function label(input, text) { return el('label', null, [input, document.createTextNode(' ' + text)]); }
const toolbar = el('div', { class: 'toolbar' }, [
  fitButton, zoomIn, zoomOut, colorSelect, label(showMsgs, 'messages'),
  label(showEdges, 'launches, syncs, collectives'), label(showWaits, 'wait states'),
  label(showBlocked, 'blocked'), label(showPath, 'critical path'), label(selectMode, 'drag selects'), laneRegex,
  el('details', { class: 'lanes' }, [el('summary', { text: 'lanes' }), el('div', null, [allButton, noneButton]), laneList]),
]);
const canvas = el('canvas', { id: 'gs-canvas', tabindex: '0' });
const tooltip = el('div', { id: 'gs-tooltip', class: 'tooltip' });
const status = el('div', { id: 'gs-status', class: 'status' });
const legend = el('div', { class: 'legend' });
body.appendChild(el('section', { id: 'gantt' }, [el('h2', { text: 'Gantt chart' }), toolbar,
  el('div', { class: 'chart' }, [canvas, tooltip]), status, legend,
  el('p', { class: 'help', text: 'Wheel or +/- zoom, drag or arrow keys pan, shift+drag (or "drag selects") zooms ' +
    'into a selection, 0 fits the trace. Dark stripe: blocked (lock, condition, join, barrier, MPI wait), ' +
    'not working. Shaded red: wait states. Black bar: the critical path.' })]));

// ---- view -----------------------------------------------------------------------------------
const LABEL_W = 150, AXIS_H = 24;
const state = { t0: 0, t1: span, laneH: 20, visible: [], drag: null };
const gs = window.gs = { data: data, view: { t0: 0, t1: span * Q }, stats: {}, render: null };

// Lanes grouped under their process (an MPI rank's threads under the rank, a process's GPU streams
// under it), the process's own lane first; within a group in the trace's order.
const laneOrder = (function () {
  const groupRank = new Map();
  lanes.forEach(function (lane) { if (!groupRank.has(lane.group)) groupRank.set(lane.group, groupRank.size); });
  return lanes.map(function (lane, i) { return i; }).sort(function (a, b) {
    const ga = groupRank.get(lanes[a].group), gb = groupRank.get(lanes[b].group);
    if (ga !== gb) return ga - gb;
    const la = lanes[a].name === lanes[a].group ? 0 : 1, lb = lanes[b].name === lanes[b].group ? 0 : 1;
    return la !== lb ? la - lb : a - b;
  });
})();
// A lane's label: a member of a group without the group's name in front ("MPI Rank 0:OMP thread
// 1" under "MPI Rank 0" reads "OMP thread 1"); the full name is on hover.
const laneLabel = lanes.map(function (lane) {
  const g = lane.group;
  if (lane.name === g || !lane.name.startsWith(g)) return lane.name;
  const rest = lane.name.slice(g.length).replace(/^[\s:/|-]+/, '');
  return rest || lane.name;
});
gs.laneOrder = laneOrder;
gs.laneLabel = laneLabel;

function visibleLanes() {
  let re = null;
  try { re = laneRegex.value ? new RegExp(laneRegex.value) : null; laneRegex.classList.remove('bad'); }
  catch (e) { laneRegex.classList.add('bad'); }
  const out = [];
  for (const l of laneOrder) if (laneChecks[l].checked && (!re || re.test(lanes[l].name))) out.push(l);
  return out;
}

// Reading clientWidth may lay the page out: once per render (state.W), not per interval.
function plotWidth() { return Math.max(50, canvas.clientWidth - LABEL_W - 10); }
function xOf(t, pxPerQ) { return LABEL_W + (t - state.t0) * pxPerQ; }

// Setting fillStyle parses the colour: skip it when it is the one already set.
let lastFill = null;
function setFill(ctx, color) {
  if (color !== lastFill) { ctx.fillStyle = color; lastFill = color; }
}

// Draws intervals of one lane, merging those narrower than a pixel into one bar per pixel
// column; `colorOf(i)` gives an interval's colour; returns [intervals drawn, rectangles].
// Lane l's cells of summary `sum` in view: one rectangle per pixel column (or per bucket, when a
// bucket is wider), in `color` at `alpha` times the cells' mean share. Returns the rectangles.
function drawSummary(ctx, sum, l, y, h, pxPerQ, color, alpha) {
  const b0 = Math.max(0, Math.floor(state.t0 / sum.width)), b1 = Math.min(sum.buckets - 1, Math.floor(state.t1 / sum.width));
  const row = l * sum.buckets, right = LABEL_W + state.W;
  let px = -1, pw = 1, total = 0, cells = 0, rects = 0;
  setFill(ctx, color);
  function flush() {
    if (cells === 0 || total === 0) return;
    const x = Math.max(LABEL_W, px);
    ctx.globalAlpha = alpha * Math.max(0.2, total / cells / 255);
    ctx.fillRect(x, y, Math.max(1, Math.min(right, px + pw) - x), h);
    ++rects;
  }
  for (let b = b0; b <= b1; ++b) {
    const x0 = Math.floor(xOf(b * sum.width, pxPerQ)), x1 = Math.floor(xOf((b + 1) * sum.width, pxPerQ));
    if (x0 >= right) break;
    if (x0 !== px) { flush(); px = x0; total = 0; cells = 0; }
    pw = Math.max(1, x1 - px);
    total += sum.busy[row + b]; ++cells;
  }
  flush();
  ctx.globalAlpha = 1;
  return rects;
}

function drawIntervals(ctx, iv, l, y, h, pxPerQ, colorOf) {
  const t0 = state.t0, t1 = state.t1;
  const lo = iv.first[l], hi = iv.first[l + 1];
  let i = lowerBound(iv.start, lo, hi, Math.max(0, t0 - iv.maxDur[l]));
  let n = 0, rects = 0, px = -1, pxColor = null, pxLongest = -1;
  function flush() {
    if (px >= 0) { setFill(ctx, pxColor); ctx.fillRect(px, y, 1, h); ++rects; px = -1; }
  }
  for (; i < hi && iv.start[i] <= t1; ++i) {
    const s = iv.start[i], e = s + iv.dur[i];
    if (e < t0) continue;
    ++n;
    const x0 = Math.max(LABEL_W, xOf(s, pxPerQ)), x1 = Math.min(LABEL_W + state.W, xOf(e, pxPerQ));
    if (x1 - x0 >= 1) {
      flush();
      setFill(ctx, colorOf(i));
      ctx.fillRect(x0, y, x1 - x0, h);
      ++rects;
    } else {
      const p = Math.floor(x0);
      if (p !== px) { flush(); px = p; pxLongest = -1; }
      if (iv.dur[i] > pxLongest) { pxLongest = iv.dur[i]; pxColor = colorOf(i); }
    }
  }
  flush();
  return [n, rects];
}

// Grains of one lane from a summary level: one bar per pixel column, opacity by busy share.
function drawLevel(ctx, lv, l, y, h, pxPerQ, by) {
  const W = state.W;
  const row = l * lv.buckets;
  const b0 = Math.max(0, Math.floor(state.t0 / lv.width)), b1 = Math.min(lv.buckets - 1, Math.floor(state.t1 / lv.width));
  let rects = 0;
  let px = -1, busy = 0, cells = 0, len = 0, key = 0, keyBusy = -1;
  function flush() {
    if (px < 0 || len === 0) return;
    const alpha = 0.25 + 0.75 * Math.round(16 * Math.min(1, busy / cells / 255)) / 16;
    if (ctx.globalAlpha !== alpha) ctx.globalAlpha = alpha;
    setFill(ctx, by === 'length' ? lengthColorNs(classNs(len)) : keyColor(key, by));
    ctx.fillRect(px, y, 1, h);
    ++rects;
  }
  for (let b = b0; b <= b1; ++b) {
    const p = Math.floor(xOf(b * lv.width, pxPerQ));
    if (p >= LABEL_W + W) break;
    if (p !== px) { flush(); px = Math.max(LABEL_W, p); busy = 0; cells = 0; len = 0; keyBusy = -1; }
    const c = row + b;
    busy += lv.busy[c]; ++cells;
    if (lv.length[c] > len) len = lv.length[c];
    if (lv.length[c] && lv.busy[c] > keyBusy) { keyBusy = lv.busy[c]; key = lv.key[c]; }
  }
  flush();
  ctx.globalAlpha = 1;
  return rects;
}

function niceStep(range, target) {
  const raw = range / target, p = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

function render() {
  const started = performance.now();
  const vis = state.visible = visibleLanes();
  const W = state.W = plotWidth();
  state.laneH = Math.max(4, Math.min(24, Math.floor(600 / Math.max(1, vis.length))));
  const H = AXIS_H + vis.length * state.laneH + 6;
  const dpr = window.devicePixelRatio || 1;
  const cssW = canvas.clientWidth;
  canvas.style.height = H + 'px';
  canvas.width = Math.round(cssW * dpr);
  canvas.height = Math.round(H * dpr);
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  lastFill = null;
  setFill(ctx, '#fff');
  ctx.fillRect(0, 0, cssW, H);
  const pxPerQ = W / (state.t1 - state.t0);
  const laneH = state.laneH, barH = Math.max(2, laneH - 4);
  const by = colorSelect.value;

  // Time axis.
  ctx.font = '11px sans-serif';
  setFill(ctx, '#333');
  ctx.strokeStyle = '#ccc';
  const stepQ = niceStep(state.t1 - state.t0, Math.max(2, W / 110));
  for (let t = Math.ceil(state.t0 / stepQ) * stepQ; t <= state.t1; t += stepQ) {
    const x = xOf(t, pxPerQ);
    ctx.beginPath(); ctx.moveTo(x + 0.5, AXIS_H - 6); ctx.lineTo(x + 0.5, H); ctx.stroke();
    ctx.fillText(fmtDuration(t * Q), x + 2, AXIS_H - 10);
  }

  // Which grain data: one by one when few are in view, else the coarsest summary level whose
  // buckets are at most a pixel wide.
  let inView = 0;
  if (hasRaw) {
    for (const l of vis) {
      const lo = grains.first[l], hi = grains.first[l + 1];
      inView += lowerBound(grains.start, lo, hi, state.t1 + 1) - lowerBound(grains.start, lo, hi, Math.max(0, state.t0 - grains.maxDur[l]));
    }
  }
  let level = null;
  if (levels.length && (!hasRaw || inView > 100000)) {
    const bucketMax = 1 / pxPerQ;
    for (const lv of levels) if (lv.width <= bucketMax) { level = lv; break; }
    if (!level && !hasRaw) level = levels[levels.length - 1];
  }
  const colorOf = function (i) {
    return by === 'length' ? lengthColorNs(grains.dur[i] * Q) : keyColor(grains.key[i], by);
  };
  let drawn = 0, rects = 0, blockedDrawn = 0, summaryRects = 0;
  vis.forEach(function (l, row) {
    const y = AXIS_H + row * laneH;
    if (row % 2 === 1) { setFill(ctx, '#f6f6f6'); ctx.fillRect(LABEL_W, y, W, laneH); }
    setFill(ctx, '#222');
    const text = laneLabel[l], indent = lanes[l].group === lanes[l].name ? 4 : 14;
    const room = Math.floor((LABEL_W - indent - 4) / 6.2);  // characters of the 11px font that fit
    ctx.fillText(text.length > room ? text.slice(0, room - 1) + '\u2026' : text, indent, y + laneH / 2 + 4);
    ctx.save();
    ctx.beginPath(); ctx.rect(LABEL_W, y, W, laneH); ctx.clip();
    if (level) {
      rects += drawLevel(ctx, level, l, y + 2, barH, pxPerQ, by);
      drawn += lanes[l].grains;  // every grain of the lane is summarised in the level
    } else {
      const r = drawIntervals(ctx, grains, l, y + 2, barH, pxPerQ, colorOf);
      drawn += r[0]; rects += r[1];
    }
    const stripeY = y + Math.round(laneH * 0.3), stripeH = Math.max(2, Math.round(laneH * 0.4));
    if (showBlocked.checked && blocked.embedded) {
      // A dark stripe through the middle of the bar: the location is blocked, not working.
      const r = drawIntervals(ctx, blocked, l, stripeY, stripeH, pxPerQ, function () { return '#303030'; });
      blockedDrawn += r[0];
    } else if (showBlocked.checked && blockedSum) {
      summaryRects += drawSummary(ctx, blockedSum, l, stripeY, stripeH, pxPerQ, '#303030', 1);
    }
    if (showWaits.checked && waits.embedded) {
      ctx.globalAlpha = 0.45;
      drawIntervals(ctx, waits, l, y + 1, laneH - 2, pxPerQ, function () { return '#e03030'; });
      ctx.globalAlpha = 1;
    } else if (showWaits.checked && waitsSum) {
      summaryRects += drawSummary(ctx, waitsSum, l, y + 1, laneH - 2, pxPerQ, '#e03030', 0.45);
    }
    // Arrows too many to embed: a strip along the lane's top where they start (messages, then
    // launches, syncs and collectives), darker where more start.
    if (showMsgs.checked && !msgs.embedded && msgsSum) summaryRects += drawSummary(ctx, msgsSum, l, y, 2, pxPerQ, 'rgb(40,40,160)', 1);
    if (showEdges.checked && !edges.embedded && edgesSum) summaryRects += drawSummary(ctx, edgesSum, l, y + 2, 2, pxPerQ, 'rgb(110,110,110)', 1);
    ctx.restore();
    lastFill = null;  // restore() brought back an older fillStyle
  });
  if (level) drawn = inView || drawn;

  // Critical path: a black bar under each stretch, and lines joining consecutive stretches.
  const rowOf = new Int32Array(L).fill(-1);
  vis.forEach(function (l, row) { rowOf[l] = row; });
  if (showPath.checked && !path.embedded && pathSum) {
    vis.forEach(function (l, row) {
      summaryRects += drawSummary(ctx, pathSum, l, AXIS_H + row * laneH + laneH - 4, 3, pxPerQ, '#000', 1);
    });
  }
  if (showPath.checked && path.embedded) {
    vis.forEach(function (l, row) {
      drawIntervals(ctx, path, l, AXIS_H + row * laneH + laneH - 4, 3, pxPerQ, function () { return '#000'; });
    });
    let inViewJoins = 0;
    for (let i = 0; i < joins.count; ++i) if (joins.tTo[i] >= state.t0 && joins.tFrom[i] <= state.t1) ++inViewJoins;
    if (inViewJoins <= 5000) {
      ctx.save();
      ctx.beginPath(); ctx.rect(LABEL_W, AXIS_H, W, H - AXIS_H); ctx.clip();
      ctx.strokeStyle = '#000';
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      for (let i = 0; i < joins.count; ++i) {
        const a = rowOf[joins.from[i]], b = rowOf[joins.to[i]];
        if (a < 0 || b < 0 || joins.tTo[i] < state.t0 || joins.tFrom[i] > state.t1) continue;
        ctx.moveTo(xOf(joins.tFrom[i], pxPerQ), AXIS_H + a * laneH + laneH - 3);
        ctx.lineTo(xOf(joins.tTo[i], pxPerQ), AXIS_H + b * laneH + laneH - 3);
      }
      ctx.stroke();
      ctx.restore();
      lastFill = null;
      ctx.lineWidth = 1;
    }
  }

  // Arrows (messages; launches, syncs and collectives), when few enough are in view to tell
  // apart: returns how many are in view, and counts those drawn in `arrowCount`.
  const arrowCount = { drawn: 0 };
  function drawArrows(set, colorOf) {
    let inView = 0;
    for (let m = 0; m < set.embedded; ++m) {
      if (set.recv[m] >= state.t0 && set.send[m] <= state.t1 && rowOf[set.from[m]] >= 0 && rowOf[set.to[m]] >= 0) ++inView;
    }
    if (inView > 3000) return inView;
    ctx.save();
    ctx.beginPath(); ctx.rect(LABEL_W, AXIS_H, W, H - AXIS_H); ctx.clip();
    for (let m = 0; m < set.embedded; ++m) {
      const a = rowOf[set.from[m]], b = rowOf[set.to[m]];
      if (a < 0 || b < 0 || set.recv[m] < state.t0 || set.send[m] > state.t1) continue;
      const color = colorOf(m);
      ctx.strokeStyle = color;
      setFill(ctx, color);
      const x0 = xOf(set.send[m], pxPerQ), y0 = AXIS_H + a * laneH + laneH / 2;
      const x1 = xOf(set.recv[m], pxPerQ), y1 = AXIS_H + b * laneH + laneH / 2;
      ctx.beginPath(); ctx.moveTo(x0, y0); ctx.lineTo(x1, y1); ctx.stroke();
      const ang = Math.atan2(y1 - y0, x1 - x0);
      ctx.beginPath(); ctx.moveTo(x1, y1);
      ctx.lineTo(x1 - 6 * Math.cos(ang - 0.4), y1 - 6 * Math.sin(ang - 0.4));
      ctx.lineTo(x1 - 6 * Math.cos(ang + 0.4), y1 - 6 * Math.sin(ang + 0.4));
      ctx.fill();
      ++arrowCount.drawn;
    }
    ctx.restore();
    lastFill = null;
    return inView;
  }
  const msgsInView = showMsgs.checked && msgs.embedded ? drawArrows(msgs, function () { return 'rgba(40,40,160,0.8)'; }) : 0;
  const arrows = arrowCount.drawn;
  const edgesInView = showEdges.checked && edges.embedded
    ? drawArrows(edges, function (m) { return EDGE_COLORS[edges.kind[m]] || EDGE_COLORS[2]; }) : 0;
  const edgeArrows = arrowCount.drawn - arrows;

  // Selection rubber band.
  if (state.drag && state.drag.select) {
    const a = Math.min(state.drag.x0, state.drag.x), b = Math.max(state.drag.x0, state.drag.x);
    setFill(ctx, 'rgba(30,120,255,0.15)'); ctx.strokeStyle = 'rgba(30,120,255,0.9)';
    ctx.fillRect(a, AXIS_H, b - a, H - AXIS_H); ctx.strokeRect(a + 0.5, AXIS_H + 0.5, b - a, H - AXIS_H - 1);
  }

  gs.view = { t0: state.t0 * Q, t1: state.t1 * Q };
  gs.stats = { lanes: vis.length, grains: drawn, rects: rects, lod: level ? 'level:' + level.buckets : 'grains',
    messagesInView: msgsInView, arrows: arrows, edgesInView: edgesInView, edgeArrows: edgeArrows, blocked: blockedDrawn, summaryRects: summaryRects, renderMs: performance.now() - started };
  body.dataset.lanes = String(vis.length);
  body.dataset.grains = String(drawn);
  body.dataset.rects = String(rects);
  body.dataset.lod = gs.stats.lod;
  body.dataset.t0 = String(gs.view.t0);
  body.dataset.t1 = String(gs.view.t1);
  status.textContent = 'view ' + fmtDuration(state.t0 * Q) + ' \u2013 ' + fmtDuration(state.t1 * Q) +
    ' (' + fmtDuration((state.t1 - state.t0) * Q) + ') \u00b7 ' + vis.length + ' of ' + L + ' lanes \u00b7 ' +
    drawn + (data.has_grains === false ? ' regions' : ' grains') + (level ? ' (summary level of ' + level.buckets + ' buckets per lane)' : '') +
    (showMsgs.checked ? ' \u00b7 ' + (msgsInView > 3000 ? msgsInView + ' messages in view: zoom in for arrows'
      : arrows + ' message arrows') : '') +
    (showEdges.checked && edges.embedded ? ' \u00b7 ' + (edgesInView > 3000 ? edgesInView + ' launch/sync/collective arrows in view: zoom in'
      : edgeArrows + ' launch/sync/collective arrows') : '') +
    (hasRaw ? '' : ' \u00b7 ' + grains.count + ' grains: too many to embed one by one, the summary shows them') +
    leftOut('messages', msgs, msgsSum) + leftOut('launch/sync/collective arrows', edges, edgesSum) +
    leftOut('wait states', waits, waitsSum) + leftOut('blocked periods', blocked, blockedSum) +
    leftOut('critical-path stretches', path, pathSum);
}
gs.render = render;

// What the status line says of a layer the page did not embed one by one.
function leftOut(name, set, sum) {
  if (set.embedded >= set.count) return '';
  return ' \u00b7 ' + set.count + ' ' + name + (sum ? ': too many to embed, drawn as a summary' : ' not embedded');
}

function setView(t0, t1) {
  const minSpan = Math.min(span, 4);
  if (t1 - t0 < minSpan) { const c = (t0 + t1) / 2; t0 = c - minSpan / 2; t1 = c + minSpan / 2; }
  const margin = span * 0.05;
  if (t1 - t0 > span + 2 * margin) { t0 = -margin; t1 = span + margin; }
  if (t0 < -margin) { t1 += -margin - t0; t0 = -margin; }
  if (t1 > span + margin) { t0 -= t1 - span - margin; t1 = span + margin; }
  state.t0 = t0; state.t1 = t1;
  render();
}
function zoom(factor, center) {
  if (center === undefined) center = (state.t0 + state.t1) / 2;
  setView(center - (center - state.t0) / factor, center + (state.t1 - center) / factor);
}
function pan(fraction) {
  const d = (state.t1 - state.t0) * fraction;
  setView(state.t0 + d, state.t1 + d);
}
function fit() { state.t0 = 0; state.t1 = span; render(); }
gs.zoom = zoom; gs.pan = pan; gs.fit = fit; gs.setView = function (t0ns, t1ns) { setView(t0ns / Q, t1ns / Q); };

function timeAt(clientX) {
  const r = canvas.getBoundingClientRect();
  return state.t0 + (clientX - r.left - LABEL_W) / plotWidth() * (state.t1 - state.t0);
}

canvas.addEventListener('wheel', function (e) {
  e.preventDefault();
  zoom(Math.exp(-e.deltaY * 0.002), timeAt(e.clientX));
}, { passive: false });
canvas.addEventListener('mousedown', function (e) {
  if (e.button !== 0) return;
  const r = canvas.getBoundingClientRect();
  state.drag = { select: e.shiftKey || selectMode.checked, x0: e.clientX - r.left, x: e.clientX - r.left,
    t0: state.t0, t1: state.t1 };
  e.preventDefault();
  canvas.focus();
});
window.addEventListener('mousemove', function (e) {
  if (!state.drag) { hover(e); return; }
  const r = canvas.getBoundingClientRect();
  state.drag.x = e.clientX - r.left;
  if (state.drag.select) { render(); return; }
  const dt = (state.drag.x - state.drag.x0) / plotWidth() * (state.drag.t1 - state.drag.t0);
  setView(state.drag.t0 - dt, state.drag.t1 - dt);
});
window.addEventListener('mouseup', function () {
  const d = state.drag;
  state.drag = null;
  if (!d) return;
  if (d.select && Math.abs(d.x - d.x0) >= 3) {
    const r = canvas.getBoundingClientRect();
    const a = timeAt(r.left + Math.min(d.x0, d.x)), b = timeAt(r.left + Math.max(d.x0, d.x));
    setView(a, b);
  } else {
    render();
  }
});
document.addEventListener('keydown', function (e) {
  if ((e.target instanceof HTMLInputElement && e.target.type === 'text') || e.target instanceof HTMLSelectElement) return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  switch (e.key) {
    case '+': case '=': zoom(2); break;
    case '-': case '_': zoom(0.5); break;
    case 'ArrowLeft': pan(-0.1); break;
    case 'ArrowRight': pan(0.1); break;
    case '0': case 'Home': fit(); break;
    default: return;
  }
  e.preventDefault();
});
fitButton.addEventListener('click', fit);
zoomIn.addEventListener('click', function () { zoom(2); });
zoomOut.addEventListener('click', function () { zoom(0.5); });
[colorSelect, showMsgs, showEdges, showWaits, showBlocked, showPath].forEach(function (c) { c.addEventListener('change', function () { render(); drawLegend(); }); });
laneRegex.addEventListener('input', render);
laneChecks.forEach(function (c) { c.addEventListener('change', render); });
allButton.addEventListener('click', function () { laneChecks.forEach(function (c) { c.checked = true; }); render(); });
noneButton.addEventListener('click', function () { laneChecks.forEach(function (c) { c.checked = false; }); render(); });
window.addEventListener('resize', render);
window.addEventListener('beforeprint', render);

// Tooltip: the grain (and wait) under the mouse, when grains are embedded one by one.
function hover(e) {
  const r = canvas.getBoundingClientRect();
  const x = e.clientX - r.left, y = e.clientY - r.top;
  tooltip.style.display = 'none';
  if (x > r.width || y < AXIS_H || y > r.height) return;
  const row = Math.floor((y - AXIS_H) / state.laneH);
  if (row >= state.visible.length) return;
  if (x < LABEL_W) {  // the label: the lane's full name and what it is
    const lane = lanes[state.visible[row]];
    showTooltip(lane.name + ' (' + lane.kind + (lane.group !== lane.name ? ', in ' + lane.group : '') + ')', x, y, r);
    return;
  }
  if (!hasRaw) return;
  const l = state.visible[row], t = timeAt(e.clientX), tol = 2 / plotWidth() * (state.t1 - state.t0);
  const lo = grains.first[l], hi = grains.first[l + 1];
  for (let i = lowerBound(grains.start, lo, hi, Math.max(0, t - grains.maxDur[l] - tol)); i < hi && grains.start[i] <= t + tol; ++i) {
    if (grains.start[i] + grains.dur[i] + tol < t) continue;
    const region = data.regions[grains.key[i]] || { name: '?' };
    showTooltip(lanes[l].name + ': ' + region.name + ' [' + region.role + '] \u00b7 ' + fmtDuration(grains.start[i] * Q) +
      ' \u2013 ' + fmtDuration((grains.start[i] + grains.dur[i]) * Q) + ' (' + fmtDuration(grains.dur[i] * Q) + ')' +
      blockedAt(l, t), x, y, r);
    return;
  }
}
function showTooltip(text, x, y, r) {
  tooltip.textContent = text;
  tooltip.style.left = Math.min(x + 12, r.width - 260) + 'px';
  tooltip.style.top = (y + 14) + 'px';
  tooltip.style.display = 'block';
}
// " · blocked in lock for 10.000 ms" when lane l is blocked at page time t.
function blockedAt(l, t) {
  const lo = blocked.first[l], hi = blocked.first[l + 1];
  for (let i = lowerBound(blocked.start, lo, hi, Math.max(0, t - blocked.maxDur[l])); i < hi && blocked.start[i] <= t; ++i) {
    if (blocked.start[i] + blocked.dur[i] < t) continue;
    return ' \u00b7 blocked in ' + (data.blocked.causes[blocked.key[i]] || '?') + ' for ' + fmtDuration(blocked.dur[i] * Q);
  }
  return '';
}
canvas.addEventListener('mouseleave', function () { tooltip.style.display = 'none'; });

function drawLegend() {
  legend.textContent = '';
  if (colorSelect.value === 'length') {
    const bar = el('span', { class: 'ramp' });
    bar.style.background = 'linear-gradient(to right,' + LENGTH_STOPS.map(function (c) { return 'rgb(' + c.join(',') + ')'; }).join(',') + ')';
    legend.appendChild(el('span', { text: 'grain length: ' + fmtDuration(data.grains.min_ns || 0) + ' ' }));
    legend.appendChild(bar);
    legend.appendChild(el('span', { text: ' ' + fmtDuration(data.grains.max_ns || 0) + ' (log scale)' }));
  } else {
    const by = colorSelect.value, used = new Set(), items = new Map();
    for (let i = 0; i < grains.key.length && used.size < 4000; ++i) used.add(grains.key[i]);
    for (const lv of levels) for (let i = 0; i < lv.key.length && used.size < 4000; ++i) if (lv.length[i]) used.add(lv.key[i]);
    // One entry per colour: per role, or per region (at most 40).
    Array.from(used).sort(function (a, b) { return a - b; }).forEach(function (k) {
      const name = by === 'role' ? roleOf(k) : (data.regions[k] || { name: '?' }).name;
      if (!items.has(name) && (by === 'role' || items.size < 40)) items.set(name, keyColor(k, by));
    });
    items.forEach(function (color, name) {
      const sw = el('span', { class: 'swatch' });
      sw.style.background = color;
      legend.appendChild(el('span', { class: 'item' }, [sw, document.createTextNode(' ' + name)]));
    });
  }
}

// Called by page.html once tables.js is in: the tables first, so the page (and its scrollbar)
// has its final layout when the chart takes its width.
function start() {
  buildTables();
  drawLegend();
  render();
  gs.firstRenderMs = performance.now();  // since navigation start: parsing, decoding and drawing
  body.dataset.ready = '1';
}
