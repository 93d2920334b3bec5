import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ERROR_CATALOGUE, type ErrorCode } from '@emailverify/contracts';

type Schema = Record<string, unknown>;

/** The current-style envelope around a `data` schema. */
export function envelopeSchema(data: Schema): Schema {
  return {
    type: 'object',
    required: ['success', 'code', 'message', 'data'],
    properties: {
      success: { type: 'boolean', example: true },
      code: { type: 'string', example: '0' },
      message: { type: 'string', example: 'Success' },
      data,
    },
  };
}

/**
 * A 200 reply documented in both response styles: the envelope (current, the default) and the older
 * unwrapped variant (`SVC-Response-Style: legacy` or a legacy key).
 */
export function ApiStyledOk(options: {
  description: string;
  current: Schema;
  legacy: Schema;
  currentExample: unknown;
  legacyExample: unknown;
  status?: number;
}) {
  return ApiResponse({
    status: options.status ?? 200,
    description: `${options.description}. Current style: envelope with \`data\`; legacy style: unwrapped older variant.`,
    content: {
      'application/json': {
        schema: { oneOf: [envelopeSchema(options.current), options.legacy] },
        examples: {
          current: {
            summary: 'current style',
            value: { success: true, code: '0', message: 'Success', data: options.currentExample },
          },
          legacy: { summary: 'legacy style', value: options.legacyExample },
        },
      },
    },
  });
}

const currentError: Schema = {
  type: 'object',
  required: ['success', 'code', 'message', 'error'],
  properties: {
    success: { type: 'boolean', example: false },
    code: { type: 'string', example: '4010' },
    message: { type: 'string' },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' } },
    },
  },
};

const legacyError: Schema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        details: { type: 'object', additionalProperties: true },
        retry_after: { type: 'integer' },
      },
    },
  },
};

/** Error replies in both styles, grouped by HTTP status (legacy statuses may differ, e.g. 403 for credits). */
export function ApiErrors(...codes: ErrorCode[]) {
  const byStatus = new Map<number, string[]>();
  for (const code of codes) {
    const spec = ERROR_CATALOGUE[code];
    for (const [status, note] of [
      [spec.httpStatus, code],
      [spec.legacyHttpStatus, `${code} (legacy style)`],
    ] as const) {
      const list = byStatus.get(status) ?? [];
      if (!list.some((n) => n.startsWith(code))) list.push(note);
      byStatus.set(status, list);
    }
  }
  return applyDecorators(
    ...[...byStatus.entries()].map(([status, names]) =>
      ApiResponse({
        status,
        description: names.join(', '),
        content: { 'application/json': { schema: { oneOf: [currentError, legacyError] } } },
      }),
    ),
  );
}
