import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

/** The committed OpenAPI document's server URL: a placeholder, since every installation has its own. */
export const DOCUMENT_SERVER = 'https://api.example.com';

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
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' },
      'BearerApiKey',
    )
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
  return SwaggerModule.createDocument(app, config);
}

/** Serves `/openapi.json` and the interactive page at `/docs`. */
export function mountOpenApi(app: INestApplication, document: OpenAPIObject): void {
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'openapi.json',
    raw: ['json'],
    customSiteTitle: 'E-mail verification API',
  });
}
