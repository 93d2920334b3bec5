import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect } from 'node:tls';

/**
 * STARTTLS on an established SMTP connection, opportunistic as mail servers do it (RFC 3207, RFC 7435): the
 * certificate is not verified, since MX certificates are often self-signed or name another host, and TLS here
 * is worth having even without authentication. Rejects when the handshake fails or takes longer than
 * `timeoutMs`; the caller then speaks plain SMTP on a new connection.
 */
export function startTls(socket: Duplex, serverName: string, timeoutMs: number): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const secure = connect({
      socket,
      // SNI takes a host name only (RFC 6066 3).
      servername: isIP(serverName) ? undefined : serverName,
      rejectUnauthorized: false,
    });
    const timer = setTimeout(() => {
      secure.destroy();
      reject(new Error(`TLS handshake not finished within ${timeoutMs} ms`));
    }, timeoutMs);
    const onError = (error: Error) => {
      clearTimeout(timer);
      secure.destroy();
      reject(new Error(`TLS handshake failed: ${error.message}`));
    };
    secure.once('error', onError);
    secure.once('secureConnect', () => {
      clearTimeout(timer);
      secure.removeListener('error', onError);
      resolve(secure);
    });
  });
}
