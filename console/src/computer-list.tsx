/** The computers the admin token sees: id, usage against quota, egress; create a new one. */
import type { ComputerInfo } from "@computer/sdk";
import { useEffect, useState } from "preact/hooks";
import { formatBytes, timeAgo } from "./format.ts";
import { describeError, type Session } from "./session.ts";

export function ComputerList({ session }: { session: Session }) {
  const [computers, setComputers] = useState<ComputerInfo[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [newId, setNewId] = useState("");
  const load = async () => {
    try {
      const all: ComputerInfo[] = [];
      for await (const computer of session.client.computers.all()) all.push(computer);
      setComputers(all);
    } catch (err) {
      setError(describeError(err));
    }
  };
  useEffect(() => {
    void load();
  }, []);
  const create = async (event: Event) => {
    event.preventDefault();
    try {
      await session.client.computers.create(newId.trim());
      location.hash = `#/c/${newId.trim()}`;
    } catch (err) {
      setError(describeError(err));
    }
  };
  return (
    <section class="page">
      <div class="page-head">
        <h1>Computers</h1>
        <form class="inline" onSubmit={create}>
          <input
            placeholder="new-computer-id"
            value={newId}
            aria-label="New computer id"
            onInput={(e) => setNewId((e.target as HTMLInputElement).value)}
          />
          <button type="submit" class="primary" disabled={newId.trim() === ""}>
            Create
          </button>
        </form>
      </div>
      {error !== undefined && <p class="error">{error}</p>}
      {computers === undefined ? (
        <p class="muted">Loading…</p>
      ) : computers.length === 0 ? (
        <div class="empty card">No computers yet. Create one above, or with `PUT /v1/computers/:id`.</div>
      ) : (
        <div class="grid">
          {computers.map((c) => (
            <a class="card computer-card" href={`#/c/${c.id}`} key={c.id} data-testid="computer-card">
              <div class="computer-id">{c.id}</div>
              <div class="meter">
                <div
                  class="meter-fill"
                  style={{
                    width: c.quotaBytes ? `${Math.min(100, (100 * c.usedBytes) / c.quotaBytes)}%` : "2%",
                  }}
                />
              </div>
              <div class="muted small">
                {formatBytes(c.usedBytes)} used{c.quotaBytes ? ` of ${formatBytes(c.quotaBytes)}` : ""} ·
                created {timeAgo(c.createdAt)} · egress{" "}
                {typeof c.egress === "string" ? c.egress : "allowlist"}
              </div>
            </a>
          ))}
        </div>
      )}
    </section>
  );
}
