/** Building blocks of the reply schemas in the OpenAPI document (OpenAPI 3.0 schema objects). */
export type Schema = Record<string, unknown>;

export const str: Schema = { type: 'string' };
export const int: Schema = { type: 'integer' };
export const bool: Schema = { type: 'boolean' };
export const time: Schema = { type: 'string', format: 'date-time' };

/** The schema, or null. */
export const nullable = (schema: Schema, description?: string): Schema => ({
  ...schema,
  nullable: true,
  ...(schema.enum ? { enum: [...(schema.enum as unknown[]), null] } : {}),
  ...(description ? { description } : {}),
});

/** An object whose properties are all present in every reply, except those named `optional`. */
export function object(properties: Record<string, Schema>, optional: readonly string[] = []): Schema {
  return {
    type: 'object',
    required: Object.keys(properties).filter((name) => !optional.includes(name)),
    properties,
  };
}

/** The same schema under each of the names. */
export const each = (names: readonly string[], schema: Schema): Record<string, Schema> =>
  Object.fromEntries(names.map((name) => [name, schema]));

/**
 * Where a schema carries its component name until the document builder moves it under components.schemas and
 * leaves a $ref in its place (generated clients get a named type for it).
 */
export const SCHEMA_NAME = 'x-schema-name';

/** The schema as the named component `name`, with a description (and an example, for a reply payload). */
export const named = (name: string, schema: Schema, description?: string, example?: unknown): Schema => ({
  ...schema,
  ...(description ? { description } : {}),
  ...(example !== undefined ? { example } : {}),
  [SCHEMA_NAME]: name,
});
