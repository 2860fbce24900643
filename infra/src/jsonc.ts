/**
 * JSONC (JSON with comments and trailing commas), the format of worker/wrangler.jsonc: comments
 * and trailing commas are removed outside strings, then the text is parsed as JSON.
 */

/** Returns `text` with `//` and `/* *\/` comments and trailing commas removed (strings untouched). */
export function stripJsonc(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    const next = text[i + 1];
    if (char === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      out += text.slice(i, end + 1);
      i = end + 1;
    } else if (char === "/" && next === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (char === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2);
      if (end === -1) throw new SyntaxError("unterminated block comment in JSONC");
      i = end + 2;
    } else {
      out += char;
      i++;
    }
  }
  // A comma followed only by whitespace and a closing bracket is a trailing comma. Strings were
  // copied verbatim above, so this must not touch them: match strings first and keep them.
  return out.replace(/"(?:[^"\\]|\\.)*"|,(\s*[}\]])/g, (match, closing: string | undefined) =>
    closing === undefined ? match : closing,
  );
}

/** Parses JSONC text; throws SyntaxError on malformed input. */
export function parseJsonc(text: string): unknown {
  return JSON.parse(stripJsonc(text));
}
