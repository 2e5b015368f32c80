import {
  CELL_SIZES,
  type CellSize,
  type CommandMessage,
  type LockerEvent,
  type RejectReason,
  type ResponseMessage,
  CONTRACT_VERSION,
  MQTT_LIMITS,
} from '../shared/mqtt/index.ts';
import { chooseByCode } from '../shared/locker-codes.ts';
import { isoNow, type Clock } from './clock.ts';
import type { CellMonitor } from './cells.ts';
import type { CellConfig } from './config.ts';
import { formatAmount, maskCode, storedUntil, type Display, type Log } from './display.ts';
import type { DoorSessions } from './sessions.ts';
import type { CellPlacement } from './cell-map.ts';
import type { AgentStore, StoredOrder } from './store.ts';

export interface KeypadPolicy {
  wrongCodeLimit: number;
  wrongCodeWindowMs: number;
  lockoutMs: number;
}

/**
 * Keypad code → order → cell → door session. Codes are handled one at a time in arrival order;
 * a door session runs on in the background once its door is open, so the next courier parcel
 * can be placed while the previous door is still being closed.
 */
export class Controller {
  private wrongCodes: number[] = [];
  private queue: Promise<void> = Promise.resolve();
  private readonly commandsRunning = new Map<string, Promise<ResponseMessage>>();

  constructor(
    private readonly store: AgentStore,
    private readonly cells: CellMonitor,
    private readonly sessions: DoorSessions,
    private readonly display: Display,
    private readonly clock: Clock,
    private readonly policy: KeypadPolicy,
    private readonly log: Log,
    private readonly onEvents: (events: LockerEvent[]) => void,
    /** which configured cells may take a parcel now (the cloud's cell map: cell-map.ts) */
    private readonly placement: CellPlacement = { usable: () => true },
  ) {}

  /** Queue a code from the keypad; resolves when it has been handled. */
  enterCode(code: string): Promise<void> {
    const run = this.queue
      .then(() => this.handleCode(code))
      .catch((err) => this.log.error(`code ${maskCode(code)}: ${(err as Error).message}`));
    this.queue = run;
    return run;
  }

  private async handleCode(code: string): Promise<void> {
    const lockedUntil = Number(this.store.meta('lockoutUntil') ?? 0);
    if (this.clock.now() < lockedUntil) {
      this.display.show(`Keypad locked. Try again in ${Math.ceil((lockedUntil - this.clock.now()) / 1000)} s`);
      return;
    }
    const matches = this.store.ordersByCode(code);
    // The rule the cloud draws codes by (shared/locker-codes.ts): a placement first.
    const actionable = chooseByCode(matches);
    if (!actionable) return this.wrongCode(code, matches.length ? 'WRONG_STATE' : 'UNKNOWN_CODE');
    this.log.info(`code ${maskCode(code)} → ${actionable.kind} order ${actionable.order.orderId}`);
    const { order, kind } = actionable;
    if (this.store.openIntents().some((i) => i.orderId === order.orderId)) {
      return this.reject(code, 'BUSY', order, 'This order is already in progress');
    }
    if (kind === 'DOWN') return this.place(code, order);
    if (!order.cellId) return this.reject(code, 'WRONG_STATE', order, 'Order has no cell');
    if (kind === 'UP' && order.notPaidAmount > 0) {
      return this.reject(
        code,
        'NOT_PAID',
        order,
        `Order not paid: pay ${formatAmount(order.notPaidAmount)} before pickup`,
      );
    }
    await this.openOrderCell(kind === 'UP' ? 'PICKUP' : 'SUBTRACT', order, order.cellId);
  }

  private async place(code: string, order: StoredOrder): Promise<void> {
    const tried = new Set<string>();
    for (;;) {
      const cell = this.pickCell(order.cellSize, tried);
      if (!cell) {
        const size = order.cellSize ? ` of size ${order.cellSize} or larger` : '';
        return this.reject(code, 'NO_FREE_CELL', order, `No free cell${size}. Please try another locker`);
      }
      tried.add(cell.cellId);
      const intent = this.store.beginIntent('PLACE', cell.cellId, order.orderId, isoNow(this.clock));
      const outcome = await this.sessions.open(intent);
      if (outcome === 'OPENED') {
        // A return's sender is not a courier: tell them what the cell is for.
        const what = order.kind === 'RETURN' ? 'your return' : 'the parcel';
        this.display.show(`Cell ${cell.cellId} is open: put ${what} in and close the door`);
        return this.sessions.track(intent);
      }
      this.display.show(`Cell ${cell.cellId} is out of order, trying another cell`);
    }
  }

  private async openOrderCell(
    kind: 'PICKUP' | 'SUBTRACT',
    order: StoredOrder,
    cellId: string,
    commandId: string | null = null,
  ): Promise<boolean> {
    const intent = this.store.beginIntent(kind, cellId, order.orderId, isoNow(this.clock), commandId);
    const outcome = await this.sessions.open(intent);
    if (outcome !== 'OPENED') {
      this.display.show(`Cell ${cellId} cannot be opened. Please contact support`);
      return false;
    }
    // Whoever takes a parcel out sees whether its storage period is over (an extension moves it).
    const stored = order.storageEnd ? ` (stored until ${storedUntil(order.storageEnd)})` : '';
    const what = order.kind === 'RETURN' ? 'collect the return' : 'take your parcel';
    this.display.show(
      kind === 'PICKUP'
        ? `Cell ${cellId} is open: ${what} and close the door`
        : `Cell ${cellId} is open for removal${stored}`,
    );
    this.sessions.track(intent);
    return true;
  }

  /**
   * Free working cell that fits: the order's size or larger (any size when none is asked),
   * smallest first so large cells stay available for large parcels.
   */
  pickCell(size: CellSize | null, exclude: Set<string>): CellConfig | undefined {
    const minRank = size ? CELL_SIZES.indexOf(size) : 0;
    const occupied = this.store.occupiedCells();
    const busy = this.sessions.busyCells();
    const faults = this.store.cellFaults();
    const candidates = this.cells.cells.filter((c) => {
      if (exclude.has(c.cellId) || occupied.has(c.cellId) || busy.has(c.cellId) || faults.has(c.cellId)) return false;
      if (!this.placement.usable(c.cellId)) return false;
      if (CELL_SIZES.indexOf(c.size) < minRank) return false;
      const v = this.cells.view(c.cellId);
      return v.lockClosed === true && v.parcelPresent === false;
    });
    candidates.sort((a, b) => CELL_SIZES.indexOf(a.size) - CELL_SIZES.indexOf(b.size));
    return candidates[0];
  }

  /**
   * Staff subtraction from the cloud. A redelivered commandId is executed once: it gets the
   * first answer again, joins the execution still running, or (after a restart in the middle
   * of it) is answered from the door cycle it left open.
   */
  async handleCommand(cmd: CommandMessage): Promise<ResponseMessage> {
    const done = this.store.commandResponse(cmd.commandId);
    if (done) return JSON.parse(done) as ResponseMessage;
    const running = this.commandsRunning.get(cmd.commandId);
    if (running) return running;
    if (this.store.openIntents().some((i) => i.commandId === cmd.commandId)) {
      return { v: CONTRACT_VERSION, commandId: cmd.commandId, status: 'ok', data: { resumed: true } };
    }
    const run = this.executeCommand(cmd).then((response) => {
      this.store.recordCommand(cmd.commandId, JSON.stringify(response));
      return response;
    });
    this.commandsRunning.set(cmd.commandId, run);
    try {
      return await run;
    } finally {
      this.commandsRunning.delete(cmd.commandId);
    }
  }

  private async executeCommand(cmd: CommandMessage): Promise<ResponseMessage> {
    const ok = (data?: Record<string, unknown>): ResponseMessage => ({
      v: CONTRACT_VERSION,
      commandId: cmd.commandId,
      status: 'ok',
      ...(data && { data }),
    });
    const error = (message: string): ResponseMessage => ({
      v: CONTRACT_VERSION,
      commandId: cmd.commandId,
      status: 'error',
      error: message,
    });
    if (cmd.type === 'RESYNC') return ok({ syncVersion: this.store.syncVersion() });
    if (cmd.expiresAt && Date.parse(cmd.expiresAt) < this.clock.now()) return error('command expired');
    if (!this.cells.cell(cmd.cellId)) return error(`unknown cell ${cmd.cellId}`);
    const holder = this.store.occupiedCells().get(cmd.cellId);
    if (cmd.orderId && holder !== cmd.orderId) return error(`order ${cmd.orderId} is not in cell ${cmd.cellId}`);
    const order = holder ? this.store.order(holder) : undefined;
    if (order)
      return (await this.openOrderCell('SUBTRACT', order, cmd.cellId, cmd.commandId))
        ? ok()
        : error('cell did not open');
    const intent = this.store.beginIntent('OPEN', cmd.cellId, null, isoNow(this.clock), cmd.commandId);
    if ((await this.sessions.open(intent)) !== 'OPENED') return error('cell did not open');
    this.sessions.track(intent);
    return ok();
  }

  private reject(code: string, reason: RejectReason, order: StoredOrder | undefined, message: string): void {
    this.log.info(`code ${maskCode(code)} rejected: ${reason}`);
    this.display.show(message);
    // A scanner can send a long line: the event must stay within the contract or the cloud drops it.
    const maskedCode = maskCode(code).slice(0, MQTT_LIMITS.maskedCodeLength);
    const event = this.store.appendEvent({
      type: 'CODE_REJECTED',
      reason,
      maskedCode,
      orderId: order?.orderId,
      at: isoNow(this.clock),
    });
    this.onEvents([event]);
  }

  /** Guessing codes is the attack: too many wrong ones in a window lock the keypad. */
  private wrongCode(code: string, reason: RejectReason): void {
    const now = this.clock.now();
    this.wrongCodes = this.wrongCodes.filter((t) => now - t < this.policy.wrongCodeWindowMs);
    this.wrongCodes.push(now);
    this.reject(code, reason, undefined, 'Wrong code');
    if (this.wrongCodes.length < this.policy.wrongCodeLimit) return;
    this.wrongCodes = [];
    const until = now + this.policy.lockoutMs;
    this.store.setMeta('lockoutUntil', String(until));
    this.log.warn(`keypad locked until ${new Date(until).toISOString()}`);
    this.display.show(`Too many wrong codes. Keypad locked for ${Math.ceil(this.policy.lockoutMs / 1000)} s`);
    this.onEvents([
      this.store.appendEvent({ type: 'LOCKOUT', at: isoNow(this.clock), until: new Date(until).toISOString() }),
    ]);
  }
}
