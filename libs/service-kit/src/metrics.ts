import { Injectable } from '@nestjs/common';
import type { ConsumerLag } from '@emailverify/messaging';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The prefix of every metric the suite declares. The default Node.js and process metrics of prom-client keep
 * their standard names (`process_cpu_seconds_total`, `nodejs_heap_size_used_bytes`, ...): every Prometheus
 * client library exports the `process_*` family under those names, and the community's dashboards and alerts
 * for Node.js processes query them as they are; the `service` label tells the suite's processes apart.
 */
export const METRIC_PREFIX = 'emailverify_';

/** Buckets of NATS request and handling latency: from a millisecond (a cached answer) to the longest deadline. */
const NATS_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Name and help of the NATS latency histogram of each side of a request. */
const NATS_LATENCY = {
  served: [
    'nats_handled_seconds',
    'Time to answer a NATS request this process served, by subject and outcome',
  ],
  made: [
    'nats_request_seconds',
    'Latency of NATS requests this process made, from sending to the reply, by subject and outcome',
  ],
} as const;

/** A Prometheus registry per process, with the default Node metrics and the suite's common series. */
export class Metrics {
  readonly registry = new Registry();
  private readonly natsHistograms = new Map<keyof typeof NATS_LATENCY, Histogram<'subject' | 'outcome'>>();
  private consumerGauges?: {
    pending: Gauge<'stream' | 'consumer'>;
    ackPending: Gauge<'stream' | 'consumer'>;
  };

  constructor(readonly service: string) {
    this.registry.setDefaultLabels({ service });
    collectDefaultMetrics({ register: this.registry });
    // The high-water mark of resident memory since start: what memory limits and benchmarks care about.
    this.gauge(
      'process_max_resident_memory_bytes',
      'Peak resident memory of the process since it started',
      [],
      {
        collect() {
          this.set(process.resourceUsage().maxRSS * 1024);
        },
      },
    );
  }

  /**
   * Latency of NATS requests by subject and outcome (`ok` or the error code): of those this process answered
   * (`served`) or made (`made`, from sending to the reply). Like every series kept for one side of a role, each
   * is declared on first use, so a process exports no series it never fills (credits makes no requests, the
   * gateway answers none).
   */
  natsLatency(side: keyof typeof NATS_LATENCY): Histogram<'subject' | 'outcome'> {
    let histogram = this.natsHistograms.get(side);
    if (!histogram) {
      const [name, help] = NATS_LATENCY[side];
      histogram = this.histogram(name, help, ['subject', 'outcome'], NATS_BUCKETS);
      this.natsHistograms.set(side, histogram);
    }
    return histogram;
  }

  /**
   * `atZero`: label values whose series exist from the start at 0, so a rate or an alert over them sees the
   * first increment and a dashboard shows 0 rather than no data.
   */
  counter<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    atZero: Partial<Record<L, readonly string[]>> = {},
  ): Counter<L> {
    const counter = new Counter({ name: METRIC_PREFIX + name, help, labelNames, registers: [this.registry] });
    for (const [label, values] of Object.entries(atZero) as [L, readonly string[]][])
      for (const value of values) counter.inc({ [label]: value } as Partial<Record<L, string>>, 0);
    return counter;
  }

  histogram<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    buckets?: number[],
  ): Histogram<L> {
    return new Histogram({
      name: METRIC_PREFIX + name,
      help,
      labelNames,
      ...(buckets ? { buckets } : {}),
      registers: [this.registry],
    });
  }

  gauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    options: { collect?: (this: Gauge<L>) => void | Promise<void> } = {},
  ): Gauge<L> {
    return new Gauge({
      name: METRIC_PREFIX + name,
      help,
      labelNames,
      registers: [this.registry],
      ...(options.collect ? { collect: options.collect } : {}),
    });
  }

  /**
   * Records a sample of JetStream consumer lag. The gauges exist only in processes that work a consumer, so no
   * process exports a series it never fills.
   */
  recordConsumerLag(lags: readonly ConsumerLag[]): void {
    if (lags.length === 0) return;
    this.consumerGauges ??= {
      pending: this.gauge(
        'jetstream_consumer_pending_messages',
        'Messages of a JetStream stream its durable consumer has not been given yet (the queue ahead of it)',
        ['stream', 'consumer'],
      ),
      ackPending: this.gauge(
        'jetstream_consumer_ack_pending_messages',
        'Messages a JetStream durable consumer was given and has not acknowledged yet (work in hand)',
        ['stream', 'consumer'],
      ),
    };
    for (const lag of lags) {
      const labels = { stream: lag.stream, consumer: lag.consumer };
      this.consumerGauges.pending.set(labels, lag.pending);
      this.consumerGauges.ackPending.set(labels, lag.ackPending);
    }
  }
}

/**
 * The base of an app's own metrics (CreditsMetrics, ...): its series are fields declared on the process's
 * registry through `this.metrics`, all in one class.
 */
@Injectable()
export abstract class AppMetrics {
  constructor(protected readonly metrics: Metrics) {}
}
