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
export const YOUNG_GENERATION_FLAGS = ['--max-semi-space-size=32'];
/**
 * V8 flags every app runs with (also the Dockerfile's NODE_OPTIONS, which compose and Helm inherit, and the
 * test harness's launch, libs/testing/src/suite/processes.ts): the young generation above, and an old
 * generation of at most 384 MiB. Without that bound V8 lets garbage pile up to several times what a process
 * holds before it collects: file-jobs reached 545 to 710 MiB on a million-row job whose live data is a fraction
 * of that. No app holds more than about 150 MiB of live objects (file-jobs: its merges' results of repeating
 * addresses, see FILE_MERGE_CONCURRENCY, and it starts no second merge while its heap is half full).
 */
export const NODE_FLAGS = [...YOUNG_GENERATION_FLAGS, '--max-old-space-size=384'];
export const GATEWAY = { name: 'gateway', entry: 'dist/apps/gateway/src/main.js', port: 3000 };
