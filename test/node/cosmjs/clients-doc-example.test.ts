import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NodeProcess, startTestnet, stopNode } from "../helpers/chaind-process.js";

const EXAMPLE = join(import.meta.dirname, "..", "..", "..", "examples", "cosmjs-wallet.mjs");

/** docs/CLIENTS.md points wallet and script authors at this example: it must run as the doc says. */
describe("docs/CLIENTS.md's CosmJS example, run as a user runs it against a testnet home", () => {
  let dir: string;
  let home: string;
  let node: NodeProcess;
  let rpc: string;
  let mnemonic: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "clients-doc-"));
    home = join(dir, "home");
    const started = await startTestnet(home, ["--keys", "1", "--block-time", "200ms"]);
    node = started.node;
    rpc = started.rpc.replace(/^tcp:/, "http:");
    mnemonic = started.keys.find((k) => k.name === "alice")!.mnemonic;
  });
  afterAll(async () => {
    await stopNode(node);
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads the chain, sends with an auto fee in direct and amino JSON, and reads gov v1beta1", async () => {
    const run = await execa("node", [EXAMPLE, rpc, mnemonic], { reject: false, all: true });
    expect(run.exitCode, run.all).toBe(0);
    const lines = run.stdout.split("\n");
    expect(lines[0]).toMatch(/^chain testnet-1 at height \d+$/);
    expect(lines).toContainEqual(
      expect.stringMatching(/^direct: sent 1000stake to sdk1\w+ in block \d+ \(gas \d+\)$/),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^amino-json: sent 1stake in block \d+$/));
    expect(lines).toContainEqual(expect.stringMatching(/holds \[\{"denom":"stake","amount":"1001"\}\]$/));
    expect(lines).toContain("gov v1beta1: 0 proposal(s)");
    expect(lines).toContain("gov v1beta1: voting period 10s");
  });
});
