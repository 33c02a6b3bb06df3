#!/usr/bin/env node
// Headless screening of a CSV/XLSX portfolio through the relay. See docs/cli.md.
require("../lib/cli/str-screen.js");
