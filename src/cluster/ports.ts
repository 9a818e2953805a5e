// Free ports for a cluster that must not collide with anything on the machine (the cluster suite's
// and the cluster benchmark's), each below the server's limit on its membership ports.
import net from 'node:net';
import { MAX_SERVER_PORT, type ServerPorts } from './server-config';

/** A port below the server's limit that is free now (the OS's own picks are all above it). */
async function lowFreePort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * (MAX_SERVER_PORT - 20_000));
    if (taken.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) {
      taken.add(port);
      return port;
    }
  }
}

/** Every port of the server, each free now and below MAX_SERVER_PORT. */
export async function freeServerPorts(): Promise<ServerPorts> {
  const keys: Array<keyof ServerPorts> = [
    'frontend',
    'frontendHttp',
    'history',
    'matching',
    'worker',
    'frontendMembership',
    'historyMembership',
    'matchingMembership',
    'workerMembership',
  ];
  const ports = {} as ServerPorts;
  const taken = new Set<number>();
  for (const key of keys) ports[key] = await lowFreePort(taken);
  return ports;
}
