/** The /files routes: upload, download (Range, ETag), listings, HEAD, delete and the quota. */
import { describe, expect, it } from "vitest";
import { api, apiJson, createComputer, expectError, fsOp, readText, snapshot, writeFile } from "./helpers.ts";

function bytes(n: number, seed = 7): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out[i] = x & 0xff;
  }
  return out;
}

describe("PUT /files", () => {
  it("writes a file, creating parents, and answers 201 { path, size, mtime, mode }", async () => {
    const id = await createComputer();
    const res = await api(`/v1/computers/${id}/files/src/lib/a.txt`, { method: "PUT", body: "hello" });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { path: string; size: number; mtime: string; mode: string };
    expect(body).toEqual({ path: "/src/lib/a.txt", size: 5, mtime: expect.any(String), mode: "0644" });
    expect(Date.parse(body.mtime)).not.toBeNaN();
    expect(await readText(id, "src/lib/a.txt")).toBe("hello");
  });

  it("honours ?mode= for new and existing files", async () => {
    const id = await createComputer();
    const res = await api(`/v1/computers/${id}/files/run.sh?mode=0755`, { method: "PUT", body: "#!/bin/sh" });
    expect(((await res.json()) as { mode: string }).mode).toBe("0755");
    const again = await api(`/v1/computers/${id}/files/run.sh?mode=600`, {
      method: "PUT",
      body: "#!/bin/sh\n",
    });
    expect(((await again.json()) as { mode: string }).mode).toBe("0600");
  });

  it("overwrites, and accepts an empty body", async () => {
    const id = await createComputer();
    await writeFile(id, "a.txt", "first version");
    await writeFile(id, "a.txt", "second");
    expect(await readText(id, "a.txt")).toBe("second");
    const empty = await api(`/v1/computers/${id}/files/empty`, { method: "PUT" });
    expect(((await empty.json()) as { size: number }).size).toBe(0);
    const got = await api(`/v1/computers/${id}/files/empty`);
    expect(got.headers.get("Content-Length")).toBe("0");
    expect(await got.text()).toBe("");
  });

  it("streams a multi-chunk file both ways", async () => {
    const id = await createComputer();
    const data = bytes(2.5 * 1024 * 1024);
    await writeFile(id, "big.bin", data);
    const res = await api(`/v1/computers/${id}/files/big.bin`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Length")).toBe(String(data.byteLength));
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(data);
  });

  it("writing over a directory is 409 EISDIR and changes nothing", async () => {
    const id = await createComputer();
    await writeFile(id, "d/x", "1");
    const before = await snapshot(id);
    await expectError(await api(`/v1/computers/${id}/files/d`, { method: "PUT", body: "x" }), 409, "EISDIR");
    await expectError(
      await api(`/v1/computers/${id}/files/d/x/y`, { method: "PUT", body: "x" }),
      409,
      "ENOTDIR",
    );
    expect(await snapshot(id)).toEqual(before);
  });
});

describe("quota", () => {
  it("refuses a write past the quota with 507 ENOSPC and writes nothing", async () => {
    const id = await createComputer({ quotaBytes: 4096 });
    await writeFile(id, "small.txt", "x".repeat(1000));
    const before = await snapshot(id);
    await expectError(
      await api(`/v1/computers/${id}/files/new/dir/big.bin`, { method: "PUT", body: bytes(8000) }),
      507,
      "ENOSPC",
    );
    await expectError(
      await api(`/v1/computers/${id}/files/small.txt`, { method: "PUT", body: bytes(5000) }),
      507,
      "ENOSPC",
    );
    expect(await snapshot(id)).toEqual(before);
    expect(await readText(id, "small.txt")).toBe("x".repeat(1000));
  });

  it("lets a shrunk quota refuse further growth", async () => {
    const id = await createComputer();
    await writeFile(id, "a", "x".repeat(3000));
    await apiJson("PUT", `/v1/computers/${id}`, { quotaBytes: 3500 });
    await expectError(
      await api(`/v1/computers/${id}/files/b`, { method: "PUT", body: "y".repeat(1000) }),
      507,
      "ENOSPC",
    );
    await writeFile(id, "c", "z".repeat(100));
  });
});

describe("GET /files", () => {
  it("sets Content-Length, ETag, Last-Modified and answers If-None-Match with 304", async () => {
    const id = await createComputer();
    await writeFile(id, "a.txt", "hello world");
    const res = await api(`/v1/computers/${id}/files/a.txt`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Length")).toBe("11");
    expect(res.headers.get("Accept-Ranges")).toBe("bytes");
    const etag = res.headers.get("ETag");
    expect(etag).toMatch(/^".+"$/);
    expect(Date.parse(res.headers.get("Last-Modified") ?? "")).not.toBeNaN();
    expect(await res.text()).toBe("hello world");
    const cached = await api(`/v1/computers/${id}/files/a.txt`, { headers: { "If-None-Match": etag ?? "" } });
    expect(cached.status).toBe(304);
    await writeFile(id, "a.txt", "changed");
    const fresh = await api(`/v1/computers/${id}/files/a.txt`, { headers: { "If-None-Match": etag ?? "" } });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get("ETag")).not.toBe(etag);
    expect(await fresh.text()).toBe("changed");
  });

  it("lists a directory as { entries }", async () => {
    const id = await createComputer();
    await writeFile(id, "d/b.txt", "bb");
    await writeFile(id, "d/a.txt", "a");
    await fsOp(id, { op: "mkdir", path: "d/sub" });
    await fsOp(id, { op: "symlink", target: "a.txt", path: "d/link" });
    const res = await api(`/v1/computers/${id}/files/d`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("application/json");
    const { entries } = (await res.json()) as {
      entries: { name: string; type: string; size: number; mode: string; mtime: string }[];
    };
    expect(entries.map((e) => [e.name, e.type])).toEqual([
      ["a.txt", "file"],
      ["b.txt", "file"],
      ["link", "symlink"],
      ["sub", "dir"],
    ]);
    expect(entries[1]).toEqual({
      name: "b.txt",
      type: "file",
      size: 2,
      mode: "0644",
      mtime: expect.any(String),
    });
  });

  it("lists the root with and without a trailing slash, and pages with ?limit&after", async () => {
    const id = await createComputer();
    for (const name of ["a", "b", "c"]) await writeFile(id, name, name);
    for (const path of [`/v1/computers/${id}/files`, `/v1/computers/${id}/files/`]) {
      const { entries } = (await api(path).then((r) => r.json())) as { entries: { name: string }[] };
      expect(entries.map((e) => e.name)).toEqual(["a", "b", "c"]);
    }
    const page = (await api(`/v1/computers/${id}/files/?limit=2`).then((r) => r.json())) as {
      entries: { name: string }[];
      next?: string;
    };
    expect(page.entries.map((e) => e.name)).toEqual(["a", "b"]);
    expect(page.next).toBe("b");
    const rest = (await api(`/v1/computers/${id}/files/?after=b`).then((r) => r.json())) as {
      entries: { name: string }[];
    };
    expect(rest.entries.map((e) => e.name)).toEqual(["c"]);
  });

  it("follows symlinks and 404s a missing file with its path", async () => {
    const id = await createComputer();
    await writeFile(id, "real.txt", "target");
    await fsOp(id, { op: "symlink", target: "real.txt", path: "alias" });
    expect(await readText(id, "alias")).toBe("target");
    const body = await expectError(await api(`/v1/computers/${id}/files/nope.txt`), 404, "ENOENT");
    expect(body.error.path).toBe("/nope.txt");
  });

  it("decodes percent-encoded names", async () => {
    const id = await createComputer();
    await writeFile(id, "with%20space/caf%C3%A9.txt", "ok");
    const { entries } = (await api(`/v1/computers/${id}/files/with%20space`).then((r) => r.json())) as {
      entries: { name: string }[];
    };
    expect(entries.map((e) => e.name)).toEqual(["café.txt"]);
  });
});

describe("Range", () => {
  const text = "0123456789abcdefghij";
  const cases: [string, number, string, string | null][] = [
    ["bytes=0-4", 206, "01234", "bytes 0-4/20"],
    ["bytes=5-9", 206, "56789", "bytes 5-9/20"],
    ["bytes=15-", 206, "fghij", "bytes 15-19/20"],
    ["bytes=-3", 206, "hij", "bytes 17-19/20"],
    ["bytes=10-999", 206, "abcdefghij", "bytes 10-19/20"],
    ["bytes=-100", 206, text, "bytes 0-19/20"],
    ["bytes=5-2", 200, text, null],
    ["bytes=0-1,4-5", 200, text, null],
    ["items=0-4", 200, text, null],
  ];
  it.each(cases)("%s → %i", async (range, status, body, contentRange) => {
    const id = await createComputer();
    await writeFile(id, "r.txt", text);
    const res = await api(`/v1/computers/${id}/files/r.txt`, { headers: { Range: range } });
    expect(res.status).toBe(status);
    expect(res.headers.get("Content-Range")).toBe(contentRange);
    expect(res.headers.get("Content-Length")).toBe(String(body.length));
    expect(await res.text()).toBe(body);
  });

  it.each(["bytes=20-", "bytes=25-30", "bytes=-0"])("%s → 416 with Content-Range */size", async (range) => {
    const id = await createComputer();
    await writeFile(id, "r.txt", text);
    const res = await api(`/v1/computers/${id}/files/r.txt`, { headers: { Range: range } });
    expect(res.headers.get("Content-Range")).toBe("bytes */20");
    await expectError(res, 416, "ERANGE");
  });

  it("ranges across chunk boundaries", async () => {
    const id = await createComputer();
    const data = bytes(3 * 1024 * 1024 + 100);
    await writeFile(id, "big", data);
    const start = 1024 * 1024 - 10;
    const end = 2 * 1024 * 1024 + 10;
    const res = await api(`/v1/computers/${id}/files/big`, { headers: { Range: `bytes=${start}-${end}` } });
    expect(res.status).toBe(206);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(data.slice(start, end + 1));
  });

  it("ignores Range when If-Range does not match", async () => {
    const id = await createComputer();
    await writeFile(id, "r.txt", text);
    const res = await api(`/v1/computers/${id}/files/r.txt`, {
      headers: { Range: "bytes=0-1", "If-Range": '"stale"' },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(text);
  });
});

describe("HEAD /files", () => {
  it("answers stat as headers", async () => {
    const id = await createComputer();
    await api(`/v1/computers/${id}/files/x.sh?mode=0750`, { method: "PUT", body: "abcdef" });
    const res = await api(`/v1/computers/${id}/files/x.sh`, { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.headers.get("X-File-Type")).toBe("file");
    expect(res.headers.get("Content-Length")).toBe("6");
    expect(res.headers.get("X-File-Mode")).toBe("0750");
    expect(Date.parse(res.headers.get("Last-Modified") ?? "")).not.toBeNaN();
    const dir = await api(`/v1/computers/${id}/files/`, { method: "HEAD" });
    expect(dir.headers.get("X-File-Type")).toBe("dir");
    const missing = await api(`/v1/computers/${id}/files/none`, { method: "HEAD" });
    expect(missing.status).toBe(404);
  });
});

describe("DELETE /files", () => {
  it("removes a file, a symlink and an empty directory", async () => {
    const id = await createComputer();
    await writeFile(id, "a.txt", "a");
    await fsOp(id, { op: "mkdir", path: "empty" });
    await fsOp(id, { op: "symlink", target: "a.txt", path: "ln" });
    for (const p of ["ln", "a.txt", "empty"]) {
      expect((await api(`/v1/computers/${id}/files/${p}`, { method: "DELETE" })).status).toBe(204);
    }
    expect(await snapshot(id)).toEqual({ "#usedBytes": "0" });
  });

  it("refuses a non-empty directory without ?recursive=1, then removes the tree", async () => {
    const id = await createComputer();
    await writeFile(id, "t/a/b.txt", "b");
    await writeFile(id, "keep.txt", "k");
    const before = await snapshot(id);
    await expectError(await api(`/v1/computers/${id}/files/t`, { method: "DELETE" }), 409, "ENOTEMPTY");
    expect(await snapshot(id)).toEqual(before);
    expect((await api(`/v1/computers/${id}/files/t?recursive=1`, { method: "DELETE" })).status).toBe(204);
    const after = await snapshot(id);
    expect(Object.keys(after).sort()).toEqual(["#usedBytes", "keep.txt"]);
  });

  it("404s a missing path and refuses the root", async () => {
    const id = await createComputer();
    await writeFile(id, "a", "a");
    const before = await snapshot(id);
    await expectError(await api(`/v1/computers/${id}/files/nope`, { method: "DELETE" }), 404, "ENOENT");
    await expectError(
      await api(`/v1/computers/${id}/files/?recursive=1`, { method: "DELETE" }),
      400,
      "EINVAL",
    );
    expect(await snapshot(id)).toEqual(before);
  });
});
