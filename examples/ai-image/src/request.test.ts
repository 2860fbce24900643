/** What the ai-image Worker accepts, and the names it gives images in the computer. */
import { describe, expect, it } from "vitest";
import { imagePath, parseImageRequest } from "./request.ts";

describe("parseImageRequest", () => {
  it("takes a prompt and a size, 1024 × 1024 by default", () => {
    expect(parseImageRequest({ prompt: "  a cat  " })).toEqual({
      prompt: "a cat",
      width: 1024,
      height: 1024,
    });
    expect(parseImageRequest({ prompt: "a cat", width: 256, height: 2048 })).toEqual({
      prompt: "a cat",
      width: 256,
      height: 2048,
    });
  });

  it.each([
    [null, "the body must be a JSON object"],
    [{}, "'prompt' must be a non-empty string"],
    [{ prompt: " " }, "'prompt' must be a non-empty string"],
    [{ prompt: "x".repeat(2001) }, "'prompt' must be a non-empty string"],
    [{ prompt: "a", width: 255 }, "'width' must be an integer from 256 to 2048"],
    [{ prompt: "a", height: 512.5 }, "'height' must be an integer from 256 to 2048"],
    [{ prompt: "a", width: "512" }, "'width' must be an integer"],
  ])("refuses %j with EINVAL", (body, message) => {
    expect(() => parseImageRequest(body)).toThrow(message);
    try {
      parseImageRequest(body);
    } catch (err) {
      expect((err as { code?: string }).code).toBe("EINVAL");
    }
  });
});

describe("imagePath", () => {
  it("names the image after the prompt's words and the time, with the type's extension", () => {
    expect(imagePath("A Lighthouse, at dusk!", "image/png", 1_700_000_000_000)).toBe(
      "images/a-lighthouse-at-dusk-loyw3v28.png",
    );
    expect(imagePath("日本", "image/jpeg", 0)).toBe("images/image-0.jpg");
    expect(imagePath("word ".repeat(20), "image/png", 0)).toBe(`images/${"word-".repeat(9)}wor-0.png`);
  });
});
