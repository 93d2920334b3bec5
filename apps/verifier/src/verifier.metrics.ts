import { Injectable } from '@nestjs/common';
import { AppMetrics } from '@emailverify/service-kit';
import type { VerificationObserver } from '@emailverify/verification';

/** DNS answers take milliseconds; a timeout is the resolver's deadline times its tries. */
const DNS_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** An SMTP probe is one or more conversations, each bounded by the connect and command timeouts. */
const SMTP_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60];
/** A chunk is up to a few hundred addresses, verified a few at a time. */
const CHUNK_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/** The verifier's own metrics, declared in one place. */
@Injectable()
export class VerifierMetrics extends AppMetrics {
  readonly outcomes = this.metrics.counter(
    'verification_outcomes_total',
    'Addresses verified (not served from the cache), by status and reason',
    ['status', 'reason'],
  );
  readonly dnsQueries = this.metrics.histogram(
    'dns_query_seconds',
    'DNS queries of verification (MX, A, AAAA, TXT, blocklists), by record type and outcome',
    ['type', 'outcome'],
    DNS_BUCKETS,
  );
  readonly smtpProbes = this.metrics.histogram(
    'smtp_probe_seconds',
    'SMTP probes of one address, every mail host tried included, by outcome and reason',
    ['outcome', 'reason'],
    SMTP_BUCKETS,
  );
  readonly chunks = this.metrics.histogram(
    'file_chunk_seconds',
    'File-job chunks worked by this verifier: verified, reported failed after every delivery, or handed back for a retry',
    ['outcome'],
    CHUNK_BUCKETS,
  );
  readonly sharedDomainFacts = this.metrics.counter(
    'shared_domain_facts_total',
    "Domains' mail routing shared between verifiers: sent to the others, and received from them (learnt, known already, or rejected as malformed)",
    ['outcome'],
  );

  /** What the verification engine tells about its network work. */
  observer(): VerificationObserver {
    return {
      dnsQuery: (type, outcome, seconds) => this.dnsQueries.observe({ type, outcome }, seconds),
      smtpProbe: (outcome, reason, seconds) => this.smtpProbes.observe({ outcome, reason }, seconds),
    };
  }
}
