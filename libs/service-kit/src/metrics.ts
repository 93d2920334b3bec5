import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** A Prometheus registry per process, with the default Node metrics and the suite's common series. */
export class Metrics {
  readonly registry = new Registry();
  readonly messages: Histogram<'subject' | 'outcome'>;
  readonly natsRequests: Histogram<'subject' | 'outcome'>;

  constructor(readonly service: string) {
    this.registry.setDefaultLabels({ service });
    collectDefaultMetrics({ register: this.registry });
    // The high-water mark of resident memory since start: what memory limits and benchmarks care about.
    new Gauge({
      name: 'process_max_resident_memory_bytes',
      help: 'Peak resident memory of the process since it started',
      registers: [this.registry],
      collect() {
        this.set(process.resourceUsage().maxRSS * 1024);
      },
    });
    this.messages = new Histogram({
      name: 'nats_handled_messages_seconds',
      help: 'Time to handle a NATS request, by subject and outcome',
      labelNames: ['subject', 'outcome'],
      registers: [this.registry],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
    });
    this.natsRequests = new Histogram({
      name: 'nats_request_seconds',
      help: 'Latency of NATS requests this process made, by subject and outcome',
      labelNames: ['subject', 'outcome'],
      registers: [this.registry],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
    });
  }

  counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  histogram<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    buckets?: number[],
  ): Histogram<L> {
    return new Histogram({
      name,
      help,
      labelNames,
      ...(buckets ? { buckets } : {}),
      registers: [this.registry],
    });
  }
}
