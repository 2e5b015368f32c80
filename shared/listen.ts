/**
 * Starts a server listening, and turns "address in use" into a message that names the setting
 * to change. The error keeps its `EADDRINUSE` code, so a caller that knows better (npm start for
 * the simulator's port) can still tell it apart and say it its own way.
 */
import type { Server } from 'node:net';

export function listenOn(server: Server, port: number, host: string, whenTaken: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const fail = (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? Object.assign(new Error(whenTaken), { code: err.code }) : err);
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      resolve();
    });
  });
}
