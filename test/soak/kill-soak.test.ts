/**
 * Kill soak: orders flow (created over HTTP, placed and collected through simulated lockers
 * whose real agents run as child processes) while the cloud process and the agents are killed
 * with SIGKILL at random points, on every database. Afterwards:
 * - no order is missing or doubled, and each has its three codes;
 * - every order went CREATED → DELIVERED → COMPLETED once, from exactly one applied PLACED and
 *   one applied PICKED_UP event, and no agent holds an unsent event;
 * - every counter (order_stats) equals a recount of the orders;
 * - every outbox row was sent, and a receiver that counts deliveries per event saw each once;
 *   only a row whose sending a kill interrupted (SENDING when the cloud died) may arrive twice,
 *   which is the outbox's documented at-least-once (docs/events.md);
 * - no secret the soak made is in anything the cloud or the agents logged.
 *
 * `npm test` runs the short version (2 lockers × 2 orders). `npm run soak` runs a longer one;
 * SOAK_LOCKERS, SOAK_ORDERS, SOAK_CLOUD_KILLS, SOAK_SEED and SOAK_DIALECT change it (the seed is
 * printed, to replay a failure).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, openTestStorage, type TestStorage } from '../helpers/storage.ts';
import { TEST_JWT_SECRET } from '../helpers/cloud.ts';
import { tempDir } from '../helpers/sim-harness.ts';
import { assertNoSecrets, LogCapture, Secrets } from '../helpers/secrets-scan.ts';
import { CELLS } from '../sync/harness.ts';
import { CloudProcess } from './cloud-process.ts';
import { startCountingReceiver, type CountingReceiver } from './counting-receiver.ts';
import { seededRandom } from './seeded-random.ts';
import { createLockerApiKey, createLockerCompany } from '../../cloud/services/admin/companies.ts';
import { createPostomat, resetAgentCredentials } from '../../cloud/services/admin/postomats.ts';
import { createPlatformCompany, setLockerAccess } from '../../cloud/services/platform/companies.ts';
import { createWebhook } from '../../cloud/services/platform/webhooks.ts';
import { MONEY_FIELDS } from '../../cloud/storage/order-stats.ts';
import { SimLocker } from '../../hardware-sim/locker.ts';
import type { Db } from '../../cloud/storage/database.ts';

const LOCKERS = Number(process.env.SOAK_LOCKERS ?? 2);
const ORDERS = Number(process.env.SOAK_ORDERS ?? 2);
const SEED = Number(process.env.SOAK_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** How many times the cloud is killed at most (npm run soak: as often as it comes). */
const CLOUD_KILLS = Number(process.env.SOAK_CLOUD_KILLS ?? 1);
/** Guards against a hang, never timing assertions: a loaded machine may be slow. */
const GUARD_MS = Number(process.env.SOAK_GUARD_MS ?? 120_000);
const BASE = '/api/v1/integration/company';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  guardMs = GUARD_MS,
): Promise<T> {
  const deadline = Date.now() + guardMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Where an agent is killed in an order's flow. */
const KILL_POINTS = [
  'door open for placement',
  'placement closed',
  'door open for pickup',
  'pickup closed',
  'none',
] as const;
type KillPoint = (typeof KILL_POINTS)[number];

interface SoakLocker {
  id: string;
  sim: SimLocker;
  password: string;
}

/** SOAK_DIALECT=postgres (or sqlite) soaks one database only. */
const dialects = DIALECTS.filter((d) => !process.env.SOAK_DIALECT || d.name === process.env.SOAK_DIALECT);

for (const dialect of dialects) {
  describe(`[${dialect.name}] kill soak: ${LOCKERS} lockers × ${ORDERS} orders, cloud and agents killed with SIGKILL (seed ${SEED})`, () => {
    const rnd = seededRandom(SEED);
    const logs = new LogCapture();
    const secrets = new Secrets();
    let storage: TestStorage;
    let db: Db;
    let cloud: CloudProcess;
    let receiver: CountingReceiver;
    let key: string;
    const lockers: SoakLocker[] = [];
    const dirs: Array<{ remove(): void }> = [];
    /** outbox rows that were SENDING when the cloud died: their receiver may see them twice */
    const interrupted = new Map<string, number>();
    const created = new Map<string, string>();
    let agentKills = 0;
    let started = Date.now();
    const phases: string[] = [];
    const phase = (name: string) => phases.push(`${name} ${((Date.now() - started) / 1000).toFixed(1)} s`);

    before(async () => {
      started = Date.now();
      storage = await openTestStorage(dialect);
      db = storage.db;
      receiver = await startCountingReceiver();
      const now = new Date();
      const company = await createLockerCompany(
        db,
        {
          title: 'Soak Co',
          defaultDays: 3,
          balance: 1_000_000,
          orderPrice: 0,
          notificationUrl: `${receiver.url}/notify`,
        },
        now,
      );
      key = (await createLockerApiKey(db, company.id, undefined, now)).key;
      const logist = await createPlatformCompany(db, { title: 'Soak Logistics', type: 'LOGIST' }, now);
      await setLockerAccess(db, logist.id, { lockerCompanyId: company.id, enabled: true }, now);
      await createWebhook(
        db,
        logist.id,
        {
          type: 'PARCEL',
          subtype: 'DELIVERED_TO_POSTOMAT',
          url: `${receiver.url}/placed`,
          apiKey: 'soak-webhook-api-key',
        },
        now,
      );
      await createWebhook(
        db,
        logist.id,
        {
          type: 'PARCEL',
          subtype: 'TRANSFERRED_TO_CLIENT',
          url: `${receiver.url}/taken`,
          apiKey: 'soak-webhook-api-key',
        },
        now,
      );
      secrets
        .add('locker API key', key)
        .add('webhook api key', 'soak-webhook-api-key')
        .add('JWT secret', TEST_JWT_SECRET)
        .add('SMS gateway token', 'soak-sms-gateway-token');

      cloud = await CloudProcess.create(
        {
          DATABASE_URL: storage.databaseUrl,
          ...storage.childEnv,
          JWT_SECRET: TEST_JWT_SECRET,
          LOG_LEVEL: 'debug',
          RATE_LIMIT_MAX: '0',
          WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
          SMS_PROVIDER: 'http',
          SMS_GATEWAY_URL: `${receiver.url}/sms`,
          SMS_GATEWAY_TOKEN: 'soak-sms-gateway-token',
          // A killed sender's rows are sent again after the lease: short, so the soak ends soon.
          EVENT_TIMEOUT_MS: '1000',
          EVENT_LEASE_MS: '2000',
          EVENT_POLL_MS: '250',
          SYNC_POLL_MS: '500',
          RETENTION_INTERVAL_MS: '0',
        },
        logs,
      );

      for (let n = 0; n < LOCKERS; n++) {
        const p = await createPostomat(db, { title: `Soak ${n}`, shortId: `SOAK${n}${SEED % 1000}` }, CELLS, now);
        const agent = await resetAgentCredentials(db, p.id, now);
        secrets.add('agent password', agent.password);
        const dir = tempDir('soak-locker');
        dirs.push(dir);
        const sim = new SimLocker({
          id: p.id,
          boards: [0],
          cells: CELLS.map((c) => ({ cellId: String(c.number), board: c.board, lock: c.lock, size: c.size })),
          dir: dir.path,
          transport: 'pty',
          agentMode: 'child',
          unlockTimeMs: 20,
          onAgentLog: logs.sink(`agent ${n}`),
          agentConfig: {
            cloud: {
              mqttUrl: cloud.mqttUrl,
              username: agent.username,
              password: agent.password,
              eventRetryMs: 1_000,
              reconnectMaxMs: 1_000,
            },
            // Codes typed before the order reached the agent are "wrong": never lock the keypad for that.
            timing: { wrongCodeLimit: 1_000_000 },
          },
        });
        lockers.push({ id: p.id, sim, password: agent.password });
      }
      // The agents and the cloud start together: each is a process of its own.
      await Promise.all([cloud.start(), ...lockers.map((l) => l.sim.start())]);
      phase('processes started');
    });

    after(async () => {
      for (const l of lockers) await l.sim.close().catch(() => undefined);
      await cloud?.stop();
      await receiver?.close();
      await storage?.destroy();
      for (const d of dirs) d.remove();
    });

    /** Creates an order over HTTP; when the cloud died under the request, the database says whether it was made. */
    async function createOrder(tag: string, phone: string, lockerId: string): Promise<string> {
      return until(`order ${tag} created`, async () => {
        try {
          const res = await fetch(`${cloud.url}${BASE}/order/create`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ toUserPhone: phone, postomatId: lockerId, sendMessage: true, customData: tag }),
          });
          const text = await res.text();
          assert.equal(res.status, 200, text);
          return JSON.parse(text).id as string;
        } catch (err) {
          if (err instanceof assert.AssertionError) throw err;
          // No answer: the cloud is down or died during the request. Made or not, the database knows.
          const row = await db.selectFrom('locker_order').select('id').where('customData', '=', tag).executeTakeFirst();
          return row?.id;
        }
      });
    }

    async function codesOf(orderId: string): Promise<Record<string, string>> {
      const rows = await db
        .selectFrom('order_code')
        .select(['type', 'password'])
        .where('orderId', '=', orderId)
        .execute();
      const codes = Object.fromEntries(rows.map((r) => [r.type, r.password]));
      for (const c of Object.values(codes)) secrets.add('order code', c);
      return codes;
    }

    /** Types a code until a door opens: a "Wrong code" means the order has not reached the agent yet. */
    /**
     * Types a code until a door opens. A refusal ("Wrong code": the order has not reached the
     * agent yet) is typed again; the hardware, not the display, says which door opened: a late
     * line of the previous cycle ("Thank you, goodbye") can come right after the typing.
     */
    async function openWith(l: SoakLocker, code: string, what: string): Promise<string> {
      const answers: string[] = [];
      const openDoor = () => l.sim.hardwareCells().find((c) => !c.doorClosed)?.cellId;
      try {
        return await until(`a door opened by ${what} at ${l.id}`, async () => {
          let refused = false;
          const stop = l.sim.onDisplay((line) => {
            answers.push(line);
            if (/Wrong code|already in progress|No free cell|cannot be opened|locked/i.test(line)) refused = true;
          });
          try {
            await l.sim.typeCode(code);
            const cell = await until('an answer', () => openDoor() ?? (refused ? null : undefined), 10_000).catch(
              () => undefined,
            );
            if (cell) return cell;
          } finally {
            stop();
          }
          await sleep(200);
          return undefined;
        });
      } catch (err) {
        throw new Error(
          `${(err as Error).message}; the locker answered: ${[...new Set(answers)].join(' | ')}; agent log:\n${l.sim.agent.output.slice(-30).join('\n')}`,
        );
      }
    }

    async function killAgent(l: SoakLocker): Promise<void> {
      agentKills++;
      await l.sim.agent.kill();
    }

    const orderStatus = async (id: string) =>
      (await db.selectFrom('locker_order').select('status').where('id', '=', id).executeTakeFirst())?.status;

    /** One order's whole flow at one locker, with the agent killed where the plan says. */
    async function flow(l: SoakLocker, lockerIndex: number, i: number, kill: KillPoint): Promise<void> {
      const tag = `soak-${SEED}-${lockerIndex}-${i}`;
      const phone = `+99670${String(lockerIndex).padStart(2, '0')}${String(i).padStart(5, '0')}`;
      const id = await createOrder(tag, phone, l.id);
      created.set(tag, id);
      const codes = await codesOf(id);

      const cell = await openWith(l, codes.DOWN, `the DOWN code of ${tag}`);
      if (kill === 'door open for placement') {
        await killAgent(l);
        // The courier finishes while the agent is dead, or after it is back.
        if (rnd.next() < 0.5) {
          l.sim.setParcel(cell, true);
          l.sim.closeDoor(cell);
          await l.sim.restartAgent();
        } else {
          await l.sim.restartAgent();
          l.sim.setParcel(cell, true);
          l.sim.closeDoor(cell);
        }
      } else {
        l.sim.setParcel(cell, true);
        l.sim.closeDoor(cell);
        if (kill === 'placement closed') {
          await sleep(rnd.between(0, 300));
          await l.sim.restartAgent({ kill: true });
          agentKills++;
        }
      }
      await until(
        `order ${tag} DELIVERED`,
        async () => (await orderStatus(id)) === 'DELIVERED' || (await orderStatus(id)) === 'COMPLETED',
      );

      const again = await openWith(l, codes.UP, `the UP code of ${tag}`);
      assert.equal(again, cell, 'the pickup opens the cell the parcel went into');
      if (kill === 'door open for pickup') {
        await killAgent(l);
        l.sim.setParcel(cell, false);
        l.sim.closeDoor(cell);
        await l.sim.restartAgent();
      } else {
        l.sim.setParcel(cell, false);
        l.sim.closeDoor(cell);
        if (kill === 'pickup closed') {
          await sleep(rnd.between(0, 300));
          await l.sim.restartAgent({ kill: true });
          agentKills++;
        }
      }
    }

    /** Kills the cloud every few seconds while orders flow; notes the outbox rows it interrupted. */
    async function chaos(done: () => boolean): Promise<void> {
      let first = true;
      while (!done() && cloud.kills < CLOUD_KILLS) {
        // The first kill comes early, so that even the short soak has one under load.
        const wait = first ? rnd.between(800, 2_000) : rnd.between(2_000, 5_000);
        first = false;
        const deadline = Date.now() + wait;
        while (!done() && Date.now() < deadline) await sleep(50);
        if (done()) break;
        await cloud.kill();
        const sending = await db.selectFrom('outbox_event').select('id').where('state', '=', 'SENDING').execute();
        for (const r of sending) interrupted.set(r.id, (interrupted.get(r.id) ?? 0) + 1);
        await sleep(rnd.between(100, 800));
        await cloud.start();
      }
    }

    /** What a failure report needs: the orders not COMPLETED, their events, and what the agents still hold. */
    async function stuck(ids: string[]): Promise<string> {
      const out: string[] = [`plan ${JSON.stringify(planned)}`];
      const rows = await db
        .selectFrom('locker_order')
        .select(['id', 'customData', 'status', 'postomatId'])
        .where('id', 'in', ids)
        .where('status', '!=', 'COMPLETED')
        .execute();
      for (const r of rows) {
        const events = await db
          .selectFrom('locker_event')
          .select(['type', 'outcome', 'note', 'eventId'])
          .where('orderId', '=', r.id)
          .execute();
        out.push(`${r.customData} ${r.status}: ${JSON.stringify(events)}`);
        const l = lockers.find((x) => x.id === r.postomatId);
        if (l)
          out.push(
            `  agent holds ${JSON.stringify(await l.sim.agent.pendingEvents().catch((e) => String(e)))}`,
            ...l.sim.agent.output.slice(-25).map((x) => `  | ${x}`),
          );
      }
      out.push(
        ...logs.lines
          .filter((l) => l.source.startsWith('cloud') && /warn|error/.test(l.text))
          .slice(-20)
          .map((l) => `  ${l.source}: ${l.text.slice(0, 400)}`),
      );
      return out.join('\n');
    }
    let planned: KillPoint[] = [];

    it('lets every order through while processes die', async () => {
      // Every kill point appears at least once across the soak, in a seeded order.
      const plan: KillPoint[] = [];
      for (let n = 0; n < LOCKERS * ORDERS; n++)
        plan.push(n < KILL_POINTS.length - 1 ? KILL_POINTS[n] : rnd.pick(KILL_POINTS));
      for (let n = plan.length - 1; n > 0; n--) {
        const j = rnd.between(0, n);
        [plan[n], plan[j]] = [plan[j], plan[n]];
      }
      planned = plan;
      let finished = false;
      const chaotic = chaos(() => finished);
      try {
        await Promise.all(
          lockers.map(async (l, li) => {
            for (let i = 0; i < ORDERS; i++) await flow(l, li, i, plan[li * ORDERS + i]);
          }),
        );
      } finally {
        finished = true;
        await chaotic;
      }
      phase('flows done');
      if (!cloud.running) await cloud.start();
      assert.ok(cloud.kills >= 1, 'the cloud was killed at least once');
      assert.ok(agentKills >= Math.min(4, LOCKERS * ORDERS), `agents were killed (${agentKills})`);
      const ids = [...created.values()];
      await until('every order COMPLETED', async () => {
        const rows = await db.selectFrom('locker_order').select('status').where('id', 'in', ids).execute();
        return rows.length === ids.length && rows.every((r) => r.status === 'COMPLETED');
      }).catch(async (err) => {
        throw new Error(`${err.message}\n${await stuck(ids)}`);
      });
      await until('every agent outbox empty', async () => {
        for (const l of lockers) if ((await l.sim.agent.pendingEvents()).length) return false;
        return true;
      });
      await until('every outbox row settled', async () => {
        const open = await db
          .selectFrom('outbox_event')
          .select('id')
          .where('state', 'in', ['PENDING', 'SENDING'])
          .execute();
        return open.length === 0;
      });
      phase('settled');
    });

    it('lost and doubled nothing: orders, codes, statuses, events', async () => {
      const orders = await db
        .selectFrom('locker_order')
        .select(['id', 'customData', 'status'])
        .where('customData', 'like', `soak-${SEED}-%`)
        .execute();
      assert.equal(orders.length, LOCKERS * ORDERS, 'one order per flow: none lost, none made twice');
      assert.deepEqual(new Set(orders.map((o) => o.customData)).size, orders.length);
      for (const o of orders) {
        const codes = await db
          .selectFrom('order_code')
          .select(['type', 'password'])
          .where('orderId', '=', o.id)
          .execute();
        assert.deepEqual(codes.map((c) => c.type).sort(), ['DOWN', 'SUBTRACT', 'UP'], `codes of ${o.customData}`);
        assert.ok(codes.every((c) => /^\d{4}$/.test(c.password)));
        const statuses = await db
          .selectFrom('order_status')
          .select('type')
          .where('orderId', '=', o.id)
          .orderBy('createdAt')
          .execute();
        assert.deepEqual(
          statuses.map((s) => s.type),
          ['CREATED', 'DELIVERED', 'COMPLETED'],
          `history of ${o.customData}`,
        );
        // The door cycles change the order, each exactly once. Other events are only stored: codes
        // typed before the order reached the agent (CODE_REJECTED), and on a loaded machine a
        // door slow to read open after an unlock (CELL_FAULT).
        const events = await db
          .selectFrom('locker_event')
          .select(['type', 'outcome'])
          .where('orderId', '=', o.id)
          .execute();
        const doors = events.filter((e) => ['PLACED', 'PICKED_UP', 'SUBTRACTED'].includes(e.type));
        assert.deepEqual(
          doors.map((e) => `${e.type}:${e.outcome}`).sort(),
          ['PICKED_UP:APPLIED', 'PLACED:APPLIED'],
          `events of ${o.customData}`,
        );
        const others = events.filter((e) => !doors.includes(e));
        assert.deepEqual(
          others.filter((e) => e.outcome !== 'STORED'),
          [],
          `other events of ${o.customData} are stored only`,
        );
      }
    });

    it('every counter equals a recount', async () => {
      const company = (
        await db
          .selectFrom('locker_order')
          .select('companyId')
          .where('customData', 'like', `soak-${SEED}-%`)
          .executeTakeFirstOrThrow()
      ).companyId;
      const orders = await db
        .selectFrom('locker_order')
        .selectAll()
        .where('companyId', '=', company)
        .where('isActive', '=', 1)
        .execute();
      const recount = new Map<string, Record<string, number>>();
      for (const o of orders) {
        const r = recount.get(o.status) ?? Object.fromEntries([['count', 0], ...MONEY_FIELDS.map((f) => [f, 0])]);
        r.count++;
        for (const f of MONEY_FIELDS) r[f] += Number(o[f]);
        recount.set(o.status, r);
      }
      const stats = await db.selectFrom('order_stats').selectAll().where('companyId', '=', company).execute();
      const kept = new Map(
        stats
          .filter((s) => Number(s.count) !== 0 || MONEY_FIELDS.some((f) => Number(s[f]) !== 0))
          .map((s) => [
            s.status,
            Object.fromEntries([['count', Number(s.count)], ...MONEY_FIELDS.map((f) => [f, Number(s[f])])]),
          ]),
      );
      assert.deepEqual(Object.fromEntries(kept), Object.fromEntries(recount));
    });

    it('sent every outbox row, each once unless a kill interrupted its sending', async () => {
      const ids = [...created.values()];
      const rows = await db
        .selectFrom('outbox_event')
        .select(['id', 'kind', 'event', 'orderId', 'target', 'state', 'error'])
        .where('orderId', 'in', ids)
        .execute();
      assert.equal(rows.length, ids.length * 4, 'an SMS, two webhooks and a notification per order');
      assert.deepEqual(
        rows.filter((r) => r.state !== 'SENT').map((r) => `${r.kind} ${r.state} ${r.error}`),
        [],
      );
      const keyOf = (r: (typeof rows)[number]) =>
        r.kind === 'SMS'
          ? `SMS:${r.target}`
          : r.kind === 'COMPANY_NOTIFICATION'
            ? `COMPANY_NOTIFICATION:${r.orderId}`
            : `WEBHOOK:${new URL(r.target).pathname}:${r.orderId}`;
      const expected = new Set(rows.map(keyOf));
      assert.equal(expected.size, rows.length, 'one key per event');
      const wrong: string[] = [];
      for (const r of rows) {
        const got = receiver.counts.get(keyOf(r)) ?? 0;
        const allowed = 1 + (interrupted.get(r.id) ?? 0);
        if (got < 1 || got > allowed)
          wrong.push(`${keyOf(r)}: received ${got}, interrupted ${interrupted.get(r.id) ?? 0} times`);
      }
      assert.deepEqual(wrong, []);
      assert.deepEqual(
        [...receiver.counts.keys()].filter((k) => !expected.has(k)),
        [],
        'nothing the outbox did not hold',
      );
      const twice = rows.filter((r) => (receiver.counts.get(keyOf(r)) ?? 0) > 1).length;
      // For the record of a run: how often the at-least-once edge was actually hit.
      console.log(
        `kill soak (${dialect.name}, seed ${SEED}): ${cloud.kills} cloud kills, ${agentKills} agent kills, ${rows.length} events, ${interrupted.size} interrupted, ${twice} delivered twice; ${phases.join(', ')}`,
      );
    });

    it('leaked no secret into what the cloud processes and the agents logged', () => {
      assertNoSecrets(logs, secrets, { minLines: 20, sources: ['cloud #1', 'agent 0'] });
    });
  });
}
