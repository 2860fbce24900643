/**
 * Where the examples find the Computer API: COMPUTER_URL and COMPUTER_TOKEN when set (a
 * deployed fleet), otherwise the `make dev` fleet of this checkout (http://127.0.0.1:8787 and
 * its admin token in .computer/admin-token).
 */
import { existsSync, readFileSync } from "node:fs";
import { ComputerClient } from "@computer/sdk";

const DEV_URL = "http://127.0.0.1:8787";
const DEV_TOKEN_FILE = new URL("../../.computer/admin-token", import.meta.url);

/** The API's URL and an admin token. */
export interface Connection {
  url: string;
  token: string;
}

/** The connection from the environment, or `make dev`'s; throws saying what to do when neither is there. */
export function connection(env: NodeJS.ProcessEnv = process.env): Connection {
  const url = env.COMPUTER_URL ?? DEV_URL;
  const token =
    env.COMPUTER_TOKEN ?? (existsSync(DEV_TOKEN_FILE) ? readFileSync(DEV_TOKEN_FILE, "utf8").trim() : "");
  if (token === "") {
    throw new Error(
      "no token: run `make dev` in this checkout first, or set COMPUTER_URL and COMPUTER_TOKEN",
    );
  }
  return { url, token };
}

/** A client of that API. */
export function connect(env: NodeJS.ProcessEnv = process.env): ComputerClient {
  return new ComputerClient(connection(env));
}
