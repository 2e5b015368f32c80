/**
 * GET /docs in a real browser (Debian's Chromium): the reference renders from the service alone
 * (no request leaves it: no CDN, no fonts from elsewhere), and shows what a newcomer looks for:
 * the spec's surprising rules, an endpoint's errors and a curl sample that runs against `npm start`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import { DIALECTS } from '../helpers/storage.ts';
import { launchBrowser, untilText, type TestBrowser } from '../sim/browser.ts';

describe('the docs page (/docs)', () => {
  let cloud: TestCloud;
  let browser: TestBrowser;
  before(async () => {
    cloud = await startTestCloud(DIALECTS[0]);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await cloud?.stop();
  });

  it('renders the reference from the service alone, with the rules, errors and samples a newcomer needs', async () => {
    const page = await browser.context.newPage();
    const elsewhere: string[] = [];
    const failed: string[] = [];
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(cloud.url) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
      elsewhere.push(url);
      return route.abort();
    });
    page.on('requestfailed', (r) => failed.push(`${r.url()} ${r.failure()?.errorText}`));
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));

    const res = await page.goto(`${cloud.url}/docs`);
    assert.equal(res?.status(), 200);
    await untilText(page.locator('h1').first(), /Parcel-locker platform API/);
    const body = page.locator('body');
    await untilText(body, /Create an order/);
    const text = (await body.innerText()).replace(/\s+/g, ' ');
    for (const needed of [
      'withCurrentStatus=true', // where an order's status name is
      'is a 500', // unknown locker on order create
      'answers every locker-side failure with 502', // the platform's locker access
      'subtract-code',
      'free-cells',
      'district/list',
      '/health',
      'Retry-After',
      'FST_ERR_VALIDATION',
      'Outbound events',
    ])
      assert.ok(text.includes(needed), `the page does not show "${needed}"`);
    // An operation's own section: its errors and its curl sample.
    await page.goto(`${cloud.url}/docs#tag/Locker-orders/operation/postIntegrationCompanyOrderCreate`);
    await untilText(body, /POSTOMAT_NOT_FOUND/);
    await page.getByRole('tab', { name: 'curl' }).first().click();
    await untilText(body, /curl -s -X POST -H "Authorization: Bearer \$KEY"/);
    assert.deepEqual(elsewhere, [], 'requests that left the service');
    // Redoc's footer logo is on its CDN: the page's Content-Security-Policy stops it in the browser.
    assert.deepEqual(
      failed.filter((f) => !f.endsWith(' csp') || f.startsWith(cloud.url)),
      [],
      'requests that failed',
    );
    assert.deepEqual(errors, []);
  });
});
