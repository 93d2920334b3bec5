import type { ServiceDatabase } from '@emailverify/service-kit';
import { VerifierInit1763810000000 } from './1763810000000-verifier-init';

export const verifierMigrations = [VerifierInit1763810000000];

/** The schema The verifier owns, which its migrations write into. */
export const verifierDatabase: ServiceDatabase = { schema: 'verifier', migrations: verifierMigrations };
