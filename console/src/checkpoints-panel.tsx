/** Checkpoints: name the current tree, list them, restore one (the tree becomes the checkpoint's). */
import type { Checkpoint, Computer } from "@computer/sdk";
import { useEffect, useState } from "preact/hooks";
import { timeAgo } from "./format.ts";
import { describeError } from "./session.ts";

export function CheckpointsPanel({ computer, writable }: { computer: Computer; writable: boolean }) {
  const [list, setList] = useState<Checkpoint[]>([]);
  const [name, setName] = useState("");
  const [message, setMessage] = useState<string | undefined>();
  const refresh = async () => {
    try {
      setList(await computer.checkpoints.list());
    } catch (err) {
      setMessage(describeError(err));
    }
  };
  useEffect(() => {
    void refresh();
  }, [computer]);
  const create = async (event: Event) => {
    event.preventDefault();
    try {
      const cp = await computer.checkpoints.create(name.trim());
      setMessage(`Checkpoint ${cp.name} at revision ${cp.rev}`);
      setName("");
      await refresh();
    } catch (err) {
      setMessage(describeError(err));
    }
  };
  const restore = async (cp: Checkpoint) => {
    if (!confirm(`Restore the whole tree to ${cp.name}? Changes since then are replaced.`)) return;
    try {
      await computer.checkpoints.restore(cp.name);
      setMessage(`Restored ${cp.name}`);
    } catch (err) {
      setMessage(describeError(err));
    }
  };
  return (
    <div class="pad-lg">
      <form class="inline" onSubmit={create}>
        <input
          placeholder="checkpoint-name"
          value={name}
          aria-label="Checkpoint name"
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
        <button type="submit" class="primary" disabled={!writable || name.trim() === ""}>
          Create checkpoint
        </button>
      </form>
      {message !== undefined && <p class="muted">{message}</p>}
      {list.length === 0 ? (
        <p class="muted">
          No checkpoints yet. A checkpoint names the current tree; restoring one brings it back.
        </p>
      ) : (
        <table class="table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Revision</th>
              <th>Created</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.map((cp) => (
              <tr key={cp.name}>
                <td class="mono">{cp.name}</td>
                <td>{cp.rev}</td>
                <td class="muted">{timeAgo(cp.createdAt)}</td>
                <td class="right">
                  <button
                    type="button"
                    class="secondary small"
                    disabled={!writable}
                    onClick={() => void restore(cp)}
                  >
                    Restore
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
