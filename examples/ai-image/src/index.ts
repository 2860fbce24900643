/**
 * The ai-image Worker: `POST /` with `{ "prompt": "...", "width"?, "height"? }` runs a
 * text-to-image model (Workers AI through the AI binding; the local stand-in where there is
 * none), writes the PNG into a computer, publishes it and answers the public link.
 */
import { ComputerClient } from "@computer/sdk";
import { generateImage } from "./generate.ts";
import type { ImageInputs, ImageModel } from "./image-model.ts";
import { imagePath, parseImageRequest } from "./request.ts";

/** The Worker's bindings (wrangler.jsonc). */
export interface Env {
  /** Workers AI. Absent under local wrangler dev, where the stand-in draws the image. */
  AI?: ImageModel;
  /** The Computer API, e.g. `https://computer.example.com`. */
  COMPUTER_URL: string;
  /** A `rw` token of computer COMPUTER_ID (a secret). */
  COMPUTER_TOKEN: string;
  /** The computer the images are written to and published from. */
  COMPUTER_ID: string;
}

/** What the Worker answers. */
export interface ImageAnswer {
  /** The public link of the PNG (no token needed until it expires). */
  link: string;
  expiresAt: string;
  /** Where the image is in the computer. */
  path: string;
  model: string;
  /** `"workers-ai"`, or the name of the local stand-in that drew the image instead. */
  generator: string;
  bytes: number;
}

async function handle(request: Request, env: Env): Promise<Response> {
  const inputs: ImageInputs = parseImageRequest(await request.json());
  const image = await generateImage(env.AI, inputs);
  const computer = new ComputerClient({ url: env.COMPUTER_URL, token: env.COMPUTER_TOKEN }).computer(
    env.COMPUTER_ID,
  );
  const path = imagePath(inputs.prompt, image.type);
  await computer.files.write(path, image.bytes);
  const published = await computer.publish({ path, name: "ai-image" });
  const answer: ImageAnswer = {
    link: published.url,
    expiresAt: published.expiresAt,
    path,
    model: image.model,
    generator: image.generator,
    bytes: image.bytes.length,
  };
  return Response.json(answer, { status: 201 });
}

export default {
  async fetch(request, env): Promise<Response> {
    if (request.method !== "POST") {
      return Response.json({ error: { code: "ENOTSUP", message: "POST a JSON prompt" } }, { status: 405 });
    }
    try {
      return await handle(request, env);
    } catch (err) {
      // A refused or malformed request is the caller's (400 EINVAL); anything else failed on the way (502).
      const own = (err as { code?: unknown }).code;
      const invalid = own === "EINVAL" || err instanceof SyntaxError;
      const code = invalid ? "EINVAL" : typeof own === "string" ? own : "EIO";
      const message = err instanceof Error ? err.message : String(err);
      return Response.json({ error: { code, message } }, { status: invalid ? 400 : 502 });
    }
  },
} satisfies ExportedHandler<Env>;
