import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import type { DialTarget } from '../dependencies';

/** Plain TCP to an IP address: the host name was already resolved through the configured DNS servers. */
export function netDialer(target: DialTarget, signal: AbortSignal): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason instanceof Error ? signal.reason : new Error('connect aborted'));
      return;
    }
    const socket = connect({ host: target.host, port: target.port, noDelay: true });
    const cleanup = () => {
      signal.removeEventListener('abort', onAbort);
      socket.removeListener('error', onError);
      socket.removeListener('connect', onConnect);
    };
    const onAbort = () => {
      cleanup();
      socket.destroy();
      reject(signal.reason instanceof Error ? signal.reason : new Error('connect aborted'));
    };
    const onError = (error: Error) => {
      cleanup();
      socket.destroy();
      reject(error);
    };
    const onConnect = () => {
      cleanup();
      resolve(socket);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('error', onError);
    socket.once('connect', onConnect);
  });
}
