import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chaind, type NodeProcess, startTestnet, stopNode } from "../helpers/chaind-process.js";

/**
 * A keys-only wallet home (no client.toml, so no chain id) pointed at a node: the CLI must not take the chain id
 * from the node, which may be of any chain, and sign for it; the SDK's CLI refuses too.
 */
describe("a CLI without a chain id signs nothing", () => {
  let dir: string;
  let node: NodeProcess;
  let rpc: string;
  let wallet: string;
  let unsigned: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "chain-id-"));
    const chain = join(dir, "chain");
    const started = await startTestnet(chain, ["--keys", "1", "--block-time", "200ms"]);
    node = started.node;
    rpc = started.rpc;
    const alice = started.keys.find((k) => k.name === "alice")!;
    wallet = join(dir, "wallet");
    const add = await chaind(
      ["keys", "add", "alice", "--recover", "--keyring-backend", "test", "--home", wallet],
      { input: `${alice.mnemonic}\n` },
    );
    expect(add.exitCode, add.stderr).toBe(0);
    const gen = await chaind([
      ...["tx", "bank", "send", "alice", alice.address, "1stake", "--generate-only"],
      ...["--fees", "100stake", "--home", chain],
    ]);
    expect(gen.exitCode, gen.stderr).toBe(0);
    unsigned = join(dir, "unsigned.json");
    writeFileSync(unsigned, gen.stdout);
  });
  afterAll(async () => {
    await stopNode(node);
    rmSync(dir, { recursive: true, force: true });
  });

  it("tx sign and tx bank send refuse with the SDK's message; with --chain-id, tx sign names the chain it signed for", async () => {
    const common = ["--keyring-backend", "test", "--home", wallet, "--node", rpc];
    const sign = await chaind(["tx", "sign", unsigned, "--from", "alice", ...common]);
    expect(sign.exitCode).toBe(1);
    expect(sign.stderr.trim()).toBe("Error: chain ID required but not specified");
    expect(sign.stdout).toBe("");
    const send = await chaind([
      "tx",
      "bank",
      "send",
      "alice",
      "sdk1qurswpc8qurswpc8qurswpc8qurswpc8x6td85",
      "1stake",
      "--fees",
      "100stake",
      ...common,
    ]);
    expect(send.exitCode).toBe(1);
    expect(send.stderr.trim()).toBe("Error: chain ID required but not specified");

    const named = await chaind([
      "tx",
      "sign",
      unsigned,
      "--from",
      "alice",
      "--chain-id",
      "testnet-1",
      ...common,
    ]);
    expect(named.exitCode, named.stderr).toBe(0);
    expect(named.stderr).toMatch(/^signed for chain testnet-1 by sdk1\w+$/);
    expect(JSON.parse(named.stdout).signatures).toHaveLength(1);
    expect(readFileSync(unsigned, "utf8")).not.toBe(named.stdout);
  });
});
