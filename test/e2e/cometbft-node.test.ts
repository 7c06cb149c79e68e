import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NodeRpcClient } from "@chaind/core/comet-rpc-client";
import { useCometbftEngine } from "@chaind/harness/free-listener-ports";
import { referenceBinary } from "@chaind/harness/reference-binaries";
import { Secp256k1HdWallet } from "@cosmjs/amino";
import { DirectSecp256k1HdWallet } from "@cosmjs/proto-signing";
import { GasPrice, SigningStargateClient, StargateClient } from "@cosmjs/stargate";
import { parse } from "smol-toml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { abciFrame } from "../../node/src/abci/abci-frames.js";
import { GrpcNodeQuery } from "../../supervisor/src/daemon/node-query-grpc.js";
import { abciClient } from "../node/helpers/abci-client.js";
import { chaind, NodeProcess, stopNode, type TestnetKey } from "../node/helpers/chaind-process.js";

const cometbft = referenceBinary("cometbft");
if ("missing" in cometbft) console.log(`skipping the CometBFT node tests: ${cometbft.missing}`);

/** The real cometbft v0.38 drives chaind over ABCI on one home; clients use CometBFT's RPC and chaind's REST/gRPC. */
describe.skipIf("missing" in cometbft)("one validator under CometBFT", () => {
  let dir: string;
  let home: string;
  let node: NodeProcess;
  let rpc: string;
  let api: string;
  let grpc: string;
  let keys: TestnetKey[];
  const key = (name: string) => keys.find((k) => k.name === name)!;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cometbft-node-"));
    home = join(dir, "home");
    const made = await chaind(["testnet", "--home", home, "--keys", "2"]);
    expect(made.exitCode, made.stderr).toBe(0);
    keys = JSON.parse(made.stdout).keys;
    await useCometbftEngine(home);
    // Snapshots on: under CometBFT they are of the state only (format 2), for peers that state-sync.
    const appToml = join(home, "config", "app.toml");
    writeFileSync(
      appToml,
      readFileSync(appToml, "utf8").replace(/^snapshot-interval = 0$/m, "snapshot-interval = 2"),
    );
    const config = parse(readFileSync(join(home, "config", "config.toml"), "utf8")) as {
      rpc: { laddr: string };
    };
    const app = parse(readFileSync(join(home, "config", "app.toml"), "utf8")) as {
      api: { address: string };
      grpc: { address: string };
    };
    rpc = config.rpc.laddr.replace(/^tcp:/, "http:");
    api = app.api.address.replace(/^tcp:/, "http:");
    grpc = app.grpc.address;
    node = new NodeProcess(home, ["--cometbft", (cometbft as { path: string }).path]);
    // CometBFT's own log line: the chain's second block is committed.
    await node.waitFor(/committed state\s+module=state height=2\b/, 60_000);
  }, 90_000);
  afterAll(async () => {
    await stopNode(node);
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs CometBFT beside chaind: InitChain with the genesis validator, CometBFT's RPC reports chaind's app", async () => {
    expect(node.lines.join("\n")).toMatch(/InitChain .*validators=1/);
    // chaind's own lines about snapshots (CometBFT names its snapshot connection too).
    await node.waitFor(/completed state snapshot module=snapshots height=2 format=2 chunks=1/, 30_000);
    expect(existsSync(join(home, "data", "snapshots", "2", "2", "metadata.json"))).toBe(true);
    const status = await new NodeRpcClient(rpc).call<{
      node_info: { network: string; version: string };
      validator_info: { voting_power: string };
    }>("status");
    expect(status.node_info.network).toBe("testnet-1");
    expect(status.node_info.version).toBe("0.38.26");
    // The testnet validator bonds 100000000000stake: power 100000, as tokens / 10^6.
    expect(status.validator_info.voting_power).toBe("100000");
    const info = await new NodeRpcClient(rpc).call<{ response: { data: string; version: string } }>(
      "abci_info",
    );
    expect(info.response.data).toBe("chaind");
  });

  it("stock CosmJS sends in direct and amino JSON through CometBFT's RPC, and reads balances and the plan", async () => {
    const bob = key("bob").address;
    const direct = await DirectSecp256k1HdWallet.fromMnemonic(key("alice").mnemonic, { prefix: "sdk" });
    const client = await SigningStargateClient.connectWithSigner(rpc, direct, {
      gasPrice: GasPrice.fromString("0.0001stake"),
    });
    const before = BigInt((await client.getBalance(bob, "stake")).amount);
    const sent = await client.sendTokens(
      key("alice").address,
      bob,
      [{ denom: "stake", amount: "777" }],
      "auto",
    );
    expect(sent.code, sent.rawLog).toBe(0);
    const amino = await Secp256k1HdWallet.fromMnemonic(key("alice").mnemonic, { prefix: "sdk" });
    const aminoClient = await SigningStargateClient.connectWithSigner(rpc, amino, {
      gasPrice: GasPrice.fromString("0.0001stake"),
    });
    const aminoSent = await aminoClient.sendTokens(
      key("alice").address,
      bob,
      [{ denom: "stake", amount: "5" }],
      "auto",
    );
    expect(aminoSent.code, aminoSent.rawLog).toBe(0);
    expect(BigInt((await client.getBalance(bob, "stake")).amount)).toBe(before + 782n);
    const plan = await (await fetch(`${api}/cosmos/upgrade/v1beta1/current_plan`)).json();
    expect(plan).toEqual({ plan: null });
    client.disconnect();
    aminoClient.disconnect();

    // REST and gRPC (chaind's) agree with CometBFT's RPC on the tx and on the chain's heights.
    const found = (await (await fetch(`${api}/cosmos/tx/v1beta1/txs/${sent.transactionHash}`)).json()) as {
      tx_response: unknown;
    };
    expect(found.tx_response).toMatchObject({
      height: String(sent.height),
      code: 0,
      txhash: sent.transactionHash,
    });
    const reader = await StargateClient.connect(rpc);
    const byRpc = await reader.getBlock(sent.height);
    const byRest = (await (
      await fetch(`${api}/cosmos/base/tendermint/v1beta1/blocks/${sent.height}`)
    ).json()) as {
      block_id: { hash: string };
      block: { data: { txs: string[] } };
    };
    expect(Buffer.from(byRest.block_id.hash, "base64").toString("hex").toUpperCase()).toBe(byRpc.id);
    expect(byRest.block.data.txs.length).toBe(byRpc.txs.length);
    const rpcHeight = await reader.getHeight();
    const grpcQuery = new GrpcNodeQuery(grpc);
    try {
      const grpcHeight = await grpcQuery.height();
      expect(grpcHeight).toBeGreaterThanOrEqual(rpcHeight);
      expect(grpcHeight - rpcHeight).toBeLessThan(20);
    } finally {
      grpcQuery.close();
    }
    const searched = await fetch(`${api}/cosmos/tx/v1beta1/txs?query=tx.height%3D${sent.height}`);
    const search = (await searched.json()) as { tx_responses: { txhash: string }[] };
    expect(search.tx_responses.map((t) => t.txhash)).toContain(sent.transactionHash);
    reader.disconnect();
  });

  it("bad frames a stranger sends to proxy_app each get an exception and a closed connection; the chain goes on", async () => {
    const { proxy_app } = parse(readFileSync(join(home, "config", "config.toml"), "utf8")) as {
      proxy_app: string;
    };
    const committed = () =>
      Math.max(
        0,
        ...node.lines.flatMap((l) => {
          const m = l.match(/committed state\s+module=state height=(\d+)/);
          return m ? [Number(m[1])] : [];
        }),
      );
    const before = committed();
    const overLimit = 200 * 1024 * 1024;
    const varint = (n: number) => {
      const out: number[] = [];
      for (; n >= 0x80; n = Math.floor(n / 0x80)) out.push((n % 0x80) | 0x80);
      return Buffer.from([...out, n]);
    };
    const cases: [Buffer, RegExp][] = [
      [abciFrame(Uint8Array.of(0x0a, 0xff, 0xff)), /^cannot decode ABCI request/],
      [abciFrame(new Uint8Array()), /^unknown ABCI request$/],
      [varint(overLimit), new RegExp(`^an ABCI message of ${overLimit} bytes is over the \\d+ allowed$`)],
    ];
    for (const [bytes, error] of cases) {
      const c = await abciClient(proxy_app);
      c.socket.write(bytes);
      await c.until(() => c.closed());
      expect(c.closed()).toBe(true);
      expect(c.responses.map((r) => r.value.case)).toEqual(["exception"]);
      expect((c.responses[0].value.value as { error: string }).error).toMatch(error);
    }
    // CometBFT's own four connections were never touched: blocks keep committing, queries keep answering.
    await node.waitFor(new RegExp(`committed state\\s+module=state height=${before + 2}\\b`), 30_000);
    expect(committed()).toBeGreaterThanOrEqual(before + 2);
    const info = await new NodeRpcClient(rpc).call<{ response: { data: string } }>("abci_info");
    expect(info.response.data).toBe("chaind");
  });

  it("stopped, `chaind status --home` answers from CometBFT's block store, as the running node's RPC did", async () => {
    const first = await new NodeRpcClient(rpc).call<{ block_id: { hash: string } }>("block", { height: "1" });
    await stopNode(node);
    const committed = node.lines.flatMap((l) => {
      const m = l.match(/committed state\s+module=state height=(\d+)/);
      return m ? [Number(m[1])] : [];
    });
    const last = Math.max(...committed);
    const r = await chaind(["status", "--home", home]);
    expect(r.exitCode, r.stderr).toBe(0);
    const status = JSON.parse(r.stdout) as {
      sync_info: { latest_block_height: string; latest_app_hash: string; earliest_block_hash: string };
    };
    // CometBFT saves a block before the app runs it, so a block it stopped in may count: last or last + 1.
    expect(Number(status.sync_info.latest_block_height) - last).toBeGreaterThanOrEqual(0);
    expect(Number(status.sync_info.latest_block_height) - last).toBeLessThanOrEqual(1);
    expect(status.sync_info.earliest_block_hash).toBe(first.block_id.hash);
    expect(status.sync_info.latest_app_hash).toMatch(/^[0-9A-F]{64}$/);
  });
});
