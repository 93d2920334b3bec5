// The suite's processes, in start order, with their default HTTP ports (health and metrics).
export const SERVICES = [
  { name: 'credits', entry: 'dist/apps/credits/src/main.js', port: 3101 },
];
export const GATEWAY = { name: 'gateway', entry: 'dist/apps/gateway/src/main.js', port: 3000 };
