import { CreditsInit1763800000000 } from './1763800000000-credits-init';

export const creditsMigrations = [CreditsInit1763800000000];
