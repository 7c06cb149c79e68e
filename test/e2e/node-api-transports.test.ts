import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@chaind/core/logger";
import { freePort } from "@chaind/harness/free-listener-ports";
import { MsgSoftwareUpgradeSchema } from "@chaind/proto/sdk/upgrade/v1beta1/tx_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainNode } from "../../node/src/chain/chain-node.js";
import type { NodeServer } from "../../node/src/server/node-server.js";
import { closeNodeServers, startNodeServers } from "../../node/src/server/node-servers.js";
import { nodeListenAddresses } from "../../supervisor/src/config/node-listen-addresses.js";
import { NodeApi } from "../../supervisor/src/daemon/node-api.js";
import {
  homeIdentity,
  type NodeIdentity,
  readNodeIdentity,
} from "../../supervisor/src/daemon/node-identity.js";
import { NODE_QUERY_MAX_BYTES } from "../../supervisor/src/daemon/node-query.js";
import { GrpcNodeQuery } from "../../supervisor/src/daemon/node-query-grpc.js";
import { RestNodeQuery } from "../../supervisor/src/daemon/node-query-rest.js";
import { RpcNodeQuery } from "../../supervisor/src/daemon/node-query-rpc.js";
import { GOV_ADDRESS, passProposal } from "../node/helpers/gov-flow.js";
import { anyOf, TxSigner } from "../node/helpers/signed-tx.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../node/helpers/test-home.js";

const alice = testAccount("alice");

describe("visor asks the node over gRPC, then REST, then RPC", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode;
  let servers: NodeServer[];
  const at: Record<string, string> = {};
  let closed: string;
  const apis: NodeApi[] = [];
  const api = (addresses: { grpc: string; rest: string; rpc: string }, identity?: NodeIdentity) => {
    const n = new NodeApi(
      { addresses, identity: identity ? () => identity : homeIdentity(home.home) },
      { logger: silentLogger },
    );
    apis.push(n);
    return n;
  };

  beforeAll(async () => {
    home = makeTestHome({
      accounts: [{ account: alice, coins: "10000000000stake" }],
      validator: { account: alice, stake: 1_000_000n },
      govPeriodMs: 1000,
      tuneApp: (c) => {
        c.api.enable = true;
      },
    });
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    servers = await startNodeServers(node, { logger: silentLogger });
    for (const s of servers) at[s.name] = s.address;
    await node.producer.produce();
    await passProposal(node, new TxSigner(alice, 0n, home.chainId), [
      anyOf(MsgSoftwareUpgradeSchema, {
        authority: GOV_ADDRESS,
        plan: { name: "v2", height: 1000n, info: '{"binaries":{}}' },
      }),
    ]);
    // Nothing listens here: a port that was free a moment ago.
    closed = `127.0.0.1:${await freePort()}`;
  });
  afterAll(async () => {
    for (const a of apis) a.close();
    await closeNodeServers(servers ?? []);
    await node?.close();
    home?.cleanup();
  });

  const expected = () => ({ name: "v2", height: 1000, info: '{"binaries":{}}' });

  it("answers the same height and plan over each transport, and keeps to the one that answered", async () => {
    const all = { grpc: at.grpc, rest: at.api, rpc: at.rpc };
    const cases = [
      { addresses: all, via: /^gRPC /, height: node.store.latestHeight },
      { addresses: { ...all, grpc: closed }, via: /^REST http:/ },
      { addresses: { ...all, grpc: closed, rest: `http://${closed}` }, via: /^RPC http:/ },
    ];
    for (const c of cases) {
      const a = api(c.addresses);
      expect(await a.currentPlan()).toEqual(expected());
      expect(a.via).toMatch(c.via);
      expect(await a.height()).toBe(node.store.latestHeight);
      expect(a.via).toMatch(c.via);
    }
  });

  it("names every transport that failed when none answers", async () => {
    const a = api({ grpc: closed, rest: `http://${closed}`, rpc: `http://${closed}` });
    const err = await a.height().catch((e: Error & { code?: string }) => e);
    expect(err).toMatchObject({ code: "NODE_API" });
    expect((err as Error).message).toMatch(/gRPC 127\.0\.0\.1:\d+ .*REST http:\/\/127.*RPC http:\/\/127/);
  });

  it("stops reading an answer past its size limit on REST and RPC: whatever holds the port cannot fill visor's memory", async () => {
    // A stand-in for a hostile server on the node's ports: an endless JSON body, never finished.
    const endless = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"jsonrpc":"2.0","id":1,"result":"');
      const chunk = "x".repeat(64 * 1024);
      const more = () => {
        while (res.write(chunk));
      };
      res.on("drain", more);
      more();
    });
    await new Promise<void>((r) => endless.listen(0, "127.0.0.1", () => r()));
    const url = `http://127.0.0.1:${(endless.address() as AddressInfo).port}`;
    try {
      for (const q of [new RestNodeQuery(url), new RpcNodeQuery(url)]) {
        const err = await q.nodeInfo().catch((e: Error) => e);
        expect(err).toMatchObject({ code: "NODE_API" });
        expect((err as Error).message).toContain(`answer larger than ${NODE_QUERY_MAX_BYTES} bytes`);
      }
    } finally {
      endless.closeAllConnections();
      await new Promise((r) => endless.close(r));
    }
  });

  it("answers who it is the same way on gRPC, REST and RPC: the home's chain id and its key's node id", async () => {
    const identity = readNodeIdentity(home.home) as NodeIdentity;
    expect(identity.chainId).toBe(home.chainId);
    // As a CometBFT node's, chaind's node id is node_key.json's.
    expect(identity.nodeIds.map((n) => n.file)).toEqual(["node_key.json", "priv_validator_key.json"]);
    const expected = { chainId: home.chainId, nodeId: identity.nodeIds[0].id };
    const grpc = new GrpcNodeQuery(at.grpc);
    try {
      expect(await grpc.nodeInfo()).toEqual(expected);
    } finally {
      grpc.close();
    }
    expect(await new RestNodeQuery(at.api).nodeInfo()).toEqual(expected);
    expect(await new RpcNodeQuery(at.rpc).nodeInfo()).toEqual(expected);
  });

  it("refuses the real node when the home says it is another chain or another node, naming what differed", async () => {
    const own = readNodeIdentity(home.home) as NodeIdentity;
    const all = { grpc: at.grpc, rest: at.api, rpc: at.rpc };
    const otherChain = api(all, { ...own, chainId: "other-chain" });
    const err = await otherChain.currentPlan().catch((e: Error & { code?: string }) => e);
    expect(err).toMatchObject({ code: "NODE_API" });
    expect((err as Error).message).toMatch(
      /gRPC .* answers chain id "test-chain" \(the home's genesis: "other-chain"\)/,
    );
    const otherNode = api(all, { ...own, nodeIds: [{ id: "ab".repeat(20), file: "node_key.json" }] });
    const err2 = await otherNode.height().catch((e: Error) => e);
    expect((err2 as Error).message).toMatch(
      /RPC .* answers node id "[0-9a-f]{40}" \(the home's keys: (ab){20} in node_key.json\)/,
    );
    const unknown = api(all, { problem: "no keys" } as unknown as NodeIdentity);
    expect(((await unknown.height().catch((e: Error) => e)) as Error).message).toMatch(
      /cannot be checked: no keys/,
    );
  });

  it("reads the node's listen addresses from its home: only enabled transports, never a guessed port", () => {
    // makeTestHome lets the OS pick ports (port 0), which visor cannot dial: none is asked (not the defaults,
    // where anyone may listen).
    expect(nodeListenAddresses(home.home)).toEqual({ grpc: "", rest: "", rpc: "" });
    const fixed = mkdtempSync(join(tmpdir(), "visor-listen-"));
    mkdirSync(join(fixed, "config"));
    const write = (app: string, node: string) => {
      writeFileSync(join(fixed, "config", "app.toml"), app);
      writeFileSync(join(fixed, "config", "config.toml"), node);
    };
    // No files: Cosmos's defaults, REST off.
    expect(nodeListenAddresses(fixed)).toEqual({
      grpc: "localhost:9090",
      rest: "",
      rpc: "http://127.0.0.1:26657",
    });
    write(
      '[api]\nenable = true\naddress = "tcp://0.0.0.0:2317"\n[grpc]\naddress = "[::1]:9191"\n',
      '[rpc]\nladdr = "tcp://127.0.0.1:36657"\n',
    );
    expect(nodeListenAddresses(fixed)).toEqual({
      grpc: "[::1]:9191",
      rest: "http://127.0.0.1:2317",
      rpc: "http://127.0.0.1:36657",
    });
    write(
      '[api]\nenable = false\naddress = "tcp://127.0.0.1:2317"\n[grpc]\nenable = false\naddress = "127.0.0.1:9191"\n',
      '[rpc]\nladdr = ""\n',
    );
    expect(nodeListenAddresses(fixed)).toEqual({ grpc: "", rest: "", rpc: "" });
    write("[api]\nenable = true\n", "");
    expect(nodeListenAddresses(fixed)).toEqual({
      grpc: "localhost:9090",
      rest: "http://127.0.0.1:1317",
      rpc: "http://127.0.0.1:26657",
    });
    rmSync(fixed, { recursive: true });
  });
});
