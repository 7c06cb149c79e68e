import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../harness/src/free-listener-ports.js";
import { ChainNode } from "../../node/src/chain/chain-node.js";
import { MsgSoftwareUpgradeSchema } from "../../node/src/gen/sdk/upgrade/v1beta1/tx_pb.js";
import { silentLogger } from "../../node/src/logging/logger.js";
import type { NodeServer } from "../../node/src/server/node-server.js";
import { closeNodeServers, startNodeServers } from "../../node/src/server/node-servers.js";
import { NodeApi } from "../../supervisor/src/node-api.js";
import { nodeListenAddresses } from "../../supervisor/src/node-listen-addresses.js";
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
  const api = (a: { grpc: string; rest: string; rpc: string }) => {
    const n = new NodeApi(a);
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

  it("reads the node's listen addresses from its home, with the Cosmos defaults where none is fixed", () => {
    // makeTestHome lets the OS pick ports (port 0), which visor cannot dial: the defaults stand in.
    expect(nodeListenAddresses(home.home)).toEqual({
      grpc: "localhost:9090",
      rest: "http://127.0.0.1:1317",
      rpc: "http://127.0.0.1:26657",
    });
    const fixed = mkdtempSync(join(tmpdir(), "visor-listen-"));
    mkdirSync(join(fixed, "config"));
    writeFileSync(
      join(fixed, "config", "app.toml"),
      '[api]\naddress = "tcp://0.0.0.0:2317"\n[grpc]\naddress = "[::1]:9191"\n',
    );
    writeFileSync(join(fixed, "config", "config.toml"), '[rpc]\nladdr = "tcp://127.0.0.1:36657"\n');
    expect(nodeListenAddresses(fixed)).toEqual({
      grpc: "[::1]:9191",
      rest: "http://127.0.0.1:2317",
      rpc: "http://127.0.0.1:36657",
    });
    rmSync(fixed, { recursive: true });
  });
});
