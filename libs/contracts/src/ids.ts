/**
 * Ids of accounts, keys, jobs, webhooks and deliveries: UUIDs in their text form, of any version, as PostgreSQL's
 * uuid type accepts them. Any other string names nothing (and must not reach a `::uuid` cast).
 */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string): boolean => UUID_PATTERN.test(value);

declare const ACCOUNT_ID: unique symbol;

/**
 * An account's id once a service has checked it: a UUID from a payload validated on receipt (or an account
 * resolved from an API key), or read back from the service's own rows. Every repository method on customer data
 * takes one, so a query cannot be scoped by an unchecked string, nor by nothing; queries across accounts
 * (recovery, sweeps) are separate methods named for what they do.
 */
export type AccountId = string & { readonly [ACCOUNT_ID]: true };

/** The value as an AccountId when it is a UUID; undefined otherwise. */
export function asAccountId(value: string): AccountId | undefined {
  return isUuid(value) ? (value as AccountId) : undefined;
}
