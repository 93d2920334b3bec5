/**
 * Every subject, queue group, stream, consumer and bucket carries the installation's namespace, so two
 * installations (or two test runs) can share one NATS server without taking each other's messages.
 */
export class Namespace {
  constructor(readonly prefix: string) {
    if (!/^[A-Za-z0-9_-]+$/.test(prefix)) {
      throw new Error(`NATS_NAMESPACE must be letters, digits, '-' or '_' (got "${prefix}")`);
    }
  }

  /** `verifier.address.verify` -> `emailverify.verifier.address.verify` */
  subject(subject: string): string {
    return `${this.prefix}.${subject}`;
  }

  queue(group: string): string {
    return `${this.prefix}.${group}`;
  }

  /** JetStream names (streams, consumers, buckets) may not contain dots. */
  resource(name: string): string {
    return `${this.prefix}_${name}`.replace(/[^A-Za-z0-9_-]/g, '_');
  }
}
