import { parseArgs } from 'node:util';
import { DEFAULT_BAUD_RATE } from '../../shared/protocols/kerong/index.ts';
import { openSerialLink } from '../boards/serial-link.ts';
import { systemClock } from '../clock.ts';
import { ConfigError } from '../config.ts';
import { formatScan, scanBus } from './scan.ts';
import { intFlag, openOrExplain } from './flags.ts';

export const SCAN_USAGE = `usage: npm run agent -- scan --device <path> [--baud 19200] [--timeout-ms 150] [--retries 1] [--gap-ms 5] [--json]
  asks every board address (0-15) on the bus for its status and prints who answers, each lock's
  hook and IR sensor, and a cell map skeleton for the config. It never unlocks anything.`;

/** `npm run agent -- scan`: exit 0 when boards answer and none is garbled, 1 otherwise. */
export async function scanCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      device: { type: 'string', short: 'd' },
      baud: { type: 'string' },
      'timeout-ms': { type: 'string' },
      retries: { type: 'string' },
      'gap-ms': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return (console.log(SCAN_USAGE), 0);
  if (!values.device) throw new ConfigError(`--device is required\n${SCAN_USAGE}`);
  const baud = intFlag('--baud', values.baud, DEFAULT_BAUD_RATE, 1200, 921_600);
  const options = {
    replyTimeoutMs: intFlag('--timeout-ms', values['timeout-ms'], 150, 10, 5000),
    readRetries: intFlag('--retries', values.retries, 1, 0, 5),
    frameGapMs: intFlag('--gap-ms', values['gap-ms'], 5, 0, 1000),
  };
  const device = values.device;
  const { link } = await openOrExplain(device, () => openSerialLink(device, baud));
  try {
    const report = await scanBus(link, systemClock, options);
    console.log(values.json ? JSON.stringify(report, null, 2) : formatScan(report));
    const ok =
      report.boards.some((b) => b.verdict === 'ANSWERS') && !report.boards.some((b) => b.verdict === 'GARBLED');
    return ok ? 0 : 1;
  } finally {
    await link.close();
  }
}
