import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listenOnPickedPorts } from "@chaind/harness/free-listener-ports";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chaind, NodeProcess } from "../helpers/chaind-process.js";

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
    const made = await chaind(["testnet", "--home", home, "--keys", "1", "--block-time", "200ms"]);
    expect(made.exitCode, made.stderr).toBe(0);
    mnemonic = JSON.parse(made.stdout).keys.find((k: { name: string }) => k.name === "alice").mnemonic;
    listenOnPickedPorts(home);
    node = new NodeProcess(home);
    rpc = (await node.waitFor(/\brpc listening address=(\S+)/))[1].replace(/^tcp:/, "http:");
    await node.waitFor(/committed block .*height=2 /);
  });
  afterAll(async () => {
    node.proc.kill("SIGTERM");
    await node.proc;
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
