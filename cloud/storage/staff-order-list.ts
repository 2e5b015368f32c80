/** The operator's list of locker orders: any company's, newest first, never their codes. */
import type { CloudOrderStatus } from '../domain/order-states.ts';
import type { Db } from './database.ts';

export interface StaffOrderFilter {
  companyId?: string;
  postomatId?: string;
  status?: CloudOrderStatus;
  limit: number;
}

export function ordersForStaff(db: Db, f: StaffOrderFilter) {
  let q = db
    .selectFrom('locker_order as o')
    .innerJoin('postomat as p', 'p.id', 'o.postomatId')
    .leftJoin('cell as c', 'c.id', 'o.cellId')
    .select([
      'o.id',
      'o.status',
      'o.companyId',
      'o.postomatId',
      'p.shortId',
      'c.number as cellNumber',
      'o.price',
      'o.deliveryPrice',
      'o.paidAmount',
      'o.notPaidAmount',
      'o.endDateTime',
      'o.createdAt',
      'o.kind',
    ]);
  if (f.companyId) q = q.where('o.companyId', '=', f.companyId);
  if (f.postomatId) q = q.where('o.postomatId', '=', f.postomatId);
  if (f.status) q = q.where('o.status', '=', f.status);
  return q.orderBy('o.createdAt', 'desc').orderBy('o.id', 'desc').limit(f.limit).execute();
}
