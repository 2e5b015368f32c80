/** The locker order's state machine, as the spec's "States and transitions" table gives it. */
export const ORDER_STATUSES = ['CREATED', 'DELIVERED', 'COMPLETED', 'SUBTRACTED'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const CODE_TYPES = ['DOWN', 'UP', 'SUBTRACT'] as const;
export type CodeType = (typeof CODE_TYPES)[number];

export const FINAL_STATUSES: readonly OrderStatus[] = ['COMPLETED', 'SUBTRACTED'];
/** Orders whose codes are live at the locker, and whose codes must not repeat. */
export const OPEN_STATUSES: readonly OrderStatus[] = ['CREATED', 'DELIVERED'];

const TRANSITIONS: Record<OrderStatus, readonly OrderStatus[]> = {
  CREATED: ['DELIVERED'],
  DELIVERED: ['COMPLETED', 'SUBTRACTED'],
  COMPLETED: [],
  SUBTRACTED: [],
};

export function canTransition(from: OrderStatus, to: OrderStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export const isFinal = (s: OrderStatus) => FINAL_STATUSES.includes(s);

/** The storage period runs `days` whole days from placement. */
export function storagePeriod(placedAt: Date, days: number): { startDateTime: string; endDateTime: string } {
  return {
    startDateTime: placedAt.toISOString(),
    endDateTime: new Date(placedAt.getTime() + days * 86_400_000).toISOString(),
  };
}
