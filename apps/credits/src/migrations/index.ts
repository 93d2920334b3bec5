import { CreditsInit1763800000000 } from './1763800000000-credits-init';
import { ReservationExpiry1764300000000 } from './1764300000000-reservation-expiry';

export const creditsMigrations = [CreditsInit1763800000000, ReservationExpiry1764300000000];
