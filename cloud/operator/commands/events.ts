/** The delivery log of outbound events: "the webhook never arrived" starts here. */
import { z } from 'zod';
import { defineCommand, type Command } from '../command.ts';
import { fInt, fText, flagsOf } from '../flags.ts';
import { table } from '../format.ts';
import { deliveryLog, EVENT_KINDS, EVENT_STATES } from '../../events/delivery-log.ts';

export const commands: Command[] = [
  defineCommand({
    name: 'events list',
    summary: 'the delivery log of company notifications, webhooks and SMS, newest first',
    usage: [
      '--order <orderId>',
      `--kind ${EVENT_KINDS.join('|')}`,
      `--state ${EVENT_STATES.join('|')}`,
      '--limit <n>   at most this many (1-1000, default 50)',
    ],
    flags: flagsOf({
      order: fText().optional(),
      kind: z.enum(EVENT_KINDS, { error: `must be one of ${EVENT_KINDS.join(', ')}` }).optional(),
      state: z.enum(EVENT_STATES, { error: `must be one of ${EVENT_STATES.join(', ')}` }).optional(),
      limit: fInt(1, 1000).optional(),
    }),
    async run(ctx, f) {
      const rows = await deliveryLog(ctx.db, { orderId: f.order, kind: f.kind, state: f.state, limit: f.limit ?? 50 });
      return {
        json: rows,
        text: table(
          rows.map((r) => ({
            time: r.sentAt ?? r.createdAt,
            kind: r.kind,
            event: r.event,
            order: r.orderId ?? '',
            target: r.target,
            state: r.state,
            result: r.error ?? (r.httpStatus === null ? '' : `HTTP ${r.httpStatus}`),
            ms: r.latencyMs ?? '',
          })),
          ['time', 'kind', 'event', 'order', 'target', 'state', 'result', 'ms'],
        ),
      };
    },
  }),
];
