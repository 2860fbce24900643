/**
 * GET /v1/openapi.json describes every route of the contract's table (@computer/sdk/contract),
 * and the Worker's parser answers each of the table's routes with that route's name: the SDK,
 * the routes and the document cannot disagree.
 */
import { ROUTE_NAMES, ROUTES, type RouteName, routePath } from "@computer/sdk/contract";
import { describe, expect, it } from "vitest";
import { parseSignedUrl } from "../src/artifacts/signed-url.ts";
import { FS_OPS } from "../src/computer/fs-ops.ts";
import { type ComputerRoute, parseRoute, type Route } from "../src/http/route.ts";
import { parsePreviewLink } from "../src/previews/preview-link.ts";
import { api, createComputer, fsOp } from "./helpers.ts";

describe("openapi", () => {
  it("is an OpenAPI 3.1 document covering every route and method", async () => {
    const res = await api("/v1/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toMatch(/^3\.1\./);
    const described = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const table = ROUTE_NAMES.map((name) => `${ROUTES[name].method} ${ROUTES[name].path}`);
    expect(described.sort()).toEqual(table.sort());
    for (const name of ROUTE_NAMES) {
      const { method, path } = ROUTES[name];
      const op = doc.paths[path]?.[method.toLowerCase()] as { operationId?: string; responses?: object };
      expect(op, name).toMatchObject({ operationId: name, responses: expect.any(Object) });
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

// Every route kind the parser can answer is a name of the contract's table (a compile error otherwise).
type ParsedKind = Exclude<Route["kind"], "computer"> | ComputerRoute["kind"];
const parsedKindsAreRouteNames: ParsedKind extends RouteName ? true : false = true;

/** Sample values for every path parameter of the table. */
const SAMPLE = {
  id: "c-1",
  path: "a/b.txt",
  name: "site",
  execId: "ex_0123",
  tid: `tm_${"0".repeat(24)}`,
  version: "1",
  token: "9.sig",
  port: "3000",
};

describe("the route table", () => {
  it("is what the Worker parses: every route answers its own name", () => {
    expect(parsedKindsAreRouteNames).toBe(true);
    for (const name of ROUTE_NAMES) {
      const { method } = ROUTES[name];
      const url = new URL(`http://h${routePath(name, SAMPLE)}`);
      if (name === "preview.get") {
        expect(parsePreviewLink(url), name).toMatchObject({ computer: "c-1", port: 3000, path: "/a/b.txt" });
        continue;
      }
      if (name === "link.get" || name === "link.head") {
        expect(parseSignedUrl(url.pathname), name).toMatchObject({ name: "site", version: "1" });
        continue;
      }
      const parsed = parseRoute(method, url);
      const kind = parsed.kind === "computer" ? parsed.route.kind : parsed.kind;
      expect(kind, `${method} ${url.pathname}`).toBe(name);
    }
  });
});
