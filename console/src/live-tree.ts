/**
 * The computer's tree as the change feed tells it: watched from "0" (the whole tree, then every
 * change as it happens, from any runtime or the API), folded into a map of path → entry. Bursts
 * of changes are applied at once and re-render once per animation frame.
 */
import type { ChangeJson, Computer } from "@computer/sdk";
import { useEffect, useMemo, useState } from "preact/hooks";
import { describeError } from "./session.ts";

/** What the tree knows of one path. */
export interface TreeEntry {
  path: string;
  name: string;
  type: string;
  size: number;
  mtime: string;
}

/** The live tree: entries by parent directory, and whether the first full read is done. */
export interface LiveTree {
  children(dir: string): TreeEntry[];
  get(path: string): TreeEntry | undefined;
  ready: boolean;
  error: string | undefined;
  /** How many paths the tree holds. */
  size: number;
}

function parentOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i <= 0 ? "/" : path.slice(0, i);
}

function order(a: TreeEntry, b: TreeEntry): number {
  if ((a.type === "dir") !== (b.type === "dir")) return a.type === "dir" ? -1 : 1;
  return a.name.localeCompare(b.name);
}

/** Watches `computer`'s tree for as long as the component is mounted. */
export function useLiveTree(computer: Computer): LiveTree {
  const entries = useMemo(() => new Map<string, TreeEntry>(), [computer]);
  const [version, setVersion] = useState(0);
  const [ready, setReady] = useState(false);
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    const abort = new AbortController();
    let frame: number | undefined;
    const rerender = () => {
      frame ??= requestAnimationFrame(() => {
        frame = undefined;
        setVersion((v) => v + 1);
      });
    };
    const apply = (change: ChangeJson) => {
      if (change.path === "/") return;
      if (change.event === "deleted") {
        entries.delete(change.path);
        return;
      }
      entries.set(change.path, {
        path: change.path,
        name: change.path.slice(change.path.lastIndexOf("/") + 1),
        type: change.type ?? "file",
        size: change.size ?? 0,
        mtime: change.mtime ?? "",
      });
    };
    (async () => {
      try {
        const onSynced = () => {
          setReady(true);
          rerender();
        };
        for await (const change of computer.watch({ after: "0", signal: abort.signal, onSynced })) {
          apply(change);
          rerender();
        }
      } catch (err) {
        if (!abort.signal.aborted) setError(describeError(err));
      }
    })();
    return () => {
      abort.abort();
      if (frame !== undefined) cancelAnimationFrame(frame);
    };
  }, [computer]);
  return useMemo(() => {
    const byParent = new Map<string, TreeEntry[]>();
    for (const entry of entries.values()) {
      const parent = parentOf(entry.path);
      const list = byParent.get(parent);
      if (list === undefined) byParent.set(parent, [entry]);
      else list.push(entry);
    }
    for (const list of byParent.values()) list.sort(order);
    return {
      children: (dir: string) => byParent.get(dir) ?? [],
      get: (path: string) => entries.get(path),
      ready,
      error,
      size: entries.size,
    };
  }, [version, ready, error]);
}
