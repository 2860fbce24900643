/**
 * The building blocks of the hand-written OpenAPI document (openapi.ts and the parts it
 * merges): JSON Schema shorthands, JSON responses, the Error reference and the computer id.
 */
import { COMPUTER_ID } from "@computer/sdk/computer-id";

/** A JSON value. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
/** A JSON Schema or OpenAPI object. */
export type Schema = { [key: string]: Json };

/** A reference to a schema of `components.schemas`. */
export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
/** A JSON response with `schema`. */
export const json = (schema: Schema, description: string): Schema => ({
  description,
  content: { "application/json": { schema } },
});
/** An error response (the API's one error shape). */
export const error = (description: string): Schema => json(ref("Error"), description);
/** An object schema. */
export const object = (properties: Schema, required: string[] = []): Schema => ({
  type: "object",
  properties,
  required,
});
export const str: Schema = { type: "string" };
export const int: Schema = { type: "integer" };
export const bool: Schema = { type: "boolean" };
/** The `{id}` path parameter: a computer id. */
export const idParam: Schema = {
  name: "id",
  in: "path",
  required: true,
  schema: { type: "string", pattern: COMPUTER_ID.source },
};
