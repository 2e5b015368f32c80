/**
 * The Locker API (and the sandbox) for a company with its API key. Reads are retried by the
 * spec's rules (transport.ts); order creation is never repeated blindly: after a failure that
 * leaves it unknown whether the order exists, the company's newest orders are searched for the
 * caller's `customData` before creating again, so a lost answer never makes a second order.
 */
import type { Operations } from './api-types.ts';
import { isUncertain } from './errors.ts';
import { backoff, Transport, type TransportOptions } from './transport.ts';

type Op<K extends keyof Operations> = Operations[K];
export type Order = Op<'getIntegrationCompanyOrderId'>['response'];
export type CreatedOrder = Op<'postIntegrationCompanyOrderCreate'>['response'];
export type CreateOrderBody = Op<'postIntegrationCompanyOrderCreate'>['body'];
export type OrderFlags = Op<'getIntegrationCompanyOrderId'>['query'];
export type OrderListQuery = Op<'getIntegrationCompanyOrderList'>['query'];
export type OrderPage = Op<'getIntegrationCompanyOrderList'>['response'];
export type PostomatListQuery = Op<'getIntegrationCompanyPostomatList'>['query'];
export type PostomatPage = Op<'getIntegrationCompanyPostomatList'>['response'];
export type OrderCode = Op<'getIntegrationCompanyOrderIdDownCode'>['response'];
export type CodeType = 'DOWN' | 'UP' | 'SUBTRACT';

/** The sandbox's answer to an action at a simulated locker (docs/sandbox.md). */
export type SandboxOutcome = Op<'postSandboxOrdersIdPlace'>['response'];
export type SandboxExpiredOrder = Op<'postSandboxOrdersIdExpire'>['response'];
export type SandboxLockerNetwork = Op<'postSandboxLockersIdOffline'>['response'];

export interface LockerClientOptions extends Omit<TransportOptions, 'headers'> {
  apiKey: string;
  /** orders searched for the caller's customData after an uncertain create (newest first) */
  recoveryPageSize?: number;
}

const LOCKER = '/api/v1/integration/company';
const SANDBOX = '/api/v1/sandbox';
const CODE_PATHS: Record<CodeType, string> = { DOWN: 'down-code', UP: 'up-code', SUBTRACT: 'subtract-code' };

type Query = Record<string, string | number | boolean | undefined>;
const asQuery = (q: object | undefined) => q as Query | undefined;

export class LockerClient {
  private readonly http: Transport;
  private readonly recoveryPageSize: number;

  constructor(options: LockerClientOptions) {
    this.http = new Transport({ ...options, headers: { authorization: `Bearer ${options.apiKey}` } });
    this.recoveryPageSize = options.recoveryPageSize ?? 100;
  }

  /**
   * Creates an order. A 429 is waited out and retried (nothing was created). After a network
   * error, a timeout or a 5xx the order may exist: with `customData` given, the company's newest
   * orders are searched for it, and the order is created again only when it is not there; without
   * `customData` the error is thrown, since nothing could tell a retry from a duplicate.
   */
  async createOrder(body: CreateOrderBody): Promise<CreatedOrder> {
    const create = () =>
      this.http.send<CreatedOrder>({ method: 'POST', path: `${LOCKER}/order/create`, body, repeatable: false });
    let failure: unknown;
    try {
      return await create();
    } catch (err) {
      if (!isUncertain(err) || body.customData === undefined) throw err;
      failure = err;
    }
    for (let retry = 0; retry + 1 < this.http.policy.attempts; retry++) {
      await this.http.sleep(backoff(this.http.policy, retry));
      const found = await this.findByCustomData(body);
      if (found) return found;
      try {
        return await create();
      } catch (err) {
        if (!isUncertain(err)) throw err;
        failure = err;
      }
    }
    // The last create may have succeeded unseen: look once more before giving up.
    const found = await this.findByCustomData(body).catch(() => undefined);
    if (found) return found;
    throw failure;
  }

  private async findByCustomData(body: CreateOrderBody): Promise<CreatedOrder | undefined> {
    const page = await this.listOrders({ page: 1, pageSize: this.recoveryPageSize });
    return page.data.find((o) => o.customData === body.customData && o.postomatId === body.postomatId) as
      | CreatedOrder
      | undefined;
  }

  getOrder(id: string, flags: OrderFlags = {}): Promise<Order> {
    return this.http.send({
      method: 'GET',
      path: `${LOCKER}/order/${encodeURIComponent(id)}`,
      query: asQuery(flags),
      repeatable: true,
    });
  }

  listOrders(query: OrderListQuery = {}): Promise<OrderPage> {
    return this.http.send({ method: 'GET', path: `${LOCKER}/order/list`, query: asQuery(query), repeatable: true });
  }

  /** One of the order's codes: DOWN for the courier, UP for the recipient, SUBTRACT for staff. */
  code(id: string, type: CodeType): Promise<OrderCode> {
    return this.http.send({
      method: 'GET',
      path: `${LOCKER}/order/${encodeURIComponent(id)}/${CODE_PATHS[type]}`,
      repeatable: true,
    });
  }

  listPostomats(query: PostomatListQuery = {}): Promise<PostomatPage> {
    return this.http.send({ method: 'GET', path: `${LOCKER}/postomat/list`, query: asQuery(query), repeatable: true });
  }

  /** The sandbox (SANDBOX=true): act at the simulated locker. Not retried: each is an action. */
  readonly sandbox = {
    place: (orderId: string) => this.sandboxAction(`/orders/${encodeURIComponent(orderId)}/place`),
    collect: (orderId: string) => this.sandboxAction(`/orders/${encodeURIComponent(orderId)}/collect`),
    subtract: (orderId: string) => this.sandboxAction(`/orders/${encodeURIComponent(orderId)}/subtract`),
    expire: (orderId: string) =>
      this.http.send<SandboxExpiredOrder>({
        method: 'POST',
        path: `${SANDBOX}/orders/${encodeURIComponent(orderId)}/expire`,
        repeatable: false,
      }),
    offline: (lockerId: string) =>
      this.http.send<SandboxLockerNetwork>({
        method: 'POST',
        path: `${SANDBOX}/lockers/${encodeURIComponent(lockerId)}/offline`,
        repeatable: true,
      }),
    online: (lockerId: string) =>
      this.http.send<SandboxLockerNetwork>({
        method: 'POST',
        path: `${SANDBOX}/lockers/${encodeURIComponent(lockerId)}/online`,
        repeatable: true,
      }),
  };

  private sandboxAction(path: string): Promise<SandboxOutcome> {
    return this.http.send({ method: 'POST', path: SANDBOX + path, repeatable: false });
  }
}
