/** A locker in the field: its enrolment code (docs/field-technicians.md, "Enrol"). */
import { defineCommand, type Command } from '../command.ts';
import { fInt, fText, flagsOf } from '../flags.ts';
import { block } from '../format.ts';
import { DEFAULT_ENROLMENT_MINUTES, MAX_ENROLMENT_MINUTES, issueEnrolmentCode } from '../../enrolment/enrolment.ts';

export const commands: Command[] = [
  defineCommand({
    name: 'locker enrol-code',
    summary:
      "a one-time code the technician gives the locker's agent (agent enroll); an earlier unused code of the locker stops working",
    usage: [
      '--locker <lockerId>   (required; the locker needs its cells first: cell add)',
      `--minutes <n>         how long the code works (default ${DEFAULT_ENROLMENT_MINUTES}, at most ${MAX_ENROLMENT_MINUTES})`,
    ],
    flags: flagsOf({ locker: fText(), minutes: fInt(1, MAX_ENROLMENT_MINUTES).optional() }),
    async run(ctx, f) {
      const issued = await issueEnrolmentCode(
        ctx.uow,
        f.locker,
        f.minutes ?? DEFAULT_ENROLMENT_MINUTES,
        ctx.clock.now(),
      );
      const json = { lockerId: f.locker, ...issued };
      return {
        json,
        text: `${block(json)}\non the locker: npm run agent -- enroll --cloud <this cloud's URL> --code ${issued.code}\nthe code works once; it is not stored and not shown again`,
      };
    },
  }),
];
