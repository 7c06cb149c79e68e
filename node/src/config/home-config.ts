import { existsSync } from "node:fs";
import { ConfigError } from "@chaind/core/config-table";
import { APP_TOML, type AppConfig } from "./app-config.js";
import type { HomeLayout } from "./home-layout.js";
import { CONFIG_TOML, type NodeConfig } from "./node-config.js";
import { type ConfigOverrides, parseTomlConfig } from "./toml-file.js";

/** What a node runs with: its app.toml and config.toml. */
export interface HomeConfig {
  app: AppConfig;
  node: NodeConfig;
}

/**
 * Reads app.toml and config.toml of a home; a ConfigError names every problem of both files at once (or only the
 * missing config folder, when there is no home).
 */
export function readHomeConfig(
  layout: HomeLayout,
  overrides: { app?: ConfigOverrides; node?: ConfigOverrides } = {},
): HomeConfig {
  if (!existsSync(layout.configDir))
    throw new ConfigError([{ source: null, key: "", message: `cannot read ${layout.configDir}: ENOENT` }]);
  const app = parseTomlConfig(APP_TOML, layout.appToml, overrides.app);
  const node = parseTomlConfig(CONFIG_TOML, layout.configToml, overrides.node);
  if (app.config === null || node.config === null) throw new ConfigError([...app.problems, ...node.problems]);
  return { app: app.config, node: node.config };
}
