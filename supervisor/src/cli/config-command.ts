import { describeConfig, renderConfigToml } from "../config/cosmovisor-config-file.js";
import type { VisorConfig } from "../config/visor-config.js";
import { redactUrls } from "../errors/url-redaction.js";
import { out } from "./stdout-line.js";

/** `config`: the settings as `cosmovisor config` prints them, or (`toml`) the config.toml init would write. */
export function configCommand(config: VisorConfig, form: "text" | "toml"): void {
  out(redactUrls(form === "toml" ? renderConfigToml(config) : describeConfig(config)));
}
