/**
 * The marketplace side of the Platform API for a company with its `x-api-token`: parcels and
 * their tracking. Parcel creation is retried only with the same `Idempotency-Key` (the server
 * returns the first answer for a repeated key), and the client makes the key when the caller
 * gives none, so a retry after a lost answer never makes a second parcel.
 */
import { randomUUID } from 'node:crypto';
import type { Operations } from './api-types.ts';
import { Transport, type TransportOptions } from './transport.ts';

type Op<K extends keyof Operations> = Operations[K];
export type ParcelCreateBody = Op<'postIntegrationsMarketCompanyParcelCreate'>['body'];
export type CreatedParcel = Op<'postIntegrationsMarketCompanyParcelCreate'>['response'];
export type TrackedParcel = Op<'getIntegrationsMarketCompanyParcelTrackCodeTrackCode'>['response'];
export type ParcelStatus = Op<'getIntegrationsMarketCompanyParcelTrackCodeTrackCodeStatus'>['response'];

export interface PlatformClientOptions extends Omit<TransportOptions, 'headers'> {
  apiToken: string;
}

const MARKET = '/api/v1/integrations/market-company';

export class MarketClient {
  private readonly http: Transport;

  constructor(options: PlatformClientOptions) {
    this.http = new Transport({ ...options, headers: { 'x-api-token': options.apiToken } });
  }

  /** Creates a parcel; every attempt carries one Idempotency-Key (`idempotencyKey`, or one made here). */
  createParcel(body: ParcelCreateBody, idempotencyKey: string = randomUUID()): Promise<CreatedParcel> {
    return this.http.send({
      method: 'POST',
      path: `${MARKET}/parcel/create`,
      body,
      headers: { 'idempotency-key': idempotencyKey },
      repeatable: true,
    });
  }

  parcel(trackCode: string): Promise<TrackedParcel> {
    return this.http.send({
      method: 'GET',
      path: `${MARKET}/parcel/track-code/${encodeURIComponent(trackCode)}`,
      repeatable: true,
    });
  }

  parcelStatus(trackCode: string): Promise<ParcelStatus> {
    return this.http.send({
      method: 'GET',
      path: `${MARKET}/parcel/track-code/${encodeURIComponent(trackCode)}/status`,
      repeatable: true,
    });
  }
}
