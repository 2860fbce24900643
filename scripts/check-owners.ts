/**
 * One owner per protocol piece, run by `npm run check`: the pieces several packages must agree
 * on are defined in one file each, and a second definition anywhere else (outside tests) is
 * reported with the owner to import from instead.
 */

/** A piece with one owner: where it lives and what a definition of it looks like. */
export interface OwnedPiece {
  what: string;
  owner: string;
  definition: RegExp;
}

/** The pieces, their owners and what a copy of each looks like. */
export const OWNED_PIECES: readonly OwnedPiece[] = [
  {
    what: "the computer-id pattern",
    owner: "sdk/src/contract/computer-id.ts",
    // The pattern however its classes are spelled ([a-z0-9] or [a-z\d], in a literal or a string).
    definition: /\[a-z(?:0-9|\\{1,2}d)\]\[a-z(?:0-9|\\{1,2}d)-\]\{0,62\}/,
  },
  {
    what: "the error → HTTP status table",
    owner: "sdk/src/contract/errors.ts",
    definition: /\bEUNAUTHORIZED["']?\s*:\s*401\b/,
  },
  {
    what: "the filesystem's name and path limits",
    owner: "vfs/src/limits.ts",
    // A constant of that name, or a length held against 255 or 4096 itself.
    definition:
      /\b(?:const|let|var)\s+(?:NAME_MAX|PATH_MAX|XATTR_NAME_MAX|XATTR_SIZE_MAX)\s*=|\b(?:byteLength|length)(?:\([^)]*\))?\s*>=?\s*(?:255|4096)\b/,
  },
  {
    what: "the S_IFMT bits of each file type",
    owner: "vfs/src/mode-bits.ts",
    definition: /\bfile:\s*0o100000\b/,
  },
  {
    what: "cutting text to a UTF-8 byte budget (fitUtf8)",
    owner: "worker/src/exec/output-cap.ts",
    definition: /\bfunction\s+fitUtf8\b|\bconst\s+fitUtf8\s*=/,
  },
];

/** One second definition. */
export interface OwnerOffence {
  path: string;
  line: number;
  problem: string;
}

/** The second definitions in `path` (source `text`); tests may restate what they check. */
export function checkOwners(path: string, text: string, pieces = OWNED_PIECES): OwnerOffence[] {
  if (!/\.(ts|tsx|js|mjs|cjs)$/.test(path) || /\.test\.ts$/.test(path)) return [];
  const offences: OwnerOffence[] = [];
  const lines = text.split("\n");
  for (const piece of pieces) {
    if (path === piece.owner) continue;
    lines.forEach((line, i) => {
      if (piece.definition.test(line)) {
        offences.push({
          path,
          line: i + 1,
          problem: `a second definition of ${piece.what}: import it from ${piece.owner}`,
        });
      }
    });
  }
  return offences;
}
