/** Unit tests of the route table. */
import { describe, expect, it } from "vitest";
import { ApiError } from "./errors.ts";
import { parseRoute, type Route } from "./route.ts";

function route(method: string, path: string): Route {
  return parseRoute(method, new URL(`http://h${path}`));
}

function failure(method: string, path: string): { code: string; headers: Record<string, string> } {
  try {
    route(method, path);
  } catch (err) {
    if (err instanceof ApiError) return { code: err.code, headers: err.headers };
    throw err;
  }
  throw new Error("expected a failure");
}

describe("parseRoute", () => {
  it("maps every route", () => {
    expect(route("GET", "/healthz")).toEqual({ kind: "health" });
    expect(route("GET", "/v1/openapi.json")).toEqual({ kind: "openapi" });
    expect(route("GET", "/v1/computers?limit=5&after=b")).toEqual({
      kind: "computers.list",
      after: "b",
      limit: 5,
    });
    expect(route("GET", "/v1/computers")).toEqual({ kind: "computers.list", after: undefined, limit: 50 });
    const computer = (r: unknown) => ({ kind: "computer", id: "c-1", route: r });
    expect(route("PUT", "/v1/computers/c-1")).toEqual(computer({ kind: "computer.put" }));
    expect(route("DELETE", "/v1/computers/c-1/tokens")).toEqual(computer({ kind: "tokens.revoke" }));
    expect(route("PUT", "/v1/computers/c-1/files/a/b?mode=0600")).toEqual(
      computer({ kind: "files.put", path: "/a/b", mode: 0o600 }),
    );
    expect(route("GET", "/v1/computers/c-1/files")).toEqual(
      computer({ kind: "files.get", path: "/", after: undefined, limit: undefined }),
    );
    expect(route("DELETE", "/v1/computers/c-1/files/x?recursive=1")).toEqual(
      computer({ kind: "files.delete", path: "/x", recursive: true }),
    );
    expect(route("HEAD", "/v1/computers/c-1/files/x")).toEqual(computer({ kind: "files.head", path: "/x" }));
    expect(route("POST", "/v1/computers/c-1/fs")).toEqual(computer({ kind: "fs" }));
    expect(route("POST", "/v1/computers/c-1/checkpoints/v1.0/restore")).toEqual(
      computer({ kind: "checkpoints.restore", name: "v1.0" }),
    );
    expect(route("POST", "/v1/computers/c-1/fork")).toEqual(computer({ kind: "fork" }));
    expect(route("GET", "/v1/computers/c-1/exec/ex_1")).toEqual(
      computer({ kind: "exec.get", execId: "ex_1", follow: false, after: undefined }),
    );
    expect(route("GET", "/v1/computers/c-1/exec/ex_1?follow=1&after=7")).toEqual(
      computer({ kind: "exec.get", execId: "ex_1", follow: true, after: 7 }),
    );
    expect(route("GET", "/v1/computers/c-1/exec?limit=5")).toEqual(computer({ kind: "exec.list", limit: 5 }));
    expect(route("POST", "/v1/computers/c-1/artifacts")).toEqual(computer({ kind: "artifacts.publish" }));
    expect(route("GET", "/v1/artifacts/site")).toEqual({ kind: "artifacts.get", name: "site" });
  });

  it("404s unknown paths, 405s unknown methods with Allow", () => {
    expect(failure("GET", "/").code).toBe("ENOENT");
    expect(failure("GET", "/v1/computers/c-1/what").code).toBe("ENOENT");
    expect(failure("GET", "/v1/computers/c-1/checkpoints/x/undo").code).toBe("ENOENT");
    const wrong = failure("PATCH", "/v1/computers/c-1/files/a");
    expect(wrong).toEqual({ code: "ENOTSUP", headers: { Allow: "GET, HEAD, PUT, DELETE" } });
  });

  it("400s bad ids, names and query values", () => {
    expect(failure("GET", "/v1/computers/Nope").code).toBe("EINVAL");
    expect(failure("GET", "/v1/computers?limit=0").code).toBe("EINVAL");
    expect(failure("GET", "/v1/computers/c-1/files/x?limit=abc").code).toBe("EINVAL");
    expect(failure("POST", "/v1/computers/c-1/checkpoints/a%2Fb/restore").code).toBe("EINVAL");
    expect(failure("GET", "/v1/computers/c-1/exec/a%20b").code).toBe("EINVAL");
  });
});
