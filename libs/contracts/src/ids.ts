/**
 * Ids of accounts, keys, jobs, webhooks and deliveries: UUIDs in their text form, of any version, as PostgreSQL's
 * uuid type accepts them. Any other string names nothing (and must not reach a `::uuid` cast).
 */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string): boolean => UUID_PATTERN.test(value);
