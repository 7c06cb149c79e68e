import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@chaind/harness/free-listener-ports";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chaind, NodeProcess, stopNode } from "../helpers/chaind-process.js";

/** Issue 32: `chaind start` takes simd's listen-address and pruning flags, over app.toml / config.toml for that run. */
describe("chaind start --rpc.laddr --grpc.address --api.address --pruning ...", () => {
  let dir: string;
  let home: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "start-flags-"));
    home = join(dir, "home");
    const made = await chaind(["testnet", "--home", home, "--chain-id", "flags-1", "--block-time", "100ms"]);
    expect(made.exitCode, made.stderr).toBe(0);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("listens where the flags say and prunes as they say", async () => {
    const [rpcPort, grpcPort, apiPort] = [await freePort(), await freePort(), await freePort()];
    const node = new NodeProcess(home, [
      ...["--rpc.laddr", `tcp://127.0.0.1:${rpcPort}`, "--grpc.address", `127.0.0.1:${grpcPort}`],
      ...["--api.address", `tcp://127.0.0.1:${apiPort}`],
      ...["--pruning", "custom", "--pruning-keep-recent", "2", "--pruning-interval", "10"],
    ]);
    try {
      expect((await node.waitFor(/\brpc listening address=(\S+)/))[1]).toBe(`http://127.0.0.1:${rpcPort}`);
      expect((await node.waitFor(/\bgrpc listening address=(\S+)/))[1]).toBe(`127.0.0.1:${grpcPort}`);
      expect((await node.waitFor(/\bapi listening address=(\S+)/))[1]).toBe(`http://127.0.0.1:${apiPort}`);
      // app.toml keeps every state (testnet's pruning = "nothing"); the flags prune all but the last 2 at 10, 20, ...
      await node.waitFor(/committed block .*height=12 /, 60_000);
      const rpc = `http://127.0.0.1:${rpcPort}`;
      const old = await chaind(["query", "bank", "total", "--height", "3", "--home", home, "--node", rpc]);
      expect(old.exitCode).toBe(1);
      expect(old.stderr).toMatch(/pruned|not available|height 3/i);
      const latest = await chaind(["query", "bank", "total", "--home", home, "--node", rpc, "-o", "json"]);
      expect(latest.exitCode, latest.stderr).toBe(0);
    } finally {
      await stopNode(node);
    }
  }, 90_000);

  it("refuses a bad value naming the flag, before opening the store", async () => {
    const r = await chaind([
      ...["start", "--home", home],
      ...["--pruning", "custom", "--pruning-keep-recent", "5", "--pruning-interval", "3"],
    ]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(
      /^Error: cannot start node: command line: --pruning-interval: expected a whole number ≥ 10/,
    );
    const choice = await chaind(["start", "--home", home, "--pruning", "sometimes"]);
    expect(choice.exitCode).toBe(1);
    expect(choice.stderr).toMatch(/command line: --pruning: expected one of/);
  });
});
