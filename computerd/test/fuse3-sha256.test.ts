/**
 * The addon's sha256 (native/fuse3.c): what the write-back hashes whole pages with, on the
 * thread pool, reading them in place. It must equal node:crypto's digest for any bytes and any
 * view, also many at once, and the mount must use it (WebCrypto copies each page first).
 */

import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canRun, missingFuse } from "@computer/fleet/capabilities";
import { CHUNK_SIZE } from "@computer/vfs";
import { describe, expect, it } from "vitest";
import { openMirror } from "../src/mirror/open-mirror.ts";
import { openMount } from "../src/mount/backend.ts";
import { loadFuse3 } from "../src/mount/fuse3-native.ts";
import { fuse3Mountable } from "./mounted-mirror.ts";

const hex = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

describe.skipIf(!canRun("the fuse3 addon's sha256", missingFuse()) || !fuse3Mountable)(
  "the fuse3 addon's sha256",
  () => {
    it("equals node:crypto for empty, small and whole-page bytes and for views at any offset", async () => {
      const sha256 = loadFuse3()?.sha256;
      if (!sha256)
        throw new Error("this Node binary exports no SHA256: the write-back falls back to WebCrypto");
      const page = randomBytes(CHUNK_SIZE);
      const inputs = [
        new Uint8Array(0),
        new Uint8Array([1]),
        new Uint8Array(page.buffer, page.byteOffset, CHUNK_SIZE),
        new Uint8Array(page.buffer, page.byteOffset + 7, 100_001),
        ...Array.from(
          { length: 32 },
          (_, i) => new Uint8Array(page.buffer, page.byteOffset + i * 1000, 4096 + i),
        ),
      ];
      expect(await Promise.all(inputs.map((bytes) => sha256(bytes)))).toEqual(inputs.map(hex));
      expect(() => sha256("text" as never)).toThrow(TypeError);
    });

    it("is what a fuse3 mount's write-back hashes with", async () => {
      const root = mkdtempSync(join(tmpdir(), "computerd-sha256-"));
      const mirror = openMirror(join(root, "state"));
      try {
        const mount = await openMount({
          backend: "fuse3",
          mirror,
          mountPoint: join(root, "mnt"),
          log: () => {},
        });
        try {
          const digest = (mount.fs.files as unknown as { digest: unknown }).digest;
          expect(digest).toBe(loadFuse3()?.sha256);
        } finally {
          await mount.unmount();
        }
      } finally {
        mirror.close();
        rmSync(root, { recursive: true, force: true });
      }
    });
  },
);
