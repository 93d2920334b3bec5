// The typed client's types (libs/client/src/generated/, not committed), generated from the committed OpenAPI
// documents with openapi-typescript's default options (what a customer running it on /openapi.json gets).
// `npm run build` (so `npm start` and `npm test`), `npm run check`, `npm run lint`, `npm run typecheck` and
// `npm run openapi` write them first; a file is rewritten only when the document now generates something else,
// so an unchanged one keeps its time stamp.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from './lib.mjs';

export const CLIENT_TYPES = [
  { document: 'docs/openapi.json', types: 'libs/client/src/generated/openapi.ts' },
  { document: 'docs/openapi-legacy.json', types: 'libs/client/src/generated/openapi-legacy.ts' },
];

function read(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Writes each document's types where they are missing or not what it generates: the files written. */
export async function clientTypes(pairs = CLIENT_TYPES) {
  // Loaded here, not at the top: the tool scripts import only Node built-ins until npm ci has run.
  const { default: openapiTS, astToString, COMMENT_HEADER } = await import('openapi-typescript');
  const written = [];
  for (const { document, types } of pairs) {
    const ast = await openapiTS(pathToFileURL(path.resolve(root, document)), { silent: true });
    const text = `${COMMENT_HEADER}${astToString(ast)}`;
    const target = path.resolve(root, types);
    if (read(target) === text) continue;
    mkdirSync(path.dirname(target), { recursive: true });
    // Whole or not at all: a type-checker reading the folder meanwhile never sees half a file.
    const partial = `${target}.${process.pid}.partial`;
    writeFileSync(partial, text);
    renameSync(partial, target);
    written.push(types);
  }
  return written;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // Optionally `<document>=<types>` pairs in place of the client's own.
  const given = process.argv.slice(2).map((arg) => arg.split('='));
  const written = await clientTypes(
    given.length > 0 ? given.map(([document, types]) => ({ document, types })) : CLIENT_TYPES,
  );
  if (written.length > 0) process.stdout.write(`generated ${written.join(', ')}\n`);
}
