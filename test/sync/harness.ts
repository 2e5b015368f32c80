/**
 * The whole locker link for a test: the real cloud (HTTP API, storage, embedded broker or an
 * external one), lockers made through the operator's services with agent credentials, and
 * simulated lockers whose real agents run over pseudo-terminals and connect over MQTT.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createLockerApiKey, createLockerCompany } from '../../cloud/services/admin/companies.ts';
import { createPostomat, resetAgentCredentials, type CellInput } from '../../cloud/services/admin/postomats.ts';
import type { Db } from '../../cloud/storage/database.ts';
import mqtt from 'mqtt';
import { systemClock } from '../../shared/clock.ts';
import { topics } from '../../shared/mqtt/index.ts';
import type { Logger } from '../../cloud/logger.ts';
import { InProcessAgent } from '../../hardware-sim/agent-handle.ts';
import { SimLocker } from '../../hardware-sim/locker.ts';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import { tempDir, waitForDoorOpen } from '../helpers/sim-harness.ts';
import type { TestDialect } from '../helpers/storage.ts';

export const BASE = '/api/v1/integration/company';

/** Guard against a hang, not a timing assertion. */
const GUARD_MS = 15_000;

export async function until<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  guardMs = GUARD_MS,
): Promise<T> {
  const deadline = Date.now() + guardMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 15));
  }
}

/** Eight cells on board 0, numbered as their locks. */
export const CELLS: CellInput[] = (['S', 'S', 'M', 'M', 'M', 'L', 'L', 'XL'] as const).map((size, i) => ({
  number: i + 1,
  size,
  board: 0,
  lock: i + 1,
}));

export interface CloudLocker {
  id: string;
  shortId: string;
  cells: Array<{ id: string; number: number }>;
  agent: { username: string; password: string };
}

export interface SyncWorld {
  cloud: TestCloud;
  db: Db;
  company: { id: string; key: string };
  /** broker URL the agents use (embedded, or the external one) */
  mqttUrl: string;
  /** `cells`: the cloud's cells of the locker (CELLS when absent) */
  newLocker(title?: string, cells?: CellInput[]): Promise<CloudLocker>;
  /**
   * starts a simulated locker whose agent connects to the cloud with the locker's credentials;
   * `cells`: the simulated hardware and the agent's cell map, when they are to differ from CELLS
   */
  startAgent(
    locker: CloudLocker,
    opts?: { agentMode?: 'child' | 'inprocess'; password?: string; cells?: CellInput[] },
  ): Promise<SimLocker>;
  createOrder(lockerId: string, body?: Record<string, unknown>): Promise<any>;
  order(id: string): Promise<any>;
  /** stops the cloud (HTTP, broker, publisher), keeping its storage */
  stopCloud(): Promise<void>;
  /** starts it again on the same storage and broker port */
  startCloud(): Promise<void>;
  close(): Promise<void>;
}

export interface WorldOptions {
  env?: Record<string, string>;
  logger?: Logger;
  /** price of an order (minor units): non-zero leaves orders unpaid */
  orderPrice?: number;
}

export async function startSyncWorld(dialect: TestDialect, options: WorldOptions = {}): Promise<SyncWorld> {
  // Polls are a safety net only: a minute here, so every test relies on the wake-ups after commit.
  const env: Record<string, string> = { SYNC_POLL_MS: '60000', EVENT_POLL_MS: '60000', ...options.env };
  // The real clock: events carry the agents' real times, and the cloud keeps them in order.
  let cloud = await startTestCloud(dialect, { env, clock: systemClock, logger: options.logger });
  let brokerPort: number | undefined;
  const db = cloud.storage.db;
  // Notifications go nowhere (port 9 refuses): the outbox rows are what the tests look at.
  const c = await createLockerCompany(
    db,
    {
      title: 'Sync Co',
      defaultDays: 2,
      balance: 1_000_000,
      orderPrice: options.orderPrice ?? 0,
      notificationUrl: 'http://127.0.0.1:9/n',
    },
    new Date(),
  );
  const company = { id: c.id, key: (await createLockerApiKey(db, c.id, undefined, new Date())).key };
  const dirs: Array<{ remove(): void }> = [];
  const lockerIds: string[] = [];
  const sims: SimLocker[] = [];
  let n = 0;
  const mqttUrl = env.MQTT_URL ?? cloud.sync.mqttUrl;
  const world: SyncWorld = {
    get cloud() {
      return cloud;
    },
    db,
    company,
    mqttUrl,
    async newLocker(title = `Locker ${++n}`, cells = CELLS) {
      const p = await createPostomat(
        db,
        { title, shortId: `S${Math.random().toString(36).slice(2, 8).toUpperCase()}` },
        cells,
        new Date(),
      );
      const agent = await resetAgentCredentials(db, p.id, new Date());
      lockerIds.push(p.id);
      return { id: p.id, shortId: p.shortId, cells: p.cells.map((x) => ({ id: x.id, number: x.number })), agent };
    },
    async startAgent(locker, opts = {}) {
      const dir = tempDir('sync-locker');
      dirs.push(dir);
      const sim = new SimLocker({
        id: locker.id,
        boards: [...new Set((opts.cells ?? CELLS).map((x) => x.board))],
        // The agent names cells by their number in the cloud.
        cells: (opts.cells ?? CELLS).map((x) => ({
          cellId: String(x.number),
          board: x.board,
          lock: x.lock,
          size: x.size,
        })),
        dir: dir.path,
        transport: 'pty',
        agentMode: opts.agentMode ?? 'inprocess',
        unlockTimeMs: 20,
        agentConfig: {
          cloud: {
            mqttUrl,
            username: locker.agent.username,
            password: opts.password ?? locker.agent.password,
            eventRetryMs: 1_000,
            reconnectMaxMs: 1_000,
          },
        },
      });
      sims.push(sim);
      await sim.start();
      return sim;
    },
    async createOrder(lockerId, body = {}) {
      const res = await cloud.request('POST', `${BASE}/order/create`, {
        token: company.key,
        body: { toUserPhone: '+996555000111', postomatId: lockerId, sendMessage: false, ...body },
      });
      assert.equal(res.status, 200, res.text);
      return res.body;
    },
    async order(id) {
      const res = await cloud.request('GET', `${BASE}/order/${id}?withStatuses=true&withCell=true`, {
        token: company.key,
      });
      assert.equal(res.status, 200, res.text);
      return res.body;
    },
    async stopCloud() {
      brokerPort = cloud.sync.broker?.port;
      await cloud.close();
    },
    async startCloud() {
      cloud = await startTestCloud(dialect, {
        env: { ...env, ...(brokerPort ? { MQTT_PORT: String(brokerPort) } : {}) },
        reuse: cloud.storage,
        clock: systemClock,
        logger: options.logger,
      });
    },
    async close() {
      for (const s of sims) await s.close().catch(() => undefined);
      if (env.MQTT_URL) await clearRetained(env, lockerIds);
      await cloud.stop();
      for (const d of dirs) d.remove();
    },
  };
  return world;
}

/** Codes of an order as the company reads them over HTTP. */
export async function codesOf(
  world: SyncWorld,
  orderId: string,
): Promise<{ DOWN: string; UP: string; SUBTRACT: string }> {
  const get = async (path: string) =>
    (await world.cloud.request('GET', `${BASE}/order/${orderId}/${path}`, { token: world.company.key })).body
      .password as string;
  return { DOWN: await get('down-code'), UP: await get('up-code'), SUBTRACT: await get('subtract-code') };
}

export async function link(db: Db, lockerId: string) {
  return db.selectFrom('locker_link').selectAll().where('postomatId', '=', lockerId).executeTakeFirst();
}

/** Waits until the cloud has the agent online (its announcement handled). */
export function untilOnline(world: SyncWorld, lockerId: string, online = true) {
  return until(
    `locker ${online ? 'online' : 'offline'}`,
    async () => (await link(world.db, lockerId))?.online === (online ? 1 : 0),
  );
}

/** The agent's own copy of an order (in-process agents only). */
export function agentOrder(sim: SimLocker, orderId: string) {
  if (!(sim.agent instanceof InProcessAgent)) throw new Error('agentOrder needs an in-process agent');
  return sim.agent.agent.store.order(orderId);
}

/** Waits until the agent's store satisfies `check` for the order. */
export function untilAgent(
  sim: SimLocker,
  orderId: string,
  what: string,
  check: (o: ReturnType<typeof agentOrder>) => boolean,
) {
  return until(`agent: ${what}`, () => check(agentOrder(sim, orderId)) || undefined);
}

/** Puts a parcel in (or takes it out of) an open cell and closes the door, as a person would. */
export async function useCell(sim: SimLocker, cellId: string, parcel: boolean): Promise<void> {
  await waitForDoorOpen(sim, cellId);
  sim.setParcel(cellId, parcel);
  sim.closeDoor(cellId);
}

export async function orderRow(db: Db, id: string) {
  return db.selectFrom('locker_order').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

export async function eventsOf(db: Db, orderId: string) {
  return db
    .selectFrom('locker_event')
    .select(['type', 'outcome', 'note'])
    .where('orderId', '=', orderId)
    .orderBy('receivedAt')
    .orderBy('seq')
    .execute();
}

/** An external broker keeps retained messages: leave nothing of this test's lockers behind. */
async function clearRetained(env: Record<string, string>, lockerIds: string[]): Promise<void> {
  const client = await mqtt.connectAsync(env.MQTT_URL, {
    username: env.MQTT_USERNAME,
    password: env.MQTT_PASSWORD,
    reconnectPeriod: 0,
  });
  for (const id of lockerIds) {
    for (const t of [topics.connection(id), topics.cells(id)])
      await client.publishAsync(t, '', { qos: 1, retain: true });
  }
  await client.endAsync();
}

const ROOT = path.resolve(import.meta.dirname, '../..');

/** `npm run operator -- …` as its own process on the test storage. */
export function operatorProcess(
  w: SyncWorld,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'cloud/operator/cli.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: w.cloud.storage.databaseUrl, ...w.cloud.storage.childEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}
