import { createHash, generateKeyPairSync } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LineCollector } from "@chaind/harness/line-collector";
import { execa, type ResultPromise } from "execa";

export const VISOR = join(import.meta.dirname, "../../supervisor/bin/visor.js");
const FAKE = join(import.meta.dirname, "../../fixtures/daemons/fake-daemon.cjs");
/** Copies of the fake daemon live outside the checkout: they load LevelDB from where it is installed. */
const LEVEL_MODULE = createRequire(import.meta.url).resolve("classic-level");

/** A copy of the fake daemon that reports `version`. */
export function fakeBinary(dir: string, version: string): string {
  const path = join(dir, `fake-${version}`);
  writeFileSync(
    path,
    readFileSync(FAKE, "utf8")
      .replace('const VERSION = "v1";', `const VERSION = "${version}";`)
      .replace(
        'const LEVEL_MODULE = "classic-level";',
        `const LEVEL_MODULE = ${JSON.stringify(LEVEL_MODULE)};`,
      ),
  );
  chmodSync(path, 0o755);
  return path;
}

/** Who a home's node is: the chain id of its genesis and the node id of its node_key.json. */
export interface HomeIdentity {
  chainId: string;
  nodeId: string;
}

/**
 * Gives a home what a CometBFT node has: config/genesis.json (its chain_id) and config/node_key.json (a fresh
 * ed25519 key); answers the identity a server must claim to be believed as that node.
 */
export function writeNodeIdentity(home: string, chainId = "visor-test-1"): HomeIdentity {
  mkdirSync(join(home, "config"), { recursive: true });
  writeFileSync(
    join(home, "config", "genesis.json"),
    JSON.stringify({ genesis_time: "2025-01-01T00:00:00Z", chain_id: chainId, initial_height: "1" }),
  );
  const jwk = generateKeyPairSync("ed25519").privateKey.export({ format: "jwk" });
  const seed = Buffer.from(jwk.d!, "base64url");
  const pub = Buffer.from(jwk.x!, "base64url");
  writeFileSync(
    join(home, "config", "node_key.json"),
    JSON.stringify({
      priv_key: { type: "tendermint/PrivKeyEd25519", value: Buffer.concat([seed, pub]).toString("base64") },
    }),
    { mode: 0o600 },
  );
  return { chainId, nodeId: createHash("sha256").update(pub).digest().subarray(0, 20).toString("hex") };
}

export const sha256File = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

/** A temp DAEMON_HOME with visor settings for fast tests; `visor(args)` runs the CLI against it. */
export function visorHome() {
  const root = mkdtempSync(join(tmpdir(), "visor-"));
  const home = join(root, "home");
  const identity = writeNodeIdentity(home);
  const env: Record<string, string> = {
    DAEMON_HOME: home,
    DAEMON_NAME: "fake",
    DAEMON_POLL_INTERVAL: "50ms",
    COSMOVISOR_COLOR_LOGS: "false",
    VISOR_PREFETCH: "false",
    // No node API unless a test serves one: nothing listens on port 1.
    DAEMON_GRPC_ADDRESS: "127.0.0.1:1",
    VISOR_REST_ADDRESS: "http://127.0.0.1:1",
    VISOR_RPC_ADDRESS: "http://127.0.0.1:1",
  };
  return {
    root,
    home,
    identity,
    env,
    visor: (args: string[], extra: Record<string, string> = {}) =>
      execa("node", [VISOR, ...args], { env: { ...env, ...extra }, reject: false, all: true }),
    start: (args: string[], extra: Record<string, string> = {}) =>
      new VisorProcess(args, { ...env, ...extra }),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** `visor run ...` in the background, its output collected line by line. */
export class VisorProcess {
  readonly proc: ResultPromise;
  private readonly out: LineCollector;

  constructor(args: string[], env: Record<string, string>) {
    this.proc = execa("node", [VISOR, "run", ...args], { env, reject: false, all: true, buffer: false });
    this.out = new LineCollector(this.proc.all!);
  }

  get lines(): string[] {
    return this.out.lines;
  }

  /** A line matching `re`, already printed (from line `from` on) or still to come. */
  waitFor(re: RegExp, timeoutMs = 20_000, from = 0): Promise<RegExpMatchArray> {
    return this.out.waitFor(re, timeoutMs, from);
  }

  async exit(timeoutMs = 20_000): Promise<number> {
    const t = setTimeout(() => this.proc.kill("SIGKILL"), timeoutMs);
    const r = await this.proc;
    clearTimeout(t);
    return r.exitCode ?? -1;
  }

  get output(): string {
    return this.lines.join("\n");
  }
}
