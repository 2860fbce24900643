/**
 * `npm run example:ai-image -- "a prompt"`: creates the computer `ai-image`, gives the Worker a
 * token for that computer only, starts the ai-image Worker locally (wrangler's dev server, no
 * AI binding, so the stand-in draws the image), asks it for an image and prints the public link.
 */
import { fileURLToPath } from "node:url";
import { ComputerClient } from "@computer/sdk";
import { type Connection, connection } from "../shared/connect.ts";
import { main, Steps } from "../shared/steps.ts";
import type { ImageAnswer } from "./src/index.ts";

const CONFIG = fileURLToPath(new URL("wrangler.jsonc", import.meta.url));

/** What to ask the Worker for. */
export interface AiImageOptions {
  prompt: string;
  width?: number;
  height?: number;
  /** The computer the Worker writes to (default `ai-image`). */
  computerId?: string;
  /** Gets the Worker's log lines (default: printed to stderr). */
  onLog?: (line: string) => void;
}

/** Runs the Worker against the fleet at `fleet` and answers what it answered. */
export async function aiImage(fleet: Connection, options: AiImageOptions): Promise<ImageAnswer> {
  const id = options.computerId ?? "ai-image";
  const onLog = options.onLog ?? ((line: string) => console.error(line));
  const steps = new Steps("ai-image", onLog);
  // Offline: no lookup of Cloudflare's request metadata, no usage metrics.
  process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";
  process.env.WRANGLER_SEND_METRICS ??= "false";
  const client = new ComputerClient(fleet);
  const computer = client.computer(id);
  // The Worker holds a token for this one computer, not the admin token.
  const { token } = await steps.run("create the computer and a token for it", async () => {
    await client.computers.create(id);
    return computer.tokens.create({ scope: "rw", ttlSeconds: 600 });
  });
  const worker = await steps.run("load wrangler, bundle and start the Worker", async () => {
    // wrangler is large: imported here, its load time is part of this step's.
    const { unstable_startWorker } = await import("wrangler");
    const started = await unstable_startWorker({
      config: CONFIG,
      env: "local",
      bindings: {
        COMPUTER_URL: { type: "plain_text", value: fleet.url },
        COMPUTER_ID: { type: "plain_text", value: id },
        COMPUTER_TOKEN: { type: "secret_text", value: token },
      },
      dev: {
        server: { hostname: "127.0.0.1", port: 0 },
        inspector: false,
        watch: false,
        // Wrangler's own notes (the AI binding that env.local leaves out on purpose) stay quiet;
        // the Worker's log lines are printed as they come.
        logLevel: "error",
        structuredLogsHandler: (log: { message: string }) => onLog(`ai-image worker: ${log.message}`),
      },
    });
    await started.ready;
    return started;
  });
  try {
    return await steps.run("POST the prompt: generate, write, publish", async () => {
      const res = await worker.fetch("http://ai-image/", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ prompt: options.prompt, width: options.width, height: options.height }),
      });
      const body = await res.text();
      if (res.status !== 201) throw new Error(`the ai-image Worker answered ${res.status}: ${body}`);
      return JSON.parse(body) as ImageAnswer;
    });
  } finally {
    await steps.run("stop the Worker", () => worker.dispose());
  }
}

if (import.meta.main) {
  main("ai-image", async () => {
    const prompt = process.argv.slice(2).join(" ") || "a lighthouse on a cliff at dusk, woodcut print";
    const answer = await aiImage(connection(), { prompt, width: 768, height: 512 });
    console.error(`ai-image: made by ${answer.generator}: ${answer.path}, ${answer.bytes} bytes`);
    console.log(answer.link);
  });
}
