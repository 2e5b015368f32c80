import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { FleetFile, startFleet } from './fleet.ts';

const USAGE = `usage: npm run sim -- [--fleet fleet.json] [--port 8090] [--host 127.0.0.1] [--transport pty|memory] [--dir <folder>]
  --fleet      lockers, boards, cells and orders (docs/simulator.md); two demo lockers without it
  --port       the control API's port (SIM_PORT, default 8090); --host its address (SIM_HOST)
  --transport  pty: agents as processes on pseudo-terminals (default); memory: in-process
  --dir        where the lockers' ptys and agent stores live (default: a temporary folder)`;

/**
 * `npm run sim [-- --fleet fleet.json --port 8080 --transport pty|memory]`: simulated lockers
 * with their agents, plus the HTTP control API (docs/simulator.md).
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      fleet: { type: 'string' },
      port: { type: 'string', default: process.env.SIM_PORT ?? '8090' },
      host: { type: 'string', default: process.env.SIM_HOST ?? '127.0.0.1' },
      transport: { type: 'string', default: 'pty' },
      dir: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return void console.log(USAGE);
  if (values.transport !== 'pty' && values.transport !== 'memory') throw new Error('--transport must be pty or memory');
  const lockers = values.fleet ? readFleet(values.fleet) : undefined;
  const fleet = await startFleet({
    lockers,
    transport: values.transport,
    port: Number(values.port),
    host: values.host,
    dir: values.dir,
  });
  for (const locker of fleet.lockers.values()) {
    locker.onDisplay((line) => console.log(`[${locker.id} display] ${line}`));
  }
  console.log(
    `simulator: ${fleet.lockers.size} locker(s) [${[...fleet.lockers.keys()].join(', ')}], control API on ${fleet.url}, page on ${fleet.url}/`,
  );
  const shutdown = () => void fleet.close().finally(() => process.exit(0));
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

function readFleet(file: string) {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read fleet file ${file}: ${(err as Error).message}`);
  }
  const parsed = FleetFile.safeParse(raw);
  if (!parsed.success) throw new Error(`fleet file ${file} is invalid:\n${z.prettifyError(parsed.error)}`);
  return parsed.data.lockers;
}

main().catch((err) => {
  console.error(`simulator: ${(err as Error).message}`);
  if ((err as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) console.error(USAGE);
  process.exit(1);
});
