/**
 * bench:peak's agent process: a share of the lockers as lightweight agents (bench-agents.ts: the
 * real MQTT client side and agent store), driven over the IPC channel by bench/peak.ts. The
 * agents run in processes of their own because 10,000 of them need ~40,000 file descriptors
 * (a socket and the store's three files each), beyond one process's limit here.
 *
 * Parent → child: { start: { lockers, mqttUrl, dir } }, { event: { lockerId, type, orderId,
 * cellId } }, { probe: 'start' | 'stop' }, { close: true }.
 * Child → parent: { ready }, batches { usable: [orderId, at][], acked: [eventId, sentAt,
 * ackedAt, orderId, type][] } every FLUSH_MS, { probe: figures }, { closed }. Times are monoMs() (peak-clock.ts).
 */
import { startBenchAgents, type BenchAgents } from './bench-agents.ts';
import { monoMs } from './peak-clock.ts';
import { selfProbe } from './server-probe.ts';
import type { NewEvent } from '../../locker-agent/store.ts';

const FLUSH_MS = 10;
const send = (msg: unknown) => process.send!(msg);
const probe = selfProbe();
let agents: BenchAgents | undefined;
let usable: Array<[string, number]> = [];
let acked: Array<[string, number, number, string, string]> = [];
/** what each event sent was about, reported with its acknowledgement */
const about = new Map<string, [orderId: string, type: string]>();

const flush = () => {
  if (!agents) return;
  // Reported, then forgotten, so each flush walks only what is new (a peak run has hundreds of
  // thousands). A later sync of the same order (placed) reports it again: the parent keeps the first.
  for (const [orderId, at] of agents.usableAt) usable.push([orderId, at]);
  agents.usableAt.clear();
  agents.receivedAt.clear();
  for (const [eventId, at] of agents.ackedAt) {
    const [orderId, type] = about.get(eventId) ?? ['', ''];
    acked.push([eventId, agents.sentAt.get(eventId) ?? NaN, at, orderId, type]);
    agents.sentAt.delete(eventId);
    about.delete(eventId);
  }
  agents.ackedAt.clear();
  if (usable.length || acked.length) send({ usable, acked });
  usable = [];
  acked = [];
};
const timer = setInterval(flush, FLUSH_MS);

process.on('message', async (msg: any) => {
  try {
    if (msg.start) {
      agents = await startBenchAgents(msg.start.lockers, msg.start.mqttUrl, msg.start.dir, 50, monoMs, msg.start.cells);
      send({ ready: true });
    } else if (msg.event) {
      const { lockerId, ...event } = msg.event as NewEvent & { lockerId: string };
      about.set(agents!.send(lockerId, event), [event.orderId ?? '', event.type]);
    } else if (msg.probe === 'start') {
      await probe.start();
      send({ probe: 'started' });
    } else if (msg.probe === 'stop') {
      send({ probe: await probe.stop() });
    } else if (msg.close) {
      clearInterval(timer);
      flush();
      await agents?.close();
      send({ closed: true });
      process.exit(0);
    }
  } catch (err) {
    console.error(`[peak agents] ${(err as Error).stack}`);
    process.exit(1);
  }
});
