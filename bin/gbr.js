#!/usr/bin/env node
// Thin launcher: registers tsx so the TypeScript sources run without a build step.
require("tsx/cjs");
require("./gbr.ts");
