/**
 * The simulated lockers as the cloud's sandbox sees them (cloud/sandbox/fleet-port.ts): the
 * keypad, the doors and parcels of the simulator's hardware, and the agent's network link.
 */
import type { SandboxFleet } from '../cloud/services/sandbox/fleet-port.ts';
import type { SimLocker } from '../hardware-sim/locker.ts';

export function sandboxFleetOf(lockers: ReadonlyMap<string, SimLocker>): SandboxFleet {
  return {
    locker(lockerId) {
      const sim = lockers.get(lockerId);
      if (!sim) return undefined;
      return {
        typeCode: (code, waitMs) => sim.typeCodeForAnswer(code, waitMs),
        openDoors: () =>
          sim
            .hardwareCells()
            .filter((c) => !c.doorClosed)
            .map((c) => c.cellId),
        setParcel: (cellId, present) => sim.setParcel(cellId, present),
        closeDoor: (cellId) => sim.closeDoor(cellId),
        syncVersion: () => sim.agent.syncVersion(),
        setNetwork: (online) => sim.agent.setNetwork(online),
      };
    },
  };
}
