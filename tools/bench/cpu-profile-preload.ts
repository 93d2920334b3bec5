// Preloaded (NODE_OPTIONS=--require) into the services by `npm run bench -- <name> --profile` (profile.ts):
// the first SIGWINCH starts the V8 CPU profiler, the second writes a .cpuprofile (open it in Chrome DevTools
// or speedscope) to BENCH_PROFILE_DIR and stops it. Node 20 refuses --cpu-prof in NODE_OPTIONS, and Nest's
// shutdown re-raises SIGTERM so an exit hook never runs: hence an explicit window around one run. Not SIGUSR2:
// Nest's shutdown hooks stop the application on that one.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

const dir = process.env.BENCH_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  let running = false;
  const report = (what: string, err: Error | null) => {
    if (err) process.stderr.write(`cpu-profile-preload: ${what} failed: ${err.message}\n`);
  };
  process.on('SIGWINCH', () => {
    if (!running) {
      running = true;
      session.post('Profiler.enable', (err) => {
        report('Profiler.enable', err);
        session.post('Profiler.start', (err2) => report('Profiler.start', err2));
      });
      return;
    }
    running = false;
    session.post('Profiler.stop', (err, result) => {
      report('Profiler.stop', err);
      if (err) return;
      const name = path.basename(path.dirname(path.dirname(process.argv[1] ?? 'node')));
      const file = path.join(dir, `${name}-${process.pid}-${Date.now()}.cpuprofile`);
      writeFileSync(file, JSON.stringify(result.profile));
      process.stderr.write(`cpu-profile-preload: wrote ${file}\n`);
    });
  });
  process.stderr.write(`cpu-profile-preload: ready in ${process.pid}\n`);
}
