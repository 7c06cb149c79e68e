import { existsSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "@chaind/core/atomic-file";
import { renderConfigToml } from "../config/cosmovisor-config-file.js";
import type { VisorConfig } from "../config/visor-config.js";
import { VisorLayout } from "../home/visor-layout.js";
import { givenBinary, installBinary } from "./install-binary.js";
import { out } from "./stdout-line.js";

/**
 * `init <path>`: the genesis binary, the current link, and `cosmovisor/config.toml` with the settings in
 * effect, as cosmovisor 1.6+ writes it. An existing config.toml is kept (cosmovisor asks before it overwrites;
 * visor never asks). `config` holds the settings as configured: addresses visor reads from the node's own
 * files stay unset in the file, so they keep following those files.
 */
export async function initCommand(config: VisorConfig, path: string): Promise<void> {
  const layout = new VisorLayout(config);
  const bin = layout.binaryIn(layout.genesisDir);
  givenBinary(path);
  if (existsSync(bin)) out(`genesis binary already installed at ${bin}; leaving it`);
  else out(`installed genesis binary at ${await installBinary(path, layout.genesisDir, config.name)}`);
  // A link that points nowhere is not missing: currentDir says so instead of re-pointing it at genesis.
  if (!layout.isLink(layout.currentLink)) layout.switchTo(layout.genesisDir);
  out(`current -> ${layout.currentDir()}`);
  const file = join(layout.root, "config.toml");
  if (existsSync(file)) out(`${file} already exists; leaving it`);
  else {
    // Owner-only: settings may name URLs with credentials (visor redacts them wherever it prints them).
    writeFileAtomic(file, renderConfigToml(config), { mode: 0o600 });
    out(`wrote ${file}`);
  }
}
