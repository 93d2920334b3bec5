import { VerifierInit1763810000000 } from './1763810000000-verifier-init';

export const verifierMigrations = [VerifierInit1763810000000];
