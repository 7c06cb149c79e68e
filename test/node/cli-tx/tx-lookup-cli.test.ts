import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  aliceSendArgs,
  chaind,
  type NodeProcess,
  startTestnet,
  stopNode,
  type TestnetKey,
} from "../helpers/chaind-process.js";

/** Issue 32: `query tx` and `query txs` as SDK 0.50's: the TxResponse with its decoded tx, found three ways; pages. */
describe("chaind query tx --type hash|acc_seq|signature, query txs --page --limit --order_by", () => {
  let dir: string;
  let home: string;
  let node: NodeProcess;
  let rpc: string;
  let alice: TestnetKey;
  let bob: TestnetKey;
  const sent: string[] = [];
  const query = (...args: string[]) =>
    chaind(["query", ...args, "--home", home, "--node", rpc, "-o", "json"]);
  const ok = async (...args: string[]) => {
    const r = await query(...args);
    expect(r.exitCode, `${args.join(" ")}: ${r.stderr}`).toBe(0);
    return JSON.parse(r.stdout);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "tx-lookup-cli-"));
    home = join(dir, "home");
    let keys: TestnetKey[];
    ({ node, rpc, keys } = await startTestnet(home, ["--chain-id", "lookup-1", "--block-time", "100ms"]));
    [alice, bob] = ["alice", "bob"].map((n) => keys.find((k) => k.name === n)!);
    for (let i = 0; i < 3; i++) {
      const r = await chaind([...aliceSendArgs(home, rpc, bob.address), "-o", "json"]);
      expect(r.exitCode, r.stderr).toBe(0);
      sent.push(JSON.parse(r.stdout).txhash);
    }
  }, 90_000);
  afterAll(async () => {
    await stopNode(node);
    rmSync(dir, { recursive: true, force: true });
  });

  it("query tx <hash> prints the TxResponse with the decoded tx under its @type", async () => {
    const r = await ok("tx", sent[0]);
    expect(r.txhash).toBe(sent[0]);
    expect(r.code).toBe(0);
    expect(Number(r.height)).toBeGreaterThan(0);
    expect(r.timestamp).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(r.tx["@type"]).toBe("/sdk.tx.v1beta1.Tx");
    expect(r.tx.body.messages[0]).toMatchObject({
      "@type": "/sdk.bank.v1beta1.MsgSend",
      from_address: alice.address,
      to_address: bob.address,
      amount: [{ denom: "stake", amount: "1" }],
    });
    expect(r.tx.signatures).toHaveLength(1);
    expect(r.events.some((e: { type: string }) => e.type === "transfer")).toBe(true);
  });

  it("--type acc_seq finds a tx by <addr>/<seq>, --type signature by its base64 signatures", async () => {
    const first = await ok("tx", sent[0]);
    const bySeq = await ok("tx", "--type", "acc_seq", `${alice.address}/1`);
    expect(bySeq.txhash).toBe(sent[1]);
    const bySig = await ok("tx", "--type", "signature", first.tx.signatures[0]);
    expect(bySig.txhash).toBe(sent[0]);
    expect(bySig.tx).toEqual(first.tx);

    const none = await query("tx", "--type", "acc_seq", `${alice.address}/99`);
    expect(none.exitCode).toBe(1);
    expect(none.stderr.trim()).toBe("Error: found no txs matching given address and sequence combination");
    const noSig = await query("tx", "--type", "signature", Buffer.alloc(64, 7).toString("base64"));
    expect(noSig.stderr.trim()).toBe("Error: found no txs matching given signatures");
    const empty = await query("tx", "--type", "acc_seq", "");
    expect(empty.stderr.trim()).toBe("Error: `acc_seq` type takes an argument '<addr>/<seq>'");
    const badType = await query("tx", "--type", "height", sent[0]);
    expect(badType.exitCode).toBe(1);
    expect(badType.stderr).toMatch(/invalid argument "height" for "--type" flag/);
  });

  it("query txs pages as the SDK's SearchTxsResult, in either order", async () => {
    const q = `message.sender='${alice.address}'`;
    const one = await ok("txs", "--query", q, "--limit", "2");
    expect(one).toMatchObject({
      total_count: "3",
      count: "2",
      page_number: "1",
      page_total: "2",
      limit: "2",
    });
    expect(one.txs.map((t: { txhash: string }) => t.txhash)).toEqual(sent.slice(0, 2));
    expect(one.txs[0].tx["@type"]).toBe("/sdk.tx.v1beta1.Tx");
    const two = await ok("txs", "--query", q, "--limit", "2", "--page", "2");
    expect(two).toMatchObject({ count: "1", page_number: "2", page_total: "2" });
    expect(two.txs[0].txhash).toBe(sent[2]);
    const desc = await ok("txs", "--query", q, "--order_by", "desc");
    expect(desc.txs.map((t: { txhash: string }) => t.txhash)).toEqual([...sent].reverse());
    expect(desc.limit).toBe("100");

    const page0 = await query("txs", "--query", q, "--page", "0");
    expect(page0.stderr.trim()).toBe("Error: page must be greater than 0");
    const order = await query("txs", "--query", q, "--order_by", "sideways");
    expect(order.stderr.trim()).toBe("Error: expected order_by to be either `asc` or `desc` or empty");
  });
});
