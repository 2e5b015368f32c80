/**
 * Real headless Chromium for the page tests: Debian's `chromium` (never a downloaded browser),
 * driven by playwright-core, on a fresh profile. A missing browser fails the tests loudly.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Without the background-networking flags Chromium calls Google, which a closed network refuses. */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Guard against a hang, not a timing assertion: a jammed lock alone takes the 2 s unlock confirmation. */
export const GUARD_MS = 15_000;

export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `no Chromium at ${CHROMIUM}: install Debian's package (apt-get install chromium; .ci/run does) or set CHROMIUM_PATH`,
    );
  const profile = mkdtempSync(path.join(tmpdir(), 'sim-page-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 },
  });
  context.setDefaultTimeout(GUARD_MS);
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

const IMAGES = path.resolve(import.meta.dirname, '../../docs/images');

/**
 * A screenshot of the page as the test left it. Into docs/images/ (committed, shown in the
 * README and docs/simulator.md) with UPDATE_SCREENSHOTS=1; elsewhere into a temporary folder,
 * so that a test run does not rewrite committed images whose ids and times always differ.
 */
export async function screenshot(page: Page, name: string, part?: Locator): Promise<string> {
  const dir = process.env.UPDATE_SCREENSHOTS === '1' ? IMAGES : path.join(tmpdir(), 'sim-page-screenshots');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  if (part) await part.screenshot({ path: file });
  else await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * Waits until the element's text matches (the page updates live, so text arrives later). The
 * locator is resolved afresh each time: the page re-renders, and an element seen once may be gone.
 */
export async function untilText(locator: Locator, pattern: RegExp): Promise<string> {
  const deadline = Date.now() + GUARD_MS;
  let shown: string | null = null;
  for (;;) {
    shown = await locator.textContent({ timeout: GUARD_MS }).catch(() => null);
    if (shown !== null && pattern.test(shown)) return shown;
    if (Date.now() > deadline) throw new Error(`text ${pattern} not shown; shown: ${JSON.stringify(shown)}`);
    await new Promise((r) => setTimeout(r, 40));
  }
}
