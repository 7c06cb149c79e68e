import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@chaind/core/logger";
import { useFreeListenerPorts } from "@chaind/harness/free-listener-ports";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BlockStore } from "../../../node/src/consensus/block-store.js";
import { StateStore } from "../../../node/src/store/state-store.js";
import { aliceSendArgs, chaind, NodeProcess } from "../helpers/chaind-process.js";

describe("chaind as a process", () => {
  let home: string;

  beforeEach(async () => {
    home = join(mkdtempSync(join(tmpdir(), "chaind-proc-")), "home");
    const r = await chaind(["testnet", "--home", home, "--block-time", "100ms", "--keys", "1"]);
    expect(r.exitCode, r.stderr).toBe(0);
    await useFreeListenerPorts(home);
  });

  afterEach(() => rmSync(join(home, ".."), { recursive: true, force: true }));

  it("starts, advances blocks, stops cleanly on SIGTERM and continues the same chain", async () => {
    const first = new NodeProcess(home);
    await first.waitFor(/committed block .*height=3 /);
    first.proc.kill("SIGTERM");
    const r = await first.proc;
    expect(r.exitCode).toBe(0);
    // The whole stop ran (servers closed, store closed), not an exit with work still pending.
    expect(first.lines.join("\n")).toMatch(/node stopped height=\d+/);
    const last = Math.max(...first.committed().keys());

    const second = new NodeProcess(home);
    const m = await second.waitFor(/committed block .*height=(\d+) /);
    expect(Number(m[1])).toBe(last + 1);
    second.proc.kill("SIGINT");
    expect((await second.proc).exitCode).toBe(0);
  });

  it("ends with exit 0 when the stop signal comes again while it stops (a terminal's copy, then visor's)", async () => {
    const node = new NodeProcess(home);
    await node.waitFor(/committed block .*height=2 /);
    node.proc.kill("SIGINT");
    // Copies keep coming until the process is gone, so one lands after the node closed its store.
    const again = setInterval(() => node.proc.kill("SIGINT"), 1);
    const r = await node.proc.finally(() => clearInterval(again));
    const output = node.lines.join("\n");
    expect(r.signal, output).toBeUndefined();
    expect(r.exitCode, output).toBe(0);
    expect(output).toMatch(/node stopped height=\d+/);
  });

  it("fails with one line when a listener's port is taken, and exits: the listeners it had started are closed", async () => {
    const apiPort = Number(
      /tcp:\/\/127\.0\.0\.1:(\d+)/.exec(readFileSync(join(home, "config/app.toml"), "utf8"))![1],
    );
    const squatter = createServer();
    await new Promise<void>((r) => squatter.listen(apiPort, "127.0.0.1", r));
    try {
      const r = await chaind(["start", "--home", home]);
      expect(r.exitCode).toBe(1);
      const errors = r.stderr.split("\n").filter((l) => l.startsWith("Error:"));
      expect(errors, r.stderr).toHaveLength(1);
      expect(errors[0]).toMatch(new RegExp(`cannot start node: listen EADDRINUSE.*:${apiPort}$`));
    } finally {
      squatter.close();
    }
  });

  it("runs and stops cleanly with the RPC switched off (empty rpc.laddr), serving the other listeners", async () => {
    const configToml = join(home, "config/config.toml");
    writeFileSync(
      configToml,
      readFileSync(configToml, "utf8").replace(/^laddr = "tcp:\/\/127[^"]*"$/m, 'laddr = ""'),
    );
    const node = new NodeProcess(home);
    await node.waitFor(/committed block .*height=2 /);
    expect(node.lines.join("\n")).not.toMatch(/\brpc listening/);
    expect(node.lines.join("\n")).toMatch(/\bgrpc listening/);
    node.proc.kill("SIGTERM");
    const r = await node.proc;
    expect(r.exitCode, node.lines.join("\n")).toBe(0);
    expect(node.lines.join("\n")).toMatch(/node stopped height=\d+/);
  });

  it("starts its signature thread with the first signature it can check ahead (the build's own code, libsecp256k1); none on noble", async () => {
    const to = JSON.parse((await chaind(["keys", "list", "--home", home, "-o", "json"])).stdout)[0].address;
    const envs: Record<string, string>[] = [{}, { CHAIND_SECP256K1: "noble" }];
    for (const env of envs) {
      const node = new NodeProcess(home, [], env);
      const rpc = (await node.waitFor(/\brpc listening address=(\S+)/))[1];
      // The second send's signer has signed before: its check is the first the node can make ahead.
      for (let i = 0; i < 2; i++) {
        const sent = await chaind(aliceSendArgs(home, rpc, to));
        expect(sent.exitCode, sent.stderr).toBe(0);
      }
      if (env.CHAIND_SECP256K1 === undefined)
        await node.waitFor(/signature thread ready .*library=libsecp256k1/);
      node.proc.kill("SIGTERM");
      const r = await node.proc;
      expect(r.exitCode, node.lines.join("\n")).toBe(0);
      if (env.CHAIND_SECP256K1 === "noble") expect(node.lines.join("\n")).not.toMatch(/signature thread/);
      expect(node.lines.join("\n")).not.toMatch(/could not be loaded|signature thread (failed|exited)/);
    }
  });

  it("refuses a second node on the same home with a clear error", async () => {
    const first = new NodeProcess(home);
    await first.waitFor(/committed block/);
    const second = await chaind(["start", "--home", home]);
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toMatch(/locked by another process/);
    expect(second.stderr.trim().split("\n")).toHaveLength(1);
    first.proc.kill("SIGTERM");
    await first.proc;
  });

  it("loses no committed block across kill -9 and keeps every app hash", async () => {
    const logged = new Map<number, string>();
    for (let round = 0; round < 3; round++) {
      const node = new NodeProcess(home);
      const start = await node.waitFor(/committed block .*height=(\d+) /);
      const target = Number(start[1]) + 2 + round;
      await node.waitFor(new RegExp(`committed block .*height=${target} `));
      // Land the kill somewhere inside the next block time, not on a line boundary.
      await new Promise((r) => setTimeout(r, 17 * (round + 1)));
      node.proc.kill("SIGKILL");
      await node.proc;
      for (const [h, hash] of node.committed()) {
        if (logged.has(h))
          expect(hash, `height ${h} committed twice with different hashes`).toBe(logged.get(h));
        logged.set(h, hash);
      }
    }
    const store = await StateStore.open(
      {
        dir: join(home, "data", "application.db"),
        pruning: { strategy: "nothing", keepRecent: 0, interval: 0 },
      },
      { logger: silentLogger },
    );
    try {
      const blocks = await BlockStore.open(store);
      const top = store.latestHeight;
      expect(top).toBeGreaterThanOrEqual(Math.max(...logged.keys()));
      for (let h = 2; h <= top; h++) {
        const meta = await blocks.meta(h);
        expect(meta, `block ${h} missing`).toBeDefined();
        const prevHash = logged.get(h - 1);
        // A block's header carries the app hash of the block before it: the chain of hashes is unbroken.
        if (prevHash) expect(Buffer.from(meta!.header!.appHash).toString("hex").toUpperCase()).toBe(prevHash);
      }
      if (logged.has(top))
        expect(Buffer.from(store.latestAppHash).toString("hex").toUpperCase()).toBe(logged.get(top));
    } finally {
      await store.close();
    }
  });
});
