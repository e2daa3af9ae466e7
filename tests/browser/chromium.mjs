// Launches Debian's chromium (never a downloaded browser) headless through playwright-core,
// with the flags that work in CI containers and keep the browser off the network. Playwright
// gives every launch a fresh temporary profile (--user-data-dir).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CHROMIUM = process.env.GRAINSCOPE_CHROMIUM || '/usr/bin/chromium';
export const SKIP = 77;  // ctest SKIP_RETURN_CODE

const here = path.dirname(fileURLToPath(import.meta.url));

// Exits with SKIP and a message when the browser or node_modules are missing.
export async function launchOrSkip() {
  if (!fs.existsSync(CHROMIUM)) {
    console.log(`SKIP: ${CHROMIUM} is absent (scripts/install-deps.sh installs Debian's chromium)`);
    process.exit(SKIP);
  }
  let playwright;
  try {
    playwright = await import(path.join(here, 'node_modules', 'playwright-core', 'index.mjs'));
  } catch (e) {
    console.log(`SKIP: playwright-core is not installed (run npm ci in ${here}): ${e.message}`);
    process.exit(SKIP);
  }
  return playwright.chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync'],
  });
}

// Opens a report page, failing on any request that leaves the file (the page must work offline),
// and waits until its first render is done.
export async function openReport(browser, file) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const external = [];
  page.on('request', (r) => { if (!/^(file|data|blob|about):/.test(r.url())) external.push(r.url()); });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('file://' + path.resolve(file));
  await page.waitForFunction(() => document.body && document.body.dataset.ready === '1', null, { timeout: 60000 });
  return { page, external, errors };
}
