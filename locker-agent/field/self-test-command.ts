import { parseArgs } from 'node:util';
import { CONTRACT_VERSION, topics, type SelfTestMessage } from '../../shared/mqtt/index.ts';
import { AGENT_VERSION } from '../agent.ts';
import { KerongBus } from '../boards/kerong-bus.ts';
import { openSerialLink } from '../boards/serial-link.ts';
import { isoNow, systemClock } from '../clock.ts';
import { busOptionsOf, loadConfig } from '../config.ts';
import { intFlag, openOrExplain } from './flags.ts';
import { publishOnce } from './publish-once.ts';
import { SelfTest, formatSelfTest } from './self-test.ts';

export const SELF_TEST_USAGE = `usage: npm run agent -- self-test [--config /etc/locker-agent/config.json] [--all] [--json] [--close-timeout-s 120] [--no-publish]
  stop the agent first (sudo systemctl stop locker-agent): the test needs the bus.
  opens every empty cell one at a time (--all: cells with a parcel too) and waits for you to shut
  its door; reports each lock as OK, JAMMED, NO_ANSWER or SENSOR_STUCK, and sends the report to
  the cloud (npm run operator -- locker status shows it).
exit status: 0 no fault, 1 could not run, 2 faults found`;

export async function selfTestCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      config: { type: 'string', short: 'c' },
      all: { type: 'boolean' },
      json: { type: 'boolean' },
      'close-timeout-s': { type: 'string' },
      'no-publish': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return (console.log(SELF_TEST_USAGE), 0);
  const config = loadConfig(values.config ?? '/etc/locker-agent/config.json');
  const closeTimeoutMs = intFlag('--close-timeout-s', values['close-timeout-s'], 120, 1, 3600) * 1000;
  const s = config.serial;
  const { link } = await openOrExplain(s.device, () => openSerialLink(s.device, s.baudRate));
  let message: SelfTestMessage;
  try {
    const bus = new KerongBus(link, systemClock, busOptionsOf(config));
    bus.attach();
    const test = new SelfTest(
      bus,
      systemClock,
      {
        all: values.all === true,
        unlockConfirmMs: config.timing.unlockConfirmMs,
        closeTimeoutMs,
        pollMs: Math.min(s.pollIntervalMs, 250),
      },
      (line) => console.error(line),
    );
    const results = await test.run(config.cells);
    message = {
      v: CONTRACT_VERSION,
      at: isoNow(systemClock),
      agentVersion: AGENT_VERSION,
      all: values.all === true,
      results,
    };
  } finally {
    await link.close();
  }
  console.log(values.json ? JSON.stringify(message, null, 2) : formatSelfTest(message.results));
  if (config.cloud && !values['no-publish']) {
    try {
      await publishOnce(config.cloud, config.lockerId, topics.selftest(config.lockerId), message);
      console.error('report sent to the cloud (npm run operator -- locker status)');
    } catch (err) {
      console.error(`report NOT sent to the cloud: ${(err as Error).message}`);
    }
  }
  return message.results.some((r) => r.outcome !== 'OK' && r.outcome !== 'SKIPPED') ? 2 : 0;
}
