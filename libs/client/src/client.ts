import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './generated/openapi';
import type { components as legacyComponents, paths as legacyPaths } from './generated/openapi-legacy';

/** The current style's named schemas (`Schemas['VerificationResult']`), generated from /openapi.json. */
export type Schemas = components['schemas'];
/** The legacy style's named schemas, generated from /openapi-legacy.json. */
export type LegacySchemas = legacyComponents['schemas'];

export type VerificationResult = Schemas['VerificationResult'];
export type BulkResult = Schemas['BulkResult'];
export type FileJob = Schemas['FileJob'];
export type FileJobStatus = Schemas['FileJobStatus'];
export type Webhook = Schemas['Webhook'];
export type ApiError = Schemas['Error'];

export type EmailVerifyClient = Client<paths>;
export type LegacyEmailVerifyClient = Client<legacyPaths>;

export interface ClientOptions {
  /** The API key, sent as SVC-API-KEY on every request. */
  apiKey: string;
  /** Where the service is, without `/v1` (the paths carry it): `https://api.example.com`. */
  baseUrl: string;
  /** A fetch of your own (a proxy, a test double); the global one otherwise. */
  fetch?: (input: Request) => Promise<Response>;
}

function options(style: 'current' | 'legacy', { apiKey, baseUrl, fetch }: ClientOptions) {
  return {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    // The style is asked for on every request, so replies match the types whatever the key's default style.
    headers: { 'SVC-API-KEY': apiKey, 'SVC-Response-Style': style },
    ...(fetch ? { fetch } : {}),
  };
}

/** A client of the current style: `const { data } = await client.GET('/v1/credits')`, then `data.data`. */
export function createEmailVerifyClient(config: ClientOptions): EmailVerifyClient {
  return createClient<paths>(options('current', config));
}

/** A client of the legacy style (older unwrapped replies), typed by the legacy document. */
export function createLegacyEmailVerifyClient(config: ClientOptions): LegacyEmailVerifyClient {
  return createClient<legacyPaths>(options('legacy', config));
}
