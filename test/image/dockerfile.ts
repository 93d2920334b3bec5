// Reads the repository's Dockerfile and carries out its stages without a Docker engine: each stage gets a
// directory standing for the container's `/`, COPY copies from the build context (or another stage's
// directory), RUN runs its shell command there. Only the instructions the Dockerfile uses are understood; any
// other one fails the test, so a change to the Dockerfile that this emulation would get wrong is noticed.
import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import path from 'node:path';

export type Step =
  | { kind: 'workdir'; dir: string }
  | { kind: 'env'; vars: Record<string, string> }
  | { kind: 'copy'; from: string | undefined; sources: string[]; dest: string }
  | { kind: 'run'; command: string }
  | { kind: 'user'; user: string }
  | { kind: 'healthcheck'; command: string[] }
  | { kind: 'meta'; keyword: 'LABEL' | 'EXPOSE' | 'ENTRYPOINT' | 'CMD'; args: string };

export interface Stage {
  name: string;
  image: string;
  steps: Step[];
}

/** Logical lines: comments dropped, continuation lines (a trailing backslash) joined. */
function logicalLines(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let current: { line: number; text: string } | undefined;
  text.split('\n').forEach((raw, index) => {
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const continued = trimmed.endsWith('\\');
    const part = continued ? trimmed.slice(0, -1) : trimmed;
    current = current
      ? { line: current.line, text: `${current.text} ${part}` }
      : { line: index + 1, text: part };
    if (!continued) {
      out.push(current);
      current = undefined;
    }
  });
  if (current) out.push(current);
  return out;
}

/** `--name=value` flags at the start of an instruction's arguments, and the rest. */
function flags(args: string): { flags: Record<string, string>; rest: string } {
  const found: Record<string, string> = {};
  let rest = args.trim();
  for (let m = /^--([a-z-]+)=(\S+)\s*/.exec(rest); m; m = /^--([a-z-]+)=(\S+)\s*/.exec(rest)) {
    found[m[1]!] = m[2]!;
    rest = rest.slice(m[0].length);
  }
  return { flags: found, rest };
}

function unquote(value: string): string {
  if (value.startsWith('"') && value.endsWith('"')) return value.slice(1, -1).replace(/\\(.)/g, '$1');
  if (value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1);
  return value;
}

export function parseDockerfile(text: string): Stage[] {
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const { line, text: instruction } of logicalLines(text)) {
    const [, word = '', rawArgs = ''] = /^(\S+)\s*(.*)$/.exec(instruction) ?? [];
    const keyword = word.toUpperCase();
    const where = `Dockerfile line ${line}`;
    const unsupported = (what: string) =>
      new Error(`${where}: ${what} is not understood by test/image/dockerfile.ts; extend it`);
    const stage = stages.at(-1);
    if (keyword === 'ARG' && !stage) {
      const [, name = '', value = ''] = /^(\w+)(?:=(.*))?$/.exec(rawArgs) ?? [];
      args[name] = unquote(value);
      continue;
    }
    if (keyword === 'FROM') {
      const m = /^(\S+)\s+AS\s+(\S+)$/i.exec(rawArgs);
      if (!m) throw unsupported(`FROM without "AS name"`);
      const image = m[1]!.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a: string, b: string) => args[a ?? b] ?? '');
      stages.push({ name: m[2]!, image, steps: [] });
      continue;
    }
    if (!stage) throw unsupported(`${keyword} before FROM`);
    if (rawArgs.includes('$') && keyword !== 'HEALTHCHECK') throw unsupported(`a variable in ${keyword}`);
    switch (keyword) {
      case 'WORKDIR':
        stage.steps.push({ kind: 'workdir', dir: rawArgs });
        break;
      case 'ENV': {
        const vars: Record<string, string> = {};
        const pairs = /(\w+)=("(?:[^"\\]|\\.)*"|'[^']*'|\S+)/g;
        const rest = rawArgs.replace(pairs, (_, name: string, value: string) => {
          vars[name] = unquote(value);
          return '';
        });
        if (rest.trim() !== '') throw unsupported(`ENV "${rawArgs}" (only NAME=value pairs)`);
        stage.steps.push({ kind: 'env', vars });
        break;
      }
      case 'COPY': {
        const { flags: f, rest } = flags(rawArgs);
        const { from, ...others } = f;
        if (Object.keys(others).length > 0 || rest.startsWith('[')) throw unsupported(`COPY ${rawArgs}`);
        const parts = rest.split(/\s+/);
        stage.steps.push({ kind: 'copy', from, sources: parts.slice(0, -1), dest: parts.at(-1)! });
        break;
      }
      case 'RUN': {
        const { flags: f, rest } = flags(rawArgs);
        // A cache mount only keeps npm's cache between builds; the emulation uses this machine's npm cache.
        const { mount, ...others } = f;
        if (
          (mount && !mount.startsWith('type=cache,')) ||
          Object.keys(others).length > 0 ||
          rest.startsWith('[')
        ) {
          throw unsupported(`RUN ${rawArgs}`);
        }
        stage.steps.push({ kind: 'run', command: rest });
        break;
      }
      case 'USER':
        stage.steps.push({ kind: 'user', user: rawArgs });
        break;
      case 'HEALTHCHECK': {
        const { rest } = flags(rawArgs);
        const m = /^CMD\s+(\[.*\])$/.exec(rest);
        if (!m) throw unsupported(`HEALTHCHECK ${rest} (only the exec form)`);
        stage.steps.push({ kind: 'healthcheck', command: JSON.parse(m[1]!) as string[] });
        break;
      }
      case 'LABEL':
      case 'EXPOSE':
      case 'ENTRYPOINT':
      case 'CMD':
        stage.steps.push({ kind: 'meta', keyword, args: rawArgs });
        break;
      default:
        throw unsupported(keyword);
    }
  }
  return stages;
}

/** Glob patterns of a .dockerignore as tests on a path relative to the context (no `!` exceptions). */
export function dockerignore(text: string): (relative: string) => boolean {
  const patterns = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const regexps = patterns.map((pattern) => {
    if (pattern.startsWith('!')) throw new Error(`.dockerignore: exceptions (${pattern}) are not understood`);
    const parts = pattern.replace(/^\/+|\/+$/g, '').split('/');
    const source = parts
      .map((part, i) => {
        const last = i === parts.length - 1;
        if (part === '**') return last ? '.*' : '(?:.*/)?';
        const glob = part
          .replace(/[.+^${}()|[\]\\]/g, '\\$&')
          .replace(/\*/g, '[^/]*')
          .replace(/\?/g, '[^/]');
        return last ? glob : `${glob}/`;
      })
      .join('');
    // A pattern naming a directory excludes everything below it.
    return new RegExp(`^${source}(?:/.*)?$`);
  });
  return (relative) => regexps.some((r) => r.test(relative));
}

export interface StageResult {
  /** The directory standing for the stage's `/`. */
  root: string;
  workdir: string;
  env: Record<string, string>;
  user: string | undefined;
  healthcheck: string[] | undefined;
}

/** Runs one shell command; resolves with its output, rejects with it when it fails. */
export function sh(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve(output);
      else reject(new Error(`"${command}" failed (${signal ?? `exit ${code}`}) in ${cwd}:\n${output}`));
    });
  });
}

/**
 * Carries out the stages in `workRoot/<stage>`, copying from `context`; like BuildKit, stages run at the same
 * time, a COPY --from waiting for the stage it copies from. `env` is the environment of the base image (its
 * PATH reaches the Node.js of the image); each stage's ENV is added to it. Rejects with the first failure,
 * once every stage has stopped.
 */
export async function buildStages(
  stages: Stage[],
  context: string,
  workRoot: string,
  env: NodeJS.ProcessEnv,
  onStep: (stage: string, step: Step, output: string) => void = () => {},
): Promise<Map<string, StageResult>> {
  const running = new Map<string, Promise<StageResult>>();
  const inside = (root: string, dir: string, p: string) => path.join(root, path.posix.resolve(dir, p));

  async function runStage(stage: Stage): Promise<StageResult> {
    const result: StageResult = {
      root: path.join(workRoot, stage.name),
      workdir: '/',
      env: {},
      user: undefined,
      healthcheck: undefined,
    };
    mkdirSync(result.root, { recursive: true });
    for (const step of stage.steps) {
      let output = '';
      switch (step.kind) {
        case 'workdir':
          result.workdir = path.posix.resolve(result.workdir, step.dir);
          mkdirSync(inside(result.root, '/', result.workdir), { recursive: true });
          break;
        case 'env':
          Object.assign(result.env, step.vars);
          break;
        case 'copy': {
          const pending = step.from === undefined ? undefined : running.get(step.from);
          if (step.from !== undefined && !pending)
            throw new Error(`COPY --from=${step.from}: no earlier stage of that name`);
          const source = await pending;
          const dest = inside(result.root, result.workdir, step.dest);
          for (const src of step.sources) {
            const from = source ? inside(source.root, source.workdir, src) : path.join(context, src);
            if (!existsSync(from)) throw new Error(`COPY ${src}: not in ${step.from ?? 'the build context'}`);
            if (statSync(from).isDirectory()) {
              // A directory's contents go into the destination.
              mkdirSync(dest, { recursive: true });
              for (const entry of readdirSync(from))
                place(path.join(from, entry), path.join(dest, entry), !!source);
            } else {
              const intoDir = step.dest.endsWith('/') || step.sources.length > 1;
              const target = intoDir ? path.join(dest, path.basename(from)) : dest;
              mkdirSync(path.dirname(target), { recursive: true });
              place(from, target, !!source);
            }
          }
          break;
        }
        case 'run':
          output = await sh(step.command, inside(result.root, '/', result.workdir), {
            ...env,
            ...result.env,
          });
          break;
        case 'user':
          result.user = step.user;
          break;
        case 'healthcheck':
          result.healthcheck = step.command;
          break;
        case 'meta':
          break;
      }
      onStep(stage.name, step, output);
    }
    return result;
  }

  for (const stage of stages) running.set(stage.name, runStage(stage));
  const settled = await Promise.allSettled(running.values());
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return new Map(
    [...running.keys()].map((name, i) => [name, (settled[i] as PromiseFulfilledResult<StageResult>).value]),
  );
}

/**
 * Copies a file or a tree (symbolic links as they are). Files from another stage are hard-linked instead: that
 * stage is finished, nothing changes them, and a stage's node_modules holds tens of thousands of files.
 */
function place(from: string, to: string, link: boolean): void {
  const stat = lstatSync(from);
  if (stat.isDirectory()) {
    mkdirSync(to, { recursive: true });
    for (const entry of readdirSync(from)) place(path.join(from, entry), path.join(to, entry), link);
  } else if (stat.isSymbolicLink()) {
    symlinkSync(readlinkSync(from), to);
  } else if (link) {
    try {
      linkSync(from, to);
    } catch {
      copyFileSync(from, to);
    }
  } else {
    copyFileSync(from, to);
  }
}

/** The build context: the repository's files (tracked or not ignored by git), less what .dockerignore names. */
export function copyContext(repo: string, files: string[], into: string): number {
  const ignored = dockerignore(readFileSync(path.join(repo, '.dockerignore'), 'utf8'));
  let copied = 0;
  for (const file of files) {
    const from = path.join(repo, file);
    if (ignored(file) || !existsSync(from)) continue;
    mkdirSync(path.dirname(path.join(into, file)), { recursive: true });
    place(from, path.join(into, file), false);
    copied += 1;
  }
  return copied;
}
