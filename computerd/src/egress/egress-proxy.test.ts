/**
 * The egress proxy against real servers on 127.0.0.1: an allowed host is tunnelled (CONNECT)
 * and forwarded (absolute URI), another is a 403, a request that is neither is a 400.
 */
import { statSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type EgressFixture, startEgressFixture } from "./egress-fixture.ts";

let fixture: EgressFixture;
let socketPath = "";

/** Sends raw bytes to the proxy and reads until it closes or `until` matches. */
function raw(bytes: string, until?: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let text = "";
    socket.on("data", (chunk) => {
      text += chunk.toString();
      if (until?.test(text)) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on("end", () => resolve(text));
    socket.on("error", reject);
    socket.write(bytes);
  });
}

beforeAll(async () => {
  fixture = await startEgressFixture("egress-proxy-");
  socketPath = fixture.socketPath;
});

afterAll(() => fixture.close());

describe("egress proxy", () => {
  test("the socket is the daemon's user's alone (the relay connects as that user)", () => {
    expect(statSync(socketPath).mode & 0o777).toBe(0o600);
  });

  test("CONNECT to an allowed host:port is tunnelled", async () => {
    const port = fixture.allowedPort;
    const answer = await raw(
      `CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\nGET /through HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      /allowed GET \/through/,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n/);
    expect(answer).toContain("allowed GET /through");
  });

  test("an absolute-URI request to an allowed host is forwarded", async () => {
    const body = await new Promise<string>((resolve, reject) => {
      const req = request(
        {
          socketPath,
          path: `http://127.0.0.1:${fixture.allowedPort}/plain?q=1`,
          headers: { Host: "127.0.0.1" },
        },
        (res) => {
          let text = "";
          res.on("data", (chunk) => {
            text += chunk;
          });
          res.on("end", () => resolve(`${res.statusCode} ${text}`));
        },
      );
      req.on("error", reject);
      req.end();
    });
    expect(body).toBe("200 allowed GET /plain?q=1");
  });

  test("another port or host is a 403, tunnelled or forwarded", async () => {
    const port = fixture.otherPort;
    const tunnelled = await raw(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    expect(tunnelled).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
    expect(tunnelled).toContain(`egress to 127.0.0.1:${port} is not allowed`);
    const forwarded = await raw(
      `GET http://localhost:${fixture.allowedPort}/ HTTP/1.1\r\nHost: localhost\r\n\r\n`,
    );
    expect(forwarded).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
  });

  test("a request that is neither CONNECT host:port nor an absolute http URL is a 400", async () => {
    expect(await raw("GET /relative HTTP/1.1\r\nHost: x\r\n\r\n")).toMatch(/^HTTP\/1\.1 400 /);
    expect(await raw("CONNECT nohostport HTTP/1.1\r\nHost: x\r\n\r\n")).toMatch(/^HTTP\/1\.1 400 /);
    expect(await raw("GET https://example.com/ HTTP/1.1\r\nHost: x\r\n\r\n")).toMatch(/^HTTP\/1\.1 400 /);
    expect(await raw("not http at all\r\n\r\n")).toMatch(/^HTTP\/1\.1 400 /);
  });
});
