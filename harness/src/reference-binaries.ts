import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * The reference binaries our code meets, built from their public Go modules at pinned versions:
 * CometBFT (the consensus engine chaind serves over ABCI) and stock cosmovisor (what visor stands in for). Each
 * is installed once per machine under the tools folder, by the name it is asked for here.
 */
export const REFERENCE_BINARIES = {
  /** The newest v0.38 patch the module proxy serves and Go 1.26 builds. */
  cometbft: { module: "github.com/cometbft/cometbft", version: "v0.38.26", package: "cmd/cometbft" },
  /**
   * Stock cosmovisor. The module proxy here serves one release of it: v1.5.0. Every v1.6 and v1.7 (and later) is
   * refused (403), their archives too, so neither line the issues name can be built on these machines.
   */
  "cosmovisor-1.5": { module: "cosmossdk.io/tools/cosmovisor", version: "v1.5.0", package: "cmd/cosmovisor" },
} as const;

export type ReferenceBinary = keyof typeof REFERENCE_BINARIES;

/** The git-ignored folder of the checkout that holds the binaries and Go's module and build caches. */
export function toolsDir(): string {
  if (process.env.CHAIND_TOOLS_DIR) return process.env.CHAIND_TOOLS_DIR;
  // harness/src or harness/dist, two levels below the checkout.
  return join(import.meta.dirname, "..", "..", ".tools");
}

const binPath = (name: ReferenceBinary) => join(toolsDir(), "bin", name);

/** Where a reference binary is, or why it is not there (one line, naming it), for a test to skip with. */
export function referenceBinary(name: ReferenceBinary): { path: string } | { missing: string } {
  const path = binPath(name);
  if (existsSync(path)) return { path };
  const { module, version } = REFERENCE_BINARIES[name];
  return { missing: `${name} is not installed (${module}@${version}: npm test installs it where Go is)` };
}

/** `go`'s version line, or null when there is no Go on this machine. */
export async function goVersion(): Promise<string | null> {
  try {
    return (await run("go", ["version"])).stdout.trim();
  } catch {
    return null;
  }
}

/**
 * Installs each reference binary that is missing: built from its module at the pinned version into place under
 * its own name. Not `go install module/cmd@version`: that asks the proxy for the module's version list (to warn of
 * deprecation), which the proxy here refuses for cosmovisor; a scratch module that requires the version and
 * `go build`s its command gives the same binary. The module download and build caches stay in the tools folder.
 */
export async function installReferenceBinaries(
  log: (line: string) => void,
): Promise<{ installed: ReferenceBinary[]; failed: { name: ReferenceBinary; error: string }[] }> {
  const tools = toolsDir();
  const installed: ReferenceBinary[] = [];
  const failed: { name: ReferenceBinary; error: string }[] = [];
  for (const name of Object.keys(REFERENCE_BINARIES) as ReferenceBinary[]) {
    const target = binPath(name);
    if (existsSync(target)) continue;
    const { module, version, package: cmd } = REFERENCE_BINARIES[name];
    mkdirSync(dirname(target), { recursive: true });
    const scratch = mkdtempSync(join(tools, ".install-"));
    log(`installing ${name}: ${module}/${cmd}@${version}`);
    try {
      writeFileSync(
        join(scratch, "go.mod"),
        `module chaind-tools\n\ngo 1.22\n\nrequire ${module} ${version}\n`,
      );
      await run("go", ["build", "-mod=mod", "-o", join(scratch, name), `${module}/${cmd}`], {
        cwd: scratch,
        env: {
          ...process.env,
          GOMODCACHE: join(tools, "gomod"),
          GOCACHE: join(tools, "gocache"),
          // Writable module files, so the tools folder can be removed like any other.
          GOFLAGS: "-modcacherw",
          GOTOOLCHAIN: process.env.GOTOOLCHAIN ?? "local",
        },
        maxBuffer: 16 * 1024 * 1024,
      });
      renameSync(join(scratch, name), target);
      installed.push(name);
    } catch (e) {
      const err = e as { stderr?: string; message: string };
      failed.push({ name, error: (err.stderr || err.message).trim().split("\n").slice(-3).join(" | ") });
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  return { installed, failed };
}
