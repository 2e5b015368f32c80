import { parseArgs } from 'node:util';
import { AGENT_VERSION, LockerAgent } from './agent.ts';
import { openSerialLink } from './boards/serial-link.ts';
import { ConfigError, loadConfig } from './config.ts';
import { consoleLog, type Display } from './display.ts';
import { openKeypad } from './keypad/keypad.ts';
import { startAgentSync, type AgentSync } from './sync.ts';
import { describeConfig } from './describe-config.ts';

const USAGE = `usage: npm run agent -- --config <file> [--check]
  --config, -c <file>  the locker's config (docs/field-technicians.md)
  --check              validate the config, print what it describes and exit, without opening any device
  --help, -h           this text
field tools (each with --help): scan, enroll, self-test`;

/** Installation tools, run by a technician before (or instead of) the agent itself. */
const FIELD_COMMANDS: Record<string, () => Promise<(argv: string[]) => Promise<number>>> = {
  scan: async () => (await import('./field/scan-command.ts')).scanCommand,
  enroll: async () => (await import('./field/enroll-command.ts')).enrollCommand,
  'self-test': async () => (await import('./field/self-test-command.ts')).selfTestCommand,
};

/**
 * `npm run agent -- --config locker.json`. With a `cloud` section the agent syncs with the cloud
 * over MQTT (sync.ts). When started by the simulator with an IPC channel, the same process also
 * reports events and display lines over it, and takes what the simulator's control API drives
 * directly: sync messages and commands without a cloud, and "cut the network".
 */
async function main(): Promise<void> {
  const [first, ...rest] = process.argv.slice(2);
  const field = first === undefined ? undefined : FIELD_COMMANDS[first];
  if (field) {
    process.exitCode = await (await field())(rest).catch((err: unknown) => {
      // parseArgs' own errors (an unknown flag) are the technician's to fix, not a crash.
      if ((err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) throw new ConfigError((err as Error).message);
      throw err;
    });
    return;
  }
  const { values } = parseArguments();
  if (values.help) return void console.log(USAGE);
  if (!values.config) throw new ConfigError(USAGE);
  const config = loadConfig(values.config);
  if (values.check) return void console.log(describeConfig(config));
  const send = process.send?.bind(process);
  const display: Display = {
    show(text) {
      console.log(`[display] ${text}`);
      send?.({ type: 'display', text });
    },
  };
  const { link } = await openDevice('the lock bus', 'serial.device', config.serial.device, () =>
    openSerialLink(config.serial.device, config.serial.baudRate),
  );
  const keypad = await openDevice('the keypad', 'keypad.device', config.keypad.device, () =>
    openKeypad(config.keypad.device, config.keypad.baudRate),
  );
  const agent = new LockerAgent(config, { bus: link, keypad, display, log: consoleLog });
  agent.on('event', (event) => send?.({ type: 'event', event }));
  agent.on('cells', (cells) => send?.({ type: 'cells', cells }));
  let sync: AgentSync | undefined;
  process.on('message', (msg: { type: string; id?: number; payload?: unknown }) => void onMessage(agent, sync, msg));
  const shutdown = () =>
    void (sync?.stop() ?? Promise.resolve()).then(() => agent.stop()).finally(() => process.exit(0));
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  // Started by the simulator: do not outlive it if it dies without stopping us.
  if (send) process.on('disconnect', shutdown);
  await agent.start();
  sync = startAgentSync(agent, config, consoleLog, AGENT_VERSION);
  send?.({ type: 'ready' });
}

/** A device that will not open is a fault of the config or the wiring: said as such, without a stack. */
async function openDevice<T>(what: string, key: string, device: string, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (err) {
    const reason = (err as Error).message.replace(/^(Error: )+/, '');
    throw new ConfigError(`cannot open ${what} at ${device} (${key}): ${reason}; see ls -l /dev/serial/by-id/`);
  }
}

function parseArguments() {
  try {
    return parseArgs({
      options: {
        config: { type: 'string', short: 'c' },
        check: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new ConfigError(`${(err as Error).message}\n${USAGE}`);
  }
}

async function onMessage(
  agent: LockerAgent,
  sync: AgentSync | undefined,
  msg: { type: string; id?: number; payload?: unknown },
): Promise<void> {
  let result: unknown;
  try {
    if (msg.type === 'sync') result = agent.applySync(msg.payload);
    else if (msg.type === 'command') result = await agent.handleCommand(msg.payload);
    else if (msg.type === 'ack') result = agent.ack(String(msg.payload));
    else if (msg.type === 'cells') result = agent.cellsMessage();
    else if (msg.type === 'pending') result = agent.pendingEvents();
    else if (msg.type === 'syncVersion') result = agent.syncVersion();
    else if (msg.type === 'network') result = (await sync?.setNetwork(msg.payload === true).then(() => true)) ?? false;
    else throw new Error(`unknown message ${msg.type}`);
    process.send?.({ type: 'reply', id: msg.id, ok: true, result });
  } catch (err) {
    process.send?.({ type: 'reply', id: msg.id, ok: false, error: (err as Error).message });
  }
}

main().catch((err) => {
  consoleLog.error(err instanceof ConfigError ? err.message : ((err as Error).stack ?? String(err)));
  process.exit(1);
});
