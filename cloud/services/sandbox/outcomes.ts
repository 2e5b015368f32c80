/** The sandbox's answers, in zod: the routes answer in them and the OpenAPI document shows them. */
import { z } from 'zod';
import { OrderStatus } from '../../../shared/mqtt/schemas.ts';
import { CloudOrderStatusSchema } from '../../domain/order-states.ts';

export const SandboxOutcome = z
  .object({
    orderId: z.string(),
    status: OrderStatus.meta({ description: "the order's status in the cloud when the answer was written" }),
    cell: z.string().meta({ description: 'the cell whose door opened' }),
    display: z.string().nullable().meta({ description: 'what the locker showed after the code' }),
    reachedCloud: z.boolean().meta({
      description:
        'false (with status 202) when the locker did it but the cloud has not heard yet: the locker is offline and its agent keeps the event',
    }),
  })
  .meta({ id: 'SandboxOutcome' });
export type SandboxOutcome = z.infer<typeof SandboxOutcome>;

export const ExpiredOrder = z
  .object({
    orderId: z.string(),
    status: CloudOrderStatusSchema.meta({
      description: 'EXPIRED for a sized order whose reservation was made to lapse',
    }),
    isActive: z.boolean(),
    startDateTime: z.string().nullable(),
    endDateTime: z.string().nullable(),
    expiredAt: z.string().nullable(),
  })
  .meta({ id: 'SandboxExpiredOrder' });
export type ExpiredOrder = z.infer<typeof ExpiredOrder>;

export const LockerNetwork = z
  .object({ lockerId: z.string(), online: z.boolean() })
  .meta({ id: 'SandboxLockerNetwork' });
