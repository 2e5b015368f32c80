/**
 * `npm start`: the whole system on embedded defaults — the cloud on SQLite (./data/cloud.db)
 * with its embedded MQTT broker, demo data seeded on first start with its credentials printed
 * (and kept in a file of that database, readable by this user only, so later starts can print
 * them again: demo-credentials.ts), and a simulated fleet of the demo lockers whose real agents
 * connect to the broker with the demo agent credentials, driven through the simulator's control API.
 */
import { createUnitOfWork } from '../cloud/consequences.ts';
import net from 'node:net';
import { spawnSync } from 'node:child_process';
import { loadConfig, ConfigError } from '../cloud/config.ts';
import { createLogger, type Logger } from '../cloud/logger.ts';
import { startCloud, type CloudHandle } from '../cloud/server.ts';
import { openStorage } from '../cloud/storage/database.ts';
import { systemClock } from '../shared/clock.ts';
import { seedDemo } from '../cloud/operator/demo/seed.ts';
import { demoPlace, findDemo, noDemoBanner, saveDemo, type DemoFile, type DemoPlace } from './demo-credentials.ts';
import { startFleet, type FleetHandle } from '../hardware-sim/fleet.ts';
import { fleetOfCloudLockers } from '../hardware-sim/cloud-fleet.ts';
import { localCloudView } from './sim-cloud-view.ts';
import { sandboxFleetOf } from './sandbox-fleet.ts';

/** 1883 unless MQTT_PORT says otherwise; when 1883 is taken (a system Mosquitto), any free port. */
async function mqttPort(logger: Logger): Promise<string | undefined> {
  if (process.env.MQTT_PORT || process.env.MQTT_URL) return undefined;
  const free = await new Promise<boolean>((resolve) => {
    const probe = net.createServer().once('error', () => resolve(false));
    probe.listen(1883, () => probe.close(() => resolve(true)));
  });
  if (free) return undefined;
  logger.warn(
    'port 1883 is taken (another MQTT broker?): the embedded broker listens on a free port instead; set MQTT_PORT to choose one',
  );
  return '0';
}

/**
 * The demo's webhook receivers run on this machine (README: a receiver on 127.0.0.1:9999), so
 * the demo lists loopback as an allowed webhook target unless WEBHOOK_ALLOW_HOSTS says otherwise.
 */
const DEMO_WEBHOOK_ALLOW_HOSTS = '127.0.0.1,::1,localhost';

async function main() {
  const bootLogger = createLogger({ level: 'info' });
  const port = await mqttPort(bootLogger);
  const env = { WEBHOOK_ALLOW_HOSTS: DEMO_WEBHOOK_ALLOW_HOSTS, ...process.env, ...(port ? { MQTT_PORT: port } : {}) };
  const config = loadConfig(env);
  const logger = createLogger({ level: config.LOG_LEVEL });
  const storage = await openStorage(config.DATABASE_URL);
  const place = await demoPlace(storage, config.DATABASE_URL);

  let demo: DemoFile | undefined;
  let notes: string[] = [];
  const companies = await storage.db
    .selectFrom('locker_company')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  if (Number(companies.n) === 0) {
    logger.info('empty database: seeding demo data', { database: place.database });
    const ctx = {
      db: storage.db,
      uow: createUnitOfWork(storage.db, storage.changes),
      dialect: storage.dialect,
      clock: systemClock,
      progress: (line: string) => logger.info(line),
    };
    demo = saveDemo(place, await seedDemo(ctx));
  } else {
    ({ demo, notes } = await findDemo(storage, place));
  }

  const cloud = await startCloud(config, { logger, storage });
  logger.info('cloud ready', { url: cloud.url, storage: storage.describe, mqtt: cloud.sync.mqttUrl });
  const fleet = demo ? await startDemoFleet(demo, cloud, logger) : undefined;
  if (fleet && cloud.deps.sandbox) {
    cloud.deps.sandbox.attach(sandboxFleetOf(fleet.lockers));
    logger.info('sandbox endpoints on: they drive the simulated lockers', { base: `${cloud.url}/api/v1/sandbox` });
  }
  process.stdout.write(
    demo
      ? banner(cloud.url, cloud.sync.mqttUrl, fleet?.url, demo, place)
      : noDemoBanner(place, config.DATABASE_URL, notes),
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    await fleet?.close();
    await cloud.close();
    await storage.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/** The active demo lockers, simulated, their agents connected to the cloud (ptys when socat is there). */
async function startDemoFleet(demo: DemoFile, cloud: CloudHandle, logger: Logger): Promise<FleetHandle> {
  const lockers = [...demo.locker.postomats, demo.locker.postomatWithoutCoordinates];
  const pty = spawnSync('sh', ['-c', 'command -v socat']).status === 0;
  if (!pty)
    logger.warn(
      'socat is not installed: the simulated lockers use in-memory serial links instead of pseudo-terminals (apt-get install socat)',
    );
  const simPort = Number(process.env.SIM_PORT ?? 8090);
  const fleet = await startFleet({
    lockers: fleetOfCloudLockers(lockers, cloud.sync.mqttUrl),
    // The page shows each locker's orders as the cloud holds them; its test orders are the first demo company's.
    cloud: localCloudView(cloud.deps, { companyId: demo.locker.companies[0].id }),
    transport: pty ? 'pty' : 'memory',
    agentMode: 'inprocess',
    port: simPort,
    host: process.env.SIM_HOST ?? '127.0.0.1',
  }).catch((err: NodeJS.ErrnoException) => {
    throw err.code === 'EADDRINUSE'
      ? new Error(`SIM_PORT ${simPort} is already in use: choose another with SIM_PORT=…`)
      : err;
  });
  for (const locker of fleet.lockers.values()) {
    const title = lockers.find((l) => l.id === locker.id)?.shortId ?? locker.id;
    locker.onDisplay((line) => logger.info(`[${title} display] ${line}`));
  }
  logger.info('simulated lockers running', { lockers: fleet.lockers.size, controlApi: fleet.url });
  return fleet;
}

function banner(url: string, mqttUrl: string, simUrl: string | undefined, demo: DemoFile, place: DemoPlace): string {
  const demoFile = place.file;
  const [company] = demo.locker.companies;
  const [locker] = demo.locker.postomats;
  const base = `${url}/api/v1/integration/company`;
  return [
    '',
    `Parcel-locker cloud on ${url}, MQTT broker on ${mqttUrl}, database ${place.database}`,
    `Simulated lockers (their agents connected over MQTT): open ${simUrl}/ in a browser; control API on ${simUrl}`,
    `Demo credentials (also in ${demoFile}):`,
    ...demo.locker.companies.map((c) => `  company ${c.title ?? c.id}: API key ${c.apiKey}`),
    ...[...demo.locker.postomats, demo.locker.postomatWithoutCoordinates].map(
      (p) => `  locker ${p.shortId} "${p.title}": id ${p.id}, agent ${p.agent.username} / ${p.agent.password}`,
    ),
    '',
    `API reference (every endpoint, its errors and curl samples using these variables): ${url}/docs`,
    'For the walkthrough in README.md ("Five minutes: create → place → collect") and the samples of the reference:',
    `  export URL=${url} KEY=${company.apiKey} LOCKER=${locker.id} BASE=${base} SIM=${simUrl}`,
    '',
    'Try:',
    `  curl -s -H "Authorization: Bearer $KEY" "$BASE/postomat/list?withFreeCells=true"`,
    `  curl -s -X POST -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \\`,
    `       -d "{\\"toUserPhone\\":\\"+996555123456\\",\\"postomatId\\":\\"$LOCKER\\",\\"sendMessage\\":true}" "$BASE/order/create"`,
    `  curl -s "$SIM/lockers/$LOCKER/display"`,
    ...(demo.platform ? platformLines(url, demo.platform) : []),
    '',
  ].join('\n');
}

/** "Bazaar Online" (6), as the README names the demo companies; the id alone in a demo.json that has no titles. */
const named = (c: { companyId: number; title?: string }) =>
  c.title ? `"${c.title}" (${c.companyId})` : String(c.companyId);

function platformLines(url: string, p: NonNullable<DemoFile['platform']>): string[] {
  return [
    '',
    'Platform API (company ids; keys go in x-api-token, user tokens in Authorization: Bearer):',
    `  logistics company ${named(p.logist)}: API key ${p.logist.apiKey} (PKEY)`,
    `    administrator ${p.logist.admin.email} / ${p.logist.admin.password} (EMAIL / PASSWORD), user ${p.logist.user.email} / ${p.logist.user.password}`,
    `  other logistics company ${named(p.otherLogist)}: API key ${p.otherLogist.apiKey}, administrator ${p.otherLogist.admin.email} / ${p.otherLogist.admin.password}`,
    `  warehouse company ${named(p.warehouse)}: API key ${p.warehouse.apiKey}`,
    `  marketplace ${named(p.market)}, with locker access: API key ${p.market.apiKey} (MKEY)`,
    `  marketplace ${named(p.noLockerAccess)}, without: API key ${p.noLockerAccess.apiKey}`,
    `  pickup points ${p.pickupPointIds.join(', ')}; clients ${p.clients.map((c) => `${c.codeName}-${c.code}`).join(', ')}`,
    `  export PKEY=${p.logist.apiKey} MKEY=${p.market.apiKey}`,
    'Try:',
    `  curl -s -X POST -H 'Content-Type: application/json' -d '{"email":"${p.logist.admin.email}","password":"${p.logist.admin.password}"}' '${url}/api/v1/auth/login'`,
    `  curl -s -H 'Authorization: Bearer <accessToken>' '${url}/api/v1/logistic-company/api-key/list?pageSize=10'`,
  ];
}

main().catch((err) => {
  if (err instanceof ConfigError) console.error(err.message);
  else console.error(`start failed: ${err instanceof Error ? err.message : err}`);
  process.exit(err instanceof ConfigError ? 2 : 1);
});
