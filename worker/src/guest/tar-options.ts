/**
 * The command line of the shell's `tar` (tar-command.ts), parsed as GNU tar reads it: one mode
 * (-c, -x, -t), bundled short options (`-czf out.tgz`), the old style without a dash (`tar czf
 * out.tgz dir`), and the long names of the options it has. Pure, so it is tested on its own.
 */

/** What `tar` is asked to do. */
export type TarMode = "create" | "extract" | "list";

/** A parsed command line. */
export interface TarOptions {
  mode: TarMode;
  /** The archive's path, or "-" for stdin (extract, list) and stdout (create). */
  file: string;
  gzip: boolean;
  verbose: boolean;
  /** Where to work (-C): the paths of create and the members of extract are relative to it. */
  directory: string | undefined;
  /** Leading path components dropped from each member on extract. */
  stripComponents: number;
  /** Create: the paths to archive; extract and list: the members wanted (none: all). */
  operands: string[];
}

/** A command line `tar` cannot run: the message GNU tar would print (after "tar: "). */
export type TarParse = { ok: true; options: TarOptions } | { ok: false; error: string } | { ok: "help" };

const MODES: Record<string, TarMode> = { c: "create", x: "extract", t: "list" };
const LONG_MODES: Record<string, TarMode> = {
  "--create": "create",
  "--extract": "extract",
  "--get": "extract",
  "--list": "list",
};
/** Short options that take a value: the rest of the cluster, or the next argument. */
const WITH_VALUE = new Set(["f", "C"]);
/** Long options that take a value (`--file=X` or `--file X`). */
const LONG_WITH_VALUE = new Set(["--file", "--directory", "--strip-components"]);

export const TAR_USAGE = `Usage: tar -c [-zv] [-C DIR] [-f ARCHIVE] FILE...
       tar -x [-zv] [-C DIR] [--strip-components=N] [-f ARCHIVE] [MEMBER...]
       tar -t [-zv] [-f ARCHIVE] [MEMBER...]
  -c, --create      write a new archive of FILEs (directories recursively)
  -x, --extract     extract the archive's members (all, or the MEMBERs named)
  -t, --list        list the archive's members
  -f, --file=ARCHIVE the archive; "-" (the default) is stdin or stdout
  -z, --gzip        gzip the archive (extract and list also detect it)
  -v, --verbose     name each file as it is processed
  -C, --directory=DIR work in DIR
      --strip-components=N  drop N leading path components on extract
`;

/** Parses `args` (without the command name). */
export function parseTarArgs(args: readonly string[]): TarParse {
  let mode: TarMode | undefined;
  let file = "-";
  let gzip = false;
  let verbose = false;
  let directory: string | undefined;
  let stripComponents = 0;
  const operands: string[] = [];

  const setMode = (next: TarMode): string | undefined => {
    if (mode !== undefined && mode !== next) return "You may not specify more than one '-ctx' option";
    mode = next;
    return undefined;
  };
  const setValue = (name: string, value: string): string | undefined => {
    if (name === "f" || name === "--file") file = value;
    else if (name === "C" || name === "--directory") directory = value;
    else {
      if (!/^\d+$/.test(value)) return `${value}: Invalid number of elements`;
      stripComponents = Number(value);
    }
    return undefined;
  };
  /** One cluster of short options; `next` hands over the following argument for a value. */
  const cluster = (letters: string, next: () => string | undefined): string | undefined => {
    for (let i = 0; i < letters.length; i++) {
      const letter = letters[i] as string;
      const m = MODES[letter];
      if (m !== undefined) {
        const err = setMode(m);
        if (err) return err;
      } else if (letter === "z") gzip = true;
      else if (letter === "v") verbose = true;
      else if (WITH_VALUE.has(letter)) {
        const rest = letters.slice(i + 1);
        const value = rest.length > 0 ? rest : next();
        if (value === undefined) return `option requires an argument -- '${letter}'`;
        return setValue(letter, value);
      } else return `invalid option -- '${letter}'`;
    }
    return undefined;
  };

  let i = 0;
  const next = (): string | undefined => args[++i];
  let onlyOperands = false;
  for (; i < args.length; i++) {
    const arg = args[i] as string;
    let err: string | undefined;
    if (onlyOperands || arg === "-" || !arg.startsWith("-")) {
      // The first argument may be old-style options without a dash (`tar czf out.tgz dir`).
      if (i === 0 && !onlyOperands && /^[ctxzvfC]+$/.test(arg)) err = cluster(arg, next);
      else operands.push(arg);
    } else if (arg === "--") onlyOperands = true;
    else if (arg === "--help") return { ok: "help" };
    else if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq === -1 ? arg : arg.slice(0, eq);
      const longMode = LONG_MODES[name];
      if (longMode !== undefined && eq === -1) err = setMode(longMode);
      else if ((name === "--gzip" || name === "--gunzip") && eq === -1) gzip = true;
      else if (name === "--verbose" && eq === -1) verbose = true;
      else if (LONG_WITH_VALUE.has(name)) {
        const value = eq === -1 ? next() : arg.slice(eq + 1);
        err = value === undefined ? `option '${name}' requires an argument` : setValue(name, value);
      } else err = `unrecognized option '${arg}'`;
    } else err = cluster(arg.slice(1), next);
    if (err !== undefined) return { ok: false, error: err };
  }
  if (mode === undefined) return { ok: false, error: "You must specify one of the '-ctx' options" };
  if (mode === "create" && operands.length === 0)
    return { ok: false, error: "Cowardly refusing to create an empty archive" };
  return { ok: true, options: { mode, file, gzip, verbose, directory, stripComponents, operands } };
}
