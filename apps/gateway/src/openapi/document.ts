import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, type ResponseObject, SwaggerModule } from '@nestjs/swagger';
import { RESPONSE_HEADERS, SHARED_SCHEMAS } from './api-route';

/**
 * The committed OpenAPI document's server URL: relative, so it names whichever installation serves the document
 * (a gateway serves its own with PUBLIC_BASE_URL).
 */
export const DOCUMENT_SERVER = '/';

/** The OpenAPI 3.0 description, generated from the controllers and their decorators. */
export function buildOpenApiDocument(app: INestApplication, publicBaseUrl: string): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.0.3')
    .setTitle('E-mail verification API')
    .setDescription(
      [
        'Verify whether e-mail addresses can receive mail: one address, a batch, or a whole file.',
        '',
        'Authenticate with an API key in one of three headers, in priority order: `SVC-API-KEY` (recommended),',
        '`SERVICE-API-KEY`, or `Authorization: Bearer <key>`. The first header present decides.',
        '',
        'Replies come in the current style (an envelope `{success, code, message, data}`) or the legacy style',
        '(older unwrapped variants). Choose per request with `SVC-Response-Style: current|legacy`; otherwise the',
        "key's default applies. Every authenticated reply carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and",
        '`X-RateLimit-Reset`; a 429 adds `Retry-After`.',
        '',
        "The manual, with a `curl` example for every endpoint, is `docs/api.md` in the service's repository.",
      ].join('\n'),
    )
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
    })
    .build();
  const document = SwaggerModule.createDocument(app, config);
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ...SHARED_SCHEMAS },
    headers: RESPONSE_HEADERS,
  };
  // Every reply carries X-Request-Id (the first middleware sets it), documented or not by its route.
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item) as Array<{ responses?: Record<string, ResponseObject> }>) {
      for (const response of Object.values(operation.responses ?? {})) {
        response.headers = {
          'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
          ...response.headers,
        };
      }
    }
  }
  return document;
}

/** Serves `/openapi.json` and the interactive page at `/docs`. */
export function mountOpenApi(app: INestApplication, document: OpenAPIObject): void {
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'openapi.json',
    raw: ['json'],
    customSiteTitle: 'E-mail verification API',
  });
}
