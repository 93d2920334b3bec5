// The suite's processes, in start order. Each service's HTTP port (health and metrics) is the gateway's PORT
// plus its offset: 3101, 3102, ... with the default PORT 3000.
export const SERVICES = [
  { name: 'credits', entry: 'dist/apps/credits/src/main.js', portOffset: 101 },
  { name: 'verifier', entry: 'dist/apps/verifier/src/main.js', portOffset: 102 },
  { name: 'file-jobs', entry: 'dist/apps/file-jobs/src/main.js', portOffset: 103 },
  { name: 'webhooks', entry: 'dist/apps/webhooks/src/main.js', portOffset: 104 },
];
/**
 * V8 flags every app runs with (also the Dockerfile's NODE_OPTIONS and the test harness's launch): a young
 * generation of 32 MiB semi-spaces. The apps allocate many short-lived objects per address (parsing, results,
 * messages); with the default 16 MiB the scavenger ran often enough to cost a sixth of a file merge.
 */
export const NODE_FLAGS = ['--max-semi-space-size=32'];
export const GATEWAY = { name: 'gateway', entry: 'dist/apps/gateway/src/main.js', port: 3000 };
