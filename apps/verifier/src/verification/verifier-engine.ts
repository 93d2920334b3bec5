import { Inject, Injectable } from '@nestjs/common';
import { VerificationEngine } from '@emailverify/verification';
import { engineOptions, VERIFIER_CONFIG, type VerifierConfig } from '../config';
import { VerifierMetrics } from '../verifier.metrics';
import { MxLimiterHolder } from './mx-limiter';

/** The verification engine as this service runs it: its config, the shared per-MX cap, and its metrics. */
@Injectable()
export class VerifierEngine extends VerificationEngine {
  constructor(
    @Inject(VERIFIER_CONFIG) config: Readonly<VerifierConfig>,
    metrics: VerifierMetrics,
    limiter: MxLimiterHolder,
  ) {
    super(engineOptions(config), { limiter: limiter.limiter }, metrics.observer());
  }
}
