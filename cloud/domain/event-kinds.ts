/** The kinds and states of an outbound event (the outbox: storage/outbox-schema.ts; its rules: order-events.ts). */
export const EVENT_KINDS = ['COMPANY_NOTIFICATION', 'WEBHOOK', 'SMS'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/**
 * PENDING: waiting; SENDING: claimed by a dispatcher until its lease ends (a dispatcher that
 * died mid-send leaves it to be claimed again: a receiver may see a duplicate, which the spec
 * allows); SENT: the receiver answered (2xx for webhooks; any answer for notifications, whose
 * response the spec ignores); FAILED: no answer, timeout or non-2xx; SKIPPED: sending is
 * switched off by configuration.
 */
export type EventState = 'PENDING' | 'SENDING' | 'SENT' | 'FAILED' | 'SKIPPED';
