import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NodeRpcClient } from "@chaind/core/comet-rpc-client";
import { useCometbftEngine } from "@chaind/harness/free-listener-ports";
import { referenceBinary } from "@chaind/harness/reference-binaries";
import { execa } from "execa";
import { parse } from "smol-toml";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  aliceSendArgs,
  chaind,
  NodeProcess,
  stopNode,
  type TestnetKey,
} from "../node/helpers/chaind-process.js";

const cometbft = referenceBinary("cometbft");
if ("missing" in cometbft) console.log(`skipping the CometBFT crash tests: ${cometbft.missing}`);

/**
 * kill -9 of either process of a CometBFT node, in the middle of a block: the next start's handshake replays
 * what the App lacks, CometBFT checks the app hash it gets against the chain's, and nothing committed is lost.
 */
describe.skipIf("missing" in cometbft)("a CometBFT node killed in the middle of a block", () => {
  const bin = (cometbft as { path: string }).path;
  let dir: string;
  let home: string;
  let rpc: string;
  let bob: string;
  let node: NodeProcess | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cometbft-crash-"));
    home = join(dir, "home");
    const made = await chaind(["testnet", "--home", home, "--keys", "2"]);
    expect(made.exitCode, made.stderr).toBe(0);
    bob = (JSON.parse(made.stdout).keys as TestnetKey[]).find((k) => k.name === "bob")!.address;
    await useCometbftEngine(home);
    const config = parse(readFileSync(join(home, "config", "config.toml"), "utf8")) as {
      rpc: { laddr: string };
    };
    rpc = config.rpc.laddr.replace(/^tcp:/, "http:");
  }, 60_000);
  afterEach(async () => {
    await stopNode(node);
    node = undefined;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const start = (env?: Record<string, string>) => new NodeProcess(home, ["--cometbft", bin], env);
  const height = async () =>
    Number(
      (await new NodeRpcClient(rpc).call<{ sync_info: { latest_block_height: string } }>("status")).sync_info
        .latest_block_height,
    );
  const bobBalance = async () => {
    const r = await chaind([
      "query",
      "bank",
      "balances",
      bob,
      "--denom",
      "stake",
      "--node",
      rpc,
      "--output",
      "json",
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    return BigInt(JSON.parse(r.stdout).balance.amount);
  };
  const send = async () => {
    const r = await chaind(aliceSendArgs(home, rpc, bob));
    expect(r.exitCode, r.stderr).toBe(0);
  };
  /** CometBFT's "committed state" lines: the heights the App committed under it. */
  const committed = (n: NodeProcess) =>
    n.lines.flatMap((l) => {
      const m = l.match(/committed state\s+module=state height=(\d+)/);
      return m ? [Number(m[1])] : [];
    });

  /**
   * A start after the App fell one block behind CometBFT's store: the handshake hands it block `stored` again,
   * and blocks after it only commit if that gave the app hash the chain already recorded.
   */
  const restartReplaying = async (stored: number) => {
    node = start();
    await node.waitFor(
      new RegExp(`ABCI Replay Blocks\\s+module=consensus appHeight=${stored - 1} storeHeight=${stored}\\b`),
      60_000,
    );
    await node.waitFor(new RegExp(`committed state\\s+module=state height=${stored + 2}\\b`), 60_000);
    expect(node.lines.join("\n")).not.toMatch(/CONSENSUS FAILURE|wrong Block\.Header\.AppHash/);
  };

  it("chaind killed after running FinalizeBlock, before answering it: the handshake replays that block", async () => {
    node = start();
    await node.waitFor(/committed state\s+module=state height=2\b/, 60_000);
    await send();
    const balance = await bobBalance();
    const crashAt = (await height()) + 3;
    await stopNode(node);

    const crashing = start({ CHAIND_CRASH_AT: `block-executed@${crashAt}` });
    // The run ends when chaind is gone and CometBFT, its ABCI connections lost, has stopped too.
    const ended = await crashing.proc;
    expect(ended.signal ?? ended.exitCode, crashing.lines.slice(-5).join("\n")).toBe("SIGKILL");
    expect(Math.max(...committed(crashing))).toBe(crashAt - 1);

    // CometBFT stored block `crashAt`; the App is one block behind it.
    await restartReplaying(crashAt);
    expect(await bobBalance()).toBe(balance);
    await send();
    expect(await bobBalance()).toBe(balance + 1n);
  }, 240_000);

  it("chaind rollback takes the App and CometBFT back one block; the next start runs that block again", async () => {
    node = start();
    await node.waitFor(/committed state\s+module=state height=\d+/, 60_000);
    await send();
    const balance = await bobBalance();
    await stopNode(node);
    const last = Math.max(...committed(node));
    const stopped = JSON.parse((await chaind(["status", "--home", home])).stdout) as {
      sync_info: { latest_block_height: string };
    };
    const stored = Number(stopped.sync_info.latest_block_height);
    // Stopped between blocks, the App has run every block CometBFT stored.
    expect(stored).toBe(last);
    const rolled = await chaind(["rollback", "--home", home, "--cometbft", bin]);
    expect(rolled.exitCode, rolled.stderr).toBe(0);
    expect(rolled.stdout).toMatch(
      new RegExp(`^Rolled back state to height ${last - 1} and hash [0-9A-F]{64}$`),
    );

    await restartReplaying(last);
    expect(await bobBalance()).toBe(balance);

    // Refused while the node runs, naming why; nothing moves.
    const busy = await chaind(["rollback", "--home", home, "--cometbft", bin]);
    expect(busy.exitCode).not.toBe(0);
    expect(busy.stderr).toMatch(/cannot roll back while the node runs/);
  }, 240_000);

  it("cometbft killed while blocks are made: chaind stops with it, and both start again where they were", async () => {
    node = start();
    await node.waitFor(/committed state\s+module=state height=\d+/, 60_000);
    await send();
    const balance = await bobBalance();
    const before = await height();
    const found = await execa("pgrep", ["-f", `cometbft start --home ${home}`], { reject: false });
    const pid = Number(found.stdout.trim().split("\n")[0]);
    expect(pid, "the cometbft child of chaind").toBeGreaterThan(0);
    process.kill(pid, "SIGKILL");
    const ended = await node.proc;
    expect(ended.exitCode).not.toBe(0);
    expect(node.lines.join("\n")).toMatch(/cometbft ended on SIGKILL/);

    node = start();
    await node.waitFor(/committed state\s+module=state height=\d+/, 60_000);
    while ((await height()) < before + 3) await new Promise((r) => setTimeout(r, 200));
    expect(node.lines.join("\n")).not.toMatch(/CONSENSUS FAILURE|wrong Block\.Header\.AppHash/);
    expect(await bobBalance()).toBe(balance);
    await send();
    expect(await bobBalance()).toBe(balance + 1n);
  }, 240_000);
});
