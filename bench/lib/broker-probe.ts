/**
 * bench:sync's probe: the cloud's embedded broker alone (cloud/sync/broker.ts: the same aedes
 * setup, the same authentication and ACL hooks, agent passwords checked against the same
 * database) in a process of its own, so its memory can be read without the HTTP side. Prints
 * one JSON line { port, secret } (the secret of this throwaway process lets the bench publish
 * as the cloud); each "mem" line on stdin answers { rss, heapUsed, clients } after a GC, and
 * "heap <file>" writes a heap snapshot there (after a GC) and answers { heap }.
 * Run with node --expose-gc.
 */
import readline from 'node:readline';
import v8 from 'node:v8';
import { silentLogger } from '../../cloud/logger.ts';
import { openStorage } from '../../cloud/storage/database.ts';
import { startEmbeddedBroker } from '../../cloud/sync/broker.ts';
import { DEFAULT_BROKER_LIMITS } from '../../cloud/sync/broker-limits.ts';
import { systemClock } from '../../shared/clock.ts';
import { AgentCredentials } from '../../cloud/sync/credentials.ts';

const storage = await openStorage(process.env.DATABASE_URL!);
// Every simulated locker connects from 127.0.0.1: no per-address caps (connections, login budget).
const limits = { ...DEFAULT_BROKER_LIMITS, maxConnections: 1_000_000, maxConnectionsPerAddress: 0, loginFailureMax: 0 };
const broker = await startEmbeddedBroker({
  port: 0,
  host: '127.0.0.1',
  credentials: new AgentCredentials(storage.db),
  logger: silentLogger,
  clock: systemClock,
  limits,
});
process.stdout.write(`${JSON.stringify({ port: broker.port, secret: broker.cloudSecret })}\n`);

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  // "heap <file>": a heap snapshot, to see what a connected locker's memory is made of.
  if (line.startsWith('heap ')) {
    (globalThis as { gc?: () => void }).gc?.();
    v8.writeHeapSnapshot(line.slice(5).trim());
    process.stdout.write(`${JSON.stringify({ heap: line.slice(5).trim() })}\n`);
    return;
  }
  if (line.trim() !== 'mem') return;
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  process.stdout.write(
    `${JSON.stringify({ rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, clients: broker.connectedClients() })}\n`,
  );
});

process.on(
  'SIGTERM',
  () =>
    void broker
      .close()
      .then(() => storage.close())
      .finally(() => process.exit(0)),
);
