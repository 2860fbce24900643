/**
 * The Workers AI path with the binding's documented answers (a ReadableStream of PNG bytes for
 * the SDXL models, `{ image: base64 }` for flux), and the stand-in used when the binding is absent.
 */
import { decode, encode } from "fast-png";
import { describe, expect, it, vi } from "vitest";
import { generateImage } from "./generate.ts";
import { type ImageInputs, imageBytes, MODEL } from "./image-model.ts";
import { STAND_IN_NAME } from "./stand-in.ts";

const inputs: ImageInputs = { prompt: "a lighthouse at dusk, woodcut", width: 320, height: 256 };
const png = encode({ width: 2, height: 1, data: new Uint8Array([255, 0, 0, 0, 0, 255]), channels: 3 });
const jpegStart = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46]);

/** A stream that hands `bytes` out in pieces, as a binding's response body does. */
function chunked(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

describe("the Workers AI path", () => {
  it("asks the binding for the model with the prompt and size, and keeps the PNG stream it answers", async () => {
    const run = vi.fn(async () => chunked(png, 7));
    const image = await generateImage({ run }, inputs);
    expect(run).toHaveBeenCalledWith(MODEL, inputs);
    expect(image).toMatchObject({ type: "image/png", model: MODEL, generator: "workers-ai" });
    expect(image.bytes).toEqual(png);
  });

  it("takes flux's { image: base64 } answer", async () => {
    const image = await generateImage(
      { run: async () => ({ image: btoa(String.fromCharCode(...jpegStart)) }) },
      inputs,
    );
    expect(image.type).toBe("image/jpeg");
    expect(image.bytes).toEqual(jpegStart);
  });

  it("refuses an answer that is not an image", async () => {
    await expect(generateImage({ run: async () => ({ response: "text" }) }, inputs)).rejects.toThrow(
      "neither image bytes nor { image: base64 }: an object with keys [response]",
    );
    await expect(generateImage({ run: async () => new Uint8Array([1, 2, 3]) }, inputs)).rejects.toThrow(
      "not an image",
    );
  });

  it("reads raw bytes as they are", async () => {
    expect(await imageBytes(png.slice().buffer)).toEqual(png);
  });
});

describe("without the binding", () => {
  it("draws a real PNG of the asked size from the prompt, names the stand-in and says so in the log", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const image = await generateImage(undefined, inputs);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining(STAND_IN_NAME));
    warn.mockRestore();
    expect(image).toMatchObject({ type: "image/png", model: MODEL, generator: STAND_IN_NAME });
    const decoded = decode(image.bytes);
    expect({ width: decoded.width, height: decoded.height, channels: decoded.channels }).toEqual({
      width: 320,
      height: 256,
      channels: 3,
    });
    expect(new Set(decoded.data).size).toBeGreaterThan(16);
  });

  it("gives one prompt one picture and another prompt another", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const a = await generateImage(undefined, inputs);
    const again = await generateImage(undefined, inputs);
    const b = await generateImage(undefined, { ...inputs, prompt: "a lighthouse at noon" });
    expect(again.bytes).toEqual(a.bytes);
    expect(b.bytes).not.toEqual(a.bytes);
  });
});
