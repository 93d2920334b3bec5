// The physical floor of an MX-only file job (docs: tools/bench/README.md, "file"): one Node process that reads
// the CSV, resolves MX once per unique domain through the given DNS server with 64 questions in flight, and
// writes the result CSV (the original columns, then the verification columns, one row per input row, in
// input order). Nothing else: no service, no database, no broker, no second process.
//
// Run as its own process by file.ts: `node file-floor.js <input.csv> <output.csv> <dns host:port>`. It prints
// one JSON line: {rows, uniqueDomains, failedDomains, seconds, cpuSeconds, peakRssMiB}. The time runs from the
// first byte read to the last byte written (Node's start-up is not counted); the peak is the process's own
// (VmHWM).
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { Resolver } from 'node:dns/promises';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { resultHeader } from '@emailverify/files';

const IN_FLIGHT = 64;

/** Peak resident memory of this process (VmHWM), in bytes. */
function peakRssBytes(): number {
  const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

/** The verification columns of an MX-only verdict for one row, from its domain's MX hosts. */
function verdict(email: string, domain: string, mx: string[] | undefined): string {
  if (!mx) return `${email},unknown,dns_error,0,false,false,false,false,false,${domain},,,false`;
  if (!mx.length) return `${email},invalid,no_mx,0,false,false,false,false,false,${domain},,,false`;
  return `${email},valid,mx_found,80,true,false,false,false,false,${domain},${mx.join(';')},,false`;
}

async function main(): Promise<void> {
  const [input, output, dnsServer] = process.argv.slice(2);
  if (!input || !output || !dnsServer)
    throw new Error('usage: file-floor <input.csv> <output.csv> <dns host:port>');
  const resolver = new Resolver({ timeout: 3_000, tries: 2 });
  resolver.setServers([dnsServer]);
  const started = performance.now();
  const cpuBefore = process.cpuUsage();

  // Read: the rows (the generated file has no quoted cells; the address is the first column) and the
  // unique domains in order of first appearance.
  const lines: string[] = [];
  const mx = new Map<string, string[] | undefined>();
  let header = '';
  for await (const line of createInterface({ input: createReadStream(input), crlfDelay: Infinity })) {
    if (!header) {
      header = line;
      continue;
    }
    if (!line) continue;
    lines.push(line);
    const email = line.slice(0, line.indexOf(','));
    const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
    if (!mx.has(domain)) mx.set(domain, undefined);
  }

  // Resolve: MX once per unique domain, IN_FLIGHT questions at a time.
  const domains = [...mx.keys()];
  let next = 0;
  const worker = async () => {
    while (next < domains.length) {
      const domain = domains[next++];
      try {
        const records = await resolver.resolveMx(domain);
        mx.set(
          domain,
          records.sort((a, b) => a.priority - b.priority).map((r) => r.exchange),
        );
      } catch (err) {
        const code = (err as { code?: string }).code;
        mx.set(domain, code === 'ENODATA' || code === 'ENOTFOUND' ? [] : undefined);
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));

  // Write: every row in input order, original columns then the verdict.
  const out = createWriteStream(output);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  // The service's header: a verification column whose name clashes with an original one is prefixed.
  await write(`${resultHeader(header.split(','), true).join(',')}\n`);
  let buffer = '';
  for (const line of lines) {
    const email = line.slice(0, line.indexOf(','));
    const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
    buffer += `${line},${verdict(email, domain, mx.get(domain))}\n`;
    if (buffer.length > 1 << 16) {
      await write(buffer);
      buffer = '';
    }
  }
  await write(buffer);
  out.end();
  await once(out, 'close');
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const failed = domains.filter((d) => mx.get(d) === undefined).length;
  process.stdout.write(
    `${JSON.stringify({
      rows: lines.length,
      uniqueDomains: domains.length,
      failedDomains: failed,
      seconds,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      peakRssMiB: peakRssBytes() / 2 ** 20,
    })}\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`file-floor: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
