import { parseArgs } from 'node:util';
import { EnrolmentCode } from '../../shared/enrolment.ts';
import { systemClock } from '../clock.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { describeConfig } from '../describe-config.ts';
import { checkBoards } from './board-check.ts';
import { enrol } from './enroll.ts';
import { intFlag } from './flags.ts';

export const ENROLL_USAGE = `usage: npm run agent -- enroll --cloud <https://…> --code XXXX-XXXX [options]
  --config <file>     where to write the config (default /etc/locker-agent/config.json)
  --device <path>     the RS-485 adapter (default /dev/ttyUSB0; prefer /dev/serial/by-id/…)
  --keypad <path>     the keypad or scanner, or stdin (default stdin)
  --data-dir <dir>    the agent's store (default /var/lib/locker-agent)
  --force             replace an existing config
  --timeout-ms <n>    how long to wait for the cloud (default 15000)
exit status: 0 enrolled and every board answers, 1 not enrolled (nothing changed), 3 enrolled but boards do not answer`;

export async function enrollCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      cloud: { type: 'string' },
      code: { type: 'string' },
      config: { type: 'string', short: 'c' },
      device: { type: 'string', short: 'd' },
      keypad: { type: 'string' },
      'data-dir': { type: 'string' },
      force: { type: 'boolean' },
      'timeout-ms': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return (console.log(ENROLL_USAGE), 0);
  if (!values.cloud || !values.code) throw new ConfigError(`--cloud and --code are required\n${ENROLL_USAGE}`);
  const code = EnrolmentCode.safeParse(values.code);
  if (!code.success) throw new ConfigError(`--code: ${code.error.issues[0]?.message}; nothing was changed`);
  const configPath = values.config ?? '/etc/locker-agent/config.json';
  await enrol({
    cloudUrl: values.cloud,
    code: code.data,
    configPath,
    device: values.device ?? '/dev/ttyUSB0',
    keypad: values.keypad ?? 'stdin',
    dataDir: values['data-dir'] ?? '/var/lib/locker-agent',
    force: values.force === true,
    timeoutMs: intFlag('--timeout-ms', values['timeout-ms'], 15_000, 1000, 120_000),
  });
  // The check reads the file back, as the service will.
  const written = loadConfig(configPath);
  console.log(`enrolled: config written to ${configPath} (owner-only)\n${describeConfig(written)}`);
  const boards = await checkBoards(written, systemClock);
  if (boards.error) console.log(`check: ${boards.error}`);
  if (boards.answering.length) console.log(`check: boards answering: ${boards.answering.join(', ')}`);
  if (boards.silent.length)
    console.log(
      `check: boards NOT answering: ${boards.silent.join(', ')} (wiring, power, address switches: npm run agent -- scan --device ${written.serial.device})`,
    );
  return boards.silent.length || boards.error ? 3 : 0;
}
