/** Artifacts: publish a workspace file or directory and list this computer's artifacts with their public links. */
import type { ArtifactDetail, Computer } from "@computer/sdk";
import { useEffect, useState } from "preact/hooks";
import { formatBytes, timeAgo } from "./format.ts";
import { describeError, type Session } from "./session.ts";

export function ArtifactsPanel({
  session,
  computer,
  writable,
}: {
  session: Session;
  computer: Computer;
  writable: boolean;
}) {
  const [details, setDetails] = useState<ArtifactDetail[]>([]);
  const [path, setPath] = useState("");
  const [message, setMessage] = useState<string | undefined>();
  const refresh = async () => {
    try {
      const mine: ArtifactDetail[] = [];
      for await (const summary of session.client.artifacts.all()) {
        if (summary.computer === computer.id) mine.push(await session.client.artifacts.get(summary.name));
      }
      setDetails(mine);
    } catch (err) {
      setMessage(describeError(err));
    }
  };
  useEffect(() => {
    void refresh();
  }, [computer]);
  const publish = async (event: Event) => {
    event.preventDefault();
    try {
      const published = await computer.publish({ path: path.trim() });
      setMessage(`Published ${published.name} v${published.version}`);
      setPath("");
      await refresh();
    } catch (err) {
      setMessage(describeError(err));
    }
  };
  return (
    <div class="pad-lg">
      <form class="inline" onSubmit={publish}>
        <input
          placeholder="dist/ or report.pdf"
          value={path}
          aria-label="Path to publish"
          onInput={(e) => setPath((e.target as HTMLInputElement).value)}
        />
        <button type="submit" class="primary" disabled={!writable || path.trim() === ""}>
          Publish
        </button>
      </form>
      {message !== undefined && <p class="muted">{message}</p>}
      {details.length === 0 ? (
        <p class="muted">Nothing published yet. A published file or folder gets a signed public link.</p>
      ) : (
        details.map((a) => (
          <div class="artifact" key={a.name}>
            <div class="artifact-name mono">{a.name}</div>
            <table class="table">
              <tbody>
                {a.versions.map((v) => (
                  <tr key={v.version}>
                    <td class="mono">v{v.version}</td>
                    <td>{v.type}</td>
                    <td>
                      {v.files} files · {formatBytes(v.bytes)}
                    </td>
                    <td class="muted">{timeAgo(v.createdAt)}</td>
                    <td class="right">
                      <a href={v.url} target="_blank" rel="noreferrer">
                        Open link
                      </a>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))
      )}
    </div>
  );
}
