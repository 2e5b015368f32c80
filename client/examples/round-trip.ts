/**
 * A parcel's whole life against the sandbox (`SANDBOX=true npm start`), with the typed client:
 *   BASE_URL=http://127.0.0.1:3000 KEY=<company API key> LOCKER=<locker id> npx tsx client/examples/round-trip.ts
 */
import { LockerClient, type SandboxOutcome } from '../src/index.ts';

export async function roundTrip(baseUrl: string, apiKey: string, postomatId: string, log = console.log) {
  const api = new LockerClient({ baseUrl, apiKey });
  // customData is your reference: after a lost answer the client finds the order by it instead of creating a second one.
  const order = await api.createOrder({
    toUserPhone: '+996555123456',
    postomatId,
    sendMessage: true,
    pay: true,
    customData: `shop-order-${Date.now()}`,
  });
  log(`created order ${order.id}`);
  const down = await api.code(order.id, 'DOWN');
  log(`the courier's code is ${down.password}`);
  const placed: SandboxOutcome = await api.sandbox.place(order.id); // the courier at the simulated locker
  log(`placed in cell ${placed.cell}: ${placed.status} (the recipient's SMS is on its way)`);
  const read = await api.getOrder(order.id, { withCurrentStatus: true, withCell: true });
  log(`the API says ${read.currentStatus?.type}, storage until ${read.endDateTime}`);
  const collected = await api.sandbox.collect(order.id); // the recipient types the UP code
  log(`collected: ${collected.status} (your notification URL hears of it)`);
  return { order, placed, read, collected };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { BASE_URL = 'http://127.0.0.1:3000', KEY, LOCKER } = process.env;
  if (!KEY || !LOCKER) throw new Error('set KEY and LOCKER (npm start prints them)');
  await roundTrip(BASE_URL, KEY, LOCKER);
}
