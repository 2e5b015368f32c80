/**
 * One clock for bench:peak's processes: CLOCK_MONOTONIC (process.hrtime) is the same in every
 * process of the machine, so a time taken in an agent process (the code usable) and one taken
 * in the load generator (the create answered) can be subtracted. performance.now() cannot:
 * each process counts from its own start.
 */
export const monoMs = (): number => Number(process.hrtime.bigint()) / 1e6;
