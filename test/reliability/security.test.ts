import { createHash } from "node:crypto";
import { lookup } from "node:dns/promises";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createConnection, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { parseListenAddress } from "@chaind/core/listen-address";
import { silentLogger } from "@chaind/core/logger";
import {
  QueryBalanceRequestSchema,
  QueryBalanceResponseSchema,
} from "@chaind/proto/sdk/bank/v1beta1/query_pb";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { TxRawSchema } from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import { QueryCurrentPlanResponseSchema } from "@chaind/proto/sdk/upgrade/v1beta1/query_pb";
import { MsgCancelUpgradeSchema, MsgSoftwareUpgradeSchema } from "@chaind/proto/sdk/upgrade/v1beta1/tx_pb";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AddressCodec } from "../../node/src/app/address-codec.js";
import type { TxResult } from "../../node/src/app/tx-result.js";
import { ChainNode } from "../../node/src/chain/chain-node.js";
import { signTxDirect } from "../../node/src/client/direct-signing.js";
import { readAppConfig } from "../../node/src/config/app-config.js";
import { readNodeConfig } from "../../node/src/config/node-config.js";
import { moduleAddress } from "../../node/src/crypto/address.js";
import type { NodeServer } from "../../node/src/server/node-server.js";
import { RestGateway } from "../../node/src/server/rest/rest-gateway.js";
import { restRoutes } from "../../node/src/server/rest/rest-routes.js";
import { queryBackend, startRestServer } from "../../node/src/server/rest/rest-server.js";
import { JsonRpcServer } from "../../node/src/server/rpc/json-rpc-server.js";
import { rpcMethods } from "../../node/src/server/rpc/rpc-methods.js";
import { startRpcServer } from "../../node/src/server/rpc/rpc-server.js";
import { installArtifact } from "../../supervisor/src/artifacts/artifact-install.js";
import { ensureUpgradeBinary } from "../../supervisor/src/artifacts/upgrade-binary.js";
import { loadVisorConfig } from "../../supervisor/src/config/visor-config.js";
import { VisorLayout } from "../../supervisor/src/home/visor-layout.js";
import { chaind } from "../node/helpers/chaind-process.js";
import { anyOf } from "../node/helpers/signed-tx.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../node/helpers/test-home.js";
import { exchange } from "./http-exchange.js";
import { tarOf } from "./tar-builder.js";

const alice = testAccount("alice");
const bob = testAccount("bob");
const gov = new AddressCodec("sdk").toString(moduleAddress("gov"));
const FEE = { amount: [{ denom: "stake", amount: "2000" }], gasLimit: 400_000n };

const connect = (address: string) =>
  new Promise<Socket>((resolve, reject) => {
    const { hostname, port } = new URL(address);
    const s = createConnection(Number(port), hostname, () => resolve(s));
    s.once("error", reject);
  });

/** Everything the server sends until it closes the connection (or "" if it never answers). */
const untilClosed = (s: Socket) =>
  new Promise<string>((resolve) => {
    let text = "";
    s.setEncoding("utf8");
    s.on("data", (d: string) => {
      text += d;
    });
    s.on("error", () => {});
    s.on("close", () => resolve(text));
  });

describe("transactions that must not pass", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode;
  let sequence = 0n;

  const sign = (
    messages: Parameters<typeof signTxDirect>[0]["messages"],
    opts: { seq?: bigint; chainId?: string } = {},
  ) =>
    signTxDirect(
      { messages, fee: FEE },
      [alice.signer(0n, opts.seq ?? sequence)],
      opts.chainId ?? home.chainId,
    );
  const send = (amount: string, opts: { seq?: bigint; chainId?: string } = {}) =>
    sign(
      [
        anyOf(MsgSendSchema, {
          fromAddress: alice.address,
          toAddress: bob.address,
          amount: [{ denom: "stake", amount }],
        }),
      ],
      opts,
    );
  /** Through CheckTx into a block; answers the deliver result (or the CheckTx refusal). */
  const deliver = async (tx: Uint8Array): Promise<{ check: TxResult; result?: TxResult }> => {
    const check = await node.mempool.add(tx);
    if (check.code !== 0) return { check };
    const block = await node.producer.produce();
    sequence++;
    return { check, result: block.txResults[0] };
  };
  const withSignature = (tx: Uint8Array, edit: (sig: Uint8Array) => Uint8Array) => {
    const raw = fromBinary(TxRawSchema, tx);
    raw.signatures = [edit(Uint8Array.from(raw.signatures[0]))];
    return toBinary(TxRawSchema, raw);
  };
  const currentPlan = async () => {
    const r = await node.app.query("/sdk.upgrade.v1beta1.Query/CurrentPlan", new Uint8Array(), 0);
    return fromBinary(QueryCurrentPlanResponseSchema, r.value).plan;
  };

  beforeAll(async () => {
    home = makeTestHome({ accounts: [{ account: alice, coins: "100000000stake" }] });
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    await node.producer.produce();
  });
  afterAll(async () => {
    await node?.close();
    home?.cleanup();
  });

  it("refuses MsgSoftwareUpgrade and MsgCancelUpgrade from a normal account with the authority error", async () => {
    const plan = { name: "evil", height: 1000n, info: "" };
    for (const msg of [
      anyOf(MsgSoftwareUpgradeSchema, { authority: alice.address, plan }),
      anyOf(MsgCancelUpgradeSchema, { authority: alice.address }),
    ]) {
      const { check, result } = await deliver(await sign([msg]));
      expect(check.code, check.log).toBe(0);
      expect(result?.codespace).toBe("upgrade");
      expect(result?.code).toBe(7);
      expect(result?.log).toContain(`expected ${gov} got ${alice.address}`);
      expect(result?.log).toContain("expected authority account as only signer for proposal message");
    }
    expect(await currentPlan()).toBeUndefined();
  });

  it("refuses an upgrade naming the gov authority but signed by a normal account", async () => {
    const msg = anyOf(MsgSoftwareUpgradeSchema, {
      authority: gov,
      plan: { name: "evil", height: 1000n, info: "" },
    });
    const { check, result } = await deliver(await sign([msg]));
    expect(result).toBeUndefined();
    expect(check.code).not.toBe(0);
    expect(check.codespace).toBe("sdk");
    expect(check.log.length).toBeGreaterThan(0);
    expect(await currentPlan()).toBeUndefined();
  });

  it("refuses a forged signature, a borrowed public key, a wrong chain id and a high-S signature", async () => {
    const good = await send("1");
    const forged = withSignature(good, (sig) => {
      sig[10] ^= 1;
      return sig;
    });
    const wrongChain = await send("1", { chainId: "other-chain" });
    const highS = withSignature(good, (sig) => {
      const s = BigInt(`0x${Buffer.from(sig.subarray(32)).toString("hex")}`);
      const flipped = secp256k1.Point.CURVE().n - s;
      sig.set(Buffer.from(flipped.toString(16).padStart(64, "0"), "hex"), 32);
      return sig;
    });
    // The same r with n - s still verifies mathematically: only the low-S rule refuses it.
    const raw = fromBinary(TxRawSchema, highS);
    expect(raw.signatures[0]).not.toEqual(fromBinary(TxRawSchema, good).signatures[0]);
    const borrowed = await signTxDirect(
      {
        messages: [
          anyOf(MsgSendSchema, {
            fromAddress: alice.address,
            toAddress: bob.address,
            amount: [{ denom: "stake", amount: "1" }],
          }),
        ],
        fee: FEE,
      },
      [{ ...bob.signer(0n, sequence), sign: alice.signer(0n, sequence).sign }],
      home.chainId,
    );
    for (const [name, tx, code] of [
      ["forged", forged, 4],
      ["wrong chain id", wrongChain, 4],
      ["high S", highS, 4],
      ["borrowed public key", borrowed, 8],
    ] as const) {
      const r = await node.mempool.add(tx);
      expect(r.code, `${name}: ${r.log}`).toBe(code);
      expect(r.codespace, name).toBe("sdk");
    }
    expect((await node.mempool.add(wrongChain)).log).toMatch(
      /signature verification failed; please verify account number \(0\).* chain-id \(test-chain\)/,
    );
    // The honest tx still goes through afterwards.
    expect((await deliver(good)).result?.code).toBe(0);
  });

  it("keeps nothing from a simulated tx: balances, sequence and app hash stay, and the tx still goes through", async () => {
    const balance = async (address: string) => {
      const req = toBinary(
        QueryBalanceRequestSchema,
        create(QueryBalanceRequestSchema, { address, denom: "stake" }),
      );
      const r = await node.app.query("/sdk.bank.v1beta1.Query/Balance", req, 0);
      return fromBinary(QueryBalanceResponseSchema, r.value).balance?.amount;
    };
    const tx = await send("1234");
    const before = [await balance(alice.address), await balance(bob.address)];
    const hash = Buffer.from(node.store.latestAppHash).toString("hex");
    for (let i = 0; i < 3; i++) expect((await node.app.simulate(tx)).result.code).toBe(0);
    expect([await balance(alice.address), await balance(bob.address)]).toEqual(before);
    expect(Buffer.from(node.store.latestAppHash).toString("hex")).toBe(hash);
    expect((await deliver(tx)).result?.code).toBe(0);
    expect(await balance(bob.address)).toBe(String(BigInt(before[1] ?? "0") + 1234n));
  });

  it("refuses a replayed tx and a second tx with a used sequence", async () => {
    const tx = await send("5");
    expect((await deliver(tx)).result?.code).toBe(0);
    const replay = await node.mempool.add(tx);
    expect(replay.code, replay.log).toBe(32);
    expect(replay.log).toMatch(/account sequence mismatch, expected \d+, got \d+/);
    const reused = await node.mempool.add(await send("6", { seq: sequence - 1n }));
    expect(reused.code, reused.log).toBe(32);
    // Twice into the same block: the second copy is refused by the mempool's cache.
    const next = await send("7");
    expect((await node.mempool.add(next)).code).toBe(0);
    const again = await node.mempool.add(next);
    expect(again.code).not.toBe(0);
    const block = await node.producer.produce();
    sequence++;
    expect(block.txResults.map((r) => r.code)).toEqual([0]);
  });
});

describe("a fresh `chaind init` home", () => {
  let home: string;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "chaind-init-"));
    const r = await chaind(["init", "node0", "--chain-id", "sec-1", "--home", home]);
    expect(r.exitCode, String(r.stderr)).toBe(0);
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  const isLoopback = async (host: string) => {
    const all = await lookup(host, { all: true });
    return all.length > 0 && all.every((a) => a.address === "::1" || a.address.startsWith("127."));
  };

  it("binds every listener to loopback and keeps REST, Swagger and CORS off", async () => {
    const app = readAppConfig(join(home, "config", "app.toml"));
    const cfg = readNodeConfig(join(home, "config", "config.toml"));
    const addresses = {
      "app.toml api.address": app.api.address,
      "app.toml grpc.address": app.grpc.address,
      "app.toml telemetry.address": app.telemetry.address,
      "config.toml rpc.laddr": cfg.rpc.laddr,
    };
    for (const [setting, address] of Object.entries(addresses)) {
      const { host } = parseListenAddress(address, setting);
      expect(await isLoopback(host), `${setting} = ${address}`).toBe(true);
    }
    expect(app.api.enable).toBe(false);
    expect(app.api.swagger).toBe(false);
    expect(app.api.enabledUnsafeCors).toBe(false);
    // Limits are on by default, at Cosmos's / CometBFT's values.
    expect(app.api.rpcReadTimeout).toBe(10);
    expect(app.api.rpcMaxBodyBytes).toBe(1_000_000);
    expect(app.api.maxOpenConnections).toBe(1000);
    expect(cfg.rpc.readTimeoutMs).toBe(10_000);
    expect(cfg.rpc.maxBodyBytes).toBe(1_000_000);
    expect(cfg.rpc.maxOpenConnections).toBe(900);
  });

  it("a `chaind testnet` home turns the listeners on, still on loopback only, with CORS off", async () => {
    const dev = mkdtempSync(join(tmpdir(), "chaind-testnet-"));
    try {
      const r = await chaind(["testnet", "--home", join(dev, "h")]);
      expect(r.exitCode, String(r.stderr)).toBe(0);
      const app = readAppConfig(join(dev, "h", "config", "app.toml"));
      const cfg = readNodeConfig(join(dev, "h", "config", "config.toml"));
      for (const [setting, address] of [
        ["api.address", app.api.address],
        ["grpc.address", app.grpc.address],
        ["telemetry.address", app.telemetry.address],
        ["rpc.laddr", cfg.rpc.laddr],
      ]) {
        const { host } = parseListenAddress(address, setting);
        expect(await isLoopback(host), `${setting} = ${address}`).toBe(true);
      }
      expect(app.api.enable).toBe(true);
      expect(app.api.enabledUnsafeCors).toBe(false);
    } finally {
      rmSync(dev, { recursive: true, force: true });
    }
  });

  it("serves on loopback from those addresses, without Swagger or CORS, and holds the body and header limits", async () => {
    const node = await ChainNode.open({ home, definition: TEST_DEFINITION }, { logger: silentLogger });
    const servers: NodeServer[] = [];
    try {
      // Only the ports change (others may hold 1317 / 26657); host, switches and limits stay as init wrote them.
      node.appConfig.api.enable = true;
      node.appConfig.api.address = node.appConfig.api.address.replace(/:\d+$/, ":0");
      node.nodeConfig.rpc.laddr = node.nodeConfig.rpc.laddr.replace(/:\d+$/, ":0");
      const api = (await startRestServer(node, { logger: silentLogger })) as NodeServer;
      servers.push(api);
      const rpc = (await startRpcServer(node, { logger: silentLogger })) as NodeServer;
      servers.push(rpc);
      await node.producer.produce();
      for (const s of servers)
        expect(await isLoopback(new URL(s.address).hostname.replace(/^\[|\]$/g, ""))).toBe(true);

      expect((await exchange(api.address, { method: "GET", path: "/swagger/" })).status).toBe(404);
      const preflight = await exchange(api.address, {
        method: "OPTIONS",
        path: "/sdk/bank/v1beta1/params",
        headers: { origin: "http://evil.test", "access-control-request-method": "GET" },
      });
      expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();
      const get = await exchange(api.address, {
        method: "GET",
        path: "/sdk/bank/v1beta1/params",
        headers: { origin: "http://evil.test" },
      });
      expect(get.status).toBe(200);
      expect(get.headers["access-control-allow-origin"]).toBeUndefined();

      const huge = "A".repeat(1_500_000);
      const restBody = await exchange(api.address, {
        method: "POST",
        path: "/sdk/tx/v1beta1/simulate",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ tx_bytes: huge }),
      });
      expect(restBody.status).toBe(413);
      expect(JSON.parse(restBody.text)).toMatchObject({
        code: 8,
        message: "request body exceeds 1000000 bytes",
      });
      const rpcBody = await exchange(rpc.address, {
        method: "POST",
        path: "/",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "broadcast_tx_sync", params: { tx: huge } }),
      });
      expect(rpcBody.status).toBe(413);
      expect(JSON.parse(rpcBody.text).error).toMatchObject({
        code: -32600,
        data: "request body exceeds 1000000 bytes",
      });

      for (const s of servers) {
        const big = await exchange(s.address, {
          method: "GET",
          path: "/",
          headers: { "x-big": "b".repeat(20_000) },
        });
        expect(big.status, s.name).toBe(431);
      }
      // Still serving after all that.
      expect((await exchange(api.address, { method: "GET", path: "/sdk/bank/v1beta1/params" })).status).toBe(
        200,
      );
      expect((await exchange(rpc.address, { method: "GET", path: "/health" })).status).toBe(200);
    } finally {
      for (const s of servers.reverse()) await s.close();
      await node.close();
    }
  });
});

describe("slow and greedy clients", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode;
  let rest: RestGateway;
  let rpc: JsonRpcServer;

  beforeAll(async () => {
    home = makeTestHome();
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    await node.producer.produce();
    rest = await RestGateway.start(
      {
        host: "127.0.0.1",
        port: 0,
        maxOpenConnections: 3,
        readTimeoutMs: 600,
        writeTimeoutMs: 0,
        maxBodyBytes: 1000,
        cors: false,
      },
      restRoutes(node.app.registrar.queryServices),
      { backend: queryBackend(node), logger: silentLogger, metrics: null },
    );
    rpc = await JsonRpcServer.start(
      {
        host: "127.0.0.1",
        port: 0,
        maxBodyBytes: 1000,
        readTimeoutMs: 600,
        maxOpenConnections: 3,
        writeTimeoutMs: 600,
      },
      rpcMethods(node),
      { logger: silentLogger },
    );
  });
  afterAll(async () => {
    await rest?.close();
    await rpc?.close();
    await node?.close();
    home?.cleanup();
  });

  /** Sends `text` one byte every `everyMs` until the server closes; answers what it said and how much was sent. */
  const trickle = async (address: string, text: string, everyMs: number) => {
    const s = await connect(address);
    const closed = untilClosed(s);
    let i = 0;
    const timer = setInterval(() => {
      if (i < text.length && !s.destroyed) s.write(text[i++]);
    }, everyMs);
    const answer = await closed;
    clearInterval(timer);
    return { answer, sent: i };
  };

  for (const which of ["REST", "RPC"] as const) {
    const address = () => (which === "REST" ? rest.address : rpc.address);

    it(`${which}: times out a client sending its headers a byte at a time`, async () => {
      const headers = `GET /health HTTP/1.1\r\nHost: x\r\n${"X-Pad: ".padEnd(400, "p")}\r\n\r\n`;
      const { answer, sent } = await trickle(address(), headers, 20);
      // Cut off before the last byte: at this pace the headers would take 8 s, the read timeout is 600 ms.
      expect(sent).toBeLessThan(headers.length);
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
    });

    it(`${which}: times out a client sending its body a byte at a time`, async () => {
      const head = `POST ${which === "REST" ? "/sdk/tx/v1beta1/simulate" : "/"} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n`;
      const s = await connect(address());
      const closed = untilClosed(s);
      s.write(head);
      // The body never ends: only the server's read timeout ends this (else the test's own timeout fails it).
      const timer = setInterval(() => {
        if (!s.destroyed) s.write(" ");
      }, 20);
      const answer = await closed;
      clearInterval(timer);
      expect(answer === "" || /^HTTP\/1\.1 408/.test(answer), answer).toBe(true);
    });

    it(`${which}: shrugs off clients that hang up halfway through their body`, async () => {
      const path = which === "REST" ? "/sdk/tx/v1beta1/simulate" : "/";
      for (let i = 0; i < 20; i++) {
        const s = await connect(address());
        s.on("error", () => {});
        s.write(
          `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 900\r\n\r\n{"tx`,
        );
        await new Promise((r) => setTimeout(r, 5));
        if (i % 2) s.destroy();
        else s.resetAndDestroy();
      }
      const health = which === "REST" ? "/sdk/bank/v1beta1/params" : "/health";
      expect((await exchange(address(), { method: "GET", path: health })).status).toBe(200);
    });

    it(`${which}: refuses ambiguous framing (request smuggling) with 400 and closes the connection`, async () => {
      const path = which === "REST" ? "/sdk/tx/v1beta1/simulate" : "/";
      const framings = [
        "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
        "Content-Length: 5\r\nContent-Length: 6\r\n",
        "Transfer-Encoding: chunked, identity\r\n",
        "Content-Length: -1\r\n",
        "Content-Length: 1e3\r\n",
      ];
      for (const framing of framings) {
        const s = await connect(address());
        const closed = untilClosed(s);
        s.write(
          `POST ${path} HTTP/1.1\r\nHost: x\r\n${framing}\r\n0\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n`,
        );
        const answer = await closed;
        expect(answer, framing).toMatch(/^HTTP\/1\.1 400/);
        // Only the one refusal: nothing smuggled behind it was answered.
        expect(answer.split("HTTP/1.1").length - 1, framing).toBe(1);
      }
    });

    it(`${which}: closes a connection that never sends a byte`, async () => {
      const s = await connect(address());
      // Node's own header deadline is 60 s, the test's timeout: closing before it is the read timeout at work.
      const answer = await untilClosed(s);
      expect(answer === "" || /^HTTP\/1\.1 408/.test(answer), answer).toBe(true);
    });

    if (which === "RPC")
      it("RPC: closes the connection of a client that sends requests but never reads the answers", async () => {
        const s = await connect(address());
        s.pause();
        s.on("error", () => {});
        // Listened for from the start: a reset arrives as an error and a close even while the socket is paused.
        const closed = new Promise<void>((r) => s.once("close", () => r()));
        // Pipelined requests whose answers fill the socket buffers, since the client reads none of them.
        const requests = 20_000;
        s.write("GET /genesis HTTP/1.1\r\nHost: x\r\n\r\n".repeat(requests));
        // Paused until the server gives up (its reset reaches even a paused socket), or long enough for its answers
        // to fill every buffer between the two however slowly this machine serves them.
        await Promise.race([closed, new Promise((r) => setTimeout(r, 20_000))]);
        // A paused socket does not see the close: read now. A server that gave up sent only part of the answers.
        let received = "";
        s.setEncoding("latin1");
        s.on("data", (d: string) => {
          received += d;
        });
        s.resume();
        // A server that never gave up would hold the connection until the test's own timeout.
        await closed;
        // The reset may discard answers the client never read (a loaded machine reads none in time), so only
        // that it did not get them all is checked.
        const answered = received.split("HTTP/1.1 200").length - 1;
        expect(answered).toBeLessThan(requests);
        expect((await exchange(address(), { method: "GET", path: "/health" })).status).toBe(200);
      });

    if (which === "RPC")
      it("RPC: keeps an answered keep-alive connection open past the write timeout", async () => {
        const s = await connect(address());
        s.setEncoding("utf8");
        let text = "";
        s.on("data", (d: string) => {
          text += d;
        });
        s.write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
        await new Promise((r) => setTimeout(r, 1000));
        expect(s.destroyed).toBe(false);
        s.write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
        await new Promise((r) => setTimeout(r, 200));
        expect(text.split("HTTP/1.1 200").length - 1).toBe(2);
        s.destroy();
      });

    it(`${which}: drops connections beyond its maximum and serves again once they close`, async () => {
      const held = await Promise.all([connect(address()), connect(address()), connect(address())]);
      const extra = await connect(address());
      expect(await untilClosed(extra)).toBe("");
      for (const s of held) s.destroy();
      let status = 0;
      for (let i = 0; i < 40 && status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 50));
        status = await exchange(address(), {
          method: "GET",
          path: which === "REST" ? "/sdk/bank/v1beta1/params" : "/health",
          headers: { connection: "close" },
        }).then(
          (a) => a.status,
          () => 0,
        );
      }
      expect(status).toBe(200);
    });
  }
});

describe("binaries visor downloads", () => {
  let root: string;
  let server: Server;
  let base: string;
  const files = new Map<string, Buffer>();

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "visor-modes-"));
    server = createServer((req, res) => {
      const body = files.get(req.url ?? "");
      if (!body) return res.writeHead(404).end();
      res.writeHead(200, { "content-length": body.length }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    rmSync(root, { recursive: true, force: true });
  });

  const script = "#!/bin/sh\necho v2\n";
  const cases: [string, Buffer][] = [
    ["a plain binary", Buffer.from(script)],
    [
      "a gzipped archive asking 0777",
      tarOf([{ path: "bin/chaind", data: script, mode: 0o777 }], { gzip: true }),
    ],
    [
      "an archive with the binary at the top, asking 0666",
      tarOf([{ path: "chaind", data: script, mode: 0o666 }]),
    ],
  ];

  for (const [what, body] of cases) {
    for (const umask of [0o022, 0o002, 0]) {
      it(`installs ${what} through a real download as 0755 under umask ${umask.toString(8).padStart(3, "0")}`, async () => {
        const home = mkdtempSync(join(root, "home-"));
        const path = `/${what.replace(/\W+/g, "-")}-${umask}`;
        files.set(path, body);
        const sha = createHash("sha256").update(body).digest("hex");
        const config = loadVisorConfig({
          DAEMON_HOME: home,
          DAEMON_NAME: "chaind",
          DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
          UNSAFE_SKIP_BACKUP: "true",
        });
        const layout = new VisorLayout(config);
        const info = JSON.stringify({ binaries: { any: `${base}${path}?checksum=sha256:${sha}` } });
        const mask = process.umask(umask);
        let bin: string;
        try {
          bin = await ensureUpgradeBinary({ name: "v2", height: 10, info }, layout, config, {
            logger: silentLogger,
          });
        } finally {
          process.umask(mask);
        }
        expect(bin).toBe(join(layout.upgradeDir("v2"), "bin", "chaind"));
        expect(statSync(bin).mode & 0o777).toBe(0o755);
      });
    }
  }

  it("installArtifact makes a downloaded plain file 0755 whatever mode it came with", async () => {
    const dir = mkdtempSync(join(root, "plain-"));
    const file = join(dir, "download");
    const { writeFileSync, chmodSync } = await import("node:fs");
    writeFileSync(file, script);
    chmodSync(file, 0o666);
    const bin = await installArtifact(file, dir, "chaind");
    expect(statSync(bin).mode & 0o777).toBe(0o755);
  });
});
