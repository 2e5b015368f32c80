/**
 * The simulator's page in real headless Chromium, against the real cloud (HTTP API, storage,
 * embedded broker) and simulated lockers whose real agents sync over MQTT, wired as `npm start`
 * wires them: the simulator's control API serves the page and reads the cloud's view in process.
 * Each test follows an order on the page as a tester would: keypad, hands, faults, orders, log.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startFleet, type FleetHandle } from '../../hardware-sim/fleet.ts';
import { fleetOfCloudLockers } from '../../hardware-sim/cloud-fleet.ts';
import type { SimLocker } from '../../hardware-sim/locker.ts';
import { localCloudView } from '../../scripts/sim-cloud-view.ts';
import { DIALECTS } from '../helpers/storage.ts';
import {
  CELLS,
  codesOf,
  startSyncWorld,
  untilAgent,
  untilOnline,
  type CloudLocker,
  type SyncWorld,
} from '../sync/harness.ts';
import { GUARD_MS, launchBrowser, screenshot, untilText, type TestBrowser } from './browser.ts';

let browser: TestBrowser;
before(async () => {
  browser = await launchBrowser();
});
after(() => browser?.close());

// One storage: the page reads the cloud through the services that test/sim/page-api.test.ts runs
// on every storage; a browser pass per storage would double the slowest suite for nothing new.
// SQLite, as `npm start` runs by default.
for (const dialect of DIALECTS.slice(0, 1)) {
  const shots = true;
  describe(`[${dialect.name}] the simulator page`, () => {
    let w: SyncWorld;
    let fleet: FleetHandle;
    let tsum: CloudLocker;
    let asia: CloudLocker;
    let page: Page;

    before(async () => {
      w = await startSyncWorld(dialect);
      tsum = await w.newLocker('TSUM Chui');
      asia = await w.newLocker('Asia Mall');
      fleet = await startFleet({
        lockers: fleetOfCloudLockers(
          [tsum, asia].map((l) => ({ ...l, title: l.id === tsum.id ? 'TSUM Chui' : 'Asia Mall', cells: CELLS })),
          w.mqttUrl,
        ),
        transport: 'pty',
        agentMode: 'inprocess',
        port: 0,
        cloud: localCloudView(w.cloud.deps, { companyId: w.company.id }),
      });
      await untilOnline(w, tsum.id);
      await untilOnline(w, asia.id);
      page = await browser.context.newPage();
      page.on('pageerror', (err) => assert.fail(`page error: ${err.message}`));
    });
    after(async () => {
      await page?.close();
      await fleet?.close();
      await w?.close();
    });

    const sim = (): SimLocker => fleet.lockers.get(tsum.id)!;
    /** The control API directly, for what the test arranges rather than what it checks on the page. */
    const post = async (path: string, body: unknown) =>
      assert.equal((await fetch(fleet.url + path, { method: 'POST', body: JSON.stringify(body) })).status, 200);
    const cellButton = (cell: string) => page.getByRole('button', { name: new RegExp(`^Cell ${cell}, `) });
    const orderRow = (orderId: string, status: string) =>
      page.locator(`#orders tr[data-order="${orderId}"][data-status="${status}"]`);
    const logTexts = () => page.locator('#log li').allTextContents();

    async function openLocker(id: string): Promise<void> {
      // A fresh page each time (the same URL again would only be a same-document hash).
      await page.goto('about:blank');
      await page.goto(`${fleet.url}/#/lockers/${encodeURIComponent(id)}`);
      await page.locator('#front .cell').first().waitFor();
    }

    /** Types a code on the page's keypad: by the on-screen keys, or with the keyboard in the code field. */
    async function typeCode(code: string, by: 'keys' | 'keyboard'): Promise<void> {
      if (by === 'keys') {
        for (const digit of code)
          await page.getByRole('group', { name: 'Keypad' }).getByRole('button', { name: digit, exact: true }).click();
        await page.getByRole('button', { name: 'Enter' }).click();
      } else {
        await page.getByLabel('Code', { exact: true }).focus();
        await page.keyboard.type(code);
        await page.keyboard.press('Enter');
      }
    }

    /** What the locker's display says, once it says something matching. */
    const display = (pattern: RegExp) => untilText(page.locator('#display'), pattern);
    const cellOf = (line: string) => /^Cell (\S+) is open/.exec(line)![1];

    /** A cell button toggles its selection: click it only when it is not selected yet. */
    async function selectCell(cell: string): Promise<void> {
      if ((await cellButton(cell).getAttribute('aria-pressed')) !== 'true') await cellButton(cell).click();
      await page.locator(`[data-cell="${cell}"][aria-pressed="true"]`).waitFor();
    }

    /** With the cell's door open, the hands do what the display asks and close it. */
    async function handle(cell: string, parcel: boolean): Promise<void> {
      await selectCell(cell);
      await page.getByRole('button', { name: parcel ? 'Put parcel in' : 'Take parcel out' }).click();
      await page.locator(`[data-cell="${cell}"][data-parcel="${parcel ? 'yes' : 'no'}"]`).waitFor();
      await page.getByRole('button', { name: 'Close door' }).click();
    }

    it('lists the fleet with each locker online and its cells, and finds one by title or id', async () => {
      await page.goto(`${fleet.url}/`);
      const cards = page.locator('.locker-card');
      await page.locator(`.locker-card[data-locker="${tsum.id}"][data-state="online"]`).waitFor();
      await page.locator(`.locker-card[data-locker="${asia.id}"][data-state="online"]`).waitFor();
      assert.match((await cards.filter({ hasText: 'TSUM Chui' }).textContent())!, /0 of 8 cells in use.*No faults/);
      // A board gone silent shows as a fault of its locker, its cells unknown to the agent.
      await post(`/lockers/${asia.id}/boards/0/silence`, { silent: true });
      await untilText(cards.filter({ hasText: 'Asia Mall' }), /Faults: board 0 silent, 8 unknown/);
      if (shots) await screenshot(page, 'sim-page-fleet', page.locator('main'));
      await post(`/lockers/${asia.id}/boards/0/silence`, { silent: false });
      await untilText(cards.filter({ hasText: 'Asia Mall' }), /No faults/);

      await page.getByLabel('Find a locker by id or title').fill('asia');
      await untilText(page.locator('#fleet-count'), /^1 of 2 lockers$/);
      assert.deepEqual(await cards.evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.locker)), [asia.id]);
      await page.getByLabel('Find a locker by id or title').fill(tsum.id.slice(0, 10));
      assert.deepEqual(await cards.evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.locker)), [tsum.id]);

      // Keyboard: the card is a link; Enter opens the locker.
      await cards.first().focus();
      await page.keyboard.press('Enter');
      await untilText(page.locator('#locker-title'), /TSUM Chui/);
    });

    it('places an order typed on the keypad and collects it: the cell drawn occupied, the order DELIVERED, then COMPLETED', async () => {
      const order = await w.createOrder(tsum.id, { pay: true });
      const codes = await codesOf(w, order.id);
      await untilAgent(sim(), order.id, 'order synced', (o) => o !== undefined);
      await openLocker(tsum.id);
      await orderRow(order.id, 'CREATED').waitFor();

      await typeCode(codes.DOWN, 'keys');
      const cell = cellOf(await display(/^Cell \S+ is open: put the parcel in and close the door$/));
      await page.locator(`[data-cell="${cell}"][data-door="open"]`).waitFor();
      await handle(cell, true);
      await page.locator(`[data-cell="${cell}"][data-door="closed"][data-parcel="yes"]`).waitFor();
      const delivered = orderRow(order.id, 'DELIVERED');
      await delivered.waitFor();
      const [, , shownCell, storageEnd] = await delivered.locator('td').allTextContents();
      assert.equal(shownCell, cell);
      assert.notEqual(storageEnd, '–', 'a placed order shows the end of its storage period');
      await untilText(page.locator('#log'), /ack.*PLACED order \S+ cell \S+: acknowledged by the cloud/);
      if (shots) await screenshot(page, 'sim-page-delivered');

      await typeCode(codes.UP, 'keyboard');
      assert.equal(
        await display(/^Cell \S+ is open: take your parcel/),
        `Cell ${cell} is open: take your parcel and close the door`,
      );
      await handle(cell, false);
      await orderRow(order.id, 'COMPLETED').waitFor();
      await page.locator(`[data-cell="${cell}"][data-door="closed"][data-parcel="no"]`).waitFor();

      const log = await logTexts();
      assert.equal(log.filter((l) => /keypad\s*code \*\*\*\* typed/.test(l)).length, 2, 'both codes typed, masked');
      for (const code of [codes.DOWN, codes.UP])
        assert.ok(!log.some((l) => new RegExp(`\\b${code}\\b`).test(l)), `code ${code} appears in the log`);
      assert.ok(
        log.some((l) =>
          new RegExp(`bus\\s*unlock cell ${cell} \\(board 0 lock ${cell}\\): 02 [0-9a-f]{2} 31 03 [0-9a-f]{2}`).test(l),
        ),
        'the unlock frame is in the log',
      );
      assert.ok(log.some((l) => new RegExp(`hardware\\s*cell ${cell}: parcel put in`).test(l)));
      assert.ok(log.some((l) => /event\s*PICKED_UP/.test(l)));
    });

    it('a jammed lock is drawn jammed and out of order, and the next cell takes the parcel', async () => {
      const order = await w.createOrder(tsum.id, { pay: true });
      const codes = await codesOf(w, order.id);
      await untilAgent(sim(), order.id, 'order synced', (o) => o !== undefined);
      await openLocker(tsum.id);
      // The smallest free cell that fits is cell 1: jam it.
      await selectCell('1');
      await page.getByRole('button', { name: 'Jam lock' }).click();
      await page.locator('[data-cell="1"][data-jammed="yes"]').waitFor();

      await typeCode(codes.DOWN, 'keyboard');
      const line = await display(/^Cell \S+ is open: put the parcel in/);
      const cell = cellOf(line);
      assert.notEqual(cell, '1');
      await untilText(page.locator('#log'), /display\s*Cell 1 is out of order, trying another cell/);
      await page.locator('[data-cell="1"][data-state="BROKEN"]').waitFor();
      assert.match((await cellButton('1').getAttribute('aria-label'))!, /lock jammed, out of order/);
      await handle(cell, true);
      await orderRow(order.id, 'DELIVERED').waitFor();
      assert.equal(await orderRow(order.id, 'DELIVERED').locator('td').nth(2).textContent(), cell);
      await untilText(page.locator('#log'), new RegExp(`event\\s*CELL_FAULT order ${order.id} cell 1 JAMMED`));
      if (shots) await screenshot(page, 'sim-page-jammed');

      await selectCell('1');
      await page.getByRole('button', { name: 'Free lock' }).click();
      await page.locator('[data-cell="1"][data-jammed="no"]').waitFor();
    });

    it('the network cut shows the locker offline; a placement meanwhile reaches the cloud once it is back', async () => {
      await openLocker(tsum.id);
      // A test order from the page's own button (the cloud is known), its codes shown once.
      await page.getByRole('button', { name: 'Create test order' }).click();
      const created = await untilText(
        page.locator('#created'),
        /^Test order \S+: DOWN \d{4}, UP \d{4}, SUBTRACT \d{4}$/,
      );
      const [, orderId, down] = /^Test order (\S+): DOWN (\d{4})/.exec(created)!;
      await orderRow(orderId, 'CREATED').waitFor();
      await untilAgent(sim(), orderId, 'order synced', (o) => o !== undefined);

      await page.getByRole('button', { name: 'Cut network' }).click();
      await untilText(page.locator('#locker-state'), /^offline the cloud sees it offline; network cut/);
      await typeCode(down, 'keys');
      const cell = cellOf(await display(/^Cell \S+ is open: put the parcel in/));
      await handle(cell, true);
      await untilText(
        page.locator('#log'),
        new RegExp(`event\\s*PLACED order ${orderId} cell ${cell}: kept in the outbox until the network is back`),
      );
      // Offline, the cloud cannot know yet.
      assert.equal(await orderRow(orderId, 'CREATED').count(), 1);
      if (shots) await screenshot(page, 'sim-page-offline');

      await page.getByRole('button', { name: 'Restore network' }).click();
      await untilText(page.locator('#locker-state'), /^online the cloud sees it online; network on/);
      await orderRow(orderId, 'DELIVERED').waitFor({ timeout: GUARD_MS });
      await untilText(
        page.locator('#log'),
        new RegExp(`ack\\s*PLACED order ${orderId} cell ${cell}: acknowledged by the cloud`),
      );
      assert.equal((await w.order(orderId)).cellId !== null, true);
    });

    it('works at 360 px wide, and every control has a name', async () => {
      await page.setViewportSize({ width: 360, height: 800 });
      try {
        await openLocker(tsum.id);
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        assert.equal(overflow, 0, 'the page scrolls sideways at 360 px');
        const unnamed = await page.evaluate(() =>
          [...document.querySelectorAll('button, input, a[href]')]
            .filter((e) => !(e as HTMLElement).closest('[hidden]'))
            .filter((e) => {
              const input = e as HTMLInputElement;
              const label =
                input.labels?.length ||
                e.getAttribute('aria-label') ||
                e.getAttribute('aria-labelledby') ||
                e.textContent?.trim();
              return !label;
            })
            .map((e) => e.outerHTML),
        );
        assert.deepEqual(unnamed, []);
        if (shots) await screenshot(page, 'sim-page-phone');
      } finally {
        await page.setViewportSize({ width: 1280, height: 900 });
      }
    });
  });
}
