/**
 * Work done on the locker side on behalf of a platform company. The spec's platform answers
 * every locker-side failure with one status (502 for /integrations/postomat, 500 for the
 * marketplace's locker-order list): the message is the locker-service code where it has one
 * (ORDER_NOT_FOUND, POSTOMAT_NOT_FOUND, INSUFFICIENT_FUNDS), else the locker side's text
 * (its validation message, "City not found", or locker access not being enabled).
 */
import type { Request } from 'express';
import type { AppDeps } from '../deps.ts';
import { DomainError } from '../domain/errors.ts';
import { HttpError } from '../http/http-error.ts';
import { platformCompany } from '../http/platform-auth.ts';
import { lockerCompanyOf } from '../services/platform/locker-access.ts';

export const LOCKER_ACCESS_OFF = 'Locker access is not enabled for this company';

export async function viaLocker<T>(
  deps: AppDeps,
  req: Request,
  work: (lockerCompanyId: string) => Promise<T> | T,
  status = 502,
): Promise<T> {
  const lockerCompanyId = await lockerCompanyOf(deps.db, platformCompany(req).companyId);
  if (!lockerCompanyId) throw new HttpError(status, LOCKER_ACCESS_OFF);
  try {
    return await work(lockerCompanyId);
  } catch (err) {
    if (err instanceof DomainError) throw new HttpError(status, err.code);
    if (err instanceof HttpError) throw new HttpError(status, err.message);
    throw err;
  }
}

/** The Locker API answers a missing locker or city with null; through the platform that is a locker-side failure. */
export function found<T>(value: T | null, message: string): T {
  if (value === null) throw new HttpError(404, message);
  return value;
}
