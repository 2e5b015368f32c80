/**
 * The embedded broker's limits (docs/security.md, "Broker limits"), set by MQTT_* variables in
 * cloud/config.ts. The defaults suit a fleet of 10,000 lockers: each holds one connection, and a
 * reconnecting locker holds a second one for a moment.
 */
import { readFileSync } from 'node:fs';
import { MQTT_LIMITS } from '../../shared/mqtt/index.ts';

export interface BrokerLimits {
  /** sockets open at once, logged in or not */
  maxConnections: number;
  /** sockets open at once from one address (an IPv6 /64); 0: no such cap */
  maxConnectionsPerAddress: number;
  /** a socket whose CONNECT is not complete by then is closed */
  connectTimeoutMs: number;
  /** bytes a client may send before it has logged in (a locker's CONNECT is ~300) */
  maxConnectBytes: number;
  /** one packet from a logged-in locker, header included */
  maxPacketBytes: number;
  /** failed logins per address in a window before its CONNECTs are refused unchecked; 0: off */
  loginFailureMax: number;
  loginFailureWindowMs: number;
}

export const DEFAULT_BROKER_LIMITS: BrokerLimits = {
  maxConnections: 15_000,
  maxConnectionsPerAddress: 100,
  connectTimeoutMs: 5_000,
  maxConnectBytes: 4_096,
  maxPacketBytes: MQTT_LIMITS.lockerPacketBytes,
  loginFailureMax: 100,
  loginFailureWindowMs: 600_000,
};

/** Descriptors kept out of the broker's reach: HTTP connections, the database, files, logs. */
export const DESCRIPTOR_RESERVE = 1_024;

/**
 * The connection cap the process's descriptor limit allows: a cap above it protects nothing,
 * since the sockets would take the descriptors HTTP and the database need first. Keeps
 * DESCRIPTOR_RESERVE (at most half the limit) for the rest of the process.
 */
export function connectionCapWithin(configured: number, descriptorLimit: number | undefined): number {
  if (descriptorLimit === undefined) return configured;
  const reserve = Math.min(DESCRIPTOR_RESERVE, Math.floor(descriptorLimit / 2));
  return Math.max(1, Math.min(configured, descriptorLimit - reserve));
}

/**
 * The process's limit on open files (Node raises its soft limit to the hard one at start, so
 * this is what systemd's LimitNOFILE or `ulimit -Hn` allows). Undefined where /proc is not.
 */
export function openFileLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    return soft && /^\d+$/.test(soft) ? Number(soft) : undefined;
  } catch {
    return undefined;
  }
}
