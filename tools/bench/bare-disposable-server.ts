// Baseline of the gateway benchmark: a bare node:http server doing the same lookup as
// GET /v1/verify/disposable (checkDisposable, JSON reply in the current envelope), with no auth, limits,
// styles, logging, metrics or Nest. Runs as its own process like the gateway; prints {"port":N} once
// listening on 127.0.0.1 and exits when its stdin closes (its parent ended) or on SIGTERM.
import http from 'node:http';
import { DISPOSABLE_PATH, disposableReply, serveUntilParentEnds } from './disposable-reply';

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const { status, body } =
    req.method !== 'GET' || url.pathname !== DISPOSABLE_PATH
      ? { status: 404, body: { success: false, code: '4040', message: 'Not found' } }
      : disposableReply(url.searchParams.get('email') ?? '');
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
});

serveUntilParentEnds(
  () =>
    new Promise((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
    ),
  () => new Promise((resolve) => server.close(() => resolve())),
);
