// Baseline of the webhooks benchmark: a bare node:https client posting webhook bodies with the headers a
// delivery carries (both signatures computed per request, as the service does per attempt, with each secret's
// HMAC keys made once, as the service keeps them per webhook), `concurrency` at a time over one keep-alive agent,
// trusting the receiver's test CA. No database, no claim, no record, no log.
// Runs as its own process like the service. Talks JSON lines on stdin/stdout:
//   -> {"cmd":"load","caFile":…,"concurrency":N,"requests":[{url,body,id,event,secret}]}   <- {"loaded":n}
//   -> {"cmd":"go"}   <- {"ok":n,"failed":m,"errors":[…]}
// It prints {"ready":true} once started and exits when its stdin closes (its parent ended) or on SIGTERM.
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { createInterface } from 'node:readline';

interface BareRequest {
  url: string;
  body: string;
  id: string;
  event: string;
  secret: string;
}

interface LoadCommand {
  cmd: 'load';
  caFile: string;
  concurrency: number;
  requests: BareRequest[];
}

/** One agent for the life of the process, as the service keeps one per target: warm connections are reused. */
let agent: Agent | undefined;
let loaded: { concurrency: number; requests: BareRequest[] } | undefined;

/** Each secret's two HMAC keys (the string's bytes, the bytes it encodes), made on first use. */
const keys = new Map<string, { contract: KeyObject; standard: KeyObject }>();
function keysOf(secret: string): { contract: KeyObject; standard: KeyObject } {
  let k = keys.get(secret);
  if (!k) {
    k = {
      contract: createSecretKey(Buffer.from(secret, 'utf8')),
      standard: createSecretKey(Buffer.from(secret.slice('whsec_'.length), 'base64')),
    };
    keys.set(secret, k);
  }
  return k;
}

/** The headers of one delivery attempt: the X-Webhook-* set and the Standard Webhooks set, as the service sends them. */
function headersFor(r: BareRequest): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const { contract: contractKey, standard: standardKey } = keysOf(r.secret);
  const contract = createHmac('sha256', contractKey).update(`${timestamp}.${r.body}`).digest('hex');
  const standard = createHmac('sha256', standardKey)
    .update(`${r.id}.${timestamp}.${r.body}`)
    .digest('base64');
  return {
    'Content-Type': 'application/json',
    'User-Agent': 'Service-Webhook/1.0',
    'X-Webhook-Event': r.event,
    'X-Webhook-Id': r.id,
    'X-Webhook-Timestamp': timestamp,
    'X-Webhook-Signature': `sha256=${contract}`,
    'webhook-id': r.id,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${standard}`,
    'Content-Length': String(Buffer.byteLength(r.body)),
  };
}

function post(agent: Agent, r: BareRequest): Promise<number> {
  return new Promise((resolve, reject) => {
    const url = new URL(r.url);
    const req = request(
      {
        host: url.hostname,
        port: Number(url.port || 443),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: headersFor(r),
        agent,
      },
      (res) => {
        res.on('data', () => undefined);
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(r.body);
  });
}

async function go(): Promise<object> {
  if (!loaded) throw new Error('go before load');
  const { concurrency, requests } = loaded;
  const pool = agent!;
  let next = 0;
  let ok = 0;
  const errors: string[] = [];
  const worker = async () => {
    while (next < requests.length) {
      const r = requests[next++]!;
      try {
        const status = await post(pool, r);
        if (status >= 200 && status < 300) ok++;
        else errors.push(`HTTP ${status}`);
      } catch (err) {
        errors.push(err instanceof Error ? err.message : String(err));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, requests.length) }, worker));
  return { ok, failed: errors.length, errors: errors.slice(0, 5) };
}

const reply = (value: object) => process.stdout.write(`${JSON.stringify(value)}\n`);

createInterface({ input: process.stdin }).on('line', (line) => {
  const command = JSON.parse(line) as LoadCommand | { cmd: 'go' };
  if (command.cmd === 'load') {
    agent ??= new Agent({
      keepAlive: true,
      maxSockets: command.concurrency,
      // Idle connections close before the receiver's keep-alive timeout (Node's default, 5 s) can close
      // them under a request being written.
      timeout: 4_000,
      ca: readFileSync(command.caFile, 'utf8'),
    });
    loaded = { concurrency: command.concurrency, requests: command.requests };
    reply({ loaded: command.requests.length });
  } else {
    go().then(reply, (err: unknown) => reply({ error: String(err) }));
  }
});
process.stdin.on('end', () => process.exit(0));
process.once('SIGTERM', () => process.exit(0));
reply({ ready: true });
