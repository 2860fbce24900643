/**
 * The text-to-image step of the ai-image Worker: which model it asks, with what, and the image
 * bytes it gets back, whatever shape the model answers in.
 */

/** The Workers AI model the Worker runs: SDXL-Lightning, 1024 px in a few steps, width and height settable. */
export const MODEL = "@cf/bytedance/stable-diffusion-xl-lightning";

/** What the Worker asks the model for. */
export interface ImageInputs {
  prompt: string;
  width: number;
  height: number;
}

/**
 * The one method of the Workers AI binding (`env.AI.run`) that the Worker uses; the local
 * stand-in (stand-in.ts) has the same shape.
 */
export interface ImageModel {
  run(model: string, inputs: ImageInputs): Promise<unknown>;
}

/** The image formats text-to-image models answer in. */
export type ImageType = "image/png" | "image/jpeg";

/**
 * The image bytes of a model's answer. Workers AI's text-to-image models answer in one of two
 * documented shapes: SDXL-style models a `ReadableStream` of PNG bytes, flux `{ image: base64 }`
 * (a JPEG). Anything else is a TypeError naming what came back.
 */
export async function imageBytes(output: unknown): Promise<Uint8Array> {
  if (output instanceof ReadableStream) return new Uint8Array(await new Response(output).arrayBuffer());
  if (output instanceof Uint8Array) return output;
  if (output instanceof ArrayBuffer) return new Uint8Array(output);
  const image =
    typeof output === "object" && output !== null ? (output as { image?: unknown }).image : undefined;
  if (typeof image === "string") return Uint8Array.from(atob(image), (c) => c.charCodeAt(0));
  throw new TypeError(`the model answered neither image bytes nor { image: base64 }: ${describe(output)}`);
}

/** The type of an image by its signature bytes; `undefined` for anything but PNG and JPEG. */
export function imageType(bytes: Uint8Array): ImageType | undefined {
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (png.every((b, i) => bytes[i] === b)) return "image/png";
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  return undefined;
}

function describe(value: unknown): string {
  if (typeof value !== "object" || value === null) return typeof value;
  return `an object with keys [${Object.keys(value).join(", ")}]`;
}
