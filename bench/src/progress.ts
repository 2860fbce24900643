/**
 * Progress of a long benchmark on the terminal: one status line, redrawn in place (scenario n
 * of N, target, repetition, elapsed time), and the result line of each finished scenario above
 * it. Nothing at all when stderr is not a terminal (CI logs, the image job, pipes): the report
 * says everything there is to say.
 */

const TTY = process.stderr.isTTY === true;
const started = performance.now();
let scenario = "";
let detail = "";
let timer: NodeJS.Timeout | undefined;

function elapsed(): string {
  const s = Math.floor((performance.now() - started) / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function draw(): void {
  if (!scenario) return;
  const line = `${scenario}${detail ? ` · ${detail}` : ""} · ${elapsed()} elapsed`;
  const width = process.stderr.columns ?? 120;
  process.stderr.write(`\r\x1b[2K${line.slice(0, width - 1)}`);
}

/** Scenario `n` of `total` starts. */
export function progressScenario(n: number, total: number, name: string): void {
  if (!TTY) return;
  scenario = `[${n}/${total}] ${name}`;
  detail = "";
  timer ??= setInterval(draw, 1000).unref();
  draw();
}

/** What the current scenario is doing: "computerd · rep 2/5". */
export function progressStep(text: string): void {
  if (!TTY) return;
  detail = text;
  draw();
}

/** A line that stays (a finished scenario, a failure), above the status line. */
export function progressLine(text: string): void {
  if (!TTY) return;
  process.stderr.write(`\r\x1b[2K${text}\n`);
  draw();
}

/** The run is over: the status line goes. */
export function progressDone(): void {
  if (!TTY) return;
  if (timer) clearInterval(timer);
  timer = undefined;
  scenario = "";
  process.stderr.write("\r\x1b[2K");
}
