// Prints the directory of the project's Node.js (24): this machine's own `node` when it is recent enough,
// otherwise the release lib.mjs fetches from the npm registry. `.ci/run` puts it first on the PATH.
import path from 'node:path';
import { projectNode } from './lib.mjs';

process.stdout.write(`${path.dirname(projectNode())}\n`);
