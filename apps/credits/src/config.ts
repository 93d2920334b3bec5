import { baseConfigShape, int, serviceConfig } from '@emailverify/service-kit';
import { z } from 'zod';

export const creditsConfigSchema = z.object({
  ...baseConfigShape,
  HTTP_PORT: int(3101, 0, 65535),
  /** How often expired reservations (their holder died before settling) are refunded. */
  RESERVATION_SWEEP_INTERVAL_MS: int(60_000, 100, 3_600_000),
});
export type CreditsConfig = z.infer<typeof creditsConfigSchema>;

export const creditsConfig = serviceConfig('credits', creditsConfigSchema);
/** The token of the service's typed config, which its classes inject (`@Inject(CREDITS_CONFIG)`). */
export const CREDITS_CONFIG = creditsConfig.token;
