/** The whole demo dataset, locker and platform halves, in one transaction. */
import type { OperatorContext } from '../command.ts';
import { seedLockerDemo, type LockerDemo } from './locker-demo.ts';
import { seedPlatformDemo, type PlatformDemo } from './platform-demo.ts';

export interface DemoData {
  locker: LockerDemo;
  /** absent in data/demo.json files written before the platform existed */
  platform?: PlatformDemo;
}

export function seedDemo(ctx: OperatorContext): Promise<Required<DemoData>> {
  return ctx.db.transaction().execute(async (trx) => {
    const locker = await seedLockerDemo({ ...ctx, db: trx });
    const platform = await seedPlatformDemo(trx, ctx.clock, locker, ctx.progress);
    return { locker, platform };
  });
}
