// The typed client's generated types (libs/client/src/generated/), from the committed OpenAPI documents, with
// openapi-typescript's default options (what a customer running it on /openapi.json gets). `npm run openapi`
// writes them; `npm run check` (`node tools/dev/check.mjs client`) fails when the committed ones differ.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from './lib.mjs';

export const CLIENT_TYPES = [
  { document: 'docs/openapi.json', types: 'libs/client/src/generated/openapi.ts' },
  { document: 'docs/openapi-legacy.json', types: 'libs/client/src/generated/openapi-legacy.ts' },
];

/** The generated, formatted text of one document's types. */
async function generate(document, types) {
  // Loaded here, not at the top: the tool scripts import only Node built-ins until npm ci has run.
  const { default: openapiTS, astToString, COMMENT_HEADER } = await import('openapi-typescript');
  const { format, resolveConfig } = await import('prettier');
  const ast = await openapiTS(pathToFileURL(path.resolve(root, document)), { silent: true });
  const text = `${COMMENT_HEADER}${astToString(ast)}`;
  const target = path.resolve(root, types);
  return format(text, { ...(await resolveConfig(target)), filepath: target });
}

/** Writes every generated file; with `check`, writes nothing and names the files that differ. */
export async function clientTypes({ check = false, pairs = CLIENT_TYPES } = {}) {
  const stale = [];
  for (const { document, types } of pairs) {
    const text = await generate(document, types);
    const target = path.resolve(root, types);
    if (!check) writeFileSync(target, text);
    else if (readFileSync(target, 'utf8') !== text) stale.push(types);
  }
  return stale;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // `--check`, and optionally `<document>=<types>` pairs in place of the committed ones.
  const args = process.argv.slice(2);
  const check = args.includes('--check');
  const given = args.filter((arg) => arg.includes('=')).map((arg) => arg.split('='));
  const pairs = given.length > 0 ? given.map(([document, types]) => ({ document, types })) : CLIENT_TYPES;
  const stale = await clientTypes({ check, pairs });
  if (stale.length > 0) {
    process.stderr.write(
      `${stale.join(', ')}: not what the OpenAPI documents generate; run \`npm run openapi\` and commit the result\n`,
    );
    process.exit(1);
  }
}
