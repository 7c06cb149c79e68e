import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { parse } from "smol-toml";

/** What the home's validator sign state says of the last height it signed. */
export type SignedHeight =
  | { kind: "height"; height: number; path: string }
  | { kind: "absent"; path: string }
  | { kind: "unreadable"; path: string; why: string };

/** `priv_validator_state_file` of config/config.toml (relative to the home), else CometBFT's default. */
function signStatePath(home: string): string {
  let configured: unknown;
  try {
    configured = parse(readFileSync(join(home, "config", "config.toml"), "utf8")).priv_validator_state_file;
  } catch {
    configured = undefined;
  }
  const file = typeof configured === "string" && configured ? configured : "data/priv_validator_state.json";
  return isAbsolute(file) ? file : join(home, file);
}

/**
 * The height in the validator's sign state (CometBFT's `priv_validator_state.json`, which chaind keeps too):
 * the validator signed that height, so a rollback to below it could make the node sign another block there.
 * Absent on a node that is no validator.
 */
export function readSignedHeight(home: string): SignedHeight {
  const path = signStatePath(home);
  if (!existsSync(path)) return { kind: "absent", path };
  try {
    const height = (JSON.parse(readFileSync(path, "utf8")) as { height?: unknown }).height;
    const n = typeof height === "string" && /^\d+$/.test(height) ? Number(height) : Number.NaN;
    if (!Number.isSafeInteger(n))
      return { kind: "unreadable", path, why: `height ${JSON.stringify(height)}` };
    return { kind: "height", height: n, path };
  } catch (e) {
    return { kind: "unreadable", path, why: (e as Error).message };
  }
}
