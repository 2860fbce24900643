/** GET /v1/openapi.json describes every route of docs/API.md. */
import { describe, expect, it } from "vitest";
import { FS_OPS } from "../src/computer/fs-ops.ts";
import { api, createComputer, fsOp } from "./helpers.ts";

/** Every route of docs/API.md, as OpenAPI path templates with their methods. */
const ROUTES: Record<string, string[]> = {
  "/healthz": ["get"],
  "/v1/openapi.json": ["get"],
  "/v1/computers": ["get"],
  "/v1/computers/{id}": ["put", "get", "delete"],
  "/v1/computers/{id}/tokens": ["post", "delete"],
  "/v1/computers/{id}/files/{path}": ["put", "get", "head", "delete"],
  "/v1/computers/{id}/fs": ["post"],
  "/v1/computers/{id}/exec": ["post", "get"],
  "/v1/computers/{id}/exec/{execId}": ["get", "delete"],
  "/v1/computers/{id}/checkpoints": ["post", "get"],
  "/v1/computers/{id}/checkpoints/{name}/restore": ["post"],
  "/v1/computers/{id}/fork": ["post"],
  "/v1/computers/{id}/artifacts": ["post"],
  "/v1/computers/{id}/changes": ["get"],
  "/v1/computers/{id}/terminals": ["post", "get"],
  "/v1/computers/{id}/terminals/{tid}": ["get", "delete"],
  "/v1/artifacts": ["get"],
  "/v1/artifacts/{name}": ["get"],
  "/a/{name}/{version}/{token}/{path}": ["get", "head"],
};

describe("openapi", () => {
  it("is an OpenAPI 3.1 document covering every route and method", async () => {
    const res = await api("/v1/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(doc.paths).sort()).toEqual(Object.keys(ROUTES).sort());
    for (const [path, methods] of Object.entries(ROUTES)) {
      for (const method of methods) {
        const op = doc.paths[path]?.[method] as { responses?: Record<string, unknown> } | undefined;
        expect(op?.responses, `${method.toUpperCase()} ${path}`).toBeDefined();
      }
    }
  });

  it("resolves every $ref", async () => {
    const doc = (await api("/v1/openapi.json").then((r) => r.json())) as {
      components: { schemas: Record<string, unknown> };
    };
    const refs = JSON.stringify(doc).match(/#\/components\/schemas\/\w+/g) ?? [];
    for (const ref of new Set(refs))
      expect(doc.components.schemas).toHaveProperty(ref.split("/").at(-1) ?? "");
  });

  it("lists every op of POST /fs and every field of the stat op's answer", async () => {
    const doc = (await api("/v1/openapi.json").then((r) => r.json())) as {
      components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> };
    };
    const { FsOp, Stat } = doc.components.schemas;
    expect([...(FsOp?.properties.op?.enum ?? [])].sort()).toEqual(Object.keys(FS_OPS).sort());
    expect(FsOp?.properties.exchange, "rename's exchange flag").toMatchObject({ type: "boolean" });
    const id = await createComputer();
    const stat = (await (await fsOp(id, { op: "stat", path: "/" })).json()) as Record<string, unknown>;
    for (const key of Object.keys(stat)) expect(Stat?.properties, key).toHaveProperty(key);
  });
});
