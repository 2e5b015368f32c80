/**
 * `npm start`: the whole system on embedded defaults — the cloud on SQLite (./data/cloud.db),
 * demo data seeded on first start with its credentials printed (and kept in ./data/demo.json,
 * readable by this user only, so later starts can print them again).
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig, ConfigError } from '../cloud/config.ts';
import { createLogger } from '../cloud/logger.ts';
import { startCloud } from '../cloud/server.ts';
import { openStorage, isPostgresUrl, sqlitePathFromUrl } from '../cloud/storage/database.ts';
import { systemClock } from '../cloud/clock.ts';
import { seedDemo, type DemoData } from '../cloud/operator/demo/seed.ts';

async function main() {
  const config = loadConfig();
  const logger = createLogger({ level: config.LOG_LEVEL });
  const storage = await openStorage(config.DATABASE_URL);
  const dataDir = isPostgresUrl(config.DATABASE_URL) ? path.resolve('data') : path.dirname(path.resolve(sqlitePathFromUrl(config.DATABASE_URL)));
  const demoFile = path.join(dataDir, 'demo.json');

  let demo: DemoData | undefined;
  const companies = await storage.db.selectFrom('locker_company').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  if (Number(companies.n) === 0) {
    logger.info('empty database: seeding demo data');
    const ctx = { db: storage.db, dialect: storage.dialect, clock: systemClock, progress: (line: string) => logger.info(line) };
    demo = await seedDemo(ctx);
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(demoFile, JSON.stringify(demo, null, 2) + '\n', { mode: 0o600 });
  } else if (fs.existsSync(demoFile)) {
    demo = JSON.parse(fs.readFileSync(demoFile, 'utf8'));
  }

  const cloud = await startCloud(config, { logger, storage });
  logger.info('cloud ready', { url: cloud.url, storage: storage.describe });
  process.stdout.write(banner(cloud.url, demo, demoFile));

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    await cloud.close();
    await storage.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

function banner(url: string, demo: DemoData | undefined, demoFile: string): string {
  if (!demo) return `\nThe database is not empty and has no ${demoFile}: use \`npm run operator -- help\` to manage it.\n\n`;
  const [company] = demo.locker.companies;
  const [locker] = demo.locker.postomats;
  const base = `${url}/api/v1/integration/company`;
  return [
    '',
    `Parcel-locker cloud on ${url}`,
    `Demo credentials (also in ${demoFile}):`,
    ...demo.locker.companies.map((c) => `  company ${c.title ?? c.id}: API key ${c.apiKey}`),
    ...demo.locker.postomats.map((p) => `  locker ${p.shortId} "${p.title}": id ${p.id}, agent ${p.agent.username} / ${p.agent.password}`),
    '',
    'Try:',
    `  curl -s -H 'Authorization: Bearer ${company.apiKey}' '${base}/postomat/list?withFreeCells=true'`,
    `  curl -s -X POST -H 'Authorization: Bearer ${company.apiKey}' -H 'Content-Type: application/json' \\`,
    `       -d '{"toUserPhone":"+996555123456","postomatId":"${locker.id}","sendMessage":true}' '${base}/order/create'`,
    `  curl -s -H 'Authorization: Bearer ${company.apiKey}' '${base}/order/list?withCurrentStatus=true'`,
    ...(demo.platform ? platformLines(url, demo.platform) : []),
    '',
  ].join('\n');
}

function platformLines(url: string, p: NonNullable<DemoData['platform']>): string[] {
  return [
    '',
    'Platform API (company ids; keys go in x-api-token, user tokens in Authorization: Bearer):',
    `  logistics company ${p.logist.companyId}: API key ${p.logist.apiKey}`,
    `    administrator ${p.logist.admin.email} / ${p.logist.admin.password}, user ${p.logist.user.email} / ${p.logist.user.password}`,
    `  other logistics company ${p.otherLogist.companyId}: API key ${p.otherLogist.apiKey}, administrator ${p.otherLogist.admin.email} / ${p.otherLogist.admin.password}`,
    `  warehouse company ${p.warehouse.companyId}: API key ${p.warehouse.apiKey}`,
    `  marketplace ${p.market.companyId} (locker access): API key ${p.market.apiKey}; marketplace ${p.noLockerAccess.companyId} (none): API key ${p.noLockerAccess.apiKey}`,
    `  pickup points ${p.pickupPointIds.join(', ')}; clients ${p.clients.map((c) => `${c.codeName}-${c.code}`).join(', ')}`,
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
