import { createHash } from "node:crypto";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { useFreeListenerPorts } from "@chaind/harness/free-listener-ports";
import { execa } from "execa";

/** The launcher's first byte of a kept code cache: written at exit, or after a node's start-up (see launched). */
export const CODE_CACHE_KIND = { BRIEF: 0, FULL: 1 } as const;

/** Beside bin/<name>, the code cache a release ships: bin/<name> followed by this. */
export const SHIPPED_CODE_CACHE_SUFFIX = ".code-cache";

/** How long the training run may take to write its full cache before the release gives up. */
const TRAINING_TIMEOUT_MS = 120_000;

/**
 * Writes bin/<name>.code-cache: the code cache the launcher keeps after a node's start-up, made at release time
 * by a training run of the executable just built (`testnet` on a throwaway home, then `start` until the launcher
 * writes its full cache), under this Node. So the binary's very first run on a machine (after an upgrade's halt,
 * visor runs its `pre-upgrade` and then `start`) deserializes compiled code instead of compiling the bundle.
 * The file is the program's digest (`digest`, 16 hex characters: a cache never meets another program, even
 * one of the same length, which is all V8 checks of the source), the sha256 of the rest (32 bytes: outside debug
 * builds V8 checks no checksum of a code cache, and would run damaged bytecode), then the launcher's cache as it
 * kept it. V8 refuses it under another Node (version or flags), the launcher when a digest does not match; the
 * launcher then compiles the program and keeps its own cache, as before.
 */
export async function writeShippedCodeCache(executable: string, name: string, digest: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "release-training-"));
  try {
    const cacheDir = join(dir, "cache", `${name}-native`);
    const home = join(dir, "home");
    // Only what the launcher keys its cache by may differ from an operator's run: no NODE_OPTIONS, no flags.
    const env: Record<string, string | undefined> = { ...process.env, XDG_CACHE_HOME: join(dir, "cache") };
    delete env.NODE_OPTIONS;
    const run = (args: string[]) =>
      execa(process.execPath, [executable, ...args], { env, extendEnv: false, reject: false, all: true });
    const made = await run([
      "testnet",
      "--home",
      home,
      "--chain-id",
      "release-training-1",
      "--block-time",
      "100ms",
    ]);
    if (made.exitCode !== 0) throw new Error(`the training run's testnet failed: ${lastLine(made.all)}`);
    // The node's run alone makes the cache, not what `testnet` compiled.
    for (const f of readdirSync(cacheDir)) if (f.endsWith(".code-cache")) rmSync(join(cacheDir, f));
    await useFreeListenerPorts(home);
    const node = run(["start", "--home", home]);
    let exited = false;
    void node.finally(() => {
      exited = true;
    });
    const deadline = Date.now() + TRAINING_TIMEOUT_MS;
    let full: Buffer | null = null;
    while (full === null && !exited && Date.now() < deadline) {
      await sleep(100);
      full = fullCacheIn(cacheDir, `${name}-${digest}-`);
    }
    node.kill("SIGTERM");
    const done = await node;
    if (full === null)
      throw new Error(
        `the training run's node wrote no code cache: ${exited ? lastLine(done.all) : "timed out"}`,
      );
    const sha256 = createHash("sha256").update(full).digest();
    const shipped = Buffer.concat([Buffer.from(digest, "latin1"), sha256, full]);
    const file = `${executable}${SHIPPED_CODE_CACHE_SUFFIX}`;
    writeFileSync(file, shipped);
    // Whatever the umask: the launcher refuses a cache others could have written.
    chmodSync(file, 0o644);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The full cache the launcher wrote in `dir` for the program whose files start with `prefix`, if any yet. */
function fullCacheIn(dir: string, prefix: string): Buffer | null {
  for (const f of readdirSync(dir)) {
    if (!f.startsWith(prefix) || !f.endsWith(".code-cache")) continue;
    const bytes = readFileSync(join(dir, f));
    if (bytes[0] === CODE_CACHE_KIND.FULL) return bytes;
  }
  return null;
}

function lastLine(text: string | undefined): string {
  return (text ?? "").trim().split("\n").pop() ?? "";
}
