import { SetMetadata } from '@nestjs/common';

/** Endpoint classes, each with its own per-key limit per minute (RATE_LIMIT_SINGLE, RATE_LIMIT_BULK, ...). */
export const RATE_CLASSES = ['single', 'bulk', 'file', 'disposable', 'other'] as const;
export type RateClass = (typeof RATE_CLASSES)[number];

export const RATE_CLASS = 'emailverify:rate-class';
/** Puts a route (or controller) in a rate-limit class; routes without one count as "other". */
export const RateLimitClass = (cls: RateClass): MethodDecorator & ClassDecorator =>
  SetMetadata(RATE_CLASS, cls);

export const PER_ADDRESS_LIMIT = 'emailverify:per-address-limit';
/** A public route limited per client address (RATE_LIMIT_DOWNLOAD per minute), as it has no key to count. */
export const PerAddressLimit = (): MethodDecorator => SetMetadata(PER_ADDRESS_LIMIT, true);
