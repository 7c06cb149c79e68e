#!/usr/bin/env node
import "../dist/node/src/cli/main.js";
