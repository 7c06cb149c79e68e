import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listenOnPickedPorts } from "@chaind/harness/free-listener-ports";
import { DirectSecp256k1HdWallet } from "@cosmjs/proto-signing";
import { SigningStargateClient } from "@cosmjs/stargate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chaind, NodeProcess } from "../helpers/chaind-process.js";

interface Key {
  name: string;
  address: string;
  mnemonic: string;
}

describe("chaind CLI: a tx whose fee another account pays (--fee-payer, tx sign by each signer)", () => {
  let dir: string;
  let home: string;
  let node: NodeProcess;
  let rpc: string;
  let alice: Key;
  let bob: Key;
  let carol: Key;
  const cli = (...args: string[]) => chaind([...args, "--home", home, "--node", rpc]);
  const file = (name: string) => join(dir, name);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "fee-payer-cli-"));
    home = join(dir, "home");
    const made = await chaind(["testnet", "--home", home, "--chain-id", "payer-1", "--block-time", "200ms"]);
    expect(made.exitCode, made.stderr).toBe(0);
    const keys: Key[] = JSON.parse(made.stdout).keys;
    [alice, bob, carol] = ["alice", "bob", "carol"].map((n) => keys.find((k) => k.name === n)!);
    listenOnPickedPorts(home);
    node = new NodeProcess(home);
    rpc = (await node.waitFor(/\brpc listening address=(\S+)/))[1];
    await node.waitFor(/committed block .*height=2 /);
  });
  afterAll(async () => {
    node.proc.kill("SIGTERM");
    await node.proc;
    rmSync(dir, { recursive: true, force: true });
  });

  async function balance(address: string): Promise<bigint> {
    const r = await cli("query", "bank", "balances", address, "-o", "json");
    expect(r.exitCode, r.stderr).toBe(0);
    const coin = JSON.parse(r.stdout).balances.find((c: { denom: string }) => c.denom === "stake");
    return BigInt(coin?.amount ?? "0");
  }
  async function sequence(address: string): Promise<number> {
    const r = await cli("query", "auth", "account", address, "-o", "json");
    return Number(JSON.parse(r.stdout).account.sequence);
  }
  async function waitForTx(txhash: string) {
    for (;;) {
      const found = await cli("query", "tx", txhash, "-o", "json");
      if (found.exitCode === 0) return JSON.parse(found.stdout);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  /** alice sends carol 7stake; bob pays the fee (5000stake unless `fee` says otherwise). */
  async function generate(name: string, fee = ["--fees", "5000stake"]): Promise<string> {
    const gen = await cli(
      "tx",
      "bank",
      "send",
      "alice",
      carol.address,
      "7stake",
      "--fee-payer",
      bob.address,
      ...fee,
      "--generate-only",
    );
    expect(gen.exitCode, gen.stderr).toBe(0);
    writeFileSync(file(name), gen.stdout);
    return file(name);
  }
  async function sign(input: string, from: string, output: string) {
    const r = await cli("tx", "sign", input, "--from", from, "--output-document", file(output));
    expect(r.exitCode, r.stderr).toBe(0);
    return { path: file(output), stderr: r.stderr, doc: JSON.parse(readFileSync(file(output), "utf8")) };
  }

  it("refuses to sign and broadcast in one go when the payer is another account", async () => {
    const r = await cli(
      "tx",
      "bank",
      "send",
      "alice",
      carol.address,
      "7stake",
      "--fee-payer",
      bob.address,
      "--fees",
      "5000stake",
    );
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr.trim()).toBe(
      `Error: this transaction must be signed by ${alice.address} and ${bob.address}: make it with --generate-only, have each signer run \`chaind tx sign\` on the file, then \`chaind tx broadcast\` it`,
    );
    const bad = await cli("tx", "bank", "send", "alice", carol.address, "7stake", "--fee-payer", "sdk1nope");
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stderr).toMatch(/^Error: invalid fee payer address "sdk1nope"/);
  });

  it("generate-only, tx sign by alice and by bob, tx broadcast: bob pays the fee, both sequences advance", async () => {
    const unsigned = await generate("unsigned.json");
    const doc = JSON.parse(readFileSync(unsigned, "utf8"));
    expect(doc.auth_info.fee).toMatchObject({
      payer: bob.address,
      amount: [{ denom: "stake", amount: "5000" }],
    });

    const stranger = await cli("tx", "sign", unsigned, "--from", "carol");
    expect(stranger.exitCode).not.toBe(0);
    expect(stranger.stderr).toContain("tx intended signer does not match the given signer: carol");

    const before = { alice: await balance(alice.address), bob: await balance(bob.address) };
    const seq = { alice: await sequence(alice.address), bob: await sequence(bob.address) };
    // Neither key is on chain yet: alice's signature covers a payer slot without bob's key, so it is made again
    // once bob has put his key in.
    const a1 = await sign(unsigned, "alice", "a1.json");
    expect(a1.doc.auth_info.signer_infos).toHaveLength(2);
    expect(a1.doc.signatures).toHaveLength(2);
    expect(a1.doc.signatures[1]).toBe("");
    expect(a1.stderr).toBe(`signed for chain payer-1 by ${alice.address}\nstill to sign: ${bob.address}`);
    const partial = await cli("tx", "broadcast", a1.path);
    expect(partial.exitCode).not.toBe(0);
    expect(partial.stderr.trim()).toBe(
      `Error: transaction is not fully signed: still to sign: ${bob.address}`,
    );

    const b1 = await sign(a1.path, "bob", "b1.json");
    expect(b1.stderr).toContain(`the signatures of ${alice.address} no longer match and were removed`);
    expect(b1.doc.signatures[0]).toBe("");
    const a2 = await sign(b1.path, "alice", "a2.json");
    expect(a2.stderr).toBe(`signed for chain payer-1 by ${alice.address}`);
    expect(a2.doc.signatures[1]).toBe(b1.doc.signatures[1]);

    const sent = await cli("tx", "broadcast", a2.path, "-o", "json");
    expect(sent.exitCode, sent.stderr).toBe(0);
    const included = await waitForTx(JSON.parse(sent.stdout).txhash);
    expect(included.code).toBe(0);
    expect(await balance(alice.address)).toBe(before.alice - 7n);
    expect(await balance(bob.address)).toBe(before.bob - 5000n);
    expect(await sequence(alice.address)).toBe(seq.alice + 1);
    expect(await sequence(bob.address)).toBe(seq.bob + 1);

    // Now both keys are on chain: one signature each, in either order, nothing to make again.
    const again = await generate("again.json", ["--gas", "auto", "--gas-prices", "0.025stake"]);
    const gas = Number(JSON.parse(readFileSync(again, "utf8")).auth_info.fee.gas_limit);
    expect(gas).toBeGreaterThan(0);
    const b = await sign(again, "bob", "b.json");
    expect(b.stderr).toBe(`signed for chain payer-1 by ${bob.address}\nstill to sign: ${alice.address}`);
    const ab = await sign(b.path, "alice", "ab.json");
    expect(ab.stderr).toBe(`signed for chain payer-1 by ${alice.address}`);
    const sent2 = await cli("tx", "broadcast", ab.path, "-o", "json");
    expect(sent2.exitCode, sent2.stderr).toBe(0);
    expect((await waitForTx(JSON.parse(sent2.stdout).txhash)).code).toBe(0);
    expect(await balance(bob.address)).toBe(before.bob - 5000n - BigInt(Math.ceil(gas * 0.025)));
    // About twenty CLI runs, each a fresh process on a shared machine.
  }, 180_000);

  it("signs offline too: the other signer's slot is a placeholder until that signer fills it", async () => {
    const unsigned = await generate("offline.json");
    const numbers = async (who: Key) => {
      const r = await cli("query", "auth", "account", who.address, "-o", "json");
      const { account_number, sequence } = JSON.parse(r.stdout).account;
      return ["--offline", "-a", account_number, "-s", sequence, "--chain-id", "payer-1"];
    };
    const signOffline = async (input: string, who: Key, output: string) => {
      const r = await chaind([
        "tx",
        "sign",
        input,
        "--from",
        who.name,
        ...(await numbers(who)),
        "--output-document",
        file(output),
        "--home",
        home,
      ]);
      expect(r.exitCode, r.stderr).toBe(0);
      return { path: file(output), stderr: r.stderr };
    };
    const a = await signOffline(unsigned, alice, "off-a.json");
    expect(a.stderr).toBe(`signed for chain payer-1 by ${alice.address}\nstill to sign: ${bob.address}`);
    const ab = await signOffline(a.path, bob, "off-ab.json");
    expect(ab.stderr).toContain(`the signatures of ${alice.address} no longer match and were removed`);
    const aba = await signOffline(ab.path, alice, "off-aba.json");
    expect(aba.stderr).toBe(`signed for chain payer-1 by ${alice.address}`);
    const before = await balance(bob.address);
    const sent = await cli("tx", "broadcast", aba.path, "-o", "json");
    expect(sent.exitCode, sent.stderr).toBe(0);
    expect((await waitForTx(JSON.parse(sent.stdout).txhash)).code).toBe(0);
    expect(await balance(bob.address)).toBe(before - 5000n);
  }, 180_000);

  it("refuses stock CosmJS's attack over RPC: carol signs alone with fee.payer = bob", async () => {
    const wallet = await DirectSecp256k1HdWallet.fromMnemonic(carol.mnemonic, { prefix: "sdk" });
    const client = await SigningStargateClient.connectWithSigner(rpc, wallet);
    const bobBefore = await balance(bob.address);
    const carolBefore = await balance(carol.address);
    await expect(
      client.signAndBroadcast(
        carol.address,
        [
          {
            typeUrl: "/cosmos.bank.v1beta1.MsgSend",
            value: {
              fromAddress: carol.address,
              toAddress: carol.address,
              amount: [{ denom: "stake", amount: "1" }],
            },
          },
        ],
        { amount: [{ denom: "stake", amount: String(bobBefore) }], gas: "200000", payer: bob.address },
      ),
    ).rejects.toThrow(/code 4.*wrong number of signers; expected 2, got 1/s);
    const height = await client.getHeight();
    await node.waitFor(new RegExp(`committed block .*height=${height + 2} `));
    expect(await balance(bob.address)).toBe(bobBefore);
    expect(await balance(carol.address)).toBe(carolBefore);
    client.disconnect();
  });
});
