import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { FleetFile, startFleet } from './fleet.ts';

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
        },
    });
    if (values.transport !== 'pty' && values.transport !== 'memory') throw new Error('--transport must be pty or memory');
    const lockers = values.fleet ? FleetFile.parse(JSON.parse(readFileSync(values.fleet, 'utf8'))).lockers : undefined;
    const fleet = await startFleet({ lockers, transport: values.transport, port: Number(values.port), host: values.host, dir: values.dir });
    for (const locker of fleet.lockers.values()) {
        locker.onDisplay((line) => console.log(`[${locker.id} display] ${line}`));
    }
    console.log(`simulator: ${fleet.lockers.size} locker(s) [${[...fleet.lockers.keys()].join(', ')}], control API on ${fleet.url}`);
    const shutdown = () => void fleet.close().finally(() => process.exit(0));
    process.on('SIGINT', shutdown);
    process.on('SIGTERM', shutdown);
}

main().catch((err) => {
    console.error(`simulator: ${(err as Error).message}`);
    process.exit(1);
});
