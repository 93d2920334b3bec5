import { readFileSync } from 'node:fs';

/** The V8 heap settings' one source (node-flags.spec.ts holds every copy to it). */
const nodeFlags = JSON.parse(readFileSync(new URL('./node-flags.json', import.meta.url), 'utf8'));

// The suite's processes, in start order. Each service's HTTP port (health and metrics) is the gateway's PORT
// plus its offset: 3101, 3102, ... with the default PORT 3000.
export const SERVICES = [
  { name: 'credits', entry: 'dist/apps/credits/src/main.js', portOffset: 101 },
  { name: 'verifier', entry: 'dist/apps/verifier/src/main.js', portOffset: 102 },
  { name: 'file-jobs', entry: 'dist/apps/file-jobs/src/main.js', portOffset: 103 },
  { name: 'webhooks', entry: 'dist/apps/webhooks/src/main.js', portOffset: 104 },
];
/**
 * The young generation every app runs with: 32 MiB semi-spaces. The apps allocate many short-lived objects per
 * address (parsing, results, messages); with the default 16 MiB the scavenger ran often enough to cost a sixth
 * of a file merge. The benchmarks' own process runs with it too.
 */
export const YOUNG_GENERATION_FLAGS = nodeFlags.apps.filter((flag) =>
  flag.startsWith('--max-semi-space-size='),
);
/**
 * V8 flags every app runs with, from node-flags.json beside this file: the one source of the Dockerfile's
 * NODE_OPTIONS (which compose and Helm inherit), the test harness's launch (libs/testing/src/suite/processes.ts)
 * and the gateway's NODE_OPTIONS in compose and Helm; node-flags.spec.ts fails when a copy differs. The young
 * generation above, and an old
 * generation of at most 384 MiB. Without that bound V8 lets garbage pile up to several times what a process
 * holds before it collects: file-jobs reached 545 to 710 MiB on a million-row job whose live data is a fraction
 * of that. No app holds more than about 150 MiB of live objects (file-jobs: its merges' results of repeating
 * addresses, see FILE_MERGE_CONCURRENCY, and it starts no second merge while its heap is half full).
 * file-jobs and the verifier also set V8's heap growing factor when they start (runService's heapGrowingPercent,
 * libs/service-kit: NODE_OPTIONS refuses that flag), so that they collect the old generation less often: its
 * value is node-flags.json's streamingHeapGrowingPercent, which node-flags.spec.ts holds service-kit's constant to.
 */
export const NODE_FLAGS = nodeFlags.apps;
/**
 * The gateway's V8 flags: a young generation of 8 MiB semi-spaces instead of 32. It streams uploads into the
 * object store, and the buffers of an upload it has passed on are garbage until a scavenge: with 32 MiB
 * semi-spaces it rested at about 178 MiB and peaked at 253 to 277 MiB during a 99 MiB upload; with 8 MiB, 145 and
 * 233 MiB (the target is below 256 MiB), for about 6% more CPU per request. The gateway allocates little per
 * request, so it has no file merge's reason for the larger young generation. Compose and Helm set the same
 * flags in the gateway's NODE_OPTIONS (checked by node-flags.spec.ts).
 */
export const GATEWAY_NODE_FLAGS = nodeFlags.gateway;
export const GATEWAY = {
  name: 'gateway',
  entry: 'dist/apps/gateway/src/main.js',
  port: 3000,
  nodeFlags: GATEWAY_NODE_FLAGS,
};
