import { once } from 'node:events';
import type { Server, Socket } from 'node:net';

/** Listens on host:port and resolves with the bound port (useful with port 0). */
export async function listen(server: Server, host: string, port: number): Promise<number> {
  server.listen({ host, port, exclusive: true });
  const failed = once(server, 'error').then(([error]: unknown[]) => {
    throw error instanceof Error ? error : new Error(String(error));
  });
  await Promise.race([once(server, 'listening'), failed]);
  const address = server.address();
  if (address === null || typeof address === 'string')
    throw new Error(`MailWorld: no TCP address for ${host}`);
  return address.port;
}

/** Closes a server and ends its open connections, so stop() does not wait for idle clients. */
export async function closeServer(server: Server, sockets: Set<Socket>): Promise<void> {
  if (!server.listening) return;
  const closed = new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  for (const socket of sockets) socket.destroy();
  await closed;
}

/** Keeps a set of a server's live sockets, so they can be destroyed on stop. */
export function trackSockets(server: Server, sockets: Set<Socket>): void {
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
}

export function isAddressInUse(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'EADDRINUSE';
}
