import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Logger } from 'pino';
import { renderError } from '../common/http/error-body';
import type { GatewayRequest } from '../common/http/request-context';
import { renderStyle } from '../common/http/style';

/** Where the web console is served: same origin as the API, so it needs no CORS and no server of its own. */
export const CONSOLE_PATH = '/console';

/**
 * On every reply under /console: the page may load scripts, styles, images and fonts from this origin only,
 * speak to this origin only, submit no form, be framed by nobody, and send no Referer.
 */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/**
 * The built console of a build: <dist>/apps/console, beside <dist>/apps/gateway (tools/dev/build.mjs), found from
 * the directory of the gateway's entry, <dist>/apps/gateway/src (its main.js is one bundled file, so no other
 * module of the gateway knows where it sits).
 */
export function defaultConsoleDir(entryDir: string): string {
  return path.resolve(entryDir, '../../console');
}

function notFound(req: Request, res: Response, message: string): void {
  const { status, body } = renderError(renderStyle(req as GatewayRequest), 'NOT_FOUND', message);
  res.status(status).json(body);
}

/**
 * The console's files from `dir` (Vite's output: index.html and hashed assets/): assets cached for a year (their
 * names change with their content), index.html for any other path (the console's own routes), revalidated on
 * every load. Both are read from disk on each request, so a console built after the gateway started is served.
 * Without a directory, or without index.html in it (not built), /console answers 404 in the API's error style.
 * Only GET and HEAD are answered; other methods fall through to the API's not-found reply.
 */
export function consoleHandler(dir: string | undefined, logger: Logger): RequestHandler {
  if (dir && existsSync(path.join(dir, 'index.html')))
    logger.info({ dir }, 'serving the web console at /console');
  else logger.info({ dir }, 'the web console is not built here: /console answers 404');
  const router = express.Router();
  router.use((req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next('router');
    for (const [name, value] of Object.entries(CONSOLE_HEADERS)) res.setHeader(name, value);
    next();
  });
  const notBuilt = (req: Request, res: Response) =>
    notFound(
      req,
      res,
      `The web console is not built on this installation${dir ? ` (no index.html in ${path.basename(dir)}/)` : ''}: build it with npm run build, or set CONSOLE_DIR`,
    );
  if (!dir) {
    router.use(notBuilt);
    return router;
  }
  router.use(
    '/assets',
    express.static(path.join(dir, 'assets'), {
      index: false,
      redirect: false,
      dotfiles: 'ignore',
      immutable: true,
      maxAge: '365d',
    }),
    (req: Request, res: Response) =>
      notFound(req, res, `No such console file: ${req.originalUrl.split('?')[0]}`),
  );
  // Relative to `dir`: a directory above it may start with a dot (npm start's .data/builds/...), which
  // sendFile refuses in a path of its own.
  const page = { root: dir, headers: { 'Cache-Control': 'no-cache' }, cacheControl: false };
  router.use((req: Request, res: Response, next: NextFunction) => {
    res.sendFile('index.html', page, (err?: unknown) => {
      if (!err) return;
      if ((err as { code?: unknown }).code !== 'ENOENT' || res.headersSent) return next(err);
      notBuilt(req, res);
    });
  });
  return router;
}
