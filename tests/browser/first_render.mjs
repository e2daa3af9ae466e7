// Prints, as JSON, how long a report page takes to show its first Gantt chart in chromium:
// first_render_ms = window.gs.firstRenderMs (since navigation start: HTML and JSON parsing,
// decoding and drawing), plus the wall time of page.goto until ready. Used by bench/html_bench.sh.
//   node first_render.mjs report.html [runs]
import { launchOrSkip, openReport } from './chromium.mjs';

const file = process.argv[2];
const runs = Number(process.argv[3] || 3);
const browser = await launchOrSkip();
const results = [];
for (let i = 0; i < runs; ++i) {
  const t = Date.now();
  const { page, errors } = await openReport(browser, file);
  const wall = Date.now() - t;
  const s = await page.evaluate(() => ({ first: window.gs.firstRenderMs, stats: window.gs.stats }));
  if (errors.length) throw new Error('page errors: ' + errors.join('; '));
  results.push({ first_render_ms: Math.round(s.first), wall_ms: wall, lod: s.stats.lod, rects: s.stats.rects });
  await page.close();
}
await browser.close();
const sorted = results.map((r) => r.first_render_ms).sort((a, b) => a - b);
console.log(JSON.stringify({ file, runs: results, median_first_render_ms: sorted[Math.floor(sorted.length / 2)] }));
