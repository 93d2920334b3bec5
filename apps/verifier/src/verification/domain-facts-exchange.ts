import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Broadcasts, type DomainFactsBroadcast } from '@emailverify/contracts';
import { MessageBus } from '@emailverify/messaging';
import { type DomainFacts, VerificationEngine } from '@emailverify/verification';
import type { Counter } from 'prom-client';
import { VERIFIER_CONFIG, type VerifierConfig } from '../config';
import { VerifierMetrics } from '../verifier.metrics';
import { domainFactsBroadcast, sharedDomainFact } from '../verifier.schemas';

export interface DomainFactsExchangeOptions {
  /** How long found facts wait to go out together with those found meanwhile. */
  holdMs: number;
  /** Facts per broadcast at most; more go out at once in the next. */
  maxFacts: number;
  /** Off: nothing is sent or taken (SHARE_DOMAIN_FACTS=false). */
  enabled: boolean;
}

/** How long found facts wait to go out together with those found meanwhile. */
const HOLD_MS = 10;
/** Facts per broadcast at most; more go out at once in the next. */
const MAX_FACTS = 500;
/** Bytes of JSON one broadcast carries at most (NATS refuses payloads above its max_payload, 1 MiB by default). */
const MAX_BROADCAST_BYTES = 256 * 1024;

type Fact = DomainFactsBroadcast['facts'][number];

/**
 * Shares the domains' mail routing that this verifier finds in the DNS with the installation's other verifiers,
 * and takes theirs (Broadcasts.domainFacts). A file job's chunks go to every replica, and each replica would
 * otherwise ask the DNS about every domain of the file again: with two verifiers on the same cores, that work
 * twice made a job slower than with one. Losing a broadcast costs only a DNS query; facts taken are cached no
 * longer than the sender may keep them, and the private-network rule is applied to them on every use as to
 * facts found here.
 */
@Injectable()
export class DomainFactsExchange {
  private readonly id = randomUUID();
  private readonly options: DomainFactsExchangeOptions;
  /**
   * Facts by outcome: sent (broadcast to the others), and received: learnt, known (this process had them
   * already) or rejected (malformed).
   */
  private readonly counter?: Counter<'outcome'>;
  private held: Fact[] = [];
  private heldBytes = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(MessageBus) private readonly bus: Pick<MessageBus, 'publish' | 'onBroadcast'>,
    @Inject(VerificationEngine)
    private readonly engine: Pick<VerificationEngine, 'shareDomainFacts' | 'learnDomainFacts'>,
    @Inject(VERIFIER_CONFIG) config: Pick<VerifierConfig, 'SHARE_DOMAIN_FACTS'>,
    @Inject(VerifierMetrics) metrics?: Pick<VerifierMetrics, 'sharedDomainFacts'>,
  ) {
    this.options = { holdMs: HOLD_MS, maxFacts: MAX_FACTS, enabled: config.SHARE_DOMAIN_FACTS };
    this.counter = metrics?.sharedDomainFacts;
  }

  start(): void {
    if (!this.options.enabled) return;
    this.bus.onBroadcast<unknown>(Broadcasts.domainFacts, (payload) => this.receive(payload));
    this.engine.shareDomainFacts((domain, facts, ttlMs) => this.hold(domain, facts, ttlMs));
  }

  /** Sends what is held (at shutdown, before the bus closes). */
  stop(): void {
    this.send();
  }

  private hold(domain: string, facts: DomainFacts, ttlMs: number): void {
    const fact: Fact = [domain, facts, ttlMs];
    const bytes = JSON.stringify(fact).length;
    // A fact too large to share (hundreds of MX records) is simply not shared: others ask the DNS themselves.
    if (bytes > MAX_BROADCAST_BYTES / 4) return;
    if (this.heldBytes + bytes > MAX_BROADCAST_BYTES) this.send();
    this.held.push(fact);
    this.heldBytes += bytes;
    if (this.held.length >= this.options.maxFacts) this.send();
    else this.timer ??= setTimeout(() => this.send(), this.options.holdMs);
  }

  private send(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.held.length === 0) return;
    const broadcast: DomainFactsBroadcast = { from: this.id, facts: this.held };
    this.held = [];
    this.heldBytes = 0;
    try {
      this.bus.publish(Broadcasts.domainFacts, broadcast);
      this.counter?.inc({ outcome: 'sent' }, broadcast.facts.length);
    } catch {
      // Not connected: the facts are not shared, and the others ask the DNS themselves.
    }
  }

  private receive(payload: unknown): void {
    const envelope = domainFactsBroadcast.safeParse(payload);
    if (!envelope.success) {
      this.counter?.inc({ outcome: 'rejected' });
      return;
    }
    if (envelope.data.from === this.id) return;
    let learnt = 0;
    let known = 0;
    let rejected = 0;
    for (const item of envelope.data.facts) {
      const fact = sharedDomainFact.safeParse(item);
      if (!fact.success) rejected += 1;
      else if (this.engine.learnDomainFacts(...fact.data)) learnt += 1;
      else known += 1;
    }
    if (learnt) this.counter?.inc({ outcome: 'learnt' }, learnt);
    if (known) this.counter?.inc({ outcome: 'known' }, known);
    if (rejected) this.counter?.inc({ outcome: 'rejected' }, rejected);
  }
}
