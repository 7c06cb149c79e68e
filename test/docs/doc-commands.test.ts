import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { useFreeListenerPorts } from "@chaind/harness/free-listener-ports";
import { parse, stringify } from "smol-toml";
import { afterAll, describe, it } from "vitest";
import { type CommandBlock, commandBlocksOf } from "./doc-command-blocks.js";
import { alive, DocShellSession } from "./doc-shell-session.js";

/*
 * Every command block of README.md and docs/*.md runs as written (doc-command-blocks.ts says how a block is
 * marked not to run, and why). Each document gets a fresh folder that links the repository's top-level entries,
 * so commands written for the repository's root (`npx chaind`, `node examples/...`) run unchanged while what they
 * make (`./mychain`, `signed.json`) lands in the folder; HOME is a folder of its own (`~/.chaind`), and
 * node_modules/.bin is on the PATH (`chaind`, `visor` as if installed).
 *
 * Only what cannot be written in a doc is substituted, never a command's words:
 * - a home a command makes (a folder with config/config.toml) gets its listeners on free loopback ports before
 *   the next command, and its client.toml names that RPC; a `127.0.0.1:26657` (1317, 9090) in a later command is
 *   the newest home's port;
 * - a long-running command (`chaind start`, `visor run`, or one ending in `&`) starts in the background, and the
 *   next command runs once its home's RPC reports height 2; such processes stop (SIGTERM) before a
 *   `<!-- run: node stopped -->` block and at the end of the document.
 */

const ROOT = resolve(import.meta.dirname, "../..");
const DOCS = ["README.md", ...readdirSync(join(ROOT, "docs")).map((f) => `docs/${f}`)].filter((f) =>
  f.endsWith(".md"),
);
const LONG_RUNNING = /\bchaind(\.js)?\s+start\b|\b(cosmo)?visor\s+run\b|&\s*(#.*)?$/;
interface Ports {
  rpc: number;
  api: number;
  grpc: number;
}
/** Far beyond any command's need: one that waits for what never comes fails the test, named. */
const COMMAND_TIMEOUT_MS = 120_000;
const DEFAULT_PORTS: Ports = { rpc: 26657, api: 1317, grpc: 9090 };

const scratch = mkdtempSync(join(tmpdir(), "doc-commands-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("command blocks of the docs", () => {
  for (const doc of DOCS) {
    const blocks = commandBlocksOf(join(ROOT, doc));
    if (blocks.length === 0) continue;
    const runnable = blocks.filter((b) => b.run.kind !== "not-run");
    // Each document has its own folder, homes and ports, so the documents run side by side.
    it.concurrent(`${doc}: every command block runs as written, or says why not (${runnable.length} of ${blocks.length} run)`, async ({
      expect,
    }) => {
      for (const b of blocks) if (b.run.kind === "not-run") expect(b.run.reason.length).toBeGreaterThan(3);
      if (runnable.length === 0) return;
      const before = checkoutChanges();
      await runDocument(doc, blocks);
      // The folder links the checkout's entries: a command that writes through one (`--home ./node` is the node
      // workspace) would change the checkout.
      expect(checkoutChanges().filter((c) => !before.includes(c))).toEqual([]);
    }, 300_000);
  }
});

async function runDocument(doc: string, blocks: CommandBlock[]) {
  const dir = join(scratch, doc.replace(/[/.]/g, "-"));
  const home = join(dir, ".home");
  const logs = join(dir, ".logs");
  mkdirSync(home, { recursive: true });
  mkdirSync(logs);
  linkRepository(dir);
  const session = new DocShellSession(dir, logs, {
    ...process.env,
    HOME: home,
    npm_config_cache: join(process.env.HOME ?? home, ".npm"),
    PATH: `${join(ROOT, "node_modules", ".bin")}:${process.env.PATH}`,
  });
  const homes = new Map<string, Ports>();
  let ports = DEFAULT_PORTS;
  try {
    for (const block of blocks) {
      if (block.run.kind === "not-run") continue;
      if (block.run.kind === "node-stopped") await session.stopBackground();
      for (const written of block.commands) {
        const command = withPorts(written, ports);
        const where = `${doc}:${block.line}: ${written}`;
        if (LONG_RUNNING.test(command.split("\n").at(-1) ?? "")) {
          const pgid = await named(where, session.start(command));
          await waitForHeight(session, command, pgid, where);
        } else {
          const passphrase = block.run.kind === "passphrases" ? "a docs passphrase" : undefined;
          const r = await named(where, session.run(command, COMMAND_TIMEOUT_MS, passphrase));
          const ended = r.status === null ? `ran past ${COMMAND_TIMEOUT_MS / 1000} s` : `exited ${r.status}`;
          if (r.status !== 0)
            throw new Error(`${where}\n${ended}\nstdout: ${tail(r.stdout)}\nstderr: ${tail(r.stderr)}`);
        }
        for (const h of newHomes(dir, homes)) {
          await useFreeListenerPorts(h);
          ports = listenerPorts(h);
          homes.set(h, ports);
        }
      }
    }
  } finally {
    await session.close();
  }
}

/** The session's own failure (it ended), told with the command that was running. */
async function named<T>(where: string, p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    throw new Error(`${where}\n${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Git's answer in the checkout, or null in a copy of the sources that is no git checkout. */
function git(args: string[]): string[] | null {
  try {
    return execFileSync("git", args, { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
      .split("\n")
      .filter((l) => l !== "");
  } catch {
    return null;
  }
}

/** Files of the checkout that git sees changed or new (ignored ones aside); none where there is no git. */
function checkoutChanges(): string[] {
  return git(["status", "--porcelain", "--untracked-files=all"]) ?? [];
}

/**
 * The repository's top-level entries linked into `dir`: the tracked ones (not a `./mychain` left at the root by
 * hand, which a doc's command would then write into), the build and node_modules.
 */
function linkRepository(dir: string) {
  const tracked =
    git(["ls-tree", "--name-only", "HEAD"]) ?? readdirSync(ROOT).filter((n) => !n.startsWith("."));
  for (const name of [...tracked.filter((n) => !n.startsWith(".git")), "node_modules", "dist", ".tools"])
    if (existsSync(join(ROOT, name)) && !existsSync(join(dir, name)))
      symlinkSync(join(ROOT, name), join(dir, name));
}

/** Homes (folders with config/config.toml) up to two levels under `dir` (HOME is `dir`/.home) not known yet. */
function newHomes(dir: string, known: Map<string, unknown>): string[] {
  const found: string[] = [];
  const look = (d: string, depth: number) => {
    if (existsSync(join(d, "config", "config.toml"))) {
      if (!known.has(d)) found.push(d);
      return;
    }
    if (depth === 0) return;
    for (const e of readdirSync(d, { withFileTypes: true }))
      if (e.isDirectory() && !e.isSymbolicLink() && e.name !== ".logs") look(join(d, e.name), depth - 1);
  };
  look(dir, 2);
  return found;
}

/** The ports useFreeListenerPorts gave a home; its client.toml is pointed at that RPC. */
function listenerPorts(home: string): Ports {
  const portOf = (addr: unknown) => Number(String(addr).split(":").at(-1));
  const app = tomlOf(home, "app.toml");
  const rpc = portOf(tomlOf(home, "config.toml").rpc.laddr);
  if (existsSync(join(home, "config", "client.toml"))) {
    const client = tomlOf(home, "client.toml") as Record<string, unknown>;
    client.node = `tcp://127.0.0.1:${rpc}`;
    writeFileSync(join(home, "config", "client.toml"), stringify(client));
  }
  return { rpc, api: portOf(app.api.address), grpc: portOf(app.grpc.address) };
}

function tomlOf(home: string, file: string): Record<string, Record<string, unknown>> {
  return parse(readFileSync(join(home, "config", file), "utf8")) as Record<string, Record<string, unknown>>;
}

function withPorts(command: string, ports: Ports): string {
  let out = command;
  for (const k of ["rpc", "api", "grpc"] as const)
    out = out.replace(
      new RegExp(`(127\\.0\\.0\\.1|localhost):${DEFAULT_PORTS[k]}\\b`, "g"),
      `$1:${ports[k]}`,
    );
  return out;
}

/** Waits until the home the command names (`--home`, else DAEMON_HOME) serves height 2 on its RPC. */
async function waitForHeight(session: DocShellSession, command: string, pgid: number, where: string) {
  const word = /--home[= ]+(\S+)/.exec(command)?.[1] ?? "$DAEMON_HOME";
  const home = await session.expand(`"$(realpath -m ${word})"`);
  const bg = session.background.find((b) => b.pgid === pgid);
  const rpcPort = () => Number(String(tomlOf(home, "config.toml").rpc.laddr).split(":").at(-1));
  for (let i = 0; i < 1200; i++) {
    if (!alive(pgid))
      throw new Error(`${where}\nended before height 2:\n${tail(readFileSync(bg?.log ?? "", "utf8"))}`);
    try {
      const res = await fetch(`http://127.0.0.1:${rpcPort()}/status`);
      const body = (await res.json()) as { result?: { sync_info?: { latest_block_height?: string } } };
      if (Number(body.result?.sync_info?.latest_block_height ?? 0) >= 2) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${where}\nno height 2 after two minutes`);
}

function tail(text: string): string {
  return text.length > 3000 ? `...${text.slice(-3000)}` : text;
}
