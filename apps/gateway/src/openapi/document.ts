import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { type DocumentStyle, RESPONSE_HEADERS, STYLED_RESPONSES } from './api-route';
import { SCHEMA_NAME, type Schema } from './schema';

/**
 * The committed OpenAPI documents' server URL: relative, so it names whichever installation serves the document
 * (a gateway serves its own with PUBLIC_BASE_URL).
 */
export const DOCUMENT_SERVER = '/';

/** Where each style's document is served, and committed. */
export const DOCUMENTS = {
  current: { url: '/openapi.json', file: 'docs/openapi.json' },
  legacy: { url: '/openapi-legacy.json', file: 'docs/openapi-legacy.json' },
} as const satisfies Record<DocumentStyle, { url: string; file: string }>;

export type OpenApiDocuments = Record<DocumentStyle, OpenAPIObject>;

const TAGS: Array<[string, string]> = [
  ['verification', 'One address, a batch, a domain, and the free disposable check'],
  ['file verification', 'Uploaded files of addresses: jobs, their progress and their result files'],
  ['webhooks', 'Signed notifications of finished file jobs, and their delivery log'],
  ['credits', "The account's credits"],
  ['operations', 'Health and metrics, for the operators (no API key)'],
];

const STYLE_TEXT: Record<DocumentStyle, string[]> = {
  current: [
    'This document describes the **current** reply style: every reply is an envelope',
    '`{success, code, message, data}` and every error `{success: false, code, message, error}`. It applies to',
    'keys whose default style is current, or to any request sent with `SVC-Response-Style: current`. The legacy',
    'style (older unwrapped variants) has a document of its own, `/openapi-legacy.json`, with the same paths.',
  ],
  legacy: [
    'This document describes the **legacy** reply style: replies are the older unwrapped variants and errors',
    '`{error: {code, message}}`. It applies to keys whose default style is legacy, or to any request sent with',
    '`SVC-Response-Style: legacy`. A malformed `SVC-Response-Style` is refused in the current style. The current',
    'style (the envelope) has a document of its own, `/openapi.json`, with the same paths.',
  ],
};

function config(publicBaseUrl: string) {
  const builder = new DocumentBuilder()
    .setOpenAPIVersion('3.0.3')
    .setTitle('E-mail verification API')
    .setVersion('1.0')
    .addServer(publicBaseUrl)
    .addApiKey(
      { type: 'apiKey', in: 'header', name: 'SVC-API-KEY', description: 'Recommended carrier' },
      'SvcApiKey',
    )
    .addApiKey(
      { type: 'apiKey', in: 'header', name: 'SERVICE-API-KEY', description: 'Older carrier' },
      'ServiceApiKey',
    )
    // An API key, not a JWT: declared without a bearerFormat.
    .addSecurity('BearerApiKey', {
      type: 'http',
      scheme: 'bearer',
      description: 'Authorization: Bearer <API key>',
    })
    .addSecurityRequirements('SvcApiKey')
    .addSecurityRequirements('ServiceApiKey')
    .addSecurityRequirements('BearerApiKey')
    .addGlobalParameters({
      name: 'SVC-Response-Style',
      in: 'header',
      required: false,
      description: "Response style of this request; defaults to the API key's style",
      schema: { type: 'string', enum: ['current', 'legacy'] },
    });
  for (const [name, description] of TAGS) builder.addTag(name, description);
  return builder.build();
}

function description(style: DocumentStyle): string {
  return [
    'Verify whether e-mail addresses can receive mail: one address, a batch, or a whole file.',
    '',
    'Authenticate with an API key in one of three headers, in priority order: `SVC-API-KEY` (recommended),',
    '`SERVICE-API-KEY`, or `Authorization: Bearer <key>`. The first header present decides.',
    '',
    ...STYLE_TEXT[style],
    '',
    'Every authenticated reply carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`; a 429',
    'adds `Retry-After`.',
    '',
    "The manual, with a `curl` example for every endpoint, is `docs/api.md` in the service's repository.",
  ].join('\n');
}

/**
 * Both OpenAPI 3.0 documents, from one pass over the controllers and their decorators: the routes, parameters
 * and request bodies are shared; each document takes its style's replies (STYLED_RESPONSES) and its own named
 * schemas, so a client generated from either has exact types.
 */
export function buildOpenApiDocuments(app: INestApplication, publicBaseUrl: string): OpenApiDocuments {
  const base = SwaggerModule.createDocument(app, config(publicBaseUrl));
  return { current: styled(base, 'current'), legacy: styled(base, 'legacy') };
}

/** One style's document (the current one unless asked). */
export function buildOpenApiDocument(
  app: INestApplication,
  publicBaseUrl: string,
  style: DocumentStyle = 'current',
): OpenAPIObject {
  return buildOpenApiDocuments(app, publicBaseUrl)[style];
}

interface Operation {
  operationId?: string;
  parameters?: Array<{ name?: string; in?: string; description?: string; schema?: Schema }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { headers?: Record<string, unknown> }>;
  [STYLED_RESPONSES]?: Record<DocumentStyle, Operation['responses']>;
}

function styled(base: OpenAPIObject, style: DocumentStyle): OpenAPIObject {
  const doc = structuredClone(base);
  doc.info = {
    ...doc.info,
    title: style === 'current' ? 'E-mail verification API' : 'E-mail verification API (legacy style)',
    description: description(style),
  };
  for (const item of Object.values(doc.paths)) {
    for (const operation of Object.values(item) as Operation[]) {
      const replies = operation[STYLED_RESPONSES];
      delete operation[STYLED_RESPONSES];
      if (replies) operation.responses = replies[style];
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'header' && parameter.name === 'SVC-Response-Style') {
          parameter.description = `The style this document describes; defaults to the API key's style`;
          parameter.schema = { type: 'string', enum: [style] };
        }
      }
      // Every reply carries X-Request-Id (the first middleware sets it), documented or not by its route.
      for (const response of Object.values(operation.responses ?? {})) {
        response.headers = {
          'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
          ...response.headers,
        };
      }
    }
  }
  const schemas = renameRequestSchemas(doc, (doc.components?.schemas ?? {}) as Record<string, Schema>);
  doc.paths = hoist(doc.paths, schemas) as OpenAPIObject['paths'];
  for (const name of requestSchemas(doc)) schemas[name] = defaultsInDescriptions(schemas[name]!);
  // Only the headers this style's replies carry (the redirect's Location is the current style's).
  const used = JSON.stringify(doc.paths);
  doc.components = {
    ...doc.components,
    schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
    headers: Object.fromEntries(
      Object.entries(RESPONSE_HEADERS).filter(([name]) => used.includes(`"#/components/headers/${name}"`)),
    ),
  };
  return doc;
}

/** A request DTO's schema is named for what it is in the API (`VerifySingleDto` → `VerifySingleRequest`). */
function renameRequestSchemas(doc: OpenAPIObject, schemas: Record<string, Schema>): Record<string, Schema> {
  const renamed: Record<string, string> = {};
  for (const name of Object.keys(schemas))
    if (name.endsWith('Dto')) renamed[name] = name.replace(/Dto$/, 'Request');
  const rename = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rename);
    if (node === null || typeof node !== 'object') return node;
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => {
        const target =
          typeof value === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(value)?.[1] : undefined;
        if (key === '$ref' && target && renamed[target])
          return [key, `#/components/schemas/${renamed[target]}`];
        return [key, rename(value)];
      }),
    );
  };
  doc.paths = rename(doc.paths) as OpenAPIObject['paths'];
  return Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [renamed[name] ?? name, rename(schema) as Schema]),
  );
}

/**
 * Moves every schema marked with a name (SCHEMA_NAME) under components.schemas, inner ones first, and leaves a
 * $ref where it was. One name is one schema: two different schemas under one name are a mistake in the route
 * docs, refused here (an example may be on one use and not another).
 */
function hoist(node: unknown, schemas: Record<string, Schema>): unknown {
  if (Array.isArray(node)) return node.map((item) => hoist(item, schemas));
  if (node === null || typeof node !== 'object') return node;
  const { [SCHEMA_NAME]: name, ...rest } = node as Record<string, unknown>;
  const inner = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, hoist(value, schemas)]));
  if (typeof name !== 'string') return inner;
  const existing = schemas[name];
  if (existing) {
    const { example: _a, ...before } = existing;
    const { example: _b, ...after } = inner;
    if (JSON.stringify(before) !== JSON.stringify(after))
      throw new Error(`Two different schemas are named ${name} in the route docs`);
    if (existing.example !== undefined) return { $ref: `#/components/schemas/${name}` };
  }
  schemas[name] = inner;
  return { $ref: `#/components/schemas/${name}` };
}

/** The component schemas that are request bodies. */
function requestSchemas(doc: OpenAPIObject): Set<string> {
  const names = new Set<string>();
  for (const item of Object.values(doc.paths)) {
    for (const operation of Object.values(item) as Operation[]) {
      for (const media of Object.values(operation.requestBody?.content ?? {})) {
        const ref = media.schema?.$ref;
        if (typeof ref === 'string') names.add(ref.split('/').pop()!);
      }
    }
  }
  return names;
}

/**
 * A request field's default goes into its description: code generators (openapi-typescript among them) make a
 * named schema's field with a `default` required, so a request that leaves it out would not compile.
 */
function defaultsInDescriptions(schema: Schema): Schema {
  const properties = schema.properties as Record<string, Schema> | undefined;
  if (!properties) return schema;
  return {
    ...schema,
    properties: Object.fromEntries(
      Object.entries(properties).map(([name, property]) => {
        if (property.default === undefined) return [name, property];
        const { default: value, ...rest } = property;
        const said = `Default: \`${JSON.stringify(value)}\`.`;
        return [
          name,
          {
            ...rest,
            description: rest.description ? `${String(rest.description).replace(/\.$/, '')}. ${said}` : said,
          },
        ];
      }),
    ),
  };
}

/** Serves `/openapi.json`, `/openapi-legacy.json` and the interactive page at `/docs`, which shows either. */
export function mountOpenApi(app: INestApplication, documents: OpenApiDocuments): void {
  SwaggerModule.setup('docs', app, documents.current, {
    jsonDocumentUrl: DOCUMENTS.current.url.slice(1),
    raw: ['json'],
    customSiteTitle: 'E-mail verification API',
    explorer: true,
    swaggerOptions: {
      urls: [
        { url: DOCUMENTS.current.url, name: 'Current style (the envelope)' },
        { url: DOCUMENTS.legacy.url, name: 'Legacy style' },
      ],
    },
  });
  SwaggerModule.setup('docs-legacy', app, documents.legacy, {
    ui: false,
    jsonDocumentUrl: DOCUMENTS.legacy.url.slice(1),
    raw: ['json'],
  });
}
