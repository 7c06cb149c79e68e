import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chaind, NodeProcess, startTestnet, stopNode } from "../helpers/chaind-process.js";

const INTERVAL = 3;

/** Sets app.toml's [state-sync] snapshot settings of a home. */
function setSnapshots(home: string, interval: number, keepRecent: number): void {
  const file = join(home, "config", "app.toml");
  const text = readFileSync(file, "utf8")
    .replace(/^snapshot-interval = \d+$/m, `snapshot-interval = ${interval}`)
    .replace(/^snapshot-keep-recent = \d+$/m, `snapshot-keep-recent = ${keepRecent}`);
  writeFileSync(file, text);
}

const snapshotHash = (home: string, height: number) =>
  JSON.parse(readFileSync(join(home, "data", "snapshots", String(height), "1", "metadata.json"), "utf8"))
    .hash;

/** A home with the original chain's config (genesis, validator key), but no data: where a snapshot is restored. */
function freshHome(dir: string, name: string, from: string): string {
  const home = join(dir, name);
  mkdirSync(home);
  cpSync(join(from, "config"), join(home, "config"), { recursive: true });
  setSnapshots(home, 0, 2);
  return home;
}

// Each test works in a home of its own (or only reads the original's), so they run side by side.
describe.concurrent("chaind snapshots (real binary, real homes)", () => {
  let dir: string;
  let original: string;
  /** height -> app hash and block hash, from the original node's log. */
  const appHashes = new Map<number, string>();
  const blockHashes = new Map<number, string>();
  let completed: number[] = [];
  let refusedWhileRunning: Awaited<ReturnType<typeof chaind>>;
  let archive: string;
  let height: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "chaind-snapshots-cli-"));
    original = join(dir, "original");
    const { node } = await startTestnet(original, ["--block-time", "100ms", "--keys", "1"], {
      beforeStart: (home) => setSnapshots(home, INTERVAL, 2),
    });
    try {
      await node.waitFor(new RegExp(`completed state snapshot .*height=${3 * INTERVAL} `));
      refusedWhileRunning = await chaind(["snapshots", "export", "--home", original]);
    } finally {
      await stopNode(node);
    }
    for (const l of node.lines) {
      const c = l.match(/committed block .*height=(\d+) .*app_hash=([0-9A-F]+) block_hash=([0-9A-F]+)/);
      if (c) {
        appHashes.set(Number(c[1]), c[2]);
        blockHashes.set(Number(c[1]), c[3]);
      }
      const s = l.match(/completed state snapshot .*height=(\d+) /);
      if (s) completed.push(Number(s[1]));
    }
    completed = completed.sort((a, b) => b - a);
    height = completed[0];
    archive = join(dir, "snapshot.tar.gz");
    const dump = await chaind([
      "snapshots",
      "dump",
      String(height),
      "1",
      "--output",
      archive,
      "--home",
      original,
    ]);
    if (dump.exitCode !== 0 || dump.stdout !== archive)
      throw new Error(`snapshots dump failed: ${dump.stderr}`);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The app hash of the snapshot's height, as the operator read it off the original chain. */
  const trust = () => ["--trusted-app-hash", appHashes.get(height)!];

  it("restore refuses without an app hash to trust, and names the two ways to give one", async () => {
    const home = freshHome(dir, "untrusted", original);
    expect((await chaind(["snapshots", "load", archive, "--home", home])).exitCode).toBe(0);
    const r = await chaind(["snapshots", "restore", String(height), "1", "--home", home]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(
      `Error: nothing to check the snapshot's state against: give --trusted-app-hash <hex> (the app hash of height ${height},`,
    );
    expect(r.stderr).toContain("or --trust-node <rpc address>");
    const bad = await chaind([
      "snapshots",
      "restore",
      String(height),
      "1",
      "--trusted-app-hash",
      "00".repeat(32),
      "--home",
      home,
    ]);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain(
      `claims app hash ${appHashes.get(height)} at height ${height}, but --trusted-app-hash says it is ${"00".repeat(32)}`,
    );
    expect(readdirSync(join(home, "data")).sort()).toEqual(["snapshots"]);
  });

  it("--trust-node: header H+1 of a running node, checked against the genesis validators, vouches for the state; a changed state under the real app hash is refused", async () => {
    // The original chain, going on in a copy of its home: the node an operator would name.
    const source = join(dir, "source");
    cpSync(original, source, { recursive: true });
    setSnapshots(source, 0, 2);
    const node = new NodeProcess(source);
    try {
      const rpc = (await node.waitFor(/\brpc listening address=(\S+)/))[1];
      await node.waitFor(/committed block /);
      const home = freshHome(dir, "via-node", original);
      expect((await chaind(["snapshots", "load", archive, "--home", home])).exitCode).toBe(0);
      const ok = await chaind([
        "snapshots",
        "restore",
        String(height),
        "1",
        "--trust-node",
        rpc,
        "--home",
        home,
      ]);
      expect(ok.exitCode, ok.stderr).toBe(0);
      expect(ok.stdout).toContain(`app hash ${appHashes.get(height)}`);

      // A snapshot whose state was changed, with every chunk hash made anew and the real app hash claimed.
      const forged = freshHome(dir, "forged", original);
      expect((await chaind(["snapshots", "load", archive, "--home", forged])).exitCode).toBe(0);
      const folder = join(forged, "data", "snapshots", String(height), "1");
      const chunk = readFileSync(join(folder, "0"));
      const stake = Buffer.from("stake");
      const at = chunk.lastIndexOf(stake);
      expect(at).toBeGreaterThan(0);
      chunk[at - 1] ^= 0x01; // a byte of a stored value changed (a balance raised)
      writeFileSync(join(folder, "0"), chunk);
      const digest = createHash("sha256").update(chunk).digest("hex");
      const meta = JSON.parse(readFileSync(join(folder, "metadata.json"), "utf8"));
      writeFileSync(
        join(folder, "metadata.json"),
        JSON.stringify({ ...meta, hash: digest, chunk_hashes: [digest] }),
      );
      const refused = await chaind([
        "snapshots",
        "restore",
        String(height),
        "1",
        "--trust-node",
        rpc,
        "--home",
        forged,
      ]);
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toMatch(
        new RegExp(
          `^Error: cannot restore snapshot: snapshot ${height}/1 is not the state it claims: the state imported hashes to app hash [0-9A-F]{64}, not the ${appHashes.get(height)} it was to have at height ${height} \\(header ${height + 1} of .*, signed by the genesis validators\\)`,
        ),
      );
      expect(readdirSync(join(forged, "data")).sort()).toEqual(["snapshots"]);
    } finally {
      await stopNode(node);
    }
  });

  it("takes a snapshot at every multiple of snapshot-interval and keeps snapshot-keep-recent of them", async () => {
    expect(completed.length).toBeGreaterThanOrEqual(3);
    expect(completed.every((h) => h % INTERVAL === 0)).toBe(true);
    const list = await chaind(["snapshots", "list", "--home", original]);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.stdout.split("\n")).toEqual(
      completed.slice(0, 2).map((h) => `height: ${h} format: 1 chunks: 1`),
    );
  });

  it("refuses to open the database of a running node, in one line", () => {
    expect(refusedWhileRunning.exitCode).toBe(1);
    expect(refusedWhileRunning.stderr).toMatch(
      /^Error: cannot export snapshot: database folder .*application\.db is locked by another process \(is a node already running with this home\?\)$/,
    );
  });

  it("dump -> load into a fresh home -> restore gives the app hash at H, and the node goes on from H+1", async () => {
    const home = freshHome(dir, "restored", original);
    const load = await chaind(["snapshots", "load", archive, "--home", home]);
    expect(load.exitCode, load.stderr).toBe(0);
    expect(load.stdout).toBe(`height: ${height} format: 1 chunks: 1`);
    const restore = await chaind(["snapshots", "restore", String(height), "1", ...trust(), "--home", home]);
    expect(restore.exitCode, restore.stderr).toBe(0);
    expect(restore.stdout).toMatch(
      new RegExp(
        `^Snapshot restored at height ${height}, format 1: \\d+ keys, app hash ${appHashes.get(height)}$`,
      ),
    );

    const node = new NodeProcess(home);
    type RpcBlock = { block: { header: { app_hash: string; last_block_id: { hash: string } } } };
    let block: RpcBlock;
    try {
      const rpc = (await node.waitFor(/\brpc listening address=(\S+)/))[1].replace(/^tcp:/, "http:");
      await node.waitFor(new RegExp(`committed block .*height=${height + 2} `));
      block = ((await (await fetch(`${rpc}/block?height=${height + 1}`)).json()) as { result: RpcBlock })
        .result;
    } finally {
      await stopNode(node);
    }
    // Block H+1 carries the app hash of H and names block H: the restored node continues the original chain.
    expect(block.block.header.app_hash).toBe(appHashes.get(height));
    expect(block.block.header.last_block_id.hash).toBe(blockHashes.get(height));
    // Like a CometBFT node after state sync, its block store starts at the snapshot's block.
    const status = await chaind(["status", "--home", home]);
    expect(JSON.parse(status.stdout).sync_info).toMatchObject({
      earliest_block_height: String(height),
      earliest_block_hash: blockHashes.get(height),
    });

    // The restored state at H is the original's, byte for byte: exporting it again gives the same snapshot.
    const del = await chaind(["snapshots", "delete", String(height), "1", "--home", home]);
    expect(del.exitCode, del.stderr).toBe(0);
    expect((await chaind(["snapshots", "list", "--home", home])).stdout).toBe("");
    const again = await chaind(["snapshots", "export", "--height", String(height), "--home", home]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toBe(`Snapshot created at height ${height}, format 1, chunks 1`);
    expect(snapshotHash(home, height)).toBe(snapshotHash(original, height));

    const twice = await chaind(["snapshots", "restore", String(height), "1", ...trust(), "--home", home]);
    expect(twice.exitCode).toBe(1);
    expect(twice.stderr).toMatch(
      /^Error: cannot restore snapshot: cannot restore into .* it already holds a chain; .*$/,
    );
  });

  it("refuses a corrupted chunk by name and leaves the home fresh, so an intact snapshot restores after", async () => {
    const home = freshHome(dir, "corrupted", original);
    expect((await chaind(["snapshots", "load", archive, "--home", home])).exitCode).toBe(0);
    const chunk = join(home, "data", "snapshots", String(height), "1", "0");
    const bytes = readFileSync(chunk);
    bytes[bytes.length >> 1] ^= 0x01;
    writeFileSync(chunk, bytes);
    const restore = await chaind(["snapshots", "restore", String(height), "1", ...trust(), "--home", home]);
    expect(restore.exitCode).toBe(1);
    expect(restore.stderr).toMatch(
      new RegExp(
        `^Error: cannot restore snapshot: chunk 0 of snapshot ${height}/1 is corrupted: sha256 [0-9a-f]{64}, expected [0-9a-f]{64} \\(.*\\)\\n?$`,
      ),
    );
    const dump = await chaind([
      "snapshots",
      "dump",
      String(height),
      "1",
      "--output",
      join(dir, "bad.tar.gz"),
      "--home",
      home,
    ]);
    expect(dump.exitCode).toBe(1);
    expect(dump.stderr).toMatch(/^Error: cannot dump snapshot: chunk 0 of snapshot .* is corrupted/);

    expect((await chaind(["snapshots", "delete", String(height), "1", "--home", home])).exitCode).toBe(0);
    expect((await chaind(["snapshots", "load", archive, "--home", home])).exitCode).toBe(0);
    const intact = await chaind(["snapshots", "restore", String(height), "1", ...trust(), "--home", home]);
    expect(intact.exitCode, intact.stderr).toBe(0);
  });

  it("refuses unknown snapshots, bad numbers and a file that is no snapshot archive, in one line each", async () => {
    const cases: [string[], RegExp][] = [
      [["delete", "999", "1"], /^Error: cannot delete snapshot: snapshot 999\/1 not found in /],
      [["restore", "x", "1"], /^Error: height must be a positive integer, got x$/],
      [
        ["export", "--height", "999999"],
        /^Error: cannot export snapshot: cannot snapshot height 999999: .*in the future/,
      ],
      [
        ["load", join(original, "config", "app.toml")],
        /^Error: cannot load snapshot: cannot read snapshot archive /,
      ],
    ];
    for (const [args, re] of cases) {
      const r = await chaind(["snapshots", ...args, "--home", original]);
      expect(r.exitCode, args.join(" ")).toBe(1);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toMatch(re);
    }
  });
});
