/**
 * The sandbox's hands at a simulated locker: a courier placing a parcel, a recipient collecting
 * it, staff taking it back. Each types the order's real code on the real keypad, moves the
 * parcel and shuts the door; the agent reports as it does in the field (MQTT, its outbox), so
 * the order's status, notifications, webhooks and SMS follow from the locker and nothing here
 * writes an order. Free of HTTP: cloud/sandbox/routes.ts maps the outcomes.
 */
import type { Db } from '../../storage/database.ts';
import { DomainError } from '../../domain/errors.ts';
import type { CodeType, OrderStatus } from '../../domain/order-states.ts';
import { syncVersionOf } from '../../storage/locker-sync-queries.ts';
import { findCode, findOrder } from '../../storage/order-queries.ts';
import type { SandboxFleet, SandboxLocker } from './fleet-port.ts';
import type { SandboxOutcome } from './outcomes.ts';

export type SandboxAction = 'place' | 'collect' | 'subtract';

/** What each action types, the status it needs first, and the one it leads to. */
const ACTIONS: Record<SandboxAction, { code: CodeType; from: OrderStatus; to: OrderStatus; parcel: boolean }> = {
  place: { code: 'DOWN', from: 'CREATED', to: 'DELIVERED', parcel: true },
  collect: { code: 'UP', from: 'DELIVERED', to: 'COMPLETED', parcel: false },
  subtract: { code: 'SUBTRACT', from: 'DELIVERED', to: 'SUBTRACTED', parcel: false },
};

export interface SandboxTimings {
  /** how long the locker has to answer a typed code */
  answerMs: number;
  /** how long a door has to spring open after the answer (latch release, the agent's confirmation) */
  doorMs: number;
  /** how long the cloud has to hear of the change before the answer says it has not yet (an offline locker) */
  reportMs: number;
  /** between two looks at a door or at the order */
  pollMs: number;
}

export const DEFAULT_TIMINGS: SandboxTimings = { answerMs: 5_000, doorMs: 3_000, reportMs: 10_000, pollMs: 25 };

export interface FlowDeps {
  db: Db;
  fleet: SandboxFleet | undefined;
  timings?: Partial<SandboxTimings>;
  sleep?: (ms: number) => Promise<void>;
}

export type FlowOutcome = SandboxOutcome;

/** A refusal by the state of things (not by the request's shape): 409, with what the locker showed, if it was asked. */
export class SandboxRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly display?: string | null,
  ) {
    super(message);
    this.name = 'SandboxRefusal';
  }
}

/** Unavailable: this process runs no simulated fleet (SANDBOX=true on `npm run cloud` alone). */
export class NoFleet extends Error {
  constructor() {
    super('no simulated fleet is attached to this cloud: start it with `SANDBOX=true npm start`');
    this.name = 'NoFleet';
  }
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One hand at a locker at a time: two doors opening at once could not be told apart. */
const busyLockers = new WeakMap<SandboxLocker, Promise<unknown>>();

function oneAtATime<T>(locker: SandboxLocker, work: () => Promise<T>): Promise<T> {
  const before = busyLockers.get(locker) ?? Promise.resolve();
  const mine = before.then(work, work);
  const settled = mine.catch(() => undefined);
  busyLockers.set(locker, settled);
  return mine;
}

export function lockerOf(fleet: SandboxFleet | undefined, lockerId: string): SandboxLocker {
  if (!fleet) throw new NoFleet();
  const locker = fleet.locker(lockerId);
  if (!locker) throw new SandboxRefusal('LOCKER_NOT_SIMULATED', `locker ${lockerId} is not simulated in this sandbox`);
  return locker;
}

/** Drives one action through the locker; see the module comment. */
export async function act(
  deps: FlowDeps,
  companyId: string,
  orderId: string,
  action: SandboxAction,
): Promise<FlowOutcome> {
  const t = { ...DEFAULT_TIMINGS, ...deps.timings };
  const sleep = deps.sleep ?? realSleep;
  const { code: codeType, from, to, parcel } = ACTIONS[action];
  const order = await findOrder(deps.db, companyId, orderId);
  if (!order) throw new DomainError('ORDER_NOT_FOUND');
  if (order.status !== from) {
    throw new SandboxRefusal(
      'ORDER_STATE',
      `order ${orderId} is ${order.status}: only a ${from} order can be ${action === 'place' ? 'placed' : action === 'collect' ? 'collected' : 'subtracted'}`,
    );
  }
  const locker = lockerOf(deps.fleet, order.postomatId);
  const code = await findCode(deps.db, order.id, codeType);
  if (!code) throw new DomainError('ORDER_NOT_FOUND');

  return oneAtATime(locker, async () => {
    // An order created a moment ago: its codes may be on their way to the locker. A person at
    // the keypad would not know to wait; an integrator's script should not have to either.
    await untilLockerHas(deps.db, locker, order.postomatId, t, sleep);
    const openBefore = new Set(locker.openDoors());
    const display = (await locker.typeCode(code.password, t.answerMs)) ?? null;
    let cell: string | undefined;
    for (const deadline = Date.now() + t.doorMs; !cell && Date.now() < deadline; await sleep(t.pollMs)) {
      cell = locker.openDoors().find((c) => !openBefore.has(c));
    }
    if (!cell)
      throw new SandboxRefusal(
        'LOCKER_REFUSED',
        `the locker opened no door: ${display ?? 'it showed nothing'}`,
        display,
      );
    locker.setParcel(cell, parcel);
    locker.closeDoor(cell);

    let status = order.status as OrderStatus;
    for (const deadline = Date.now() + t.reportMs; Date.now() < deadline; await sleep(t.pollMs)) {
      status = ((await findOrder(deps.db, companyId, orderId))?.status ?? status) as OrderStatus;
      if (status === to) break;
    }
    return { orderId, status, cell, display, reachedCloud: status === to };
  });
}

/** Waits (bounded) until the locker holds every change to its orders made so far; an offline locker never will, and then refuses the code itself. */
async function untilLockerHas(
  db: Db,
  locker: SandboxLocker,
  lockerId: string,
  t: SandboxTimings,
  sleep: (ms: number) => Promise<void>,
): Promise<void> {
  const wanted = await syncVersionOf(db, lockerId);
  for (const deadline = Date.now() + t.answerMs; Date.now() < deadline; await sleep(t.pollMs)) {
    if ((await locker.syncVersion()) >= wanted) return;
  }
}

/** Cuts or restores a simulated locker's network (the cloud sees it go offline when the broker notices). */
export async function setLockerNetwork(
  fleet: SandboxFleet | undefined,
  lockerId: string,
  online: boolean,
): Promise<{ lockerId: string; online: boolean }> {
  const locker = lockerOf(fleet, lockerId);
  if (!(await locker.setNetwork(online)))
    throw new SandboxRefusal('LOCKER_NOT_LINKED', `locker ${lockerId} has no cloud link`);
  return { lockerId, online };
}
