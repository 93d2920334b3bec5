import { VerifierInit1763810000000 } from './1763810000000-verifier-init';
import { LeanCache1763900000000 } from './1763900000000-lean-cache';

export const verifierMigrations = [VerifierInit1763810000000, LeanCache1763900000000];
