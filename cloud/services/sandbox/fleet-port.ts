/**
 * What the sandbox needs of a simulated locker: the hands of a courier or a recipient standing
 * at it, and its network cable. The cloud never imports the simulator: `npm start` (and the
 * tests) hand an implementation in (scripts/sandbox-fleet.ts), after the fleet has started.
 */
export interface SandboxLocker {
  /** Types a code on the keypad; the first line the locker shows after it, if one comes within `waitMs`. */
  typeCode(code: string, waitMs: number): Promise<string | undefined>;
  /** Cells whose door stands open now, as the hardware says (not as the agent believes). */
  openDoors(): string[];
  /** Puts a parcel into an open cell, or takes it out. */
  setParcel(cellId: string, present: boolean): void;
  closeDoor(cellId: string): void;
  /** The version of the cloud's orders the locker holds (the sync's counter: it only grows). */
  syncVersion(): Promise<number>;
  /** Cuts (false) or restores (true) the locker's link to the cloud; false when it has none. */
  setNetwork(online: boolean): Promise<boolean>;
}

export interface SandboxFleet {
  /** The simulated locker with this cloud id, if this sandbox runs one. */
  locker(lockerId: string): SandboxLocker | undefined;
}

/**
 * Where the fleet is plugged in once it runs: the cloud starts first (the agents need its
 * broker), so the sandbox routes exist before there is a fleet to drive.
 */
export class SandboxSlot {
  private fleet?: SandboxFleet;

  attach(fleet: SandboxFleet): void {
    this.fleet = fleet;
  }

  detach(): void {
    this.fleet = undefined;
  }

  get attached(): SandboxFleet | undefined {
    return this.fleet;
  }
}
