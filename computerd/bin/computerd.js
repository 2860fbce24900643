#!/usr/bin/env node
// The `computerd` executable: runs src/main.ts with Node's type stripping (Node >= 22.18).
import { main } from "../src/main.ts";

process.exitCode = await main(process.argv.slice(2));
