/**
 * A file's upload and download reach the Computer DO as its own `fetch` (computer/by-fetch.ts),
 * not as a Workers RPC call: the DO's fetch serves them, authenticating and authorizing again.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ADMIN, createComputer, expectError, mintToken, readText, writeFile } from "./helpers.ts";

/** A request straight to the DO's fetch, as the router forwards it. */
function toDo(id: string, path: string, init: RequestInit & { token?: string }): Promise<Response> {
  const { token = ADMIN, ...rest } = init;
  const headers = new Headers(rest.headers);
  headers.set("Authorization", `Bearer ${token}`);
  const request = new Request(`http://computer.test/v1/computers/${id}${path}`, { ...rest, headers });
  return env.COMPUTER.getByName(id).fetch(request);
}

describe("the DO's fetch takes a file upload", () => {
  it("writes the streamed body and answers 201 as the API does", async () => {
    const id = await createComputer();
    const body = new Blob(["x".repeat(3 * 1024 * 1024 + 5)]).stream();
    const res = await toDo(id, "/files/up/big.txt?mode=0600", { method: "PUT", body });
    expect(res.status, await res.clone().text()).toBe(201);
    expect(await res.json()).toMatchObject({ path: "/up/big.txt", size: 3 * 1024 * 1024 + 5, mode: "0600" });
    expect((await readText(id, "up/big.txt")).length).toBe(3 * 1024 * 1024 + 5);
  });

  it("authorizes again: a read-only token or another computer's token is refused", async () => {
    const id = await createComputer();
    const other = await createComputer();
    const readOnly = await mintToken(id, "ro");
    await expectError(
      await toDo(id, "/files/a.txt", { method: "PUT", body: "x", token: readOnly }),
      403,
      "EFORBIDDEN",
    );
    const foreign = await mintToken(other, "rw");
    await expectError(
      await toDo(id, "/files/a.txt", { method: "PUT", body: "x", token: foreign }),
      403,
      "EFORBIDDEN",
    );
    await expectError(
      await toDo(id, "/files/a.txt", { method: "PUT", body: "x", token: "nope" }),
      401,
      "EUNAUTHORIZED",
    );
  });
});

describe("the DO's fetch serves a file download", () => {
  it("answers the file, a Range of it, and refuses another computer's token", async () => {
    const id = await createComputer();
    await writeFile(id, "a.txt", "0123456789");
    const whole = await toDo(id, "/files/a.txt", { method: "GET" });
    expect(whole.status).toBe(200);
    expect(await whole.text()).toBe("0123456789");
    const part = await toDo(id, "/files/a.txt", { method: "GET", headers: { Range: "bytes=2-4" } });
    expect(part.status).toBe(206);
    expect(await part.text()).toBe("234");
    const foreign = await mintToken(await createComputer(), "ro");
    await expectError(await toDo(id, "/files/a.txt", { method: "GET", token: foreign }), 403, "EFORBIDDEN");
  });
});
