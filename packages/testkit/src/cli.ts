#!/usr/bin/env node
/**
 * Entry point: `node packages/testkit/dist/cli.js serve <script.yaml>... [--port N]`.
 */
import { runCli } from "./cli-main.js";

process.exitCode = await runCli(process.argv.slice(2));
