/**
 * The least a driver needs from a serial port. The real port (serialport), a pseudo-terminal
 * and the simulator's in-memory pair all plug in behind it; protocol classes never open ports.
 */
export interface SerialLink {
  write(data: Buffer): Promise<void>;
  /** Discard bytes received but not yet read (stale replies from a slow board). */
  flushInput(): Promise<void>;
  onData(listener: (chunk: Buffer) => void): void;
  close(): Promise<void>;
}

/** Minimal shape of a serialport SerialPort instance that we rely on. */
export interface SerialPortLike {
  write(data: Buffer, callback: (err?: Error | null) => void): boolean;
  drain(callback: (err?: Error | null) => void): void;
  flush(callback: (err?: Error | null) => void): void;
  close(callback: (err?: Error | null) => void): void;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  isOpen: boolean;
}

function callbackPromise(fn: (cb: (err?: Error | null) => void) => void): Promise<void> {
  return new Promise((resolve, reject) => fn((err) => (err ? reject(err) : resolve())));
}

export class SerialPortLink implements SerialLink {
  constructor(private readonly port: SerialPortLike) {}

  async write(data: Buffer): Promise<void> {
    // Resolve once the OS accepted the bytes; waiting for drain would add wire time.
    await callbackPromise((cb) => this.port.write(data, cb));
  }

  flushInput(): Promise<void> {
    return callbackPromise((cb) => this.port.flush(cb));
  }

  onData(listener: (chunk: Buffer) => void): void {
    this.port.on('data', listener);
  }

  async close(): Promise<void> {
    if (this.port.isOpen) await callbackPromise((cb) => this.port.close(cb));
  }
}

/** Opens a real device (or a pseudo-terminal) as 8N1 at the given baud rate. */
export async function openSerialLink(
  path: string,
  baudRate: number,
): Promise<{ link: SerialPortLink; port: SerialPortLike }> {
  const { SerialPort } = await import('serialport');
  const port = new SerialPort({ path, baudRate, dataBits: 8, parity: 'none', stopBits: 1, autoOpen: false });
  await callbackPromise((cb) => port.open(cb));
  return { link: new SerialPortLink(port), port };
}
