/**
 * `@emailverify/service-kit/config`: the kit's configuration readers alone, without Nest, pino, prom-client or
 * NATS, for a program that must start in a blink (the admin CLI, whose usage errors and doctor need no service).
 * The services take the same exports from the kit's index.
 */
export * from './config';
export * from './smtp-egress-config';
