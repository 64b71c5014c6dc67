#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `make build`.
import { main } from '../dist/cli.js';

process.exitCode = await main(process.argv.slice(2));
