/**
 * A local stand-in for Workers AI, used only where the Worker has no AI binding (wrangler dev
 * without Cloudflare, the tests here). Same `run(model, inputs)` shape and the same answer as
 * the SDXL models: a ReadableStream of PNG bytes, of the width and height asked for. The picture
 * is drawn from the prompt's SHA-256 (two colours, a centre, a ring spacing), so one prompt
 * always gives the same image and different prompts look different. It is not a diffusion model.
 */
import { encode } from "fast-png";
import type { ImageInputs, ImageModel } from "./image-model.ts";

/** How the answer and the log name the stand-in. */
export const STAND_IN_NAME = "local stand-in for Workers AI (no AI binding: a pattern drawn from the prompt)";

/** RGB pixels of the pattern for `seed` (32 bytes). */
function draw(seed: Uint8Array, width: number, height: number): Uint8Array {
  const at = (i: number) => seed[i] ?? 0;
  const from = [at(0), at(1), at(2)];
  const to = [at(3), at(4), at(5)];
  const cx = (at(6) / 255) * width;
  const cy = (at(7) / 255) * height;
  const spacing = 6 + (at(8) % 26);
  const pixels = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const t = (x / width + y / height) / 2;
      const ring = 0.75 + 0.25 * Math.sin(Math.hypot(x - cx, y - cy) / spacing);
      const o = (y * width + x) * 3;
      for (let c = 0; c < 3; c++) {
        const base = (from[c] ?? 0) * (1 - t) + (to[c] ?? 0) * t;
        pixels[o + c] = Math.round(base * ring);
      }
    }
  }
  return pixels;
}

/** The stand-in model: answers every text-to-image `run` with a PNG stream drawn from the prompt. */
export const standInModel: ImageModel = {
  async run(_model: string, inputs: ImageInputs): Promise<ReadableStream<Uint8Array>> {
    const seed = new Uint8Array(
      await crypto.subtle.digest("SHA-256", new TextEncoder().encode(inputs.prompt)),
    );
    const png = encode({
      width: inputs.width,
      height: inputs.height,
      data: draw(seed, inputs.width, inputs.height),
      channels: 3,
    });
    return new ReadableStream({
      start(controller) {
        controller.enqueue(png);
        controller.close();
      },
    });
  },
};
