/**
 * The artifact part of the OpenAPI document (openapi.ts merges it): publishing, the registry
 * listings and the public signed links served without a bearer token.
 */

import type { RouteName } from "@computer/sdk/contract";
import { error, int, json, object, ref, type Schema, str } from "./openapi-schema.ts";

const array = (items: Schema): Schema => ({ type: "array", items });
const param = (name: string, where: "path" | "query", schema: Schema, description = ""): Schema => ({
  name,
  in: where,
  required: where === "path",
  schema,
  ...(description === "" ? {} : { description }),
});

const NAME = "^[a-z0-9][a-z0-9._-]{0,63}$";
const VERSION = "^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$";
const auth = {
  "400": error("Invalid input (EINVAL)"),
  "401": error("Missing, invalid, expired or revoked token (EUNAUTHORIZED)"),
  "403": error("Token for another computer, or a read-only token on publish (EFORBIDDEN)"),
  "404": error("No such computer, path or artifact (ENOENT)"),
};

/** Schemas of the artifact routes. */
export const ARTIFACT_SCHEMAS: Schema = {
  PublishRequest: object(
    {
      path: { type: "string", description: "Workspace file or directory ('dist', '/out/report.pdf')." },
      name: { type: "string", pattern: NAME, description: "Default: the path's last segment, lower-cased." },
      version: {
        type: "string",
        pattern: VERSION,
        description: "Default: the next integer version of the name. Versions are immutable.",
      },
      ttlSeconds: {
        type: "integer",
        minimum: 1,
        maximum: 31536000,
        description: "Link lifetime, default 7 days.",
      },
    },
    ["path"],
  ),
  PublishedArtifact: object(
    {
      name: str,
      version: str,
      type: { enum: ["file", "dir"] },
      url: { type: "string", description: "Signed public link; works without a token until expiresAt." },
      expiresAt: str,
      files: array(object({ path: str, size: int, sha256: str }, ["path", "size", "sha256"])),
      bytes: int,
    },
    ["name", "version", "type", "url", "expiresAt", "files", "bytes"],
  ),
  ArtifactSummary: object({ name: str, computer: str, latest: str, versions: int, updatedAt: str }, [
    "name",
    "computer",
    "latest",
    "versions",
    "updatedAt",
  ]),
  ArtifactVersion: object(
    {
      version: str,
      createdAt: str,
      type: { enum: ["file", "dir"] },
      files: int,
      bytes: int,
      entry: { type: "string", description: "The path the link opens ('' = the directory index)." },
      url: str,
      expiresAt: str,
    },
    ["version", "createdAt", "type", "files", "bytes", "entry", "url", "expiresAt"],
  ),
};

const nameParam = param("name", "path", { type: "string", pattern: NAME });
const linkParams = [
  nameParam,
  param("version", "path", { type: "string", pattern: VERSION }),
  param("token", "path", str, "`<expires>.<signature>` as minted by the API."),
  param("path", "path", str, "File inside the artifact; empty or ending in '/' for a directory."),
];

/** Operations of the artifact routes, by route name. */
export const ARTIFACT_OPERATIONS = {
  "artifacts.publish": {
    description:
      "Publishes a workspace file, or every regular file under a directory (symlinks skipped), as name@version " +
      "into the artifact bucket with a manifest (paths, sizes, sha-256). Needs a rw token or the admin token.",
    requestBody: { required: true, content: { "application/json": { schema: ref("PublishRequest") } } },
    responses: {
      "201": json(ref("PublishedArtifact"), "Published"),
      ...auth,
      "409": error("name@version exists, or the name belongs to another computer (EEXIST)"),
      "413": error("More than 10,000 files or a file over 5 GiB (EFBIG)"),
    },
  },
  "artifacts.list": {
    description: "Published names: all of them for the admin, its own computer's for a computer token.",
    parameters: [
      param("after", "query", str, "Names after this one (from `next`)."),
      param("limit", "query", { type: "integer", minimum: 1, maximum: 1000, default: 100 }),
    ],
    responses: {
      "200": json(
        object({ artifacts: array(ref("ArtifactSummary")), next: str }, ["artifacts"]),
        "Artifacts",
      ),
      ...auth,
    },
  },
  "artifacts.get": {
    description: "The versions of one name, newest first, each with a freshly signed link.",
    parameters: [nameParam, param("ttlSeconds", "query", { type: "integer", minimum: 1, maximum: 31536000 })],
    responses: {
      "200": json(
        object({ name: str, computer: str, versions: array(ref("ArtifactVersion")) }, [
          "name",
          "computer",
          "versions",
        ]),
        "Artifact",
      ),
      ...auth,
    },
  },
  "link.get": {
    description:
      "Public signed link, no bearer token. A directory serves its index.html or a generated index; " +
      "`?manifest` returns the manifest. Files stream with their content type, ETag and Range support.",
    parameters: linkParams,
    responses: {
      "200": { description: "The file, index page or manifest" },
      "206": { description: "A byte range" },
      "301": { description: "To the directory with a trailing slash, or a file artifact's file" },
      "304": { description: "Not modified (If-None-Match)" },
      "403": error("Tampered, malformed or expired link (EFORBIDDEN)"),
      "404": error("No such version or file (ENOENT)"),
      "416": error("Range not satisfiable (ERANGE)"),
    },
  },
  "link.head": { parameters: linkParams, responses: { "200": { description: "Headers of the GET" } } },
} satisfies Partial<Record<RouteName, Schema>>;
