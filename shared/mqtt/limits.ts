/**
 * Sizes the locker ⇄ cloud contract allows (docs/locker-sync.md, "Limits"). Both ends validate
 * with the schemas built from these, and the embedded broker closes a locker's connection that
 * announces a packet larger than `lockerPacketBytes`, so a hostile or broken device costs the
 * cloud a bounded amount of memory, storage and log.
 */
export const MQTT_LIMITS = {
  /**
   * One MQTT packet from a locker, header included. The largest a real agent sends is a cell
   * report at its maximum count (~100 KB); the cloud's own sync messages are not bound by it.
   */
  lockerPacketBytes: 256 * 1024,
  /** event, order and command ids (the cloud and the agent make 24-character cuid2s) */
  idLength: 64,
  /** a cell's name at its locker (its number, as text) */
  cellIdLength: 32,
  agentVersionLength: 64,
  /** a command's error text */
  errorLength: 500,
  /** the masked code of a CODE_REJECTED event ('*' per digit typed) */
  maskedCodeLength: 32,
  /** cells in one report (a Kerong locker has at most 16 boards × 16 locks) */
  cellsPerReport: 1000,
  /** `seq` and `syncVersion` are stored in 64-bit columns; JSON numbers stay exact below 2^53 */
  counter: Number.MAX_SAFE_INTEGER,
} as const;
