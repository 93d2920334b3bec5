import { CreditsInit1763800000000 } from './1763800000000-credits-init';
import { CreditsKeyMode1764400000000 } from './1764400000000-credits-key-mode';

export const creditsMigrations = [CreditsInit1763800000000, CreditsKeyMode1764400000000];
