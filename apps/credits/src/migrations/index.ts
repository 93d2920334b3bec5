import type { ServiceDatabase } from '@emailverify/service-kit';
import { CreditsInit1763800000000 } from './1763800000000-credits-init';
import { CreditsKeyMode1764400000000 } from './1764400000000-credits-key-mode';
import { CreditsUsage1764400000001 } from './1764400000001-credits-usage';

export const creditsMigrations = [
  CreditsInit1763800000000,
  CreditsKeyMode1764400000000,
  CreditsUsage1764400000001,
];

/** The schema The credits service owns, which its migrations write into. */
export const creditsDatabase: ServiceDatabase = { schema: 'credits', migrations: creditsMigrations };
