/**
 * One image from a prompt: Workers AI when the Worker has its AI binding, the local stand-in
 * otherwise (said in the log and in what it returns), then the image bytes and their type.
 */
import {
  type ImageInputs,
  type ImageModel,
  type ImageType,
  imageBytes,
  imageType,
  MODEL,
} from "./image-model.ts";
import { STAND_IN_NAME, standInModel } from "./stand-in.ts";

/** A generated image and what made it. */
export interface GeneratedImage {
  bytes: Uint8Array;
  type: ImageType;
  /** The model asked (the same name for the stand-in, which imitates it). */
  model: string;
  /** `"workers-ai"`, or the stand-in's name when the binding is absent. */
  generator: string;
}

/**
 * Runs the text-to-image model on `inputs` through `ai` (the Worker's `env.AI`), or through the
 * local stand-in when `ai` is undefined. Throws a TypeError if the answer is not an image.
 */
export async function generateImage(
  ai: ImageModel | undefined,
  inputs: ImageInputs,
): Promise<GeneratedImage> {
  if (ai === undefined) console.warn(`ai-image: no AI binding, using the ${STAND_IN_NAME}`);
  const output = await (ai ?? standInModel).run(MODEL, inputs);
  const bytes = await imageBytes(output);
  const type = imageType(bytes);
  if (type === undefined)
    throw new TypeError(`${MODEL} answered ${bytes.length} bytes that are not an image`);
  return { bytes, type, model: MODEL, generator: ai === undefined ? STAND_IN_NAME : "workers-ai" };
}
