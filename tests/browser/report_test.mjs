// Browser test of `grainscope html` (ctest browser_report): records the pi example, writes its
// report, opens it in headless chromium from file:// and checks what a person would: every lane
// and grain drawn, zoom by keyboard and wheel, pan by drag, zoom into a selection, lane filter,
// a non-blank screenshot, no network access, the print layout; and on a threaded trace the
// blocked periods.
//   node report_test.mjs --grainscope build/bin/grainscope --example-pi build/bin/example_pi --work DIR
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { launchOrSkip, openReport } from './chromium.mjs';

function arg(name) {
  const i = process.argv.indexOf(name);
  if (i < 0 || i + 1 >= process.argv.length) throw new Error(`missing ${name}`);
  return process.argv[i + 1];
}
const grainscope = arg('--grainscope');
const examplePi = arg('--example-pi');
const work = arg('--work');
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });

// Distinct colours of an 8-bit RGB(A) PNG, non-interlaced (what chromium writes).
function pngColours(buf) {
  assert.equal(buf.subarray(1, 4).toString(), 'PNG');
  let off = 8, width = 0, height = 0, channels = 0;
  const idat = [];
  while (off < buf.length) {
    const len = buf.readUInt32BE(off), type = buf.subarray(off + 4, off + 8).toString();
    const body = buf.subarray(off + 8, off + 8 + len);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0); height = body.readUInt32BE(4);
      assert.equal(body[8], 8, 'bit depth');
      channels = { 2: 3, 6: 4 }[body[9]];
      assert.ok(channels, 'colour type RGB or RGBA');
    } else if (type === 'IDAT') idat.push(body);
    off += 12 + len;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * channels, prev = Buffer.alloc(stride), cur = Buffer.alloc(stride);
  const colours = new Set();
  for (let y = 0; y < height; ++y) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; ++x) {
      const a = x >= channels ? cur[x - channels] : 0, b = prev[x], c = x >= channels ? prev[x - channels] : 0;
      let v = line[x];
      if (filter === 1) v += a;
      else if (filter === 2) v += b;
      else if (filter === 3) v += (a + b) >> 1;
      else if (filter === 4) { const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c); v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c; }
      cur[x] = v & 255;
    }
    for (let x = 0; x < stride; x += channels) colours.add((cur[x] << 16) | (cur[x + 1] << 8) | cur[x + 2]);
    cur.copy(prev);
  }
  return { width, height, colours: colours.size };
}

const trace = path.join(work, 'pi.gst');
execFileSync(examplePi, [], { env: { ...process.env, GRAINSCOPE_TRACE: trace }, stdio: 'ignore' });
const info = JSON.parse(execFileSync(grainscope, ['info', '--format', 'json', trace]).toString());
const gantt = JSON.parse(execFileSync(grainscope, ['gantt', '--format', 'json', trace]).toString());
const instances = gantt.processors.reduce((n, p) => n + p.tasks.length, 0);
const report = path.join(work, 'pi.html');
execFileSync(grainscope, ['html', trace, '-o', report, '--force']);  // the page of the last run

const browser = await launchOrSkip();
let failed = false;
try {
  const { page, external, errors } = await openReport(browser, report);
  const stats = () => page.evaluate(() => ({ ...window.gs.stats, t0: window.gs.view.t0, t1: window.gs.view.t1,
    lanes: Number(document.body.dataset.lanes), grains: Number(document.body.dataset.grains) }));
  const check = (name, f) => { console.log('ok - ' + name); return f; };

  let s = await stats();
  assert.equal(s.lanes, info.locations, 'every location has a lane');
  assert.equal(s.grains, instances, 'every grain instance is drawn');
  assert.equal(s.grains, info.grains, 'the pi example runs each of its grains once');
  // Grains narrower than a pixel share their pixel column's bar: at most one rectangle per grain.
  assert.ok(s.rects >= info.locations && s.rects <= instances, `${s.rects} rectangles for ${instances} grains`);
  check(`${s.lanes} lanes and ${s.grains} grains drawn (info: ${info.locations} locations, ${info.grains} grains)`);
  const full = s.t1 - s.t0;

  const canvas = page.locator('#gs-canvas');
  const box = await canvas.boundingBox();
  await canvas.focus();
  await page.keyboard.press('+');
  s = await stats();
  assert.ok(Math.abs((s.t1 - s.t0) - full / 2) < full * 1e-6, `'+' halves the visible range (${s.t1 - s.t0} of ${full})`);
  await page.keyboard.press('ArrowRight');
  const afterPan = await stats();
  assert.ok(afterPan.t0 > s.t0, 'the right arrow pans later');
  await page.keyboard.press('0');
  s = await stats();
  assert.equal(s.t1 - s.t0, full, "'0' fits the trace");
  check('keyboard zoom, pan and fit');

  await page.mouse.move(box.x + box.width * 0.6, box.y + 60);
  await page.mouse.wheel(0, -400);
  await page.waitForFunction((f) => window.gs.view.t1 - window.gs.view.t0 < f * 0.9, full);
  s = await stats();
  check(`wheel zooms in: ${full} -> ${s.t1 - s.t0} ns`);

  await page.keyboard.press('0');
  const y = box.y + 50;
  await page.mouse.move(box.x + 500, y);
  await page.mouse.down();
  await page.mouse.move(box.x + 400, y, { steps: 4 });
  await page.mouse.up();
  s = await stats();
  assert.ok(s.t0 > 0 && Math.abs((s.t1 - s.t0) - full) < full * 1e-6, 'a plain drag pans without zooming');
  check('drag pans');

  await page.keyboard.press('0');
  const plotX = box.x + 150, plotW = box.width - 160;
  await page.keyboard.down('Shift');
  await page.mouse.move(plotX + plotW * 0.25, y);
  await page.mouse.down();
  await page.mouse.move(plotX + plotW * 0.5, y, { steps: 5 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  s = await stats();
  const want0 = full * 0.25, want1 = full * 0.5;
  assert.ok(Math.abs(s.t0 - want0) < full * 0.01 && Math.abs(s.t1 - want1) < full * 0.01,
    `shift+drag zooms into the selection: got ${s.t0}..${s.t1}, want about ${want0}..${want1}`);
  check('selection zoom');

  await page.keyboard.press('0');
  const firstLane = await page.evaluate(() => window.gs.data.lanes[0].name);
  await page.fill('#gs-lane-filter', '^' + firstLane.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$');
  s = await stats();
  assert.equal(s.lanes, 1, 'the regex filter keeps only the matching lane');
  await page.fill('#gs-lane-filter', '');
  await page.click('details.lanes > summary');
  await page.locator('.lane-list input').first().uncheck();
  s = await stats();
  assert.equal(s.lanes, info.locations - 1, 'unchecking a lane hides it');
  await page.locator('.lane-list input').first().check();
  await page.click('details.lanes > summary');
  check('lane filter (regex and checkboxes)');

  await page.selectOption('#gs-color', 'region');
  await page.selectOption('#gs-color', 'length');
  const png = await canvas.screenshot({ path: path.join(work, 'gantt.png') });
  const pic = pngColours(png);
  assert.ok(pic.colours >= 6, `the screenshot has ${pic.colours} colours: not blank`);
  const inPage = await page.evaluate(() => {
    const c = document.getElementById('gs-canvas');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let ink = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] < 200 || d[i + 1] < 200 || d[i + 2] < 200) ++ink;
    return ink / (d.length / 4);
  });
  assert.ok(inPage > 0.02, `${(100 * inPage).toFixed(1)} % of the canvas is drawn on`);
  check(`screenshot ${pic.width}x${pic.height} with ${pic.colours} colours, ${(100 * inPage).toFixed(1)} % ink`);

  const tables = await page.evaluate(() => ['epa', 'critpath', 'waits', 'speedup'].map((id) => {
    const sec = document.getElementById(id);
    return sec ? sec.querySelectorAll('table').length + (sec.querySelector('svg') ? 100 : 0) : -1;
  }));
  assert.ok(tables[0] >= 2 && tables[1] >= 1 && tables[2] >= 1 && tables[3] >= 100, `report sections: ${tables}`);
  check('EPA, critical-path, wait-state tables and the speedup figure');

  await page.emulateMedia({ media: 'print' });
  const toolbarShown = await page.evaluate(() => getComputedStyle(document.querySelector('.toolbar')).display !== 'none');
  assert.equal(toolbarShown, false, 'print hides the controls');
  check('print layout');

  assert.deepEqual(external, [], 'no network requests');
  assert.deepEqual(errors, [], 'no script errors');
  const first = await page.evaluate(() => window.gs.firstRenderMs);
  console.log(JSON.stringify({ trace: 'pi', page_bytes: fs.statSync(report).size, first_render_ms: Math.round(first) }));

  // A threaded trace: the periods threads were blocked (lock, condition, join, barrier) are drawn
  // as their own stripes, as many as `gantt` lists, and the checkbox hides them.
  const threads = new URL('../golden/inputs/threads.gst', import.meta.url).pathname;
  const threadGantt = JSON.parse(execFileSync(grainscope, ['gantt', '--format', 'json', threads]).toString());
  const blockedSpans = threadGantt.processors.reduce((n, p) => n + p.blocked.length, 0);
  const threadReport = path.join(work, 'threads.html');
  execFileSync(grainscope, ['html', threads, '-o', threadReport]);
  const t = await openReport(browser, threadReport);
  const blockedDrawn = () => t.page.evaluate(() => window.gs.stats.blocked);
  assert.ok(blockedSpans > 0, 'the threads trace has blocked periods');
  assert.equal(await blockedDrawn(), blockedSpans, 'every blocked period is drawn');
  await t.page.click('#gs-show-blocked');
  assert.equal(await blockedDrawn(), 0, 'unticking "blocked" hides them');
  assert.deepEqual(t.errors, [], 'no script errors');
  check(`${blockedSpans} blocked periods of the threads trace drawn, and hidden on request`);

  // Layers with more items than the page embeds (here: every one, --embed-limit 0) are drawn as
  // summaries of where they lie, the status line says so, and each checkbox still hides its layer.
  const summaryReport = path.join(work, 'threads-summary.html');
  execFileSync(grainscope, ['html', threads, '-o', summaryReport, '--embed-limit', '0']);
  const u = await openReport(browser, summaryReport);
  const summaryRects = () => u.page.evaluate(() => window.gs.stats.summaryRects);
  const embedded = await u.page.evaluate(() => ['waits', 'blocked', 'path'].map((k) => window.gs.data[k].embedded));
  assert.deepEqual(embedded, [0, 0, 0], 'nothing embedded one by one');
  const all = await summaryRects();
  assert.ok(all > 0, `summary cells drawn: ${all}`);
  const statusLine = await u.page.evaluate(() => document.getElementById('gs-status').textContent);
  assert.match(statusLine, /wait states: too many to embed, drawn as a summary/);
  assert.match(statusLine, /critical-path stretches: too many to embed, drawn as a summary/);
  await u.page.click('#gs-show-waits');
  const withoutWaits = await summaryRects();
  assert.ok(withoutWaits < all, `unticking wait states removes their summary: ${all} -> ${withoutWaits}`);
  assert.deepEqual(u.errors, [], 'no script errors');
  check(`layers beyond the embed limit drawn as summaries (${all} cells), named in the status line`);

  // A PyTorch profiler trace: the launches from the CPU thread to its GPU stream and the stream
  // synchronisation are arrows of their own, every one drawn when the whole run is in view, and
  // the checkbox hides them.
  const kineto = new URL('../golden/inputs/kineto_small.json', import.meta.url).pathname;
  const kinetoReport = path.join(work, 'kineto.html');
  execFileSync(grainscope, ['html', kineto, '-o', kinetoReport], { stdio: ['ignore', 'ignore', 'ignore'] });
  const k = await openReport(browser, kinetoReport);
  const edgeStats = () => k.page.evaluate(() => ({ embedded: window.gs.data.edges.embedded, drawn: window.gs.stats.edgeArrows }));
  const e = await edgeStats();
  assert.ok(e.embedded >= 2, `launch and sync arrows embedded: ${e.embedded}`);
  assert.equal(e.drawn, e.embedded, 'every launch/sync arrow is drawn');
  await k.page.click('#gs-show-edges');
  assert.equal((await edgeStats()).drawn, 0, 'unticking the checkbox hides them');
  const gpuHeads = await k.page.evaluate(() => Array.from(document.querySelectorAll('section#time h3'))
    .map((h) => h.textContent).filter((t) => t.startsWith('GPU')));
  assert.equal(gpuHeads.length, 3, `the GPU tables (per rank, per stream, by kernel): ${gpuHeads}`);
  assert.deepEqual(k.errors, [], 'no script errors');
  check(`${e.embedded} launch/sync arrows of a Kineto trace drawn, and hidden on request; its GPU tables shown`);

  // A hybrid MPI + OpenMP trace of a real program (corpus NPB BT-MZ, when ../shared/corpus is
  // there): the region view comes first, with the time classes, the profile by role and the
  // regions; lanes are grouped under their rank with short labels; boxes are coloured by role.
  const btmz = new URL('../../../shared/corpus/otf2-real/npb-btmz-B-8x4/traces.otf2', import.meta.url).pathname;
  if (!fs.existsSync(btmz)) {
    console.log(`skip: ${btmz} is absent (the corpus is not in this checkout): the BT-MZ page is not checked`);
  } else {
    const btmzReport = path.join(work, 'btmz.html');
    execFileSync(grainscope, ['html', btmz, '-o', btmzReport], { stdio: ['ignore', 'ignore', 'ignore'] });
    const b = await openReport(browser, btmzReport);
    const view = await b.page.evaluate(() => {
      const time = document.getElementById('time');
      const heads = (t) => Array.from(t.querySelectorAll('th')).map((th) => th.textContent);
      const tables = Array.from(time.querySelectorAll('table'));
      const next = time.nextElementSibling;
      return {
        first: document.querySelector('section#gantt').nextElementSibling.id,
        after: next ? next.id : '',
        heads: tables.map(heads),
        roles: Array.from(tables[1].querySelectorAll('tbody tr')).map((tr) => tr.firstChild.textContent),
        regionRows: tables[2].querySelectorAll('tbody tr').length,
        colour: document.getElementById('gs-color').value,
        legend: Array.from(document.querySelectorAll('.legend .item')).map((i) => i.textContent.trim()),
        order: window.gs.laneOrder.map((l) => window.gs.data.lanes[l].group),
        labels: window.gs.laneOrder.slice(0, 3).map((l) => window.gs.laneLabel[l]),
      };
    });
    assert.equal(view.first, 'time', 'the region view comes first on a trace without grains');
    assert.ok(view.heads[0].includes('thread / OpenMP / GPU synchronisation') && view.heads[0].includes('MPI synchronisation'),
      `time classes: ${view.heads[0]}`);
    assert.deepEqual(view.heads[1].slice(0, 4), ['role', 'regions', 'calls', 'exclusive']);
    assert.equal(view.roles[0], 'openmp', `roles by exclusive time: ${view.roles}`);
    assert.ok(view.regionRows >= 20, `${view.regionRows} region rows`);
    assert.equal(view.colour, 'role');
    assert.ok(view.legend.includes('openmp') && view.legend.includes('function'), `legend: ${view.legend}`);
    // Each rank's lanes together: the group changes only where a new one begins.
    const groups = view.order.filter((g, i) => i === 0 || g !== view.order[i - 1]);
    assert.equal(new Set(groups).size, groups.length, `lanes grouped by rank: ${groups}`);
    assert.ok(groups.length >= 8 && view.labels[0] === 'MPI Rank 0' && view.labels[1].startsWith('OMP thread'),
      `labels: ${view.labels}`);
    const shot = await b.page.screenshot({ path: path.join(work, 'btmz.png'), fullPage: false });
    assert.ok(pngColours(shot).colours >= 6, 'the BT-MZ page is drawn');
    // The region instances behind the region table, one click away (issue 33).
    const closed = await b.page.evaluate(() => document.getElementById('instances').open);
    await b.page.click('details#instances summary');
    const inst = await b.page.evaluate(() => {
      const d = document.getElementById('instances');
      return { open: d.open, summary: d.querySelector('summary').textContent,
        rows: Array.from(d.querySelectorAll('tbody tr')).map((tr) => Array.from(tr.children).map((td) => td.textContent)) };
    });
    assert.ok(!closed && inst.open, 'the instance table opens on a click');
    assert.equal(inst.rows.length, 200, inst.summary);
    assert.ok(inst.summary.startsWith('The 200 longest region instances (of '), inst.summary);
    assert.ok(inst.rows.every((r) => r[2] === '-'), 'OTF2 instances have no ids of their own');
    await b.page.screenshot({ path: path.join(work, 'btmz-instances.png'), fullPage: false });
    assert.deepEqual(b.errors, [], 'no script errors');
    check(`BT-MZ: region view first, ${view.roles.length} roles, ${view.regionRows} regions, ${groups.length} ranks ` +
      `grouped, coloured by role, ${inst.rows.length} instances a click away; screenshot ${path.join(work, 'btmz.png')}`);
  }
} catch (e) {
  failed = true;
  console.error('FAIL: ' + (e.stack || e));
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
