#!/usr/bin/env node
import "../dist/supervisor/src/cli/main.js";
