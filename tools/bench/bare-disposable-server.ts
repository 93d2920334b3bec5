// Baseline of the gateway benchmark: a bare node:http server doing the same lookup as
// GET /v1/verify/disposable (checkDisposable, JSON reply in the current envelope), with no auth, limits,
// styles, logging, metrics or Nest. Runs as its own process like the gateway; prints {"port":N} once
// listening on 127.0.0.1 and exits when its stdin closes (its parent ended) or on SIGTERM.
import http from 'node:http';
import { checkDisposable } from '@emailverify/verification';

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  let status = 200;
  let body: unknown;
  if (req.method !== 'GET' || url.pathname !== '/v1/verify/disposable') {
    status = 404;
    body = { success: false, code: '4040', message: 'Not found' };
  } else {
    try {
      const check = checkDisposable(url.searchParams.get('email') ?? '');
      body = {
        success: true,
        code: '0',
        message: 'Success',
        data: {
          email: check.email,
          domain: check.domain,
          is_disposable: check.isDisposable,
          checked_at: new Date().toISOString(),
        },
      };
    } catch (err) {
      status = 400;
      body = { success: false, code: '4001', message: err instanceof Error ? err.message : String(err) };
    }
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
});

const stop = () => server.close(() => process.exit(0));
process.once('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ port })}\n`);
});
