/**
 * What the ai-image Worker accepts (a prompt and a size within the model's range) and where in
 * the computer the image goes.
 */
import type { ImageInputs, ImageType } from "./image-model.ts";

/** A refused request: the Worker answers 400 with this code. */
export class RequestError extends Error {
  readonly code = "EINVAL";
}

/** SDXL-Lightning's range for each side, in pixels. */
export const MIN_SIDE = 256;
export const MAX_SIDE = 2048;
const DEFAULT_SIDE = 1024;
const MAX_PROMPT = 2000;

function side(value: unknown, name: string): number {
  if (value === undefined) return DEFAULT_SIDE;
  if (!Number.isInteger(value) || (value as number) < MIN_SIDE || (value as number) > MAX_SIDE) {
    throw new RequestError(`'${name}' must be an integer from ${MIN_SIDE} to ${MAX_SIDE}`);
  }
  return value as number;
}

/** The model inputs of a request body, or a RequestError saying what is wrong with it. */
export function parseImageRequest(body: unknown): ImageInputs {
  if (typeof body !== "object" || body === null) throw new RequestError("the body must be a JSON object");
  const { prompt, width, height } = body as Record<string, unknown>;
  if (typeof prompt !== "string" || prompt.trim() === "" || prompt.length > MAX_PROMPT) {
    throw new RequestError(`'prompt' must be a non-empty string of at most ${MAX_PROMPT} characters`);
  }
  return { prompt: prompt.trim(), width: side(width, "width"), height: side(height, "height") };
}

/** `images/<words of the prompt>-<time>.png`: readable, and a new name for every image. */
export function imagePath(prompt: string, type: ImageType, now = Date.now()): string {
  const words = prompt
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48)
    .replace(/-+$/, "");
  return `images/${words || "image"}-${now.toString(36)}.${type === "image/png" ? "png" : "jpg"}`;
}
