import { describe, expect, it } from "vitest";
import { binaryKind } from "./file-kind.ts";

describe("binaryKind", () => {
  it("names the common formats by their leading bytes", () => {
    const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13];
    expect(binaryKind(new Uint8Array(png))).toBe("image/png");
    expect(binaryKind(new TextEncoder().encode("%PDF-1.7\n\0"))).toBe("application/pdf");
    const webp = new TextEncoder().encode("RIFF\x10\x00\x00\x00WEBPVP8 ");
    expect(binaryKind(webp)).toBe("image/webp");
    expect(binaryKind(new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]))).toBe("application/x-executable");
  });

  it("is octet-stream for unknown or too short content", () => {
    expect(binaryKind(new Uint8Array([1, 0, 2, 3]))).toBe("application/octet-stream");
    expect(binaryKind(new Uint8Array([0x89, 0x50]))).toBe("application/octet-stream");
    expect(binaryKind(new Uint8Array(0))).toBe("application/octet-stream");
  });
});
