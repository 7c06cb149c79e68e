import { packageVersion } from "@chaind/core/package-version";
import { execa } from "execa";
import type { VisorConfig } from "../config/visor-config.js";
import { VisorError } from "../errors/visor-error.js";
import { VisorLayout } from "../home/visor-layout.js";
import { out } from "./stdout-line.js";

/**
 * Like cosmovisor, visor's own version needs no configured home: `--cosmovisor-only` prints it alone, and the
 * text form prints it before the settings are read and the daemon asked.
 */
export async function versionCommand(
  loadConfig: () => Promise<VisorConfig>,
  opts: { json: boolean; visorOnly: boolean },
): Promise<void> {
  const visor = packageVersion(import.meta.url);
  if (!opts.json) out(`visor version: ${visor}`);
  if (opts.visorOnly) {
    if (opts.json) out(JSON.stringify({ cosmovisor_version: visor }));
    return;
  }
  const config = await loadConfig();
  const r = await execa(new VisorLayout(config).currentBinary(), ["version", "--long", "--output", "json"], {
    reject: false,
  });
  if (r.exitCode !== 0)
    throw new VisorError("BINARY_MISSING", `${config.name} version failed: ${r.stderr.trim()}`);
  if (opts.json) {
    let app: unknown = r.stdout.trim();
    try {
      app = JSON.parse(r.stdout);
    } catch {
      // Not every daemon prints JSON; its text is passed on as is.
    }
    out(JSON.stringify({ cosmovisor_version: visor, app_version: app }));
  } else out(r.stdout.trim());
}
