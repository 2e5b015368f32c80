/**
 * Locker access of a platform company: the Locker API company it acts as, when the operator
 * has switched access on and that locker company is active. Orders it creates are that
 * company's ordinary orders (same codes, balance, counters, events).
 */
export { lockerCompanyOf } from '../../storage/platform-company-queries.ts';
