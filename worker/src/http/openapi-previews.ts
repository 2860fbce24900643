/**
 * The previews part of the OpenAPI document (openapi.ts merges it): opening, listing and
 * closing previews of a computer's ports, and the preview URLs themselves.
 */
import type { RouteName } from "@computer/sdk/contract";
import { error, int, json, object, ref, type Schema, str } from "./openapi-schema.ts";

const std = {
  "400": error("Invalid port, ttlSeconds or access (EINVAL)"),
  "401": error("Missing, invalid, expired or revoked token (EUNAUTHORIZED)"),
  "403": error("Read-only token, or a token for another computer (EFORBIDDEN)"),
  "404": error("No such computer, or no preview of that port (ENOENT)"),
};
const portParam: Schema = {
  name: "port",
  in: "path",
  required: true,
  schema: { type: "integer", minimum: 1, maximum: 65535 },
};

/** Schemas of the preview routes. */
export const PREVIEW_SCHEMAS: Schema = {
  Preview: object(
    { port: int, url: str, access: { enum: ["public", "token"] }, createdAt: str, expiresAt: str },
    ["port", "url", "access", "createdAt", "expiresAt"],
  ),
};

/** Operations of the preview routes, by route name. */
export const PREVIEW_OPERATIONS = {
  "ports.open": {
    requestBody: {
      required: true,
      content: {
        "application/json": {
          schema: object(
            {
              port: { type: "integer", minimum: 1, maximum: 65535 },
              ttlSeconds: int,
              access: { enum: ["public", "token"] },
            },
            ["port"],
          ),
        },
      },
    },
    responses: {
      "201": json(ref("Preview"), "Opened"),
      "200": json(ref("Preview"), "Already open with that access: the same URL"),
      ...std,
      "409": error("Already open with the other access (EEXIST)"),
    },
  },
  "ports.list": {
    responses: {
      "200": json(object({ previews: { type: "array", items: ref("Preview") } }), "The open previews"),
      ...std,
    },
  },
  "ports.close": {
    parameters: [portParam],
    responses: { "204": { description: "Closed: its URLs answer 404" }, ...std },
  },
  "preview.get": {
    description:
      "A preview URL (any method, and WebSocket upgrades): `path` on the port inside the container. " +
      "Public previews need no bearer token; token previews need one of the computer.",
    parameters: [portParam],
    responses: {
      "200": { description: "The app's answer, whatever it is" },
      "401": error("A token preview without a valid token (EUNAUTHORIZED)"),
      "403": error("Tampered or expired link (EFORBIDDEN)"),
      "404": error("Closed preview or deleted computer (ENOENT)"),
      "502": error("Nothing listens on the port, or no container runs (ECONNREFUSED)"),
    },
  },
} satisfies Partial<Record<RouteName, Schema>>;
